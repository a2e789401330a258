/*
 * replay_oscan.c --- TEMPORARY minimal journal scan for --check-order
 * until lib/e4/scan.c (issue 3, branch "replay") lands: walks the log
 * from s_start by sequence number and magic only, collects tags, revoke
 * records and commit blocks into a struct e4_jscan.  It verifies no
 * checksums (csum_ok = -1) and knows none of the kernel's stop rules
 * beyond magic and sequence.  Drop this file once e4_journal_scan() exists.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "replay_order.h"

static errcode_t grow(void **arr, size_t *alloc, size_t n, size_t sz)
{
	size_t na;
	errcode_t retval;

	if (n < *alloc)
		return 0;
	na = *alloc ? *alloc * 2 : 16;
	retval = ext2fs_resize_mem(*alloc * sz, na * sz, arr);
	if (retval)
		return retval;
	*alloc = na;
	return 0;
}

void order_private_scan_free(struct e4_jscan *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntrans; i++) {
		ext2fs_free_mem(&s->trans[i].tags);
		ext2fs_free_mem(&s->trans[i].revokes);
	}
	ext2fs_free_mem(&s->trans);
	ext2fs_free_mem(&s->events);
	memset(s, 0, sizeof(*s));
}

errcode_t order_private_scan(e4_journal_t j, struct e4_jscan *s)
{
	unsigned int bs = j->blocksize;
	uint32_t inc = j->jsb.feature_incompat;
	int v3 = !!(inc & JBD2_FEATURE_INCOMPAT_CSUM_V3);
	int v2 = !!(inc & JBD2_FEATURE_INCOMPAT_CSUM_V2);
	int is64 = !!(inc & JBD2_FEATURE_INCOMPAT_64BIT);
	size_t tagsz = v3 ? TAG3_SIZE : (is64 ? 12 : 8) + (v2 ? 2 : 0);
	size_t tail = (v2 || v3) ? JBD2_TAIL_SIZE : 0;
	unsigned char *buf = NULL;
	struct e4_jtrans *tr = NULL;
	size_t talloc = 0, tagalloc = 0, revalloc = 0;
	blk64_t jblk, first, end;
	uint32_t tid;
	errcode_t retval;
	int guard = 0;

	memset(s, 0, sizeof(*s));
	s->start_tid = j->jsb.sequence;
	s->start_jblk = j->jsb.start;
	s->log_first = j->jsb.first;
	s->log_end = e4_jsb_log_end(j->sb);
	s->end_tid = s->start_tid;
	if (!j->jsb.start) {
		s->stop = E4_SCAN_EMPTY;
		return 0;
	}
	retval = ext2fs_get_mem(bs, &buf);
	if (retval)
		return retval;
	first = s->log_first;
	end = s->log_end;
	jblk = s->start_jblk;
	tid = s->start_tid;
#define NEXT(b) ((b) + 1 >= end ? first : (b) + 1)
	for (;;) {
		uint32_t type;

		if (++guard > (int)(end - first) * 2)
			break;
		if (jblk < first || jblk >= end ||
		    e4_journal_read(j, jblk, 1, buf)) {
			s->stop = E4_SCAN_IO_ERROR;
			break;
		}
		if (e4_be32(buf) != JBD2_MAGIC) {
			s->stop = E4_SCAN_NO_MAGIC;
			break;
		}
		if (e4_be32(buf + JBD2_H_SEQUENCE) != tid) {
			s->stop = E4_SCAN_SEQUENCE;
			break;
		}
		type = e4_be32(buf + JBD2_H_BLOCKTYPE);
		if (!tr) {
			retval = grow((void **)&s->trans, &talloc, s->ntrans,
				      sizeof(*tr));
			if (retval)
				goto out;
			tr = &s->trans[s->ntrans++];
			memset(tr, 0, sizeof(*tr));
			tr->tid = tid;
			tr->first_jblk = jblk;
			tagalloc = revalloc = 0;
		}
		tr->last_jblk = jblk;
		tr->nblocks++;
		if (type == JBD2_DESCRIPTOR_BLOCK) {
			size_t off = JBD2_HEADER_SIZE;

			tr->ndescriptors++;
			while (off + tagsz <= bs - tail) {
				unsigned char *t = buf + off;
				struct e4_jtag *tg;
				uint32_t fl = v3 ? e4_be32(t + TAG3_FLAGS) :
					e4_be16(t + TAG_FLAGS);
				blk64_t b = e4_be32(t);

				if (is64)
					b |= (blk64_t)e4_be32(t + 8) << 32;
				retval = grow((void **)&tr->tags, &tagalloc,
					      tr->ntags, sizeof(*tg));
				if (retval)
					goto out;
				jblk = NEXT(jblk);
				tr->nblocks++;
				tg = &tr->tags[tr->ntags++];
				tg->fsblk = b;
				tg->jblk = jblk;
				tg->flags = fl;
				tg->csum_ok = -1;
				off += tagsz;
				if (!(fl & JBD2_FLAG_SAME_UUID))
					off += JBD2_UUID_SIZE;
				if (fl & JBD2_FLAG_LAST_TAG)
					break;
			}
		} else if (type == JBD2_REVOKE_BLOCK) {
			uint32_t cnt = e4_be32(buf + REVOKE_COUNT), off;
			size_t rsz = is64 ? 8 : 4;

			tr->nrevoke_blocks++;
			if (cnt > bs - tail)
				cnt = bs - tail;
			for (off = REVOKE_HEADER_SIZE; off + rsz <= cnt;
			     off += rsz) {
				retval = grow((void **)&tr->revokes, &revalloc,
					      tr->nrevokes,
					      sizeof(*tr->revokes));
				if (retval)
					goto out;
				tr->revokes[tr->nrevokes++] = is64 ?
					e4_be64(buf + off) : e4_be32(buf + off);
			}
		} else if (type == JBD2_COMMIT_BLOCK) {
			tr->has_commit = 1;
			tr->committed = 1;
			tr->commit_sec = e4_be64(buf + COMMIT_SEC);
			tr->commit_nsec = e4_be32(buf + COMMIT_NSEC);
			tr->commit_csum_ok = -1;
			s->ncommitted++;
			tr = NULL;
			tid++;
		} else {
			s->stop = E4_SCAN_BLOCKTYPE;
			break;
		}
		jblk = NEXT(jblk);
	}
#undef NEXT
	s->stop_jblk = jblk;
	s->end_tid = tid;
	retval = 0;
out:
	ext2fs_free_mem(&buf);
	if (retval)
		order_private_scan_free(s);
	return retval;
}
