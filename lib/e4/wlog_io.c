/*
 * wlog_io.c --- the "e4wlog" io_manager: a read-only view of a logged
 * device at point P of its dm-log-writes log (wlog.c), stacked on a BASE
 * channel it is given: each sector comes from the newest entry 0..P that
 * wrote it (read from the log file), reads as zeros when that newest entry
 * is a DISCARD, and comes from BASE when no entry 0..P touched it.
 *
 * Index: an open-addressing hash from written sector to the sorted list
 * of the entries that wrote it (the table sized by the distinct sectors,
 * load at most 1/2; the lists hold one 4-byte entry number per logged
 * sector), looked up by binary search; DISCARD ranges sorted by start
 * with a prefix maximum of their ends.  Built once; the point moves for
 * free, and so does a set of dropped entries (a crash state that lost
 * them); a clone shares the index with its own point and drop set.
 *
 * Channel naming as overlay_io.c and mem_io.c: "e4wlog:0x<address>",
 * checked against a magic number, no global registry.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

#define E4_WLOG_DEV_MAGIC	0x4534776c6f67ULL

struct hslot {
	uint64_t	key;		/* sector + 1; 0 = empty */
	uint32_t	start, count;	/* into hist[] */
};

struct dis {
	uint64_t	start, end;	/* sectors [start, end) */
	uint32_t	entry;
};

struct e4_wlog_dev {
	uint64_t	magic;
	e4_wlog_t	log;
	io_channel	base;
	uint64_t	dev_bytes;
	uint64_t	ss;		/* sector size, bytes */
	int64_t		point;
	struct hslot	*h;
	uint64_t	hmask;
	uint64_t	nkeys;		/* distinct sectors written */
	uint32_t	*hist;		/* write entries per sector, sorted */
	uint64_t	nhist;
	struct dis	*dis;
	uint64_t	*dismax;	/* prefix max of dis[].end */
	size_t		ndis;
	unsigned char	*bounce;	/* one sector */
	int		shared;		/* a clone: the index is @d's */
	unsigned char	*drop_map;	/* entries left out: a bitmap over
					 * the entries (kept allocated) */
	size_t		ndrop_set;	/* bits set in it; 0: none left out */
	/* A started device (e4_wlog_dev_create_start(); owned unless
	 * shared): BASE is @pre at its last entry, read through @pre_ch,
	 * and @log is the slice from the start entry on. */
	e4_wlog_dev_t	pre;
	io_channel	pre_ch;
	e4_wlog_t	pre_log;	/* the slice before the start */
	int		own_log;	/* @log is our slice */
	uint32_t	*pos;		/* per slot of h[]: how many of its
					 * writes are at or before pos_point
					 * (NULL: not kept, e.g. a clone) */
	int64_t		pos_point;
	unsigned int	pos_resets;	/* long backward moves so far */
	unsigned char	*cdata;		/* block cache: NCACHE blocks of
					 * CBLK bytes at pos_point, direct
					 * mapped (NULL: none) */
	uint64_t	*ctag;		/* block + 1 each slot holds, 0 none */
	errcode_t	read_err;	/* first LOG or BASE read error since
					 * e4_wlog_dev_take_error() */
	char		name[48];
};

/* Is entry @e left out of the device (e4_wlog_dev_set_drop())? */
static int dropped(const struct e4_wlog_dev *d, int64_t e)
{
	return d->ndrop_set && e >= 0 &&
	       ((d->drop_map[e >> 3] >> (e & 7)) & 1);
}

static uint64_t hash_sector(uint64_t s)
{
	s *= 0x9e3779b97f4a7c15ULL;
	return s ^ (s >> 31);
}

static struct hslot *slot_find(const struct e4_wlog_dev *d, uint64_t sector)
{
	uint64_t i;

	if (!d->h)
		return NULL;
	for (i = hash_sector(sector) & d->hmask; d->h[i].key;
	     i = (i + 1) & d->hmask)
		if (d->h[i].key == sector + 1)
			return &d->h[i];
	return NULL;
}

