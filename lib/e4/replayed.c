/*
 * replayed.c --- open the replayed state of an image read-only: the image
 * with every committed transaction of its journal applied (plan.c's S_n),
 * read through an overlay (overlay_io.c) stacked on the fs's own channel,
 * so nothing is written.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "e4.h"

errcode_t e4_replayed_open(ext2_filsys fs, const char *journal_dev,
			   struct e4_replayed *r)
{
	e4_error_tables_init();
	return e4_replayed_open_io(fs, journal_dev, NULL, NULL, r);
}

errcode_t e4_replayed_open_io(ext2_filsys fs, const char *journal_dev,
			      io_manager io, const char *io_name,
			      struct e4_replayed *r)
{
	io_channel src = NULL;
	errcode_t retval;

	e4_error_tables_init();
	memset(r, 0, sizeof(*r));
	retval = e4_journal_open_io(fs, journal_dev, io, io_name, 0, &r->j);
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
			retval = e4_plan_build(r->j, r->scan, &r->plan);
		if (!retval)
			retval = e4_state_init(r->plan, &r->st);
		if (!retval)
			retval = e4_state_seek(&r->st, r->plan->ntx);
		if (retval)
			goto fail;
		src = r->j->io;
	}
	retval = e4_overlay_create(fs->io, src, fs->blocksize,
				   ext2fs_blocks_count(fs->super),
				   r->plan ? &r->st : NULL, &r->ov);
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
	e4_state_free(&r->st);
	e4_plan_free(r->plan);
	e4_jscan_free(r->scan);
	e4_journal_close(r->j);
	memset(r, 0, sizeof(*r));
}
