/*
 * tune_itable.c --- the lazy inode table part of e4tune and of e4debug's
 * itable / itable_finish: list the per-group
 * ITABLE_ZEROED state (-l, -v, --json), finish lazy init
 * (-E lazy_itable_init=0) or undo it for tests
 * (-E lazy_itable_init=1[,groups=LIST][,garbage]) through libe4.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <et/com_err.h>

#include "e4.h"
#include "open.h"
#include "parse.h"
#include "tune.h"

int e4s_tune_itable_wants_write(const struct e4s_req *o)
{
	return o->lazy_itable_init >= 0;
}

/* bg_flags as "INODE_UNINIT,BLOCK_UNINIT,ITABLE_ZEROED" (dumpe2fs's names
 * and order), or "-". */
static const char *flag_names(uint16_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s",
		 f & EXT2_BG_INODE_UNINIT ? "INODE_UNINIT" : "",
		 (f & EXT2_BG_INODE_UNINIT) &&
		 (f & (EXT2_BG_BLOCK_UNINIT | EXT2_BG_INODE_ZEROED)) ?
		 "," : "",
		 f & EXT2_BG_BLOCK_UNINIT ? "BLOCK_UNINIT" : "",
		 (f & EXT2_BG_BLOCK_UNINIT) && (f & EXT2_BG_INODE_ZEROED) ?
		 "," : "",
		 f & EXT2_BG_INODE_ZEROED ? "ITABLE_ZEROED" : "");
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

static void print_summary(const struct e4_itable_summary *s)
{
	if (!s->applicable) {
		printf("Lazy inode table init:    not applicable (no uninit_bg "
		       "or metadata_csum: tables are zeroed at mkfs)\n");
		return;
	}
	printf("Lazy inode table init:    %u of %u groups ITABLE_ZEROED; "
	       "%u groups, %llu blocks to zero\n", s->zeroed, s->groups,
	       s->to_zero_groups, (unsigned long long)s->to_zero_blocks);
	if (s->bad_csum)
		printf("Group descriptor csum:    fails in %u groups "
		       "(first: group %u)\n", s->bad_csum, s->first_bad_csum);
}

static void print_table(ext2_filsys fs)
{
	struct e4_itable_group ig;
	char fl[64];
	dgrp_t g;

	printf("%6s %-40s %-23s %7s %6s %7s %s\n", "Group", "Flags",
	       "Inode table", "Unused", "Keep", "To-zero", "Csum");
	for (g = 0; g < fs->group_desc_count; g++) {
		char range[48];

		e4_itable_group(fs, g, &ig);
		snprintf(range, sizeof(range), "%llu-%llu",
			 (unsigned long long)ig.itable,
			 (unsigned long long)(ig.itable + ig.itable_blocks - 1));
		printf("%6u %-40s %-23s %7u %6llu %7llu %s\n", g,
		       flag_names(ig.flags, fl, sizeof(fl)), range,
		       ig.itable_unused, (unsigned long long)ig.used_blocks,
		       (unsigned long long)ig.to_zero,
		       ig.csum_ok ? "ok" : "BAD");
	}
}

static void print_json(ext2_filsys fs, const struct e4_itable_summary *s,
		       struct e4s_json *js)
{
	struct e4_itable_group ig;
	dgrp_t g;

	e4s_json_obj_begin(js, "itable");
	e4s_json_bool(js, "applicable", s->applicable);
	e4s_json_u64(js, "groups", s->groups);
	e4s_json_u64(js, "zeroed", s->zeroed);
	e4s_json_u64(js, "inode_uninit", s->inode_uninit);
	e4s_json_u64(js, "block_uninit", s->block_uninit);
	e4s_json_u64(js, "to_zero_groups", s->to_zero_groups);
	e4s_json_u64(js, "to_zero_blocks", s->to_zero_blocks);
	e4s_json_u64(js, "inode_blocks_per_group", fs->inode_blocks_per_group);
	e4s_json_u64(js, "bad_csum_groups", s->bad_csum);
	if (s->bad_csum)
		e4s_json_u64(js, "first_bad_csum_group", s->first_bad_csum);
	else
		e4s_json_null(js, "first_bad_csum_group");
	e4s_json_arr_begin(js, "group");
	for (g = 0; g < fs->group_desc_count; g++) {
		e4_itable_group(fs, g, &ig);
		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "group", g);
		e4s_json_u64(js, "bg_flags", ig.flags);
		e4s_json_bool(js, "inode_uninit",
			     ig.flags & EXT2_BG_INODE_UNINIT);
		e4s_json_bool(js, "block_uninit",
			     ig.flags & EXT2_BG_BLOCK_UNINIT);
		e4s_json_bool(js, "itable_zeroed",
			     ig.flags & EXT2_BG_INODE_ZEROED);
		e4s_json_u64(js, "itable_unused", ig.itable_unused);
		e4s_json_u64(js, "itable", ig.itable);
		e4s_json_u64(js, "itable_blocks", ig.itable_blocks);
		e4s_json_u64(js, "used_blocks", ig.used_blocks);
		e4s_json_u64(js, "to_zero", ig.to_zero);
		e4s_json_bool(js, "csum_ok", ig.csum_ok);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_obj_end(js);
}