/* Double the table (d->h must hold every key; load stays <= 1/2). */
static errcode_t hash_grow(struct e4_wlog_dev *d)
{
	uint64_t cap = (d->hmask + 1) * 2, i, k;
	struct hslot *n;
	errcode_t retval;

	retval = ext2fs_get_arrayzero(cap, sizeof(*n), &n);
	if (retval)
		return retval;
	for (i = 0; i <= d->hmask; i++) {
		if (!d->h[i].key)
			continue;
		for (k = hash_sector(d->h[i].key - 1) & (cap - 1); n[k].key;
		     k = (k + 1) & (cap - 1))
			;
		n[k] = d->h[i];
	}
	ext2fs_free_mem(&d->h);
	d->h = n;
	d->hmask = cap - 1;
	return 0;
}

/* The slot of @sector, made if new (growing the table first when half
 * full): NULL only when the table cannot grow. */
static struct hslot *slot_get(struct e4_wlog_dev *d, uint64_t sector)
{
	uint64_t i;

	for (i = hash_sector(sector) & d->hmask; d->h[i].key;
	     i = (i + 1) & d->hmask)
		if (d->h[i].key == sector + 1)
			return &d->h[i];
	if (2 * (d->nkeys + 1) > d->hmask + 1) {
		if (hash_grow(d))
			return NULL;
		return slot_get(d, sector);
	}
	d->nkeys++;
	d->h[i].key = sector + 1;
	return &d->h[i];
}

