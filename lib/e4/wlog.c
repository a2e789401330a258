/*
 * wlog.c --- the dm-log-writes block write log format: parse a log's super
 * block and entries (header, data extent, mark label) into an index,
 * check it, find persistence points and marks.
 *
 * Format: Linux drivers/md/dm-log-writes.c (log_one_block(), log_super(),
 * log_mark()) and xfstests src/log-writes/log-writes.[ch] (log_open(),
 * log_entry_valid(), log_seek_next_entry()); own code.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_int.h"

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

void e4_wlog_close(e4_wlog_t log)
{
	uint64_t i;

	if (!log)
		return;
	if (log->parent) {	/* a slice owns nothing but itself */
		ext2fs_free_mem(&log);
		return;
	}
	if (log->ents)
		for (i = 0; i < log->nr_entries; i++)
			ext2fs_free_mem(&log->ents[i].mark);
	ext2fs_free_mem(&log->ents);
	if (log->io)
		io_channel_close(log->io);
	ext2fs_free_mem(&log->path);
	ext2fs_free_mem(&log);
}

/* Read @len bytes at byte @off (a multiple of the sector size) of the
 * log file, @len a multiple of the sector size too. */
static errcode_t read_at(e4_wlog_t log, uint64_t off, void *buf, size_t len)
{
	return io_channel_read_blk64(log->io, off / log->sectorsize,
				     (int)(len / log->sectorsize), buf);
}

/* Validate and record entry @i whose header sector is @hdr at byte @off. */
static errcode_t parse_entry(e4_wlog_t log, uint64_t i, uint64_t off,
			     const unsigned char *hdr, uint64_t *next)
{
	struct e4_wlog_entry *e = &log->ents[i];
	uint64_t ss = log->sectorsize, bytes, k;

	e->sector = get_le64(hdr);
	e->nr_sectors = get_le64(hdr + 8);
	e->flags = get_le64(hdr + 16);
	e->data_len = get_le64(hdr + 24);
	e->hdr_off = off;
	e->data_off = 0;
	e->mark = NULL;
	/* log_entry_valid(): an all-zero header is no entry. */
	if (!e->flags && !e->nr_sectors)
		return E4_ERR_WLOG_MALFORMED;
	/* The range's end, in bytes, must not overflow. */
	if (e->sector > UINT64_MAX / ss ||
	    e->nr_sectors > UINT64_MAX / ss - e->sector)
		return E4_ERR_WLOG_MALFORMED;
	if (e->flags & E4_WLOG_MARK) {
		if (e->data_len > ss - E4_WLOG_HDR_SIZE)
			return E4_ERR_WLOG_MALFORMED;
		if (ext2fs_get_mem(e->data_len + 1, &e->mark))
			return EXT2_ET_NO_MEMORY;
		memcpy(e->mark, hdr + E4_WLOG_HDR_SIZE, e->data_len);
		e->mark[e->data_len] = 0;
		log->nmark++;
	} else {
		/* The kernel zero-fills the header sector. */
		for (k = E4_WLOG_HDR_SIZE; k < ss; k++)
			if (hdr[k])
				return E4_ERR_WLOG_MALFORMED;
	}
	*next = off + ss;
	if (e->flags & E4_WLOG_DISCARD) {
		log->ndiscard++;
	} else if (e->nr_sectors) {
		bytes = e->nr_sectors * ss;
		if (bytes > log->file_size || *next > log->file_size - bytes)
			return E4_ERR_WLOG_TRUNCATED;
		e->data_off = *next;
		*next += bytes;
		log->nwrites++;
		log->written_bytes += bytes;
	}
	if (e->nr_sectors && e->sector + e->nr_sectors > log->max_sector)
		log->max_sector = e->sector + e->nr_sectors;
	if (e->flags & E4_WLOG_FLUSH)
		log->nflush++;
	if (e->flags & E4_WLOG_FUA)
		log->nfua++;
	if (e->flags & E4_WLOG_METADATA)
		log->nmeta++;
	return 0;
}

