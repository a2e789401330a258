/*
 * stamp.c --- the stale-data stamp: fill buffers with it and recognise it.
 *
 * A stamped device holds in every 1024-byte unit: bytes 0-7 the ASCII text
 * "E4JSTALE", bytes 8-15 the unit's index (byte offset / 1024) as a
 * little-endian u64, bytes 16-1023 the byte 0xA5.  A unit is stale when its
 * first 16 bytes are its own stamp (e4tools issue 4; tests/images/MANIFEST).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "e4.h"

static const char stamp_magic[8] = { 'E', '4', 'J', 'S', 'T', 'A', 'L', 'E' };

/* Byte @off (0..1023) of the stamp of unit @unit. */
static unsigned char stamp_byte(uint64_t unit, unsigned int off)
{
	if (off < 8)
		return (unsigned char)stamp_magic[off];
	if (off < 16)
		return (unsigned char)(unit >> (8 * (off - 8)));
	return E4_STAMP_FILL;
}

void e4_stamp_unit(void *unit_buf, uint64_t unit)
{
	unsigned char *p = unit_buf;
	int i;

	memcpy(p, stamp_magic, 8);
	for (i = 0; i < 8; i++)
		p[8 + i] = (unsigned char)(unit >> (8 * i));
	memset(p + 16, E4_STAMP_FILL, E4_STAMP_UNIT - 16);
}

void e4_stamp_fill(void *buf, uint64_t byte_offset, size_t len)
{
	unsigned char *p = buf;
	uint64_t pos = byte_offset, end = byte_offset + len;

	while (pos < end) {
		uint64_t unit = pos / E4_STAMP_UNIT;
		unsigned int off = pos % E4_STAMP_UNIT;

		if (off == 0 && end - pos >= E4_STAMP_UNIT) {
			e4_stamp_unit(p, unit);
			p += E4_STAMP_UNIT;
			pos += E4_STAMP_UNIT;
			continue;
		}
		*p++ = stamp_byte(unit, off);
		pos++;
	}
}

int e4_stamp_unit_is_stale(const void *unit_buf, uint64_t unit)
{
	const unsigned char *p = unit_buf;

	if (memcmp(p, stamp_magic, 8))
		return 0;
	return e4_le64(p + 8) == unit;
}

size_t e4_stamp_count_stale(const void *buf, uint64_t byte_offset,
			    size_t len)
{
	const unsigned char *p = buf;
	uint64_t first, pos;
	size_t n = 0;

	/* First unit whose start lies in the buffer. */
	first = (byte_offset + E4_STAMP_UNIT - 1) / E4_STAMP_UNIT;
	for (pos = first * E4_STAMP_UNIT; pos + 16 <= byte_offset + len;
	     pos += E4_STAMP_UNIT)
		n += e4_stamp_unit_is_stale(p + (pos - byte_offset),
					    pos / E4_STAMP_UNIT);
	return n;
}

size_t e4_stamp_units(uint64_t byte_offset, size_t len)
{
	uint64_t first = (byte_offset + E4_STAMP_UNIT - 1) / E4_STAMP_UNIT;
	uint64_t pos = first * E4_STAMP_UNIT;

	if (pos + 16 > byte_offset + len)
		return 0;
	return (byte_offset + len - 16 - pos) / E4_STAMP_UNIT + 1;
}

size_t e4_stamp_block_stale(const void *buf, blk64_t blk,
			    unsigned int blocksize)
{
	return e4_stamp_count_stale(buf, (uint64_t)blk * blocksize,
				    blocksize);
}

int e4_block_is_zero(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!len)
		return 1;
	return p[0] == 0 && !memcmp(p, p + 1, len - 1);
}