static int dis_cmp(const void *a, const void *b)
{
	const struct dis *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/*
 * The cursor: pos[] follows the point as it moves, so that the newest
 * write of a sector at the current point is one hash lookup, not a
 * binary search of its list.  A check walking the points in order pays
 * each logged sector once over the whole log; a move back steps back
 * the same way, and a long one (more than POS_BACK entries) restarts
 * from BASE -- after POS_MAX_RESETS of them the cursor is dropped (a
 * caller jumping about gets the binary search, as before).
 */
#define POS_BACK	65536
#define POS_MAX_RESETS	8

/*
 * The block cache: the device's blocks as read at the cursor's point,
 * CBLK bytes each, NCACHE of them direct mapped by block number (16 MiB,
 * touched as used: a journal of up to 16 MiB and the metadata the states
 * read again at every point).  The cursor drops a block whenever an
 * entry it steps over writes or discards in it, so a cached block is
 * always the device's at the point; a drop set clears it.  Only a
 * device whose cursor is at its point uses it (not a clone).
 */
#define CBLK		4096
#define NCACHE		4096

static void cache_drop(struct e4_wlog_dev *d, uint64_t s0, uint64_t n)
{
	uint64_t b, b0, b1;

	if (!d->ctag || !n)
		return;
	b0 = s0 * d->ss / CBLK;
	b1 = ((s0 + n) * d->ss - 1) / CBLK;
	if (b1 - b0 >= NCACHE) {
		memset(d->ctag, 0, NCACHE * sizeof(*d->ctag));
		return;
	}
	for (b = b0; b <= b1; b++)
		if (d->ctag[b & (NCACHE - 1)] == b + 1)
			d->ctag[b & (NCACHE - 1)] = 0;
}

static void cache_free(struct e4_wlog_dev *d)
{
	ext2fs_free_mem(&d->cdata);
	ext2fs_free_mem(&d->ctag);
}

static void pos_step(struct e4_wlog_dev *d, uint64_t i, int dir)
{
	const struct e4_wlog_entry *e = &d->log->ents[i];
	uint64_t s;

	if (!e->nr_sectors)
		return;
	cache_drop(d, e->sector, e->nr_sectors);
	if (e->flags & E4_WLOG_DISCARD)
		return;
	for (s = 0; s < e->nr_sectors; s++) {
		struct hslot *h = slot_find(d, e->sector + s);

		d->pos[h - d->h] += dir;
	}
}

static void pos_move(struct e4_wlog_dev *d, int64_t point)
{
	if (!d->pos)
		return;
	if (point < d->pos_point && d->pos_point - point > POS_BACK) {
		if (++d->pos_resets > POS_MAX_RESETS) {
			ext2fs_free_mem(&d->pos);
			cache_free(d);
			return;
		}
		memset(d->pos, 0, (d->hmask + 1) * sizeof(*d->pos));
		if (d->ctag)
			memset(d->ctag, 0, NCACHE * sizeof(*d->ctag));
		d->pos_point = -1;
	}
	while (d->pos_point < point)
		pos_step(d, (uint64_t)++d->pos_point, 1);
	while (d->pos_point > point)
		pos_step(d, (uint64_t)d->pos_point--, -1);
}

static errcode_t build_index(struct e4_wlog_dev *d)
{
	e4_wlog_t log = d->log;
	uint64_t i, s, total = 0, cap, pos;
	size_t nd = 0;
	errcode_t retval;

	if (log->nr_entries > UINT32_MAX)
		return EXT2_ET_INVALID_ARGUMENT;
	for (i = 0; i < log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if (!e->nr_sectors)
			continue;
		if (e->flags & E4_WLOG_DISCARD)
			nd++;
		else
			total += e->nr_sectors;
	}
	if (nd) {
		retval = ext2fs_get_array(nd, sizeof(*d->dis), &d->dis);
		if (!retval)
			retval = ext2fs_get_array(nd, sizeof(*d->dismax),
						  &d->dismax);
		if (retval)
			return retval;
	}
	if (total) {
		/* sized by the distinct sectors (grown as they come), not
		 * by the logged ones: a log rewrites the same sectors */
		cap = 1024;
		retval = ext2fs_get_arrayzero(cap, sizeof(*d->h), &d->h);
		if (!retval)
			retval = ext2fs_get_array(total, sizeof(*d->hist),
						  &d->hist);
		if (retval)
			return retval;
		d->hmask = cap - 1;
	}
	/* Count the writes of each sector, then lay the lists out. */
	for (i = 0; i < log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if (!e->nr_sectors)
			continue;
		if (e->flags & E4_WLOG_DISCARD) {
			d->dis[d->ndis].start = e->sector;
			d->dis[d->ndis].end = e->sector + e->nr_sectors;
			d->dis[d->ndis++].entry = (uint32_t)i;
			continue;
		}
		for (s = 0; s < e->nr_sectors; s++) {
			struct hslot *h = slot_get(d, e->sector + s);

			if (!h)
				return EXT2_ET_NO_MEMORY;
			h->count++;
		}
	}
	for (i = 0, pos = 0; total && i <= d->hmask; i++)
		if (d->h[i].key) {
			d->h[i].start = (uint32_t)pos;
			pos += d->h[i].count;
			d->h[i].count = 0;
		}
	d->nhist = pos;
	for (i = 0; i < log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if (!e->nr_sectors || (e->flags & E4_WLOG_DISCARD))
			continue;
		for (s = 0; s < e->nr_sectors; s++) {
			struct hslot *h = slot_find(d, e->sector + s);

			d->hist[h->start + h->count++] = (uint32_t)i;
		}
	}
	/* The cursor starts at BASE; without memory for it, lookups
	 * search. */
	d->pos_point = -1;
	if (total && ext2fs_get_arrayzero(d->hmask + 1, sizeof(*d->pos),
					  &d->pos))
		d->pos = NULL;
	if (d->pos && d->ss <= CBLK && CBLK % d->ss == 0 &&
	    (ext2fs_get_array(NCACHE, CBLK, &d->cdata) ||
	     ext2fs_get_arrayzero(NCACHE, sizeof(*d->ctag), &d->ctag)))
		cache_free(d);
	if (d->ndis > 1)
		qsort(d->dis, d->ndis, sizeof(*d->dis), dis_cmp);
	for (i = 0; i < d->ndis; i++)
		d->dismax[i] = (i && d->dismax[i - 1] > d->dis[i].end) ?
			d->dismax[i - 1] : d->dis[i].end;
	return 0;
}

errcode_t e4_wlog_dev_create(e4_wlog_t log, io_channel base,
			     uint64_t dev_bytes, e4_wlog_dev_t *ret)
{
	e4_wlog_dev_t d;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	retval = e4_wlog_check_device(log, dev_bytes, NULL);
	if (retval)
		return retval;
	retval = ext2fs_get_memzero(sizeof(*d), &d);
	if (retval)
		return retval;
	d->magic = E4_WLOG_DEV_MAGIC;
	d->log = log;
	d->base = base;
	d->dev_bytes = dev_bytes;
	d->ss = log->sectorsize;
	d->point = -1;
	retval = io_channel_set_blksize(base, (int)d->ss);
	if (!retval)
		retval = ext2fs_get_mem(d->ss, &d->bounce);
	if (!retval)
		retval = build_index(d);
	if (retval) {
		e4_wlog_dev_free(d);
		return retval;
	}
	snprintf(d->name, sizeof(d->name), "e4wlog:%p", (void *)d);
	*ret = d;
	return 0;
}

void e4_wlog_dev_free(e4_wlog_dev_t d)
{
	if (!d)
		return;
	d->magic = 0;
	if (!d->shared) {
		ext2fs_free_mem(&d->h);
		ext2fs_free_mem(&d->hist);
		ext2fs_free_mem(&d->dis);
		ext2fs_free_mem(&d->dismax);
		if (d->pre_ch)
			io_channel_close(d->pre_ch);
		e4_wlog_dev_free(d->pre);
		e4_wlog_close(d->pre_log);
		if (d->own_log)
			e4_wlog_close(d->log);
		ext2fs_free_mem(&d->pos);
		cache_free(d);
	}
	ext2fs_free_mem(&d->bounce);
	ext2fs_free_mem(&d->drop_map);
	ext2fs_free_mem(&d);
}

errcode_t e4_wlog_dev_clone(e4_wlog_dev_t d, e4_wlog_dev_t *ret)
{
	e4_wlog_dev_t c;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	retval = ext2fs_get_mem(sizeof(*c), &c);
	if (retval)
		return retval;
	*c = *d;
	c->shared = 1;
	c->point = -1;
	c->drop_map = NULL;
	c->ndrop_set = 0;
	c->pos = NULL;		/* the cursor and the cache are @d's */
	c->cdata = NULL;
	c->ctag = NULL;
	c->read_err = 0;
	retval = ext2fs_get_mem(c->ss, &c->bounce);
	if (retval) {
		ext2fs_free_mem(&c);
		return retval;
	}
	snprintf(c->name, sizeof(c->name), "e4wlog:%p", (void *)c);
	*ret = c;
	return 0;
}

const char *e4_wlog_dev_name(e4_wlog_dev_t d)
{
	return d->name;
}

errcode_t e4_wlog_dev_set_point(e4_wlog_dev_t d, int64_t point)
{
	e4_error_tables_init();
	if (point < -1 || (point >= 0 && (uint64_t)point >= d->log->nr_entries))
		return EXT2_ET_INVALID_ARGUMENT;
	d->point = point;
	if (!d->shared)
		pos_move(d, point);
	return 0;
}

errcode_t e4_wlog_dev_set_drop(e4_wlog_dev_t d, const uint64_t *ents,
			      size_t n)
{
	size_t i, bytes = (d->log->nr_entries + 7) / 8;
	errcode_t retval;

	e4_error_tables_init();
	for (i = 0; i < n; i++)
		if (ents[i] >= d->log->nr_entries ||
		    (i && ents[i] <= ents[i - 1]))
			return EXT2_ET_INVALID_ARGUMENT;
	if (d->ctag && !d->shared)	/* other bytes from now on */
		memset(d->ctag, 0, NCACHE * sizeof(*d->ctag));
	if (!n) {
		d->ndrop_set = 0;
		return 0;
	}
	/* One bitmap per device, kept between calls: a check that sets a
	 * drop at every mark pays a clear, not an allocation. */
	if (!d->drop_map) {
		retval = ext2fs_get_memzero(bytes, &d->drop_map);
		if (retval)
			return retval;
	} else {
		memset(d->drop_map, 0, bytes);
	}
	for (i = 0; i < n; i++)
		d->drop_map[ents[i] >> 3] |= 1 << (ents[i] & 7);
	d->ndrop_set = n;
	return 0;
}

errcode_t e4_wlog_dev_create_start(e4_wlog_t log, io_channel base,
				   uint64_t dev_bytes, uint64_t start,
				   e4_wlog_dev_t *ret)
{
	e4_wlog_t pre_log = NULL, post_log = NULL;
	e4_wlog_dev_t pre = NULL, d = NULL;
	io_channel ch = NULL;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!start)
		return e4_wlog_dev_create(log, base, dev_bytes, ret);
	retval = e4_wlog_slice(log, 0, start, &pre_log);
	if (!retval)
		retval = e4_wlog_slice(log, start, log->nr_entries - start,
				       &post_log);
	if (!retval)
		retval = e4_wlog_dev_create(pre_log, base, dev_bytes, &pre);
	if (!retval)
		retval = e4_wlog_dev_set_point(pre, (int64_t)start - 1);
	if (!retval)
		retval = e4_wlog_io_manager->open(e4_wlog_dev_name(pre), 0,
						  &ch);
	if (!retval)
		retval = e4_wlog_dev_create(post_log, ch, dev_bytes, &d);
	if (retval) {
		if (ch)
			io_channel_close(ch);
		e4_wlog_dev_free(pre);
		e4_wlog_close(pre_log);
		e4_wlog_close(post_log);
		return retval;
	}
	d->pre = pre;
	d->pre_ch = ch;
	d->pre_log = pre_log;
	d->own_log = 1;
	*ret = d;
	return 0;
}

