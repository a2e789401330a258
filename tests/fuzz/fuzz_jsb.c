/*
 * fuzz_jsb.c --- libFuzzer target: the journal superblock as bytes
 * (lib/e4/jsb.c): decode, checksum, validate and feature edits.
 *
 * Input: u8 ctrl, be32 real_len, be32 num_fc_blks, 1024 bytes of journal
 * superblock, then an optional feature spec (up to 64 bytes).  ctrl bits
 * 0-1 pick the fs block size (1024 << n), bits 2-4 the E4_FEAT_* flags,
 * bit 5 recomputes the superblock checksum first, bit 6 passes
 * num_fc_blks (else (uint32_t)-1).
 *
 * Properties: validate's accepted superblocks satisfy its documented
 * bounds; a failed edit leaves the buffer unchanged; a successful edit
 * leaves at most one checksum method, a checksum that verifies, no
 * empty-only change on a non-empty log, and keeps a valid superblock
 * valid.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>
#include <e2p/e2p.h>

#include "harness.h"

#define HDR	9

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char sb[JBD2_JSB_SIZE], before[JBD2_JSB_SIZE];
	char spec[65], bad[64];
	struct e4_jsb s;
	unsigned int bs, ctrl;
	uint64_t real_len;
	uint32_t nfc, v2v3 = JBD2_FEATURE_INCOMPAT_CSUM_V2 |
		JBD2_FEATURE_INCOMPAT_CSUM_V3;
	errcode_t valid, retval;
	size_t n;
	int flags, i;

	if (size < HDR + JBD2_JSB_SIZE)
		return 0;
	ctrl = data[0];
	bs = 1024U << (ctrl & 3);
	real_len = e4_be32(data + 1);
	nfc = (ctrl & 0x40) ? e4_be32(data + 5) : (uint32_t)-1;
	flags = (ctrl >> 2) & 7;
	memcpy(sb, data + HDR, JBD2_JSB_SIZE);
	n = size - HDR - JBD2_JSB_SIZE;
	if (n > 64)
		n = 64;
	memcpy(spec, data + HDR + JBD2_JSB_SIZE, n);
	spec[n] = 0;
	if (ctrl & 0x20)
		e4_jsb_set_csum(sb);

	e4_jsb_decode(sb, &s);
	FUZZ_ASSERT(e4_jsb_log_end(sb) <= s.maxlen, "log_end > maxlen");
	FUZZ_ASSERT(e4_jsb_csum_ok(sb) == 1 || e4_jsb_has_csum_v2v3(sb),
		    "csum fails without a checksum feature");
	for (i = 0; i < 32; i++) {
		(void)e4_jrnl_feature2string(E2P_FEATURE_COMPAT, 1U << i);
		(void)e4_jrnl_feature2string(E2P_FEATURE_INCOMPAT, 1U << i);
		(void)e4_jrnl_feature2string(E2P_FEATURE_RO_INCOMPAT, 1U << i);
	}
	valid = e4_jsb_validate(sb, bs, real_len);
	if (!valid) {
		FUZZ_ASSERT(s.blocksize == bs, "blocksize");
		FUZZ_ASSERT(s.maxlen <= real_len, "maxlen");
		FUZZ_ASSERT(s.first >= 1 && s.first < s.maxlen, "first");
		FUZZ_ASSERT(!s.start || (s.start >= s.first &&
					 s.start < e4_jsb_log_end(sb)),
			    "start %u", s.start);
		FUZZ_ASSERT(e4_jsb_csum_ok(sb), "csum");
		FUZZ_ASSERT((s.feature_incompat & v2v3) != v2v3, "v2+v3");
	}

	memcpy(before, sb, JBD2_JSB_SIZE);
	retval = e4_jsb_edit_features(sb, spec, nfc, flags, bad, sizeof(bad));
	if (retval) {
		FUZZ_ASSERT(!memcmp(before, sb, JBD2_JSB_SIZE),
			    "failed edit changed the superblock");
		return 0;
	}
	e4_jsb_decode(sb, &s);
	FUZZ_ASSERT(!!(s.feature_compat & JBD2_FEATURE_COMPAT_CHECKSUM) +
		    !!(s.feature_incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2) +
		    !!(s.feature_incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3) <= 1,
		    "two checksum methods after an edit");
	FUZZ_ASSERT(e4_jsb_csum_ok(sb), "edit left a bad checksum");
	if (e4_be32(before + JBD2_JSB_START))
		FUZZ_ASSERT(e4_jsb_log_end(sb) == e4_jsb_log_end(before) &&
			    !((e4_be32(sb + JBD2_JSB_FEATURE_INCOMPAT) ^
			       e4_be32(before + JBD2_JSB_FEATURE_INCOMPAT)) &
			      ~JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT) &&
			    !((e4_be32(sb + JBD2_JSB_FEATURE_COMPAT) ^
			       e4_be32(before + JBD2_JSB_FEATURE_COMPAT)) &
			      JBD2_FEATURE_COMPAT_CHECKSUM),
			    "non-empty log changed its layout");
	if (!valid) {
		retval = e4_jsb_validate(sb, bs, real_len);
		FUZZ_ASSERT(!retval, "edit '%s' made a valid superblock "
			    "invalid: %s", spec, error_message(retval));
	}
	return 0;
}
