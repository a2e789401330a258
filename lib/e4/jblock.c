/*
 * jblock.c --- the jbd2 block codec: parse and build descriptor, revoke
 * and commit blocks, block tag sizes, and every journal checksum
 * (descriptor/revoke tail, commit block, block tag) from one codec whose
 * checksum seed is computed once.  Used by scan.c (parse, verify) and
 * txn.c (build).
 *
 * Source: fs/jbd2/recovery.c count_tags(), scan_revoke_records(),
 * jbd2_descriptor_block_csum_verify(), jbd2_commit_block_csum_verify(),
 * jbd2_block_tag_csum_verify(); fs/jbd2/commit.c jbd2_block_tag_csum_set(),
 * jbd2_commit_block_csum_set(); include/linux/jbd2.h journal_tag_bytes();
 * Documentation/filesystems/ext4/journal.rst (Linux 6.x).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "e4.h"

unsigned int e4_journal_tag_bytes(uint32_t incompat)
{
	unsigned int sz = 12;

	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return JBD2_TAG3_SIZE;
	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		sz += 2;
	if (incompat & JBD2_FEATURE_INCOMPAT_64BIT)
		return sz;
	return sz - 4;
}

static int has_v2v3(uint32_t incompat)
{
	return !!(incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
			      JBD2_FEATURE_INCOMPAT_CSUM_V3));
}

void e4_jcodec_init(struct e4_jcodec *c, const struct e4_jsb *jsb,
		    unsigned int blocksize)
{
	memset(c, 0, sizeof(*c));
	c->blocksize = blocksize;
	c->incompat = jsb->feature_incompat;
	c->compat = jsb->feature_compat;
	c->tag_bytes = e4_journal_tag_bytes(c->incompat);
	c->v2v3 = has_v2v3(c->incompat);
	c->v3 = !!(c->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3);
	c->v1 = !c->v2v3 && (c->compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	memcpy(c->uuid, jsb->uuid, JBD2_UUID_SIZE);
	c->seed = e4_crc32c(~0U, jsb->uuid, JBD2_UUID_SIZE);
}

/* ---- parsing ------------------------------------------------------------ */

