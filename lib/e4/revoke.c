/*
 * revoke.c --- the revoke table of a journal replay: fs block -> newest
 * tid that revoked it, in an open-addressing hash table whose size follows
 * the number of distinct revoked blocks.
 *
 * Source: fs/jbd2/revoke.c jbd2_journal_set_revoke(),
 * jbd2_journal_test_revoke(); fs/jbd2/recovery.c PASS_REVOKE.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "e4.h"

struct revoke_slot {
	blk64_t		blk;
	uint32_t	tid;
	uint32_t	used;
};

struct e4_revoke_table {
	struct revoke_slot	*slots;
	size_t			cap;	/* power of two */
	size_t			count;
};

static size_t slot_of(blk64_t blk, size_t cap)
{
	uint64_t h = (uint64_t)blk * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 17) & (cap - 1);
}

static errcode_t alloc_slots(struct e4_revoke_table *t, size_t cap)
{
	errcode_t retval;

	retval = ext2fs_get_array(cap, sizeof(*t->slots), &t->slots);
	if (retval)
		return retval;
	memset(t->slots, 0, cap * sizeof(*t->slots));
	t->cap = cap;
	return 0;
}

errcode_t e4_revoke_new(size_t hint, struct e4_revoke_table **ret)
{
	struct e4_revoke_table *t;
	size_t cap = 64;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	while (cap < hint * 2 && cap < ((size_t)1 << 40))
		cap *= 2;
	retval = ext2fs_get_memzero(sizeof(*t), &t);
	if (retval)
		return retval;
	retval = alloc_slots(t, cap);
	if (retval) {
		ext2fs_free_mem(&t);
		return retval;
	}
	*ret = t;
	return 0;
}

static struct revoke_slot *find(const struct e4_revoke_table *t,
				blk64_t blk)
{
	size_t i = slot_of(blk, t->cap);

	for (;;) {
		struct revoke_slot *s = &t->slots[i];

		if (!s->used || s->blk == blk)
			return s;
		i = (i + 1) & (t->cap - 1);
	}
}

static errcode_t rehash(struct e4_revoke_table *t)
{
	struct revoke_slot *old = t->slots;
	size_t i, oldcap = t->cap;
	errcode_t retval;

	retval = alloc_slots(t, oldcap * 2);
	if (retval) {
		t->slots = old;
		return retval;
	}
	for (i = 0; i < oldcap; i++)
		if (old[i].used)
			*find(t, old[i].blk) = old[i];
	ext2fs_free_mem(&old);
	return 0;
}

errcode_t e4_revoke_set(struct e4_revoke_table *t, blk64_t blk,
			uint32_t tid)
{
	struct revoke_slot *s;
	errcode_t retval;

	if ((t->count + 1) * 2 > t->cap) {
		retval = rehash(t);
		if (retval)
			return retval;
	}
	s = find(t, blk);
	if (s->used) {
		if (e4_tid_gt(tid, s->tid))
			s->tid = tid;
		return 0;
	}
	s->used = 1;
	s->blk = blk;
	s->tid = tid;
	t->count++;
	return 0;
}

int e4_revoke_test(const struct e4_revoke_table *t, blk64_t blk,
		   uint32_t tid)
{
	const struct revoke_slot *s = find(t, blk);

	if (!s->used)
		return 0;
	return !e4_tid_gt(tid, s->tid);
}

size_t e4_revoke_count(const struct e4_revoke_table *t)
{
	return t->count;
}

void e4_revoke_free(struct e4_revoke_table *t)
{
	if (!t)
		return;
	ext2fs_free_mem(&t->slots);
	ext2fs_free_mem(&t);
}
