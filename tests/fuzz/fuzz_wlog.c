/*
 * fuzz_wlog.c --- libFuzzer target: a dm-log-writes log (lib/e4/wlog.c),
 * the device at its points (wlog_io.c) and the write-log ordering check
 * (wlog_check.c) over the built 4 MiB ext4 template (1 KiB blocks, a
 * 1024-block journal) as BASE.
 *
 * Input: u8 ctrl, then the log.  ctrl bit 0: the harness supplies a valid
 * super block (magic, version 1, sector size 512, nr_entries = the next
 * input byte) and the rest of the input is the entries, from sector 1;
 * else the input is the whole log file.  Bit 1: run e4_wlog_check() (bit
 * 2: with MARKs as points; bits 3-4: the data mode).  The log and BASE
 * are in memory (mem_io.c).
 *
 * Properties: a refused log names one of the write-log errors (or an io
 * error of reading past a short file); a parsed one has every entry's
 * data inside the file and the counts add up; the device at the last
 * entry and at an input-chosen one equals BASE with entries 0..P applied
 * by the harness (writes copied from e4_wlog_read_data(), DISCARDs
 * zeroed); the check writes nothing, lists one point per FLUSH/FUA (and
 * MARK) entry, and its violation blocks are the sum of its non-permitted
 * findings' lengths; the statistics (wlog_stats.c) find the check's
 * commit writes and their spans and tail add up to the log's entries and
 * flushes.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int wlog_error(errcode_t e)
{
	return e == E4_ERR_WLOG_MAGIC || e == E4_ERR_WLOG_VERSION ||
		e == E4_ERR_WLOG_SECTORSIZE || e == E4_ERR_WLOG_NR_ENTRIES ||
		e == E4_ERR_WLOG_TRUNCATED || e == E4_ERR_WLOG_MALFORMED;
}

/* BASE with entries 0..@p of @log applied into @dev (t->size bytes). */
static void model(const struct fuzz_tmpl *t, e4_wlog_t log, int64_t p,
		  unsigned char *dev)
{
	int64_t i;

	memcpy(dev, t->buf, t->size);
	for (i = 0; i <= p; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];
		uint64_t off = e->sector * log->sectorsize;
		uint64_t len = e->nr_sectors * log->sectorsize;

		if (!len)
			continue;
		if (e->flags & E4_WLOG_DISCARD)
			memset(dev + off, 0, len);
		else if (len)
			FUZZ_ASSERT(!e4_wlog_read_data(log, e, 0, dev + off,
						       len),
				    "entry %lld data unreadable", (long long)i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char in[FUZZ_MAX_INPUT + 512], *dev, *got;
	const struct fuzz_tmpl *t = fuzz_sb_tmpl(0);
	struct e4_memimg lm, bm;
	struct e4_wlog_check_opts co;
	struct e4_wlog_report *rep = NULL;
	struct e4_wlog_stats *ws = NULL;
	e4_wlog_t log = NULL;
	e4_wlog_dev_t d = NULL;
	io_channel bch = NULL;
	uint64_t bad, i, nw = 0, points = 0, vb = 0;
	size_t len;
	unsigned int ctrl;
	errcode_t retval;

	if (size < 1)
		return 0;
	ctrl = data[0];
	data++;
	size--;
	if (size > FUZZ_MAX_INPUT)
		size = FUZZ_MAX_INPUT;
	memset(in, 0, 512);
	if (ctrl & 1) {
		uint64_t nr = size ? data[0] : 0;

		for (i = 0; i < 8; i++) {
			in[i] = (uint8_t)(E4_WLOG_MAGIC >> (8 * i));
			in[16 + i] = (uint8_t)(nr >> (8 * i));
		}
		in[8] = 1;
		in[25] = 2;	/* sector size 512 */
		len = size ? size - 1 : 0;
		memcpy(in + 512, data + 1, len);
		len += 512;
	} else {
		len = size;
		memcpy(in, data, len);
	}
	if (!dev) {
		dev = malloc(t->size);
		got = malloc(t->size);
		FUZZ_ASSERT(dev && got, "no memory");
	}
	if (e4_memimg_init(&lm, in, len))
		return 0;
	retval = e4_wlog_open_io(lm.name, e4_mem_io_manager, len, &log, &bad);
	if (retval) {
		FUZZ_ASSERT(wlog_error(retval) || retval == EXT2_ET_SHORT_READ,
			    "refused with %ld (%s)", (long)retval,
			    error_message(retval));
		goto out;
	}
	for (i = 0; i < log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		FUZZ_ASSERT(e->hdr_off + log->sectorsize <= len,
			    "entry %llu header past the file",
			    (unsigned long long)i);
		if (e->data_off) {
			FUZZ_ASSERT(e->data_off + e->nr_sectors *
				    log->sectorsize <= len,
				    "entry %llu data past the file",
				    (unsigned long long)i);
			nw++;
		}
		points += e4_wlog_is_point(e, !!(ctrl & 4));
	}
	FUZZ_ASSERT(nw == log->nwrites, "writes %llu counted %llu",
		    (unsigned long long)nw, (unsigned long long)log->nwrites);
	if (e4_memimg_init(&bm, t->buf, t->size))
		goto out;
	if (e4_mem_io_manager->open(bm.name, 0, &bch))
		goto outb;
	retval = e4_wlog_dev_create(log, bch, t->size, &d);
	if (retval) {
		FUZZ_ASSERT(retval == E4_ERR_WLOG_PAST_DEVICE,
			    "device refused with %s", error_message(retval));
		goto outb;
	}
	if (log->nr_entries) {
		int64_t ps[2] = { (int64_t)log->nr_entries - 1,
				  (int64_t)(ctrl >> 5) %
				  (int64_t)log->nr_entries };
		int k;

		for (k = 0; k < 2; k++) {
			model(t, log, ps[k], dev);
			FUZZ_ASSERT(!e4_wlog_dev_set_point(d, ps[k]), "point");
			FUZZ_ASSERT(!e4_wlog_dev_read(d, 0, got, t->size),
				    "device unreadable at %lld",
				    (long long)ps[k]);
			FUZZ_ASSERT(!memcmp(dev, got, t->size),
				    "device at %lld differs from the model",
				    (long long)ps[k]);
		}
	}
	if (ctrl & 2) {
		memset(&co, 0, sizeof(co));
		co.marks = !!(ctrl & 4);
		co.data_mode = (ctrl >> 3) & 3;
		if (!e4_wlog_check(d, &co, &rep)) {
			FUZZ_ASSERT(rep->npoints == points,
				    "%zu points, %llu expected", rep->npoints,
				    (unsigned long long)points);
			for (i = 0; i < rep->nf; i++) {
				FUZZ_ASSERT((rep->f[i].len >= 1 ||
					     rep->f[i].kind ==
					     E4_WLOG_UNRECOVERABLE) &&
					    rep->f[i].kind >= 0 &&
					    rep->f[i].kind < E4_WLOG_NKINDS,
					    "finding %llu",
					    (unsigned long long)i);
				if (!rep->f[i].permitted)
					vb += rep->f[i].len;
			}
			FUZZ_ASSERT(vb == rep->violation_blocks,
				    "violation blocks %llu, findings %llu",
				    (unsigned long long)rep->violation_blocks,
				    (unsigned long long)vb);
		}
		e4_wlog_report_free(rep);
		rep = NULL;
		if (!e4_wlog_stats(d, &ws)) {
			uint64_t ne = ws->tail.entries, nf = ws->tail.flushes;

			for (i = 0; i < ws->ncommits; i++) {
				ne += ws->commits[i].span.entries;
				nf += ws->commits[i].span.flushes;
				FUZZ_ASSERT(ws->commits[i].span.last ==
					    (int64_t)ws->commits[i].commit_entry,
					    "commit %llu span",
					    (unsigned long long)i);
			}
			FUZZ_ASSERT(ne == log->nr_entries &&
				    ws->all.entries == log->nr_entries,
				    "spans hold %llu entries of %llu",
				    (unsigned long long)ne,
				    (unsigned long long)log->nr_entries);
			FUZZ_ASSERT(nf == log->nflush &&
				    ws->all.flushes == log->nflush,
				    "spans hold %llu flushes of %llu",
				    (unsigned long long)nf,
				    (unsigned long long)log->nflush);
		}
		e4_wlog_stats_free(ws);
	}
outb:
	e4_wlog_dev_free(d);
	if (bch)
		io_channel_close(bch);
	FUZZ_ASSERT(bm.nwrites == 0, "BASE written");
	e4_memimg_free(&bm);
out:
	e4_wlog_close(log);
	FUZZ_ASSERT(lm.nwrites == 0, "the log written");
	e4_memimg_free(&lm);
	return 0;
}