size_t e4_jdesc_parse(const void *blk, unsigned int blocksize,
		      uint32_t incompat, struct e4_jtag *tags, size_t max)
{
	const uint8_t *b = blk;
	unsigned int tag_bytes = e4_journal_tag_bytes(incompat);
	size_t size = blocksize, off = JBD2_HEADER_SIZE, nr = 0;
	uint16_t flags;

	if (has_v2v3(incompat))
		size -= JBD2_TAIL_SIZE;
	while (off + tag_bytes <= size) {
		const uint8_t *t = b + off;

		flags = e4_be16(t + JBD2_TAG_FLAGS);
		if (nr < max) {
			struct e4_jtag *g = &tags[nr];

			memset(g, 0, sizeof(*g));
			g->fsblk = e4_be32(t + JBD2_TAG_BLOCKNR);
			if (incompat & JBD2_FEATURE_INCOMPAT_64BIT)
				g->fsblk |= (blk64_t)e4_be32(t +
					JBD2_TAG_BLOCKNR_HIGH) << 32;
			g->flags = flags;
			if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
				g->csum = e4_be32(t + JBD2_TAG3_CHECKSUM);
			else if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
				g->csum = e4_be16(t + JBD2_TAG_CHECKSUM);
			g->csum_ok = -1;
		}
		nr++;
		off += tag_bytes;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			off += JBD2_UUID_SIZE;
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return nr;
}

errcode_t e4_jrevoke_parse(const void *blk, unsigned int blocksize,
			   uint32_t incompat, blk64_t *out, size_t max,
			   size_t *n)
{
	const uint8_t *b = blk;
	uint32_t rcount = e4_be32(b + JBD2_REVOKE_COUNT);
	unsigned int csum_size = has_v2v3(incompat) ? JBD2_TAIL_SIZE : 0;
	unsigned int rec = (incompat & JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t off = JBD2_REVOKE_HEADER_SIZE, nr = 0;

	e4_error_tables_init();
	*n = 0;
	if (rcount > blocksize - csum_size)
		return E4_ERR_JOURNAL_CORRUPT;
	while (off + rec <= rcount) {
		if (nr < max)
			out[nr] = rec == 8 ? e4_be64(b + off) : e4_be32(b + off);
		nr++;
		off += rec;
	}
	*n = nr;
	return 0;
}

/* ---- checksums ---------------------------------------------------------- */

/* crc32c(seed) of @len bytes at @b, the 4 bytes at @off taken as zero. */
static uint32_t csum_zeroed(const struct e4_jcodec *c, const uint8_t *b,
			    unsigned int off, unsigned int len)
{
	static const uint8_t z[4];
	uint32_t crc;

	crc = e4_crc32c(c->seed, b, off);
	crc = e4_crc32c(crc, z, 4);
	return e4_crc32c(crc, b + off + 4, len - off - 4);
}

int e4_jblock_tail_csum_ok(const struct e4_jcodec *c, const void *blk)
{
	unsigned int off = c->blocksize - JBD2_TAIL_SIZE;

	if (!c->v2v3)
		return 1;
	return e4_be32((const uint8_t *)blk + off) ==
		csum_zeroed(c, blk, off, c->blocksize);
}

void e4_jblock_set_tail_csum(const struct e4_jcodec *c, void *blk)
{
	unsigned int off = c->blocksize - JBD2_TAIL_SIZE;

	if (c->v2v3)
		e4_put_be32((uint8_t *)blk + off,
			    csum_zeroed(c, blk, off, c->blocksize));
}

void e4_jcommit_decode(const void *blk, struct e4_jtrans *t)
{
	const uint8_t *b = blk;

	t->commit_sec = e4_be64(b + JBD2_COMMIT_SEC);
	t->commit_nsec = e4_be32(b + JBD2_COMMIT_NSEC);
	t->commit_csum_type = b[JBD2_COMMIT_CHKSUM_TYPE];
	t->commit_csum_size = b[JBD2_COMMIT_CHKSUM_SIZE];
	t->commit_csum = e4_be32(b + JBD2_COMMIT_CHKSUM);
}

int e4_jcommit_csum_check(const struct e4_jcodec *c, const void *blk)
{
	static const uint8_t zeros[256];
	const uint8_t *b = blk;
	uint32_t stored = e4_be32(b + JBD2_COMMIT_CHKSUM), crc;
	unsigned int left;

	if (!c->v2v3)
		return 1;
	if (stored == csum_zeroed(c, b, JBD2_COMMIT_CHKSUM, c->blocksize))
		return 1;
	/* The header only, the rest of the block taken as zero. */
	crc = csum_zeroed(c, b, JBD2_COMMIT_CHKSUM, JBD2_COMMIT_HEADER_SIZE);
	for (left = c->blocksize - JBD2_COMMIT_HEADER_SIZE; left; ) {
		unsigned int n = left < sizeof(zeros) ? left : sizeof(zeros);

		crc = e4_crc32c(crc, zeros, n);
		left -= n;
	}
	return stored == crc ? 2 : 0;
}

void e4_jcommit_set_csum(const struct e4_jcodec *c, void *blk)
{
	if (c->v2v3)
		e4_put_be32((uint8_t *)blk + JBD2_COMMIT_CHKSUM,
			    csum_zeroed(c, blk, JBD2_COMMIT_CHKSUM, c->blocksize));
}

uint32_t e4_jtag_csum(const struct e4_jcodec *c, uint32_t tid,
		      const void *data)
{
	uint8_t seq[4];

	e4_put_be32(seq, tid);
	return e4_crc32c(e4_crc32c(c->seed, seq, 4), data, c->blocksize);
}

int e4_jtag_csum_ok(const struct e4_jcodec *c, const struct e4_jtag *g,
		    uint32_t tid, const void *data)
{
	uint32_t crc = e4_jtag_csum(c, tid, data);

	if (c->v3)
		return g->csum == crc;
	return g->csum == (crc & 0xffff);
}

int e4_jblock_escape(void *blk)
{
	if (e4_be32(blk) != JBD2_MAGIC)
		return 0;
	e4_put_be32(blk, 0);
	return 1;
}

void e4_jblock_unescape(void *blk, int escaped)
{
	if (escaped)
		e4_put_be32(blk, JBD2_MAGIC);
}

#define HASH_MIX(h, w)	do { (h) = ((h) ^ (w)) * 0xff51afd7ed558ccdULL; \
			     (h) ^= (h) >> 29; } while (0)

/* Four lanes of 64-bit multiply-xorshift: any CPU. */
static uint64_t hash_scalar(const void *blk, unsigned int bs, int escaped)
{
	const unsigned char *b = blk;
	unsigned char head[32];
	uint64_t h0 = 0x9e3779b97f4a7c15ULL, h1 = 0xc2b2ae3d27d4eb4fULL,
		 h2 = 0x165667b19e3779f9ULL, h3 = 0x27d4eb2f165667c5ULL;
	uint64_t w0, w1, w2, w3;
	unsigned int i;

	/* four lanes in scalar variables: the vectorised form of an
	 * array of lanes (SSE2, no 64-bit multiply) is slower */
	for (i = 0; i + 32 <= bs; i += 32) {
		const unsigned char *q = b + i;

		if (!i && escaped) {	/* the copy as replay writes it */
			memcpy(head, b, sizeof(head));
			e4_jblock_unescape(head, 1);
			q = head;
		}
		memcpy(&w0, q, 8);
		memcpy(&w1, q + 8, 8);
		memcpy(&w2, q + 16, 8);
		memcpy(&w3, q + 24, 8);
		HASH_MIX(h0, w0);
		HASH_MIX(h1, w1);
		HASH_MIX(h2, w2);
		HASH_MIX(h3, w3);
	}
	for (; i + 8 <= bs; i += 8) {
		memcpy(&w0, b + i, 8);
		HASH_MIX(h0, w0);
	}
	HASH_MIX(h0, h1);
	HASH_MIX(h0, h2);
	HASH_MIX(h0, h3);
	return h0;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang_analyzer__)
#define HAVE_HASH_AVX2 1
#include <immintrin.h>

/*
 * The same job in AVX2 (2.3x the scalar lanes): XXH3's accumulation
 * (xxhash.h XXH3_accumulate_512, own code) over 64-byte stripes in eight
 * 64-bit lanes, acc += lo32(x ^ k) * hi32(x ^ k) + (x with its 32-bit
 * halves swapped), the keys advancing every stripe so that the position
 * of a word counts; the lanes and any tail of fewer than 64 bytes folded
 * with HASH_MIX.  Another function than hash_scalar(): one process uses
 * one of them for every block (the CPU decides), hashes are never stored.
 */
__attribute__((target("avx2")))
static uint64_t hash_avx2(const void *blk, unsigned int bs, int escaped)
{
	const unsigned char *b = blk;
	unsigned char head[64];
	__m256i a0 = _mm256_set_epi64x(0x9e3779b97f4a7c15LL,
				       (long long)0xc2b2ae3d27d4eb4fULL,
				       0x165667b19e3779f9LL,
				       0x27d4eb2f165667c5LL);
	__m256i a1 = _mm256_set_epi64x((long long)0x85ebca77c2b2ae63ULL,
				       (long long)0xff51afd7ed558ccdULL,
				       (long long)0xc4ceb9fe1a85ec53ULL,
				       (long long)0x94d049bb133111ebULL);
	__m256i k0 = _mm256_set_epi64x(0x2545f4914f6cdd1dLL,
				       0x5851f42d4c957f2dLL,
				       0x14057b7ef767814fLL,
				       0x369dea0f31a53f85LL);
	__m256i k1 = _mm256_set_epi64x(0x61c8864680b583ebLL,
				       0x3c6ef372fe94f82bLL,
				       (long long)0xa54ff53a5f1d36f1ULL,
				       0x510e527fade682d1LL);
	const __m256i step = _mm256_set1_epi64x((long long)
						0x9e3779b97f4a7c15ULL);
	uint64_t v[8], h = bs, w;
	unsigned int i;
	int x;

	for (i = 0; i + 64 <= bs; i += 64) {
		const unsigned char *q = b + i;
		__m256i x0, x1, y0, y1;

		if (!i && escaped) {	/* the copy as replay writes it */
			memcpy(head, b, sizeof(head));
			e4_jblock_unescape(head, 1);
			q = head;
		}
		x0 = _mm256_loadu_si256((const __m256i *)q);
		x1 = _mm256_loadu_si256((const __m256i *)(q + 32));
		y0 = _mm256_xor_si256(x0, k0);
		y1 = _mm256_xor_si256(x1, k1);
		a0 = _mm256_add_epi64(a0, _mm256_add_epi64(
			_mm256_mul_epu32(y0, _mm256_srli_epi64(y0, 32)),
			_mm256_shuffle_epi32(x0, 0xb1)));
		a1 = _mm256_add_epi64(a1, _mm256_add_epi64(
			_mm256_mul_epu32(y1, _mm256_srli_epi64(y1, 32)),
			_mm256_shuffle_epi32(x1, 0xb1)));
		k0 = _mm256_add_epi64(k0, step);
		k1 = _mm256_add_epi64(k1, step);
	}
	_mm256_storeu_si256((__m256i *)v, a0);
	_mm256_storeu_si256((__m256i *)(v + 4), a1);
	for (x = 0; x < 8; x++)
		HASH_MIX(h, v[x]);
	for (; i + 8 <= bs; i += 8) {	/* block sizes are powers of two */
		memcpy(&w, b + i, 8);
		if (!i && escaped)
			e4_jblock_unescape(&w, 1);
		HASH_MIX(h, w);
	}
	return h;
}
#endif

uint64_t e4_jblock_hash(const void *blk, unsigned int bs, int escaped)
{
#ifdef HAVE_HASH_AVX2
	if (__builtin_cpu_supports("avx2"))
		return hash_avx2(blk, bs, escaped);
#endif
	return hash_scalar(blk, bs, escaped);
}

/* ---- building ----------------------------------------------------------- */

void e4_jblock_header(void *blk, uint32_t type, uint32_t tid)
{
	uint8_t *b = blk;

	e4_put_be32(b + JBD2_H_MAGIC, JBD2_MAGIC);
	e4_put_be32(b + JBD2_H_BLOCKTYPE, type);
	e4_put_be32(b + JBD2_H_SEQUENCE, tid);
}

size_t e4_jdesc_tags_per_block(const struct e4_jcodec *c)
{
	size_t room = c->blocksize - JBD2_HEADER_SIZE;

	if (c->v2v3)
		room -= JBD2_TAIL_SIZE;
	return 1 + (room - c->tag_bytes - JBD2_UUID_SIZE) / c->tag_bytes;
}

size_t e4_jdesc_put_tag(const struct e4_jcodec *c, void *at, blk64_t fsblk,
			uint32_t flags, uint32_t csum)
{
	uint8_t *t = at;

	if (c->v3) {
		e4_put_be32(t + JBD2_TAG3_BLOCKNR, (uint32_t)fsblk);
		e4_put_be32(t + JBD2_TAG3_FLAGS, flags);
		e4_put_be32(t + JBD2_TAG3_BLOCKNR_HIGH, (uint32_t)(fsblk >> 32));
		e4_put_be32(t + JBD2_TAG3_CHECKSUM, csum);
	} else {
		e4_put_be32(t + JBD2_TAG_BLOCKNR, (uint32_t)fsblk);
		if (c->v2v3)
			e4_put_be16(t + JBD2_TAG_CHECKSUM, (uint16_t)csum);
		e4_put_be16(t + JBD2_TAG_FLAGS, (uint16_t)flags);
		if (c->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
			e4_put_be32(t + JBD2_TAG_BLOCKNR_HIGH,
				    (uint32_t)(fsblk >> 32));
	}
	if (flags & JBD2_FLAG_SAME_UUID)
		return c->tag_bytes;
	memcpy(t + c->tag_bytes, c->uuid, JBD2_UUID_SIZE);
	return c->tag_bytes + JBD2_UUID_SIZE;
}

uint32_t e4_jblock_facts(const void *blk, unsigned int bs, blk64_t fsblk,
			 int escaped)
{
	size_t stale;
	uint32_t f = E4_COPY_FACTS;

	if (escaped || bs < 2)
		return 0;
	stale = e4_stamp_block_stale(blk, fsblk, bs);
	if (stale > (UINT32_MAX >> E4_COPY_STALE_SHIFT))
		return 0;
	if (e4_le16(blk) == EXT3_EXT_MAGIC)
		f |= E4_COPY_EXT_MAGIC;
	if (e4_block_is_zero(blk, bs))
		f |= E4_COPY_ZERO;
	return f | (uint32_t)stale << E4_COPY_STALE_SHIFT;
}
