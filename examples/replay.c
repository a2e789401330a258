/*
 * replay.c --- a minimal program on the installed libe4: open an ext4
 * image, replay its journal as the kernel would at mount, print what was
 * replayed, and exit with an fsck-style status.
 *
 * e4_mount_recover() is in libe4's experimental node (E4_EXPERIMENTAL_0):
 * build it against the libe4 of the release it runs with.
 * Build against an installed e4tools (no build tree needed):
 *	cc -o replay examples/replay.c $(pkg-config --cflags --libs e4)
 * Run:
 *	./replay IMAGE
 * Exit status (as e4replay's): 0 nothing to replay, 1 replayed (or the
 * journal's errno carried into the fs), 4 journal corruption met and
 * handled as the kernel does (a log without needs_recovery: left, as the
 * kernel discards it), 8 operational error, 37 a journal the kernel
 * replays and then refuses to mount (its writes made, the journal kept),
 * 44 a journal the kernel refuses (nothing written).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <e4/e4.h>

int main(int argc, char **argv)
{
	struct e4_mount_result res = { 0 };
	const struct e4_mount_decision *d;
	e4_journal_t j = NULL;
	ext2_filsys fs = NULL;
	errcode_t err;
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
		return 16;
	}
	printf("%s\n", e4_version());
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
	if (err && e4_jsb_refused(err)) {
		com_err(argv[0], err, "in the journal of %s: the kernel "
			"refuses to mount it", argv[1]);
		status = 44;
		goto out;
	}
	if (err) {
		com_err(argv[0], err, "while opening the journal of %s",
			argv[1]);
		status = 8;
		goto out;
	}
	/*
	 * What the kernel's mount does, in one call: decide (replay,
	 * discard a log without needs_recovery, refuse), multiple mount
	 * protection, full and fast commits, the journal's errno, the
	 * orphan cleanup.
	 */
	err = e4_mount_recover(j, 0, &res);
	d = &res.decision;
	if (d->action == E4_MOUNT_REFUSE ||
	    d->action == E4_MOUNT_REPLAY_REFUSE ||
	    d->action == E4_MOUNT_DISCARD_REFUSE) {
		com_err(argv[0], d->why, "in the journal of %s at tid %"
			PRIu32 ": %s; %s", argv[1], d->tid, d->reason,
			res.journal_kept ? "written as the kernel writes it, "
			"the journal kept" : "nothing written");
		/* as e4replay: 1 + 4 + 32 after the kernel's writes */
		status = res.journal_kept ? 37 : 44;
		goto out;
	}
	if (err) {
		com_err(argv[0], err, "while replaying the journal of %s",
			argv[1]);
		status = 8;
		goto out;
	}
	if (d->action != E4_MOUNT_REPLAY) {
		printf("%s: %s: %s, nothing replayed%s\n", argv[1],
		       e4_mount_action_name(d->action), d->reason,
		       res.errno_cleared ? " (the journal's errno carried "
		       "into the fs)" : "");
		/* as e4replay: a discarded log is reported as corruption
		 * (4), an errno carried as a change (1) */
		status = d->action == E4_MOUNT_DISCARD ? 4 :
			res.errno_cleared ? 1 : 0;
		goto out;
	}
	printf("%s: replayed %zu transaction(s), tids %" PRIu32 "-%" PRIu32
	       ", %" PRIu64 " fs block(s) written, %" PRIu64 " revoked, %"
	       PRIu32 " fast commit(s), %zu orphan(s) cleaned\n",
	       argv[1], d->ntrans, d->first_tid, d->end_tid - 1,
	       res.replay.nwritten, res.replay.nrevoked, d->nfc,
	       res.orphans.nents);
	status = 1 | (res.replay.corrupt ? 4 : 0);
out:
	e4_mount_result_free(&res);
	e4_journal_close(j);
	if (fs && ext2fs_close_free(&fs) && !status)
		status = 8;
	return status;
}
