/*
 * fuzz_order.c --- libFuzzer target: the alloc-on-commit ordering check
 * (lib/e4/order.c, overlay_io.c) on a fuzzed log.
 *
 * Input: as fuzz_jarea (u8 ctrl with FUZZ_FIX_* bits, then journal blocks
 * 0, 1, ... of tests/images/blocksize-1k with its log zeroed).  The fs is
 * opened read-only through a fault io_manager that aborts on any write;
 * the overlays read the same in-memory image by its "e4mem:" name.
 *
 * Properties: no write at all (the check is read-only); the report's
 * transactions are the scan's committed ones (at most); every finding
 * names a transaction of the report or none, and a run of >= 1 block.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	struct e4_jscan *scan = NULL;
	struct e4_plan *plan = NULL;
	struct e4_order_report *rep = NULL;
	struct e4_order_opts opts;
	errcode_t retval;
	size_t i;

	if (fuzz_jarea_input(data, size, EXT2_FLAG_IGNORE_CSUM_ERRORS, &m,
			     &f, &fs))
		return 0;
	retval = e4_journal_open(fs, NULL, 0, &j);
	if (!retval)
		retval = e4_journal_scan(j, 0, 0, &scan);
	if (!retval && !scan->fail) {
		e4_order_opts_init(&opts, sizeof(opts));
		opts.data_mode = (data[0] >> 5) & 3;	/* E4_DATA_* */
		opts.outside = -1;
		opts.stamped = -1;
		opts.list_mappings = !!(data[0] & 0x80);
		retval = e4_plan_build(j, scan, &plan);
		if (!retval)
			retval = e4_order_check(fs, plan, &opts, &rep);
		if (!retval) {
			FUZZ_ASSERT(rep->ntx <= scan->ncommitted,
				    "%zu transactions checked, %zu committed",
				    rep->ntx, scan->ncommitted);
			for (i = 0; i < rep->nf; i++)
				/* a reuse note names an inode, no blocks */
				FUZZ_ASSERT((rep->f[i].len >= 1 ||
					     rep->f[i].kind ==
					     E4_ORD_INODE_REUSED) &&
					    rep->f[i].kind >= 0 &&
					    rep->f[i].kind < E4_ORD_NKINDS,
					    "finding %zu", i);
		}
	}
	e4_order_report_free(rep);
	e4_plan_free(plan);
	e4_jscan_free(scan);
	e4_journal_close(j);
	ext2fs_close_free(&fs);
	FUZZ_ASSERT(m.nwrites == 0, "read-only check wrote");
	e4_memimg_free(&m);
	return 0;
}
