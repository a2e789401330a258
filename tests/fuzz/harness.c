/*
 * harness.c --- template images, input placement, checksum fix-ups
 * and property checks shared by the libFuzzer harnesses (see
 * harness.h and tests/fuzz/README.md).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>
#include <et/com_err.h>

#include "harness.h"

#ifndef E4_FUZZ_TOP
#define E4_FUZZ_TOP "."
#endif

static void die(const char *what, errcode_t err)
{
	fprintf(stderr, "fuzz template: %s: %s\n", what,
		err ? error_message(err) : "failed");
	exit(2);
}

/* Map the journal of the fs in @t->buf (through libext2fs and libe4). */
static void map_journal(struct fuzz_tmpl *t)
{
	struct e4_memimg m;
	ext2_filsys fs;
	e4_journal_t j = NULL;
	errcode_t retval;
	blk64_t i;

	retval = e4_memimg_init(&m, t->buf, t->size);
	if (retval)
		die("memimg", retval);
	retval = ext2fs_open2(m.name, NULL, EXT2_FLAG_64BITS, 0, 0,
			      e4_mem_io_manager, &fs);
	if (retval)
		die("open template", retval);
	t->blocksize = fs->blocksize;
	t->nblocks = ext2fs_blocks_count(fs->super);
	retval = e4_journal_open(fs, NULL, 0, &j);
	if (retval)
		die("open template journal", retval);
	t->jlen = j->real_len;
	t->jpblk = calloc(t->jlen, sizeof(*t->jpblk));
	if (!t->jpblk)
		die("calloc", 0);
	for (i = 0; i < t->jlen; i++)
		if (e4_journal_bmap(j, i, &t->jpblk[i]))
			die("bmap template journal", 0);
	e4_journal_close(j);
	ext2fs_close_free(&fs);
	e4_memimg_free(&m);
}

void fuzz_tmpl_bundled(struct fuzz_tmpl *t, const char *name, int clear_log)
{
	char cmd[4096];
	const char *top = getenv("E4_FUZZ_TOP");
	FILE *p;
	size_t cap = 1 << 20, n;
	blk64_t i;

	memset(t, 0, sizeof(*t));
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s/tests/images/%s.img.gz'",
		 top ? top : E4_FUZZ_TOP, name);
	p = popen(cmd, "r");
	if (!p)
		die(cmd, 0);
	t->buf = malloc(cap);
	while (t->buf && (n = fread(t->buf + t->size, 1, cap - t->size, p))) {
		t->size += n;
		if (t->size == cap) {
			cap *= 2;
			t->buf = realloc(t->buf, cap);
		}
	}
	if (pclose(p) || !t->buf || !t->size)
		die(cmd, 0);
	map_journal(t);
	if (clear_log)
		for (i = 1; i < t->jlen; i++)
			memset(t->buf + t->jpblk[i] * t->blocksize, 0,
			       t->blocksize);
}