errcode_t e4_wlog_open(const char *path, io_manager mgr, e4_wlog_t *ret,
		       uint64_t *bad_entry)
{
	blk64_t size;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (bad_entry)
		*bad_entry = (uint64_t)-1;
	retval = ext2fs_get_device_size2(path, 1, &size);
	if (retval)
		return retval;
	return e4_wlog_open_io(path, mgr, size, ret, bad_entry);
}

errcode_t e4_wlog_open_io(const char *name, io_manager mgr,
			  uint64_t file_size, e4_wlog_t *ret,
			  uint64_t *bad_entry)
{
	e4_wlog_t log = NULL;
	unsigned char sb[512], *hdr = NULL;
	uint64_t i, off, next, ss, cap;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (bad_entry)
		*bad_entry = (uint64_t)-1;
	retval = ext2fs_get_memzero(sizeof(*log), &log);
	if (retval)
		return retval;
	retval = ext2fs_get_mem(strlen(name) + 1, &log->path);
	if (retval)
		goto fail;
	strcpy(log->path, name);
	log->file_size = file_size;
	retval = mgr->open(name, 0, &log->io);
	if (retval)
		goto fail;
	if (log->file_size < E4_WLOG_HDR_SIZE - 4) {
		retval = E4_ERR_WLOG_MAGIC;
		goto fail;
	}
	retval = io_channel_set_blksize(log->io, 512);
	if (!retval)
		retval = io_channel_read_blk64(log->io, 0,
			-(int)(log->file_size < 512 ? log->file_size : 512),
			sb);
	if (retval)
		goto fail;
	if (get_le64(sb) != E4_WLOG_MAGIC) {
		retval = E4_ERR_WLOG_MAGIC;
		goto fail;
	}
	if (get_le64(sb + 8) != E4_WLOG_VERSION) {
		retval = E4_ERR_WLOG_VERSION;
		goto fail;
	}
	log->nr_entries = get_le64(sb + 16);
	ss = log->sectorsize = get_le32(sb + 24);
	if (ss < 512 || ss > 65536 || (ss & (ss - 1))) {
		retval = E4_ERR_WLOG_SECTORSIZE;
		goto fail;
	}
	/* Each entry takes a header sector: the file holds at most @cap
	 * entries, whatever nr_entries says (the array is sized by it). */
	cap = log->file_size / ss ? log->file_size / ss - 1 : 0;
	if (cap > log->nr_entries)
		cap = log->nr_entries;
	retval = io_channel_set_blksize(log->io, (int)ss);
	if (!retval)
		retval = ext2fs_get_mem(ss, &hdr);
	if (!retval && cap)
		retval = ext2fs_get_arrayzero(cap, sizeof(*log->ents),
					      &log->ents);
	if (retval)
		goto fail;
	for (i = 0, off = ss; i < log->nr_entries; i++, off = next) {
		/* Past @cap entries the file has less than a sector left:
		 * one of these two holds before ents[i] is touched. */
		if (off >= log->file_size) {
			retval = E4_ERR_WLOG_NR_ENTRIES;
			break;
		}
		if (log->file_size - off < ss) {
			retval = E4_ERR_WLOG_TRUNCATED;
			break;
		}
		retval = read_at(log, off, hdr, ss);
		if (!retval)
			retval = parse_entry(log, i, off, hdr, &next);
		if (retval)
			break;
	}
	if (retval) {
		if (bad_entry)
			*bad_entry = i;
		log->nr_entries = i < cap ? i + 1 : cap;	/* to free */
		goto fail;
	}
	log->extra_bytes = log->file_size - off;
	ext2fs_free_mem(&hdr);
	*ret = log;
	return 0;
fail:
	ext2fs_free_mem(&hdr);
	e4_wlog_close(log);
	return retval;
}

