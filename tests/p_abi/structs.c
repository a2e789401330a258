/*
 * structs.c --- tests/p_abi's caller of the size-versioned structs of
 * libe4's stable API (struct e4_replay_result, e4_order_opts), built
 * against the headers and linked with libe4.so.  It plays the three
 * programs the rule is for: one built against this e4.h ("full"), one
 * built against an older, smaller e4.h ("old": the first release's size,
 * canary bytes after it), one built against a newer e4.h ("new": 64 more
 * bytes, which this libe4 does not know).  It prints what libe4 returned;
 * tests/p_abi/script compares that with the oracles.
 *
 *   structs init                  the init functions' refusals
 *   structs zero IMAGE            a zeroed result / opts: refused
 *   structs replay full|old|new IMAGE   e4_journal_recover()'s counts
 *   structs order full|old|new|newbad IMAGE   e4_order_check()'s verdict
 *
 * Exit status: 0 as expected, 1 a check failed, 2 an open failed.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <e4/e4.h>

#define CANARY	0xa5
#define EXTRA	64

/* The first release's sizes (0.1.0), as a program built then has them. */
#define RES_SIZE0 (offsetof(struct e4_replay_result, sb_layout_changed) + \
		   sizeof(int))
#define OPTS_SIZE0 (offsetof(struct e4_order_opts, image_is_s0) + sizeof(int))

static union {
	unsigned char b[4096];
	struct e4_replay_result r;
	struct e4_order_opts o;
} buf;

static int bad(const char *what)
{
	printf("FAIL: %s\n", what);
	return 1;
}

/* 1 when @n bytes from @from are all @c */
static int all(size_t from, size_t n, unsigned char c)
{
	size_t i;

	for (i = from; i < from + n; i++)
		if (buf.b[i] != c)
			return 0;
	return 1;
}

static size_t size_of(const char *kind, size_t full, size_t size0)
{
	if (!strcmp(kind, "old"))
		return size0;
	if (!strcmp(kind, "new") || !strcmp(kind, "newbad"))
		return full + EXTRA;
	return full;
}

static int do_init(void)
{
	static const size_t sizes[] = { 0, 8, RES_SIZE0 - 1, 5000 };
	size_t i;
	errcode_t err;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		errcode_t want = sizes[i] ? E4_ERR_STRUCT_SIZE :
			E4_ERR_STRUCT_UNINIT;

		memset(buf.b, CANARY, sizeof(buf.b));
		err = e4_replay_result_init(&buf.r, sizes[i]);
		printf("e4_replay_result_init(%zu): %s\n", sizes[i],
		       err ? error_message(err) : "0");
		if (err != want || !all(0, sizeof(buf.b), CANARY))
			return bad("e4_replay_result_init() refusal");
		err = e4_order_opts_init(&buf.o, sizes[i] == RES_SIZE0 - 1 ?
					 OPTS_SIZE0 - 1 : sizes[i]);
		if (err != want || !all(0, sizeof(buf.b), CANARY))
			return bad("e4_order_opts_init() refusal");
	}
	/* what init writes: the caller's bytes, no more */
	memset(buf.b, CANARY, sizeof(buf.b));
	if (e4_order_opts_init(&buf.o, OPTS_SIZE0) ||
	    buf.o.size != OPTS_SIZE0 || !all(OPTS_SIZE0, 64, CANARY))
		return bad("e4_order_opts_init(OPTS_SIZE0) wrote past it");
	memset(buf.b, CANARY, sizeof(buf.b));
	if (e4_order_opts_init(&buf.o, sizeof(buf.o) + EXTRA) ||
	    !all(sizeof(buf.o), EXTRA, 0) ||
	    !all(sizeof(buf.o) + EXTRA, 64, CANARY))
		return bad("e4_order_opts_init(new) did not zero the new members");
	printf("ok: init\n");
	return 0;
}

static int open_image(const char *path, int rw, ext2_filsys *fs,
		      e4_journal_t *j, struct e4_jscan **scan)
{
	errcode_t err;

	err = ext2fs_open2(path, NULL, (rw ? EXT2_FLAG_RW : 0) |
			   EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			   0, 0, unix_io_manager, fs);
	if (!err)
		err = e4_journal_open(*fs, NULL, rw ? E4_JOURNAL_RW : 0, j);
	if (!err)
		err = e4_journal_scan(*j, 0, 0, scan);
	if (err) {
		com_err("structs", err, "while opening %s", path);
		return 2;
	}
	return 0;
}

static void close_image(ext2_filsys fs, e4_journal_t j,
			struct e4_jscan *scan)
{
	e4_jscan_free(scan);
	e4_journal_close(j);
	ext2fs_close_free(&fs);
}