/* The fs of fuzz_tmpl_built(), left open on @m for more to be added. */
static void build_fs(struct fuzz_tmpl *t, struct e4_memimg *m, int csum,
		     unsigned int log_bs, ext2_filsys *ret)
{
	struct ext2_super_block param;
	struct ext2fs_journal_params jp;
	ext2_filsys fs;
	errcode_t retval;

	memset(t, 0, sizeof(*t));
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	t->size = 4096ULL * (1024 << log_bs);
	retval = e4_memimg_init(m, NULL, t->size);
	if (retval)
		die("memimg", retval);
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, 4096);
	param.s_log_block_size = log_bs;
	param.s_inodes_count = 512;
	param.s_inode_size = 256;
	param.s_rev_level = EXT2_DYNAMIC_REV;
	ext2fs_set_feature_extents(&param);
	ext2fs_set_feature_64bit(&param);
	ext2fs_set_feature_sparse_super(&param);
	ext2fs_set_feature_filetype(&param);
	ext2fs_set_feature_dir_index(&param);
	ext2fs_set_feature_large_file(&param);
	ext2fs_set_feature_extra_isize(&param);
	if (csum)
		ext2fs_set_feature_metadata_csum(&param);
	retval = ext2fs_initialize(m->name, EXT2_FLAG_64BITS, &param,
				   e4_mem_io_manager, &fs);
	if (retval)
		die("ext2fs_initialize", retval);
	memset(fs->super->s_uuid, 0xe4, sizeof(fs->super->s_uuid));
	if (csum)
		fs->super->s_checksum_type = EXT2_CRC32C_CHKSUM;
	ext2fs_init_csum_seed(fs);
	retval = ext2fs_allocate_tables(fs);
	if (!retval)
		retval = ext2fs_mkdir(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, 0);
	if (!retval) {
		jp.num_journal_blocks = 1024;
		jp.num_fc_blocks = 0;
		retval = ext2fs_add_journal_inode3(fs, &jp, ~0ULL, 0);
	}
	if (retval)
		die("build template", retval);
	*ret = fs;
}

/* Close @fs, keep the bytes of @m as the template @t, map its journal. */
static void finish_tmpl(struct fuzz_tmpl *t, struct e4_memimg *m,
			ext2_filsys fs)
{
	errcode_t retval;

	retval = ext2fs_close_free(&fs);
	if (retval)
		die("close template", retval);
	t->buf = malloc(t->size);
	if (!t->buf || e4_memimg_pread(m, 0, t->buf, t->size))
		die("flatten template", 0);
	e4_memimg_free(m);
	map_journal(t);
}

void fuzz_tmpl_built(struct fuzz_tmpl *t, int csum)
{
	struct e4_memimg m;
	ext2_filsys fs;

	build_fs(t, &m, csum, 0, &fs);
	finish_tmpl(t, &m, fs);
}

/* A new empty extent-mapped inode of mode @mode linked as /@name. */
static ext2_ino_t new_inode(ext2_filsys fs, const char *name, int mode)
{
	struct ext2_inode inode;
	ext2_extent_handle_t h;
	ext2_ino_t ino;
	errcode_t retval;

	retval = ext2fs_new_inode(fs, EXT2_ROOT_INO, mode, 0, &ino);
	if (retval)
		die("new inode", retval);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = mode;
	inode.i_links_count = 1;
	/* ext2fs_extent_open2() puts an empty extent header in i_block */
	retval = ext2fs_extent_open2(fs, ino, &inode, &h);
	if (retval)
		die("extent header", retval);
	ext2fs_extent_free(h);
	retval = ext2fs_write_new_inode(fs, ino, &inode);
	if (!retval)
		retval = ext2fs_link(fs, EXT2_ROOT_INO, name, ino,
				     EXT2_FT_REG_FILE);
	if (retval)
		die("create file", retval);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	return ino;
}

/* Allocate lblks [@lblk, @lblk + @len) of @ino, unwritten or written,
 * physically after *@goal (advanced). */
static void falloc(ext2_filsys fs, ext2_ino_t ino, blk64_t lblk,
		   blk64_t len, int unwritten, blk64_t *goal)
{
	errcode_t retval;
	blk64_t pblk = 0;

	retval = ext2fs_fallocate(fs, unwritten ?
				  EXT2_FALLOCATE_FORCE_UNINIT :
				  EXT2_FALLOCATE_FORCE_INIT, ino, NULL,
				  *goal, lblk, len);
	if (!retval)
		retval = ext2fs_bmap2(fs, ino, NULL, NULL, 0, lblk + len - 1,
				      NULL, &pblk);
	if (retval)
		die("fallocate", retval);
	*goal = pblk + 1;
}

/*
 * Map lblks [0, @len) of @ino to one physically contiguous run after
 * *@goal (advanced), in 4-block extents whose flag alternates (written
 * first).  The run is allocated before the extents are set, so a tree
 * block the extent code allocates lands outside it.
 */
