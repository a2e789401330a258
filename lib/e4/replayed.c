/*
 * replayed.c --- open the replayed state of an image read-only: the image
 * with every committed transaction of its journal applied, read through
 * the overlay io_manager (overlay_io.c), so nothing is written.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "e4.h"

errcode_t e4_replayed_open(ext2_filsys fs, const char *image,
			   const char *journal_dev, struct e4_replayed *r)
{
	struct e4_ovl_ent *ents = NULL;
	io_channel src = fs->io;
	size_t n = 0;
	errcode_t retval;

	memset(r, 0, sizeof(*r));
	retval = e4_journal_open(fs, journal_dev, 0, &r->j);
	if (retval == E4_ERR_NO_JOURNAL &&
	    !ext2fs_has_feature_journal_needs_recovery(fs->super)) {
		/* No journal and nothing to recover: S_n is the image. */
		retval = 0;
	} else if (retval) {
		goto fail;
	} else {
		retval = e4_journal_scan(r->j, 0, 0, &r->scan);
		if (retval)
			goto fail;
		retval = r->scan->fail;
		if (!retval && r->scan->fc)
			retval = r->scan->fc->fail;
		if (!retval)
			retval = e4_overlay_map_state(r->j, r->scan,
						      r->scan->ncommitted,
						      &ents, &n);
		if (retval)
			goto fail;
		src = r->j->io;
	}
	retval = e4_overlay_create(image, src, fs->blocksize, ents, n,
				   &r->ov);
	ext2fs_free_mem(&ents);
	if (!retval)
		retval = e4_overlay_open_fs(r->ov, 0, &r->fs);
	if (!retval && r->fs->blocksize != fs->blocksize)
		retval = EXT2_ET_CORRUPT_SUPERBLOCK;
	if (!retval && r->scan && r->scan->fc && r->scan->fc->nreplay)
		retval = e4_replayed_fc(r);	/* fc_state.c */
	if (!retval)
		return 0;
fail:
	e4_replayed_close(r);
	return retval;
}

void e4_replayed_close(struct e4_replayed *r)
{
	if (r->fcst)
		e4_fc_state_close(r->fcst);
	else if (r->fs)
		ext2fs_close_free(&r->fs);
	if (r->ovl_io)
		io_channel_close(r->ovl_io);
	e4_overlay_free(r->ov);
	e4_jscan_free(r->scan);
	e4_journal_close(r->j);
	memset(r, 0, sizeof(*r));
}
