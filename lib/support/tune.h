/*
 * tune.h --- the e4tune parts, shared by e4tune and the e4debug commands
 * that do the same (jsb, itable, itable_finish, lsuw, mark_*): journal
 * superblock (tune_journal.c), lazy inode tables (tune_itable.c),
 * unwritten extents (tune_unwritten.c).  Each takes the request of
 * options.h and an open fs, prints its report (text, or JSON into @js),
 * and returns the tool's exit status (0 or 1, as tune2fs).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_TUNE_H
#define E4_SUPPORT_TUNE_H

#include "e4.h"
#include "json.h"
#include "options.h"

/* tune_journal.c */
/* Nonzero if @r edits the journal superblock (-O, -E journal options). */
int e4s_tune_journal_wants_write(const struct e4s_req *r);
/* Print the journal superblock (-l): text, or JSON into @js. */
int e4s_tune_journal_list(const char *prog, const struct e4s_req *r,
			  ext2_filsys fs, struct e4s_json *js);
/* Print an open journal's superblock as text or JSON; @verifies: its
 * checksum verifies (e4_jsb_csum_ok()); text only: @fs NULL for a journal
 * file opened alone (e4_journal_open_file()). */
void e4s_print_jsb_text(e4_journal_t j, ext2_filsys fs, int verifies);
void e4s_print_jsb_json(e4_journal_t j, ext2_filsys fs, int verifies,
			struct e4s_json *js);
/* Apply the -O/-E journal edits of @r (-n: show them only). */
int e4s_tune_journal_write(const char *prog, const struct e4s_req *r,
			   ext2_filsys fs);

/* tune_itable.c */
/* Nonzero if @r changes the lazy-init state (-E lazy_itable_init=). */
int e4s_tune_itable_wants_write(const struct e4s_req *r);
/* The lazy-init summary line (-l), per-group table (-v), or JSON. */
int e4s_tune_itable_list(const char *prog, const struct e4s_req *r,
			 ext2_filsys fs, struct e4s_json *js);
/* Finish (lazy_itable_init=0) or undo (=1) lazy init. */
int e4s_tune_itable_write(const char *prog, const struct e4s_req *r,
			  ext2_filsys fs);

/* tune_unwritten.c */
/* Nonzero if @r marks ranges (--mark-unwritten, --mark-written). */
int e4s_tune_unwritten_wants_write(const struct e4s_req *r);
/* --list-unwritten [FILE|<ino>]... (r->uw_files). */
int e4s_tune_unwritten_list(const char *prog, const struct e4s_req *r,
			    ext2_filsys fs, struct e4s_json *js);
/* Apply r->uw_marks (validated first, then through the journal). */
int e4s_tune_unwritten_write(const char *prog, const struct e4s_req *r,
			     ext2_filsys fs);

/* A lister above: e4s_tune_journal_list(), _itable_list(), ... */
typedef int (*e4s_tune_lister)(const char *prog, const struct e4s_req *r,
			       ext2_filsys fs, struct e4s_json *js);

/*
 * e4s_tune_list() - run the @n listers of @list on @fs as e4tune -l /
 * --list-unwritten prints them: text, or with r->json one JSON object
 * on stdout holding what each adds.  Stops at the first failing one;
 * returns its exit status (0 or 1).
 */
int e4s_tune_list(const char *prog, const struct e4s_req *r, ext2_filsys fs,
		  const e4s_tune_lister *list, int n);

#endif