static void contiguous(ext2_filsys fs, ext2_ino_t ino, blk64_t len,
		       blk64_t *goal)
{
	struct ext2_inode inode;
	ext2_extent_handle_t h;
	blk64_t pblk, plen, l;
	errcode_t retval;

	retval = ext2fs_new_range(fs, 0, *goal, len, NULL, &pblk, &plen);
	if (retval)
		die("new range", retval);
	ext2fs_block_alloc_stats_range(fs, pblk, len, +1);
	retval = ext2fs_extent_open(fs, ino, &h);
	for (l = 0; !retval && l < len; l++)
		retval = ext2fs_extent_set_bmap(h, l, pblk + l, (l / 4) & 1 ?
						EXT2_EXTENT_SET_BMAP_UNINIT :
						0);
	if (retval)
		die("set bmap", retval);
	ext2fs_extent_free(h);
	retval = ext2fs_read_inode(fs, ino, &inode);
	if (!retval)
		retval = ext2fs_iblk_add_blocks(fs, &inode, len);
	if (!retval)
		retval = ext2fs_write_inode(fs, ino, &inode);
	if (retval)
		die("i_blocks", retval);
	*goal = pblk + len;
}

static void set_size(ext2_filsys fs, ext2_ino_t ino, blk64_t nblocks)
{
	struct ext2_inode inode;
	errcode_t retval;

	retval = ext2fs_read_inode(fs, ino, &inode);
	if (!retval)
		retval = ext2fs_inode_size_set(fs, &inode,
					       nblocks * fs->blocksize);
	if (!retval)
		retval = ext2fs_write_inode(fs, ino, &inode);
	if (retval)
		die("set i_size", retval);
}

/* Fill every mapped block of @f[0 .. FUZZ_NFILES - 2] with its stamp. */
static void stamp_files(ext2_filsys fs, const struct fuzz_file *f)
{
	unsigned char *buf;
	blk64_t l, pblk;
	errcode_t retval;
	int k;

	buf = malloc(fs->blocksize);
	if (!buf)
		die("malloc", 0);
	memset(buf, 0xA5, fs->blocksize);
	for (k = 0; k < FUZZ_NFILES - 1; k++)
		for (l = 0; l < f[k].span; l++) {
			retval = ext2fs_bmap2(fs, f[k].ino, NULL, NULL, 0, l,
					      NULL, &pblk);
			if (!retval && pblk) {
				fuzz_data_stamp(buf, pblk);
				retval = io_channel_write_blk64(fs->io, pblk,
								1, buf);
			}
			if (retval)
				die("stamp", retval);
		}
	free(buf);
}

void fuzz_data_stamp(unsigned char *buf, blk64_t pblk)
{
	uint64_t v = FUZZ_DATA_STAMP | pblk;
	int i;

	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(v >> (8 * i));
}

void fuzz_tmpl_files(struct fuzz_tmpl *t, int csum, int bs4k,
		     struct fuzz_file f[FUZZ_NFILES])
{
	struct e4_memimg m;
	ext2_filsys fs;
	/* 4 KiB leaves hold 340 extents, 1 KiB ones 84 */
	blk64_t goal = 1500, i, nbig = bs4k ? 345 : 180;
	errcode_t retval;

