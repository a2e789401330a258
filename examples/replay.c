/*
 * replay.c --- a minimal program on the installed libe4: open an ext4
 * image, replay its journal as the kernel would at mount, print what was
 * replayed, and exit with an fsck-style status.
 *
 * Build against an installed e4tools (no build tree needed):
 *	cc -o replay examples/replay.c $(pkg-config --cflags --libs e4)
 * Run:
 *	./replay IMAGE
 * Exit status (as e2fsck's): 0 nothing to replay, 1 replayed, 4 journal
 * corruption met and handled as the kernel does, 8 operational error.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <e4/e4.h>

int main(int argc, char **argv)
{
	struct e4_replay_result res;
	struct e4_jscan *scan = NULL;
	e4_journal_t j = NULL;
	ext2_filsys fs = NULL;
	errcode_t err;
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
		return 16;
	}
	printf("%s\n", e4_version());
	/* size-versioned: a zeroed result is refused (E4_ERR_STRUCT_UNINIT) */
	e4_replay_result_init(&res, sizeof(res));
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);

	/*
	 * Opening read-write: the replay writes the image in place.  A crash
	 * image's superblock checksum may be stale (the journal holds the
	 * newer copy): as e2fsck before recovery, do not insist on it.
	 */
	err = ext2fs_open2(argv[1], NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS |
			   EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			   unix_io_manager, &fs);
	if (err) {
		com_err(argv[0], err, "while opening %s", argv[1]);
		return 8;
	}
	err = e4_journal_open(fs, NULL, E4_JOURNAL_RW, &j);
	if (err == E4_ERR_NO_JOURNAL) {
		printf("%s: no journal, nothing to replay\n", argv[1]);
		goto out;
	}
	if (err) {
		com_err(argv[0], err, "while opening the journal of %s",
			argv[1]);
		status = 8;
		goto out;
	}
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super)) {
		/* The kernel discards a log without needs_recovery. */
		printf("%s: journal clean, nothing to replay\n", argv[1]);
		goto out;
	}
	err = e4_journal_scan(j, 0, 0, &scan);
	if (!err)
		err = e4_journal_recover(j, scan, &res);
	if (err) {
		com_err(argv[0], err, "while replaying the journal of %s",
			argv[1]);
		status = 8;
		goto out;
	}
	printf("%s: replayed %zu transaction(s), tids %" PRIu32 "-%" PRIu32
	       ", %" PRIu64 " fs block(s) written, %" PRIu64 " revoked, %"
	       PRIu32 " fast commit(s)\n",
	       argv[1], scan->ncommitted, scan->start_tid,
	       scan->end_tid - 1, res.nwritten, res.nrevoked,
	       scan->fc ? scan->fc->nfc : 0);
	status = 1 | (res.corrupt ? 4 : 0);
out:
	e4_jscan_free(scan);
	e4_journal_close(j);
	if (fs && ext2fs_close_free(&fs) && !status)
		status = 8;
	return status;
}