uint64_t e4_wlog_dev_origin(e4_wlog_dev_t d)
{
	return d->log->origin;
}

errcode_t e4_wlog_dev_fs_at(e4_wlog_dev_t d, int64_t point)
{
	int64_t was = d->point;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;

	e4_error_tables_init();
	retval = e4_wlog_dev_set_point(d, point);
	if (retval)
		return retval;
	retval = ext2fs_open2(d->name, "", EXT2_FLAG_64BITS |
			      EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			      0, 0, e4_wlog_io_manager, &fs);
	if (!retval)
		retval = e4_journal_open(fs, NULL, 0, &j);
	if (!retval && j->external)
		retval = E4_ERR_NO_JOURNAL;
	if (j)
		e4_journal_close(j);
	if (fs)
		ext2fs_close_free(&fs);
	d->point = was;
	return retval;
}

errcode_t e4_wlog_find_start(e4_wlog_dev_t d, uint64_t from, int marks,
			     uint64_t *start, uint64_t *nofs)
{
	const e4_wlog_t log = d->log;
	uint64_t i;
	errcode_t retval;

	e4_error_tables_init();
	*start = from;
	*nofs = 0;
	if (from > log->nr_entries)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!e4_wlog_dev_fs_at(d, (int64_t)from - 1))
		return 0;
	for (i = from; i < log->nr_entries; i++) {
		if (!e4_wlog_is_point(&log->ents[i], marks))
			continue;
		retval = e4_wlog_dev_fs_at(d, (int64_t)i);
		if (!retval) {
			*start = i + 1;
			return 0;
		}
		/* An io error of LOG or BASE is not "no fs yet". */
		if (retval == EXT2_ET_SHORT_READ || retval == EIO ||
		    retval == EXT2_ET_NO_MEMORY)
			return retval;
		(*nofs)++;
	}
	return E4_ERR_WLOG_NO_FS;
}