	build_fs(t, &m, csum, bs4k ? 2 : 0, &fs);
	retval = ext2fs_read_bitmaps(fs);
	if (retval)
		die("read bitmaps", retval);
	/* reserved inodes in use, as mke2fs has them (e2fsck -fn clean) */
	for (i = 1; i < EXT2_FIRST_INO(fs->super); i++)
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, i))
			ext2fs_inode_alloc_stats2(fs, i, +1, 0);
	/* 0: @nbig extents of 4 blocks, lblk gaps of 4: depth 1, full
	 * leaves; two of three unwritten */
	f[0].ino = new_inode(fs, "big", LINUX_S_IFREG | 0644);
	for (i = 0; i < nbig; i++)
		falloc(fs, f[0].ino, 8 * i, 4, i % 3 != 0, &goal);
	f[0].span = 8 * (nbig - 1) + 4;
	set_size(fs, f[0].ino, f[0].span);
	/* 1: 40 contiguous 4-block pieces (lblk and pblk), the flag
	 * alternating, a hole, then 40 unwritten blocks past i_size */
	f[1].ino = new_inode(fs, "mixed", LINUX_S_IFREG | 0644);
	contiguous(fs, f[1].ino, 160, &goal);
	falloc(fs, f[1].ino, 200, 40, 1, &goal);
	f[1].span = 240;
	set_size(fs, f[1].ino, 180);
	/* 2: one unwritten extent of 64 blocks in the inode */
	f[2].ino = new_inode(fs, "one", LINUX_S_IFREG | 0644);
	falloc(fs, f[2].ino, 0, 64, 1, &goal);
	f[2].span = 64;
	set_size(fs, f[2].ino, 64);
	/* 3: a directory (not a regular file) */
	retval = ext2fs_mkdir(fs, EXT2_ROOT_INO, 0, "dir");
	if (!retval)
		retval = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "dir", &f[3].ino);
	if (retval)
		die("mkdir", retval);
	f[3].span = 1;
	stamp_files(fs, f);
	finish_tmpl(t, &m, fs);
}

void fuzz_place_journal(const struct fuzz_tmpl *t, struct e4_memimg *m,
			const uint8_t *data, size_t len)
{
	blk64_t b;

	for (b = 0; len && b < t->jlen; b++) {
		size_t n = len < t->blocksize ? len : t->blocksize;

		e4_memimg_pwrite(m, t->jpblk[b] * t->blocksize, data, n);
		data += n;
		len -= n;
	}
}

/* Tag size on disk (the kernel's journal_tag_bytes()). */
static unsigned int tag_bytes(uint32_t incompat)
{
	unsigned int n;

	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return JBD2_TAG3_SIZE;
	n = 12;
	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		n += 2;
	if (!(incompat & JBD2_FEATURE_INCOMPAT_64BIT))
		n -= 4;
	return n;
}