errcode_t e4_wlog_slice(e4_wlog_t log, uint64_t first, uint64_t n,
			e4_wlog_t *ret)
{
	e4_wlog_t s;
	uint64_t i;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (first > log->nr_entries || n > log->nr_entries - first)
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*s), &s);
	if (retval)
		return retval;
	s->path = log->path;
	s->io = log->io;
	s->sectorsize = log->sectorsize;
	s->nr_entries = n;
	s->file_size = log->file_size;
	s->ents = log->ents + first;
	s->extra_bytes = log->extra_bytes;
	s->origin = log->origin + first;
	s->parent = log;
	for (i = 0; i < n; i++) {
		const struct e4_wlog_entry *e = &s->ents[i];

		if (e->flags & E4_WLOG_DISCARD) {
			s->ndiscard++;
		} else if (e->nr_sectors) {
			s->nwrites++;
			s->written_bytes += e->nr_sectors * s->sectorsize;
		}
		if (e->nr_sectors && e->sector + e->nr_sectors > s->max_sector)
			s->max_sector = e->sector + e->nr_sectors;
		if (e->flags & E4_WLOG_FLUSH)
			s->nflush++;
		if (e->flags & E4_WLOG_FUA)
			s->nfua++;
		if (e->flags & E4_WLOG_METADATA)
			s->nmeta++;
		if (e->flags & E4_WLOG_MARK)
			s->nmark++;
	}
	*ret = s;
	return 0;
}

errcode_t e4_wlog_check_device(e4_wlog_t log, uint64_t dev_bytes,
			       uint64_t *bad_entry)
{
	uint64_t i, dev_sectors = dev_bytes / log->sectorsize;

	e4_error_tables_init();
	for (i = 0; i < log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if (e->nr_sectors && e->sector + e->nr_sectors > dev_sectors) {
			if (bad_entry)
				*bad_entry = i;
			return E4_ERR_WLOG_PAST_DEVICE;
		}
	}
	return 0;
}

errcode_t e4_wlog_check_fs(e4_wlog_t log, const struct ext2_super_block *base,
			   uint64_t dev_bytes, uint64_t *bad_entry,
			   struct ext2_super_block *found)
{
	uint64_t i, first, end, size;
	struct ext2_super_block sb;
	errcode_t retval;

	e4_error_tables_init();
	if (found)	/* zeroed unless an entry is refused */
		memset(found, 0, sizeof(*found));
	for (i = 0; i < log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if ((e->flags & (E4_WLOG_DISCARD | E4_WLOG_MARK)) ||
		    !e->nr_sectors || !e->data_off)
			continue;
		first = e->sector * log->sectorsize;
		end = first + e->nr_sectors * log->sectorsize;
		if (first > SUPERBLOCK_OFFSET ||
		    end < SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE)
			continue;	/* not the whole primary superblock */
		retval = e4_wlog_read_data(log, e, SUPERBLOCK_OFFSET - first,
					   &sb, sizeof(sb));
		if (retval)
			return retval;
		if (ext2fs_le16_to_cpu(sb.s_magic) != EXT2_SUPER_MAGIC ||
		    sb.s_log_block_size > EXT2_MAX_BLOCK_LOG_SIZE -
		    EXT2_MIN_BLOCK_LOG_SIZE)
			continue;	/* not (yet) an ext2/3/4 superblock */
		size = ext2fs_blocks_count(&sb) <<
			(ext2fs_le32_to_cpu(sb.s_log_block_size) +
			 EXT2_MIN_BLOCK_LOG_SIZE);
		if ((base && memcmp(sb.s_uuid, base->s_uuid,
				    sizeof(sb.s_uuid))) || size > dev_bytes) {
			if (bad_entry)
				*bad_entry = i;
			if (found)
				*found = sb;
			return size > dev_bytes ? E4_ERR_WLOG_PAST_DEVICE :
				E4_ERR_WLOG_OTHER_FS;
		}
	}
	return 0;
}