static int do_zero(const char *path)
{
	struct e4_order_report dummy, *rep = &dummy;	/* must become NULL */
	struct e4_replay_result res;
	struct e4_order_opts opts;
	struct e4_plan *plan = NULL;
	struct e4_jscan *scan;
	e4_journal_t j;
	ext2_filsys fs;
	errcode_t err;
	int rc;

	rc = open_image(path, 1, &fs, &j, &scan);
	if (rc)
		return rc;
	memset(&res, 0, sizeof(res));
	err = e4_journal_recover(j, scan, &res);
	printf("e4_journal_recover(zeroed): %s\n", error_message(err));
	if (err != E4_ERR_STRUCT_UNINIT)
		rc = bad("a zeroed e4_replay_result was not refused");
	err = e4_journal_replay(j, scan, &res);
	if (err != E4_ERR_STRUCT_UNINIT)
		rc = bad("e4_journal_replay() took a zeroed result");
	memset(&opts, 0, sizeof(opts));
	err = e4_plan_build(j, scan, &plan);
	if (!err)
		err = e4_order_check(fs, plan, &opts, &rep);
	printf("e4_order_check(zeroed): %s\n", error_message(err));
	if (err != E4_ERR_STRUCT_UNINIT || rep)
		rc = bad("a zeroed e4_order_opts was not refused");
	e4_plan_free(plan);
	close_image(fs, j, scan);
	return rc;
}

static int do_replay(const char *kind, const char *path)
{
	size_t size = size_of(kind, sizeof(buf.r), RES_SIZE0);
	struct e4_replay_result *r = &buf.r;
	struct e4_jscan *scan;
	e4_journal_t j;
	ext2_filsys fs;
	errcode_t err;
	int rc;

	rc = open_image(path, 1, &fs, &j, &scan);
	if (rc)
		return rc;
	memset(buf.b, CANARY, sizeof(buf.b));
	err = e4_replay_result_init(r, size);
	/* a newer program's members: libe4 must leave them alone */
	memset(buf.b + sizeof(*r), CANARY, EXTRA);
	if (!err)
		err = e4_journal_recover(j, scan, r);
	if (err) {
		com_err("structs", err, "while recovering %s", path);
		rc = 1;
	}
	if (!all(size, 64, CANARY) ||
	    (size > sizeof(*r) && !all(sizeof(*r), EXTRA, CANARY)))
		rc = bad("libe4 wrote past the caller's struct");
	if (r->size != size)
		rc = bad("libe4 changed the size field");
	printf("size %zu tags %" PRIu64 " written %" PRIu64 " superseded %"
	       PRIu64 " revoked %" PRIu64 " bad_csum %" PRIu64
	       " revoked_blocks %" PRIu64 " sequence %" PRIu32 " corrupt %d\n",
	       r->size, r->ntags, r->nwritten, r->nsuperseded, r->nrevoked,
	       r->nbad_csum, r->nrevoke_blocks, r->new_sequence, r->corrupt);
	close_image(fs, j, scan);
	return rc;
}

static int do_order(const char *kind, const char *path)
{
	size_t size = size_of(kind, sizeof(buf.o), OPTS_SIZE0);
	struct e4_order_report *rep = NULL;
	struct e4_plan *plan = NULL;
	struct e4_jscan *scan;
	e4_journal_t j;
	ext2_filsys fs;
	errcode_t err;
	int rc;

	rc = open_image(path, 0, &fs, &j, &scan);
	if (rc)
		return rc;
	memset(buf.b, CANARY, sizeof(buf.b));
	err = e4_order_opts_init(&buf.o, size);
	if (!strcmp(kind, "newbad"))	/* a member this libe4 does not know */
		buf.b[sizeof(buf.o) + EXTRA - 1] = 1;
	if (!err)
		err = e4_plan_build(j, scan, &plan);
	if (!err)
		err = e4_order_check(fs, plan, &buf.o, &rep);
	if (!strcmp(kind, "newbad")) {
		printf("e4_order_check(newbad): %s\n", error_message(err));
		if (err != E4_ERR_STRUCT_SIZE || rep)
			rc = bad("an unknown member set was not refused");
	} else if (err) {
		com_err("structs", err, "while checking %s", path);
		rc = 1;
	} else {
		printf("size %zu violations %" PRIu64 " violation_blocks %"
		       PRIu64 " notes %" PRIu64 " outside_blocks %" PRIu64
		       " transactions %zu\n", size, rep->violations,
		       rep->violation_blocks, rep->notes, rep->outside_blocks,
		       rep->ntx);
	}
	e4_order_report_free(rep);
	e4_plan_free(plan);
	close_image(fs, j, scan);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "init"))
		return do_init();
	if (argc == 3 && !strcmp(argv[1], "zero"))
		return do_zero(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "replay"))
		return do_replay(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "order"))
		return do_order(argv[2], argv[3]);
	fprintf(stderr, "usage: structs init | zero IMAGE | "
		"replay full|old|new IMAGE | order full|old|new|newbad IMAGE\n");
	return 2;
}