/* Set the tag checksums of the descriptor at jblock @d (in @blk). */
static void fix_tags(const struct fuzz_tmpl *t, struct e4_memimg *m,
		     unsigned char *blk, blk64_t d, blk64_t nblk,
		     uint32_t incompat, uint32_t seed)
{
	unsigned int bs = t->blocksize, tb = tag_bytes(incompat);
	unsigned int off = JBD2_HEADER_SIZE, end = bs - JBD2_TAIL_SIZE;
	unsigned char *data = malloc(bs), seq[4];
	blk64_t next = d + 1;
	uint32_t flags, c;

	if (!data)
		return;
	memcpy(seq, blk + JBD2_H_SEQUENCE, 4);
	while (off + tb <= end && next < nblk) {
		unsigned char *tag = blk + off;

		flags = (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3) ?
			e4_be32(tag + JBD2_TAG3_FLAGS) : e4_be16(tag + JBD2_TAG_FLAGS);
		if (e4_memimg_pread(m, t->jpblk[next] * bs, data, bs))
			break;
		c = e4_crc32c(seed, seq, 4);
		c = e4_crc32c(c, data, bs);
		if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
			e4_put_be32(tag + JBD2_TAG3_CHECKSUM, c);
		else
			e4_put_be16(tag + JBD2_TAG_CHECKSUM, (uint16_t)c);
		off += tb;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		next++;
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	free(data);
}

void fuzz_fix_journal(const struct fuzz_tmpl *t, struct e4_memimg *m,
		      unsigned int ctrl, blk64_t nblk)
{
	unsigned char *blk = malloc(t->blocksize);
	unsigned int bs = t->blocksize;
	uint32_t incompat, seed, c, type;
	blk64_t b;

	if (!blk)
		return;
	if (nblk > t->jlen)
		nblk = t->jlen;
	if (e4_memimg_pread(m, t->jpblk[0] * bs, blk, bs))
		goto out;
	if (ctrl & FUZZ_FIX_JSB) {
		e4_jsb_set_csum(blk);
		e4_memimg_pwrite(m, t->jpblk[0] * bs, blk, JBD2_JSB_SIZE);
	}
	if (!(ctrl & (FUZZ_FIX_BLOCKS | FUZZ_FIX_TAGS)) ||
	    !e4_jsb_has_csum_v2v3(blk))
		goto out;
	incompat = e4_be32(blk + JBD2_JSB_FEATURE_INCOMPAT);
	seed = e4_crc32c(~0U, blk + JBD2_JSB_UUID, 16);
	for (b = 1; b < nblk; b++) {
		if (e4_memimg_pread(m, t->jpblk[b] * bs, blk, bs))
			break;
		if (e4_be32(blk) != JBD2_MAGIC)
			continue;
		type = e4_be32(blk + JBD2_H_BLOCKTYPE);
		if (type == JBD2_DESCRIPTOR_BLOCK && (ctrl & FUZZ_FIX_TAGS))
			fix_tags(t, m, blk, b, nblk, incompat, seed);
		if ((type == JBD2_DESCRIPTOR_BLOCK ||
		     type == JBD2_REVOKE_BLOCK) && (ctrl & FUZZ_FIX_BLOCKS)) {
			memset(blk + bs - JBD2_TAIL_SIZE, 0, JBD2_TAIL_SIZE);
			c = e4_crc32c(seed, blk, bs);
			e4_put_be32(blk + bs - JBD2_TAIL_SIZE, c);
		} else if (type == JBD2_COMMIT_BLOCK &&
			   (ctrl & FUZZ_FIX_BLOCKS)) {
			memset(blk + JBD2_COMMIT_CHKSUM, 0, 4);
			c = e4_crc32c(seed, blk, bs);
			e4_put_be32(blk + JBD2_COMMIT_CHKSUM, c);
		}
		e4_memimg_pwrite(m, t->jpblk[b] * bs, blk, bs);
	}
out:
	free(blk);
}

errcode_t fuzz_open_ro(struct e4_memimg *m, struct e4_fault *f, int flags,
		       ext2_filsys *fs)
{
	e4_fault_init(f, e4_mem_io_manager, m->name);
	f->flags = E4_FAULT_ABORT_ON_WRITE;
	*fs = NULL;
	return ext2fs_open2(f->name, NULL, EXT2_FLAG_64BITS | flags, 0, 0,
			    e4_fault_io_manager, fs);
}

const struct fuzz_tmpl *fuzz_sb_tmpl(int csum)
{
	static struct fuzz_tmpl tmpl[2];
	static int ready;

	if (!ready) {
		fuzz_tmpl_built(&tmpl[0], 0);
		fuzz_tmpl_built(&tmpl[1], 1);
		ready = 1;
	}
	return &tmpl[!!csum];
}

/* Debugging: the image as a run sees it, into the file @path. */
static void dump_img(struct e4_memimg *m, const char *path)
{
	unsigned char *buf = malloc(m->size);
	FILE *f = fopen(path, "wb");

	if (buf && f && !e4_memimg_pread(m, 0, buf, m->size))
		fwrite(buf, 1, m->size, f);
	if (f)
		fclose(f);
	free(buf);
}

void fuzz_dump_journal(const struct fuzz_tmpl *t, struct e4_memimg *m)
{
	const char *path = getenv("E4_FUZZ_DUMP_JOURNAL");
	unsigned char *buf;
	FILE *f;
	blk64_t i;

	if (!path)
		return;
	buf = malloc(t->blocksize);
	f = fopen(path, "wb");
	if (!buf || !f) {
		perror(path);
		abort();
	}
	for (i = 0; i < t->jlen; i++) {
		if (e4_memimg_pread(m, t->jpblk[i] * t->blocksize, buf,
				    t->blocksize) ||
		    fwrite(buf, t->blocksize, 1, f) != 1)
			abort();
	}
	if (fclose(f))
		abort();
	free(buf);
}

int fuzz_sb_input(const uint8_t *data, size_t size, struct e4_memimg *m,
		  struct e4_fault *f, ext2_filsys *fs, errcode_t *retval)
{
	const struct fuzz_tmpl *t;

	*fs = NULL;
	if (size < 1)
		return -1;
	if (size > FUZZ_MAX_INPUT + 1)
		size = FUZZ_MAX_INPUT + 1;
	t = fuzz_sb_tmpl(data[0] & 1);
	if (e4_memimg_init(m, t->buf, t->size))
		return -1;
	e4_memimg_pwrite(m, 1024, data + 1, size - 1);
	if (getenv("E4_FUZZ_DUMP_IMG"))
		dump_img(m, getenv("E4_FUZZ_DUMP_IMG"));
	*retval = fuzz_open_ro(m, f, (data[0] & 2) ?
			       EXT2_FLAG_IGNORE_CSUM_ERRORS : 0, fs);
	return 0;
}

int fuzz_jarea_input(const uint8_t *data, size_t size, int flags,
		     struct e4_memimg *m, struct e4_fault *f,
		     ext2_filsys *fs)
{
	static struct fuzz_tmpl tmpl;
	static int ready;
	errcode_t retval;

	*fs = NULL;
	if (!ready) {
		fuzz_tmpl_bundled(&tmpl, "blocksize-1k", 1);
		ready = 1;
	}
	if (size < 1)
		return -1;
	if (size > FUZZ_MAX_INPUT + 1)
		size = FUZZ_MAX_INPUT + 1;
	if (e4_memimg_init(m, tmpl.buf, tmpl.size))
		return -1;
	fuzz_place_journal(&tmpl, m, data + 1, size - 1);
	fuzz_fix_journal(&tmpl, m, data[0],
			 (size - 1 + tmpl.blocksize - 1) / tmpl.blocksize);
	fuzz_dump_journal(&tmpl, m);
	retval = fuzz_open_ro(m, f, flags, fs);
	FUZZ_ASSERT(!retval, "template fs must open: %ld", (long)retval);
	return 0;
}

void fuzz_read_journal(e4_journal_t j)
{
	unsigned char *a, *b;
	blk64_t i, n = j->real_len, chunk = 64, pblk;
	errcode_t retval;

	a = malloc(chunk * j->blocksize);
	b = malloc(j->blocksize);
	if (!a || !b)
		goto out;
	for (i = 0; i < n; i += chunk) {
		blk64_t c = n - i < chunk ? n - i : chunk, k;

		retval = e4_journal_read(j, i, c, a);
		FUZZ_ASSERT(!retval, "read jblocks %llu+%llu: %s",
			    (unsigned long long)i, (unsigned long long)c,
			    error_message(retval));
		for (k = 0; k < c; k += 17) {
			retval = e4_journal_bmap(j, i + k, &pblk);
			FUZZ_ASSERT(!retval, "bmap %llu",
				    (unsigned long long)(i + k));
			retval = io_channel_read_blk64(j->io, pblk, 1, b);
			FUZZ_ASSERT(!retval, "read pblk");
			FUZZ_ASSERT(!memcmp(a + k * j->blocksize, b,
					    j->blocksize),
				    "read and bmap disagree at %llu",
				    (unsigned long long)(i + k));
		}
	}
	/* Past the end must fail, not wrap. */
	FUZZ_ASSERT(e4_journal_bmap(j, n, &pblk) != 0, "bmap past end");
	FUZZ_ASSERT(e4_journal_read(j, n - 1, 2, a) != 0, "read past end");
	FUZZ_ASSERT(e4_journal_read(j, ~0ULL, 2, a) != 0, "read wraps");
out:
	free(a);
	free(b);
}

/*
 * The statistics of a scan and of the older transactions after it
 * (stats.c, oldlog.c): the walk stays once around the log area, its
 * transactions lie in it, and the block counts add up.
 */
static void fuzz_stats_ro(e4_journal_t j, const struct e4_jscan *scan)
{
	struct e4_jscan_old *old = NULL;
	struct e4_jstats *st = NULL;
	size_t t, k;

	if (e4_jstats_compute(scan->trans, scan->ncommitted, scan->log_end,
			      &st) == 0) {
		FUZZ_ASSERT(st->log_blocks == st->data_blocks +
			    st->descriptor_blocks + st->revoke_blocks +
			    st->commit_blocks, "stats: block counts");
		FUZZ_ASSERT(st->interval_ms.count + 1 <= st->transactions ||
			    !st->transactions, "stats: intervals");
		e4_jstats_free(st);
	}
	if (scan->fail || e4_journal_scan_old(j, scan, &old))
		return;
	FUZZ_ASSERT(old->nblocks <= scan->log_end - scan->log_first,
		    "old log: walked %llu blocks",
		    (unsigned long long)old->nblocks);
	for (t = 0; t < old->ntrans; t++) {
		const struct e4_jtrans *o = &old->trans[t];

		FUZZ_ASSERT(o->has_commit && !o->committed, "old log: commit");
		FUZZ_ASSERT(e4_tid_gt(scan->start_tid, o->tid), "old log: tid");
		FUZZ_ASSERT(o->nblocks == o->ntags + o->ndescriptors +
			    o->nrevoke_blocks + 1, "old log: blocks");
		for (k = 0; k < o->ntags; k++)
			FUZZ_ASSERT(o->tags[k].jblk >= scan->log_first &&
				    o->tags[k].jblk < scan->log_end,
				    "old log: tag outside the log area");
	}
	if (e4_jstats_compute(old->trans, old->ntrans, scan->log_end,
			      &st) == 0)
		e4_jstats_free(st);
	e4_jscan_old_free(old);
}

void fuzz_scan_ro(e4_journal_t j)
{
	struct e4_jscan *scan = NULL;
	struct e4_replay_result res;
	blk64_t nblocks = ext2fs_blocks_count(j->fs->super);
	size_t t, k, r;
	errcode_t retval;

	if (e4_journal_scan(j, 0, 0, &scan))
		return;
	FUZZ_ASSERT(scan->log_blocks <= 2ULL * j->jsb.maxlen,
		    "scan walked %llu blocks, s_maxlen %u",
		    (unsigned long long)scan->log_blocks, j->jsb.maxlen);
	FUZZ_ASSERT(scan->ncommitted <= scan->ntrans, "ncommitted");
	fuzz_stats_ro(j, scan);
	e4_replay_result_init(&res, sizeof(res));
	retval = e4_journal_replay_plan(j, scan, &res);
	for (t = 0; !retval && t < scan->ntrans; t++)
		for (k = 0; k < scan->trans[t].ntags; k++) {
			const struct e4_jtag *g = &scan->trans[t].tags[k];
			int inside = 0;

			if (g->fate != E4_TAG_REPLAY)
				continue;
			FUZZ_ASSERT(t < scan->ncommitted,
				    "uncommitted tag planned");
			FUZZ_ASSERT(g->fsblk < nblocks, "block %llu past "
				    "the fs end planned",
				    (unsigned long long)g->fsblk);
			for (r = 0; !j->external && r < j->nruns; r++)
				if (g->fsblk >= j->runs[r].pblk &&
				    g->fsblk < j->runs[r].pblk +
				    j->runs[r].len)
					inside = 1;
			FUZZ_ASSERT(!inside, "block %llu inside the journal "
				    "planned", (unsigned long long)g->fsblk);
		}
	e4_jscan_free(scan);
}