e4_wlog_t e4_wlog_dev_log(e4_wlog_dev_t d)
{
	return d->log;
}

int64_t e4_wlog_dev_point(e4_wlog_dev_t d)
{
	return d->point;
}

uint64_t e4_wlog_dev_size(e4_wlog_dev_t d)
{
	return d->dev_bytes;
}

/* Newest write of @sector at or before @point, or -1. */
static int64_t latest_write(const struct e4_wlog_dev *d, uint64_t sector,
			    int64_t point)
{
	const struct hslot *h = slot_find(d, sector);
	const uint32_t *l;
	uint32_t lo = 0, hi;

	if (!h || point < 0)
		return -1;
	l = d->hist + h->start;
	if (d->pos && point == d->pos_point) {
		lo = d->pos[h - d->h];
		goto found;
	}
	hi = h->count;
	while (lo < hi) {	/* first element > point */
		uint32_t mid = lo + (hi - lo) / 2;

		if ((int64_t)l[mid] <= point)
			lo = mid + 1;
		else
			hi = mid;
	}
found:
	while (lo && dropped(d, l[lo - 1]))
		lo--;
	return lo ? (int64_t)l[lo - 1] : -1;
}

/* Index of the first discard with start >= @s. */
static size_t dis_upper(const struct e4_wlog_dev *d, uint64_t s)
{
	size_t lo = 0, hi = d->ndis;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->dis[mid].start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Newest discard covering @sector at or before @point, or -1. */
static int64_t latest_discard(const struct e4_wlog_dev *d, uint64_t sector,
			      int64_t point)
{
	size_t i = dis_upper(d, sector + 1);
	int64_t best = -1;

	while (i > 0 && d->dismax[i - 1] > sector) {
		const struct dis *x = &d->dis[--i];

		if (x->end > sector && (int64_t)x->entry <= point &&
		    (int64_t)x->entry > best && !dropped(d, x->entry))
			best = x->entry;
	}
	return best;
}

int e4_wlog_dev_latest(e4_wlog_dev_t d, uint64_t sector, int64_t point,
		       int64_t *entry)
{
	int64_t w = latest_write(d, sector, point);
	int64_t x = d->ndis ? latest_discard(d, sector, point) : -1;

	if (w < 0 && x < 0)
		return E4_WLOG_SRC_BASE;
	if (x > w) {
		*entry = x;
		return E4_WLOG_SRC_DISCARD;
	}
	*entry = w;
	return E4_WLOG_SRC_WRITE;
}

int64_t e4_wlog_dev_first_write(e4_wlog_dev_t d, uint64_t sector,
				int64_t after, int64_t before)
{
	const struct hslot *h = slot_find(d, sector);
	int64_t best = -1;
	size_t i;

	if (h) {
		const uint32_t *l = d->hist + h->start;
		uint32_t lo = 0, hi = h->count;

		while (lo < hi) {	/* first element > after */
			uint32_t mid = lo + (hi - lo) / 2;

			if ((int64_t)l[mid] <= after)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo < h->count && dropped(d, l[lo]))
			lo++;
		if (lo < h->count && (int64_t)l[lo] < before)
			best = l[lo];
	}
	for (i = dis_upper(d, sector + 1);
	     i > 0 && d->dismax[i - 1] > sector;) {
		const struct dis *x = &d->dis[--i];

		if (x->end > sector && (int64_t)x->entry > after &&
		    (int64_t)x->entry < before && !dropped(d, x->entry) &&
		    (best < 0 || (int64_t)x->entry < best))
			best = x->entry;
	}
	return best;
}

/*
 * Sectors [@s0, @s0 + @n) at the current point into @buf: runs of one
 * source are read at once (BASE runs from the base channel, runs of one
 * entry from the log file, discarded runs zeroed).
 */
static errcode_t read_sectors(struct e4_wlog_dev *d, uint64_t s0, uint64_t n,
			      unsigned char *buf)
{
	struct dis *near = NULL;
	size_t nnear = 0, i;
	uint64_t s, run;
	errcode_t retval = 0;

	/* The discards overlapping the range, at or before the point. */
	if (d->ndis && d->point >= 0) {
		for (i = dis_upper(d, s0 + n); i > 0 &&
		     d->dismax[i - 1] > s0; ) {
			const struct dis *x = &d->dis[--i];

			if (x->end > s0 && (int64_t)x->entry <= d->point &&
			    !dropped(d, x->entry))
				nnear++;
		}
		if (nnear) {
			retval = ext2fs_get_array(nnear, sizeof(*near), &near);
			if (retval)
				return retval;
			nnear = 0;
			for (i = dis_upper(d, s0 + n); i > 0 &&
			     d->dismax[i - 1] > s0; ) {
				const struct dis *x = &d->dis[--i];

				if (x->end > s0 && (int64_t)x->entry <=
				    d->point && !dropped(d, x->entry))
					near[nnear++] = *x;
			}
		}
	}
	for (s = s0; s < s0 + n && !retval; s += run) {
		int64_t w = latest_write(d, s, d->point), x = -1, w2, x2;
		int src;

		for (i = 0; i < nnear; i++)
			if (near[i].start <= s && s < near[i].end &&
			    (int64_t)near[i].entry > x)
				x = near[i].entry;
		src = x > w ? E4_WLOG_SRC_DISCARD :
			w >= 0 ? E4_WLOG_SRC_WRITE : E4_WLOG_SRC_BASE;
		/* Extend the run while the next sector has the same source
		 * (the same entry, for writes: contiguous in the log). */
		for (run = 1; s + run < s0 + n; run++) {
			uint64_t t = s + run;
			int src2;

			w2 = latest_write(d, t, d->point);
			x2 = -1;
			for (i = 0; i < nnear; i++)
				if (near[i].start <= t && t < near[i].end &&
				    (int64_t)near[i].entry > x2)
					x2 = near[i].entry;
			src2 = x2 > w2 ? E4_WLOG_SRC_DISCARD :
				w2 >= 0 ? E4_WLOG_SRC_WRITE :
				E4_WLOG_SRC_BASE;
			if (src2 != src ||
			    (src == E4_WLOG_SRC_WRITE && w2 != w))
				break;
		}
		if (src == E4_WLOG_SRC_DISCARD) {
			memset(buf + (s - s0) * d->ss, 0, run * d->ss);
		} else if (src == E4_WLOG_SRC_WRITE) {
			const struct e4_wlog_entry *e = &d->log->ents[w];

			retval = e4_wlog_read_data(d->log, e,
						   (s - e->sector) * d->ss,
						   buf + (s - s0) * d->ss,
						   run * d->ss);
		} else {
			if (d->base->block_size != (int)d->ss)
				retval = io_channel_set_blksize(d->base,
								(int)d->ss);
			if (!retval)
				retval = io_channel_read_blk64(d->base, s,
					(int)run, buf + (s - s0) * d->ss);
		}
	}
	ext2fs_free_mem(&near);
	if (retval && !d->read_err)
		d->read_err = retval;
	return retval;
}

errcode_t e4_wlog_dev_take_error(struct e4_wlog_dev *d)
{
	errcode_t err = d->read_err;

	d->read_err = 0;
	return err;
}

/* Bytes [@off, @off + @len) at the current point, uncached. */
static errcode_t read_range(struct e4_wlog_dev *d, uint64_t off,
			    unsigned char *out, uint64_t len)
{
	uint64_t ss = d->ss, s, head, n;
	errcode_t retval;

	while (len) {
		s = off / ss;
		head = off % ss;
		if (head || len < ss) {	/* a partial sector */
			n = ss - head < len ? ss - head : len;
			retval = read_sectors(d, s, 1, d->bounce);
			if (retval)
				return retval;
			memcpy(out, d->bounce + head, n);
		} else {
			n = len / ss * ss;
			/* Bounded chunks keep the run arrays small. */
			if (n > (1U << 24))
				n = 1U << 24;
			retval = read_sectors(d, s, n / ss, out);
			if (retval)
				return retval;
		}
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

errcode_t e4_wlog_dev_read(e4_wlog_dev_t d, uint64_t off, void *buf,
			   uint64_t len)
{
	unsigned char *out = buf;
	errcode_t retval;

	if (off > d->dev_bytes || len > d->dev_bytes - off)
		return EXT2_ET_SHORT_READ;
	if (!d->ctag || d->shared || d->point != d->pos_point)
		return read_range(d, off, out, len);
	while (len) {
		uint64_t b = off / CBLK, head = off % CBLK;
		uint64_t n = CBLK - head < len ? CBLK - head : len;
		size_t slot = b & (NCACHE - 1);
		unsigned char *blk = d->cdata + slot * CBLK;

		if ((b + 1) * CBLK > d->dev_bytes) {	/* a partial tail */
			retval = read_range(d, off, out, n);
		} else if (d->ctag[slot] == b + 1) {
			memcpy(out, blk + head, n);
			retval = 0;
		} else {
			d->ctag[slot] = 0;
			retval = read_sectors(d, b * (CBLK / d->ss),
					      CBLK / d->ss, blk);
			if (!retval) {
				d->ctag[slot] = b + 1;
				memcpy(out, blk + head, n);
			}
		}
		if (retval)
			return retval;
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

errcode_t e4_wlog_dev_base_spb(e4_wlog_dev_t d, uint64_t *spb)
{
	ext2_filsys fs = NULL;
	errcode_t retval;

	*spb = 0;
	retval = e4_wlog_dev_set_point(d, -1);
	if (!retval)
		retval = ext2fs_open2(e4_wlog_dev_name(d), "",
				      EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP |
				      EXT2_FLAG_IGNORE_CSUM_ERRORS |
				      EXT2_FLAG_SUPER_ONLY, 0, 0,
				      e4_wlog_io_manager, &fs);
	if (retval)
		return retval;
	*spb = fs->blocksize / e4_wlog_dev_log(d)->sectorsize;
	ext2fs_free(fs);
	return *spb ? 0 : EXT2_ET_INVALID_ARGUMENT;
}

/* ---- the io_manager --------------------------------------------------- */

static errcode_t wl_open(const char *name, int flags, io_channel *channel)
{
	void *ptr = NULL;
	e4_wlog_dev_t d;

	if (!name || sscanf(name, "e4wlog:%p", &ptr) != 1 || !ptr)
		return EXT2_ET_BAD_DEVICE_NAME;
	d = ptr;
	if (d->magic != E4_WLOG_DEV_MAGIC)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (flags & IO_FLAG_RW)
		return E4_ERR_READ_ONLY;
	return e4_chan_new(e4_wlog_io_manager, name, d, channel);
}

static errcode_t wl_close(io_channel channel)
{
	e4_chan_put(channel);
	return 0;
}

static errcode_t wl_set_blksize(io_channel channel, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	channel->block_size = blksize;
	return 0;
}

static errcode_t wl_read_blk64(io_channel channel, unsigned long long block,
			       int count, void *data)
{
	uint64_t size = count < 0 ? (uint64_t)-(int64_t)count :
		(uint64_t)count * channel->block_size;

	return e4_wlog_dev_read(channel->private_data,
				block * (uint64_t)channel->block_size, data,
				size);
}

static errcode_t wl_read_blk(io_channel channel, unsigned long block,
			     int count, void *data)
{
	return wl_read_blk64(channel, block, count, data);
}

static struct struct_io_manager struct_wlog_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4tools write-log device I/O manager",
	.open		= wl_open,
	.close		= wl_close,
	.set_blksize	= wl_set_blksize,
	.read_blk	= wl_read_blk,
	.write_blk	= e4_ro_write_blk,
	.flush		= e4_ro_flush,
	.write_byte	= e4_ro_write_byte,
	.set_option	= e4_ro_set_option,
	.read_blk64	= wl_read_blk64,
	.write_blk64	= e4_ro_write_blk64,
};

io_manager e4_wlog_io_manager = &struct_wlog_manager;