int e4_wlog_is_point(const struct e4_wlog_entry *e, int marks)
{
	if (e->flags & (E4_WLOG_FLUSH | E4_WLOG_FUA))
		return 1;
	return marks && (e->flags & E4_WLOG_MARK);
}

errcode_t e4_wlog_find_mark(e4_wlog_t log, const char *label,
			    uint64_t *entry)
{
	uint64_t i;

	e4_error_tables_init();
	for (i = 0; i < log->nr_entries; i++)
		if (log->ents[i].mark && !strcmp(log->ents[i].mark, label)) {
			*entry = i;
			return 0;
		}
	return E4_ERR_WLOG_NO_SUCH_MARK;
}

char *e4_wlog_flags_string(uint64_t flags, char *buf, size_t len)
{
	static const char *names[] = { "FLUSH", "FUA", "DISCARD", "MARK",
				       "METADATA" };
	size_t used = 0;
	unsigned int b;

	if (!len)
		return buf;
	buf[0] = 0;
	for (b = 0; b < 5; b++)
		if (flags & (1ULL << b))
			used += snprintf(buf + used,
					 used < len ? len - used : 0, "%s%s",
					 used ? "|" : "", names[b]);
	if (flags & ~(uint64_t)E4_WLOG_KNOWN_FLAGS)
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s0x%llx", used ? "|" : "",
				 (unsigned long long)(flags &
					~(uint64_t)E4_WLOG_KNOWN_FLAGS));
	if (!used)
		snprintf(buf, len, "NONE");
	return buf;
}

errcode_t e4_wlog_read_data(e4_wlog_t log, const struct e4_wlog_entry *e,
			    uint64_t off, void *buf, size_t len)
{
	uint64_t ss = log->sectorsize, total = e->nr_sectors * ss;
	unsigned char *tmp = NULL;
	uint64_t first, last;
	errcode_t retval;

	e4_error_tables_init();
	if (!e->data_off || off > total || len > total - off)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!len)
		return 0;
	if (!(off % ss) && !(len % ss))
		return read_at(log, e->data_off + off, buf, len);
	first = off / ss * ss;
	last = (off + len + ss - 1) / ss * ss;
	retval = ext2fs_get_mem(last - first, &tmp);
	if (retval)
		return retval;
	retval = read_at(log, e->data_off + first, tmp, last - first);
	if (!retval)
		memcpy(buf, tmp + (off - first), len);
	ext2fs_free_mem(&tmp);
	return retval;
}

errcode_t e4_wlog_flushes(const struct e4_wlog *log, int64_t **ret,
			  size_t *n)
{
	size_t k = 0;
	uint64_t i;
	errcode_t retval;

	*ret = NULL;
	*n = 0;
	for (i = 0; i < log->nr_entries; i++)
		k += !!(log->ents[i].flags & E4_WLOG_FLUSH);
	if (!k)
		return 0;
	retval = ext2fs_get_array(k, sizeof(**ret), ret);
	if (retval)
		return retval;
	for (i = 0; i < log->nr_entries; i++)
		if (log->ents[i].flags & E4_WLOG_FLUSH)
			(*ret)[(*n)++] = (int64_t)i;
	return 0;
}

/* Index of the first of the @n sorted @fl that is > @v. */
static size_t upper(const int64_t *fl, size_t n, int64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fl[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t e4_wlog_flush_next(const int64_t *fl, size_t n, int64_t after)
{
	size_t i = upper(fl, n, after);

	return i < n ? fl[i] : INT64_MAX;
}

size_t e4_wlog_flush_count(const int64_t *fl, size_t n, int64_t after,
			   int64_t upto)
{
	size_t a = upper(fl, n, after), b = upper(fl, n, upto);

	return b > a ? b - a : 0;
}

int64_t e4_wlog_flush_prev(const int64_t *fl, size_t n, int64_t entry)
{
	size_t i = upper(fl, n, entry - 1);	/* first >= entry */

	return i ? fl[i - 1] : -1;
}