int e4s_tune_itable_list(const char *prog, const struct e4s_req *o,
		       ext2_filsys fs, struct e4s_json *js)
{
	struct e4_itable_summary s;
	errcode_t retval;

	retval = e4_itable_summary(fs, &s);
	if (retval) {
		com_err(prog, retval, "while reading the group descriptors "
			"of %s", o->device);
		return 1;
	}
	if (js) {
		print_json(fs, &s, js);
		return 0;
	}
	print_summary(&s);
	if (o->verbose)
		print_table(fs);
	return 0;
}

/* Parse "N", "N-M" items separated by ':' into @sel (one byte a group);
 * each number by e4s_scan_num(). */
static int parse_groups(const char *prog, const char *list, dgrp_t ngroups,
			unsigned char *sel)
{
	const char *p = list, *colon, *dash;
	uint64_t a, b;
	size_t len;

	do {
		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		dash = memchr(p, '-', len);
		if (e4s_scan_num(p, dash ? (size_t)(dash - p) : len,
				 UINT64_MAX, &a))
			goto bad;
		b = a;
		if (dash && (e4s_scan_num(dash + 1, len - (dash + 1 - p),
					  UINT64_MAX, &b) || b < a))
			goto bad;
		if (b >= ngroups) {
			fprintf(stderr, "%s: group %llu out of range (the "
				"filesystem has groups 0-%u)\n", prog,
				(unsigned long long)b, ngroups - 1);
			return 1;
		}
		memset(sel + a, 1, b - a + 1);
		p = colon + 1;
	} while (colon);
	return 0;
bad:
	fprintf(stderr, "%s: invalid group list '%s' (use N, N-M, "
		"separated by ':')\n", prog, list);
	return 1;
}

int e4s_tune_itable_write(const char *prog, const struct e4s_req *o,
			ext2_filsys fs)
{
	struct e4_itable_result res;
	unsigned char *sel = NULL;
	dgrp_t bad = (dgrp_t)-1;
	int flags = 0;
	errcode_t retval;
	const char *verb;

	if (o->lazy_itable_init == 0 &&
	    (o->itable_groups || o->itable_garbage)) {
		fprintf(stderr, "%s: groups= and garbage go with "
			"lazy_itable_init=1 only\n", prog);
		return 1;
	}
	if (o->force)
		flags |= E4_ITABLE_FORCE;
	if (o->dry_run)
		flags |= E4_ITABLE_DRY_RUN;
	if (o->itable_garbage)
		flags |= E4_ITABLE_GARBAGE;
	if (o->itable_groups) {
		sel = calloc(fs->group_desc_count, 1);
		if (!sel) {
			com_err(prog, EXT2_ET_NO_MEMORY, "for the group list");
			return 1;
		}
		if (parse_groups(prog, o->itable_groups,
				 fs->group_desc_count, sel)) {
			free(sel);
			return 1;
		}
	}
	if (!o->dry_run && isatty(1))
		fs->flags |= EXT2_FLAG_PRINT_PROGRESS;

	if (o->lazy_itable_init == 0)
		retval = e4_itable_finish(fs, flags, &bad, &res);
	else
		retval = e4_itable_unzero(fs, sel, flags, &bad, &res);
	fs->flags &= ~EXT2_FLAG_PRINT_PROGRESS;
	free(sel);
	if (retval == E4_ERR_GDT_CSUM || retval == E4_ERR_BAD_GROUP_DESC) {
		com_err(prog, retval, "in group %u of %s; nothing written",
			bad, o->device);
		return 1;
	}
	if (retval >= E4_ERR_BLOCK_OUTSIDE_FS &&
	    retval <= E4_ERR_BLOCK_OWNER_UNKNOWN) {
		fprintf(stderr, "%s: %s the inode tables of %s: block %llu is "
			"%s (%s); nothing written\n", prog, o->dry_run ?
			"would not write" : "not writing", o->device,
			(unsigned long long)res.conflict.blk,
			res.conflict.desc, error_message(retval));
		return 1;
	}
	if (retval == E4_ERR_NEEDS_RECOVERY || retval == E4_ERR_NO_UNINIT_BG) {
		com_err(prog, retval, "on %s; nothing written", o->device);
		return 1;
	}
	if (retval) {
		com_err(prog, retval, "while %s the inode tables of %s",
			o->lazy_itable_init ? "un-zeroing" : "zeroing",
			o->device);
		return 1;
	}
	verb = o->dry_run ? "would " : "";
	if (o->lazy_itable_init == 0)
		printf("%s: %s%s the inode tables of %u groups (%llu blocks "
		       "in %llu runs, %s)\n", prog, verb,
		       o->dry_run ? "zero" : "zeroed", res.groups,
		       (unsigned long long)res.blocks,
		       (unsigned long long)res.runs, res.method);
	else if (o->itable_garbage)
		printf("%s: %s%s ITABLE_ZEROED on %u groups and %s %llu "
		       "inode table blocks with garbage\n", prog, verb,
		       o->dry_run ? "clear" : "cleared", res.groups,
		       o->dry_run ? "fill" : "filled",
		       (unsigned long long)res.blocks);
	else
		printf("%s: %s%s ITABLE_ZEROED on %u groups\n", prog, verb,
		       o->dry_run ? "clear" : "cleared", res.groups);
	return 0;
}
