/*
 * test_wlog.c --- unit tests of the dm-log-writes parser (wlog.c) and the
 * write-log device (wlog_io.c): logs built here in a temporary file, a
 * BASE in memory (mem_io.c), and a byte-array model of the device applied
 * entry by entry that every read at every point must equal.
 */
#include "unit.h"

#include <fcntl.h>
#include <unistd.h>

#define DEV_BYTES	(1U << 20)

struct lbuild {
	unsigned char	*b;
	size_t		len, cap;
	uint32_t	ss;
	uint64_t	n;
};

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void lb_grow(struct lbuild *l, size_t more)
{
	if (l->len + more <= l->cap)
		return;
	while (l->len + more > l->cap)
		l->cap = l->cap ? 2 * l->cap : 65536;
	l->b = realloc(l->b, l->cap);
	assert_non_null(l->b);
}

static void lb_init(struct lbuild *l, uint32_t ss)
{
	memset(l, 0, sizeof(*l));
	l->ss = ss;
	lb_grow(l, ss);
	memset(l->b, 0, ss);
	put64(l->b, E4_WLOG_MAGIC);
	put64(l->b + 8, 1);
	l->b[24] = ss & 0xff;
	l->b[25] = (ss >> 8) & 0xff;
	l->b[26] = (ss >> 16) & 0xff;
	l->len = ss;
}

/* Append an entry; @data (nr * ss bytes) for writes, @mark for marks. */
static void lb_add(struct lbuild *l, uint64_t sector, uint64_t nr,
		   uint64_t flags, const unsigned char *data, const char *mark)
{
	size_t dl = mark ? strlen(mark) : 0;

	lb_grow(l, l->ss + (data ? nr * l->ss : 0));
	memset(l->b + l->len, 0, l->ss);
	put64(l->b + l->len, sector);
	put64(l->b + l->len + 8, nr);
	put64(l->b + l->len + 16, flags);
	put64(l->b + l->len + 24, dl);
	if (mark)
		memcpy(l->b + l->len + 32, mark, dl);
	l->len += l->ss;
	if (data) {
		memcpy(l->b + l->len, data, nr * l->ss);
		l->len += nr * l->ss;
	}
	l->n++;
	put64(l->b + 16, l->n);
}

static char *lb_write(struct lbuild *l, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_wlog.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, l->b, len), (ssize_t)len);
	close(fd);
	return path;
}

static errcode_t open_bytes(struct lbuild *l, size_t len, e4_wlog_t *log,
			    uint64_t *bad)
{
	char *path = lb_write(l, len);
	errcode_t retval = e4_wlog_open(path, unix_io_manager, log, bad);

	unlink(path);
	return retval;
}

static void test_parse(void **state)
{
	struct lbuild l;
	unsigned char data[8 * 512];
	e4_wlog_t log;
	uint64_t bad, e;
	char fl[64];

	(void)state;
	memset(data, 0x5a, sizeof(data));
	lb_init(&l, 512);
	lb_add(&l, 0, 0, E4_WLOG_FLUSH, NULL, NULL);
	lb_add(&l, 0, 0, E4_WLOG_MARK, NULL, "first");
	lb_add(&l, 16, 8, E4_WLOG_METADATA, data, NULL);
	lb_add(&l, 100, 50, E4_WLOG_DISCARD, NULL, NULL);
	lb_add(&l, 24, 2, E4_WLOG_FLUSH | E4_WLOG_FUA, data, NULL);
	lb_add(&l, 0, 0, E4_WLOG_MARK, NULL, "second");
	assert_int_equal(open_bytes(&l, l.len, &log, &bad), 0);
	assert_int_equal(log->nr_entries, 6);
	assert_int_equal(log->sectorsize, 512);
	assert_int_equal(log->nwrites, 2);
	assert_int_equal(log->nflush, 2);
	assert_int_equal(log->nfua, 1);
	assert_int_equal(log->ndiscard, 1);
	assert_int_equal(log->nmark, 2);
	assert_int_equal(log->nmeta, 1);
	assert_int_equal(log->written_bytes, 10 * 512);
	assert_int_equal(log->max_sector, 150);
	assert_int_equal(log->extra_bytes, 0);
	assert_string_equal(log->ents[1].mark, "first");
	assert_int_equal(log->ents[2].data_off, 4 * 512);
	assert_int_equal(log->ents[3].data_off, 0);
	assert_true(e4_wlog_is_point(&log->ents[0], 0));
	assert_false(e4_wlog_is_point(&log->ents[1], 0));
	assert_true(e4_wlog_is_point(&log->ents[1], 1));
	assert_true(e4_wlog_is_point(&log->ents[4], 0));
	assert_false(e4_wlog_is_point(&log->ents[2], 1));
	assert_int_equal(e4_wlog_find_mark(log, "second", &e), 0);
	assert_int_equal(e, 5);
	assert_int_equal(e4_wlog_find_mark(log, "first", &e), 0);
	assert_int_equal(e, 1);
	assert_int_equal(e4_wlog_find_mark(log, "third", &e),
			 E4_ERR_WLOG_NO_SUCH_MARK);
	assert_string_equal(e4_wlog_flags_string(log->ents[4].flags, fl,
						 sizeof(fl)), "FLUSH|FUA");
	assert_string_equal(e4_wlog_flags_string(0, fl, sizeof(fl)), "NONE");
	assert_string_equal(e4_wlog_flags_string(0x41, fl, sizeof(fl)),
			    "FLUSH|0x40");
	assert_int_equal(e4_wlog_check_device(log, 150 * 512, &bad), 0);
	assert_int_equal(e4_wlog_check_device(log, 149 * 512, &bad),
			 E4_ERR_WLOG_PAST_DEVICE);
	assert_int_equal(bad, 3);
	e4_wlog_close(log);

	/* Bytes after the last entry are ignored and counted. */
	lb_grow(&l, 1000);
	memset(l.b + l.len, 0xff, 1000);
	assert_int_equal(open_bytes(&l, l.len + 1000, &log, &bad), 0);
	assert_int_equal(log->extra_bytes, 1000);
	e4_wlog_close(log);
	free(l.b);
}

static void test_corrupt(void **state)
{
	struct lbuild l;
	unsigned char data[4 * 512];
	e4_wlog_t log;
	uint64_t bad;
	size_t full;

	(void)state;
	memset(data, 1, sizeof(data));
	lb_init(&l, 512);
	lb_add(&l, 0, 0, E4_WLOG_FLUSH, NULL, NULL);
	lb_add(&l, 8, 4, 0, data, NULL);
	lb_add(&l, 0, 0, E4_WLOG_FLUSH, NULL, NULL);
	full = l.len;
	/* Cut inside entry 1's data, inside entry 2's header, at its start. */
	assert_int_equal(open_bytes(&l, full - 512 - 1, &log, &bad),
			 E4_ERR_WLOG_TRUNCATED);
	assert_int_equal(bad, 1);
	assert_int_equal(open_bytes(&l, full - 100, &log, &bad),
			 E4_ERR_WLOG_TRUNCATED);
	assert_int_equal(bad, 2);
	assert_int_equal(open_bytes(&l, full - 512, &log, &bad),
			 E4_ERR_WLOG_NR_ENTRIES);
	assert_int_equal(bad, 2);
	assert_null(log);
	/* nr_entries far beyond the file. */
	put64(l.b + 16, 1ULL << 40);
	assert_int_equal(open_bytes(&l, full, &log, &bad),
			 E4_ERR_WLOG_NR_ENTRIES);
	assert_int_equal(bad, 3);
	put64(l.b + 16, 3);
	/* Padding after a write's header. */
	l.b[512 * 2 + 100] = 1;
	assert_int_equal(open_bytes(&l, full, &log, &bad),
			 E4_ERR_WLOG_MALFORMED);
	assert_int_equal(bad, 1);
	l.b[512 * 2 + 100] = 0;
	/* An all-zero header. */
	memset(l.b + 512, 0, 32);
	assert_int_equal(open_bytes(&l, full, &log, &bad),
			 E4_ERR_WLOG_MALFORMED);
	assert_int_equal(bad, 0);
	put64(l.b + 512 + 16, E4_WLOG_FLUSH);
	/* A range whose end overflows. */
	put64(l.b + 1024, UINT64_MAX - 1);
	assert_int_equal(open_bytes(&l, full, &log, &bad),
			 E4_ERR_WLOG_MALFORMED);
	put64(l.b + 1024, 8);
	assert_int_equal(open_bytes(&l, full, &log, &bad), 0);
	e4_wlog_close(log);
	/* Super block: magic, version, sector size, a short file. */
	l.b[0] ^= 1;
	assert_int_equal(open_bytes(&l, full, &log, &bad), E4_ERR_WLOG_MAGIC);
	assert_int_equal(bad, (uint64_t)-1);
	l.b[0] ^= 1;
	l.b[8] = 2;
	assert_int_equal(open_bytes(&l, full, &log, &bad),
			 E4_ERR_WLOG_VERSION);
	l.b[8] = 1;
	l.b[24] = 0;
	l.b[25] = 3;	/* 768 */
	assert_int_equal(open_bytes(&l, full, &log, &bad),
			 E4_ERR_WLOG_SECTORSIZE);
	assert_int_equal(open_bytes(&l, 10, &log, &bad), E4_ERR_WLOG_MAGIC);
	free(l.b);
}

/* ---- the device against a model ---------------------------------------- */

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The device model: BASE, then entries 0..@p applied in order. */
struct ment {
	uint64_t	s, n;
	int		kind;	/* 0 write, 1 discard, 2 none */
	unsigned char	*data;
};

struct model {
	unsigned char	*dev;
	int64_t		*last;	/* per sector: newest entry, -1 */
	int		*disc;	/* per sector: newest is a discard */
};

static void model_at(struct model *mo, const unsigned char *base,
		     const struct ment *me, int64_t p, uint64_t nsec,
		     uint32_t ss, const unsigned char *drop)
{
	int64_t i;
	uint64_t x;

	memcpy(mo->dev, base, DEV_BYTES);
	for (x = 0; x < nsec; x++) {
		mo->last[x] = -1;
		mo->disc[x] = 0;
	}
	for (i = 0; i <= p; i++) {
		if (me[i].kind == 2 || (drop && drop[i]))
			continue;
		if (me[i].kind == 0)
			memcpy(mo->dev + me[i].s * ss, me[i].data,
			       me[i].n * ss);
		else
			memset(mo->dev + me[i].s * ss, 0, me[i].n * ss);
		for (x = me[i].s; x < me[i].s + me[i].n; x++) {
			mo->last[x] = i;
			mo->disc[x] = me[i].kind == 1;
		}
	}
}

/*
 * The durable state at random marks (wlog_durable.c's rule, here as
 * the model: entries before the last FLUSH, FUA writes) on a clone of
 * @d with e4_wlog_dev_set_drop(): every byte, and the source of sectors.
 */
static void durable_vs_model(e4_wlog_t log, e4_wlog_dev_t d,
			     struct model *mo, const unsigned char *base,
			     const struct ment *me, int nent, uint64_t nsec,
			     uint32_t ss, unsigned char *buf)
{
	unsigned char *skip = calloc(nent, 1);
	e4_wlog_dev_t c;
	uint64_t *drop, bad[2] = { 3, 2 };
	size_t n, j;
	int64_t f, want_f, x, ent;
	int k, i;

	assert_non_null(skip);
	assert_int_equal(e4_wlog_dev_clone(d, &c), 0);
	assert_int_equal(e4_wlog_dev_point(c), -1);
	assert_int_equal(e4_wlog_dev_set_drop(c, bad, 2),
			 EXT2_ET_INVALID_ARGUMENT);
	for (k = 0; k < 40; k++) {
		int64_t m = (int64_t)(rnd() % nent);

		assert_int_equal(e4_wlog_durable_drop(log, (uint64_t)m, &f,
						      &drop, &n), 0);
		want_f = -1;
		for (x = m; x >= 0 && want_f < 0; x--)
			if (log->ents[x].flags & E4_WLOG_FLUSH)
				want_f = x;
		assert_int_equal(f, want_f);
		memset(skip, 0, nent);
		for (x = want_f < 0 ? 0 : want_f, j = 0; x <= m; x++)
			if (me[x].kind != 2 &&
			    !(log->ents[x].flags & E4_WLOG_FUA)) {
				assert_true(j < n);
				assert_int_equal(drop[j++], x);
				skip[x] = 1;
			}
		assert_int_equal(j, n);
		assert_int_equal(e4_wlog_dev_set_drop(c, drop, n), 0);
		assert_int_equal(e4_wlog_dev_set_point(c, m), 0);
		model_at(mo, base, me, m, nsec, ss, skip);
		assert_int_equal(e4_wlog_dev_read(c, 0, buf, DEV_BYTES), 0);
		assert_memory_equal(buf, mo->dev, DEV_BYTES);
		for (i = 0; i < 50; i++) {
			uint64_t s = rnd() % nsec;
			int src = e4_wlog_dev_latest(c, s, m, &ent);

			if (mo->last[s] < 0) {
				assert_int_equal(src, E4_WLOG_SRC_BASE);
			} else {
				assert_int_equal(ent, mo->last[s]);
				assert_int_equal(src, mo->disc[s] ?
						 E4_WLOG_SRC_DISCARD :
						 E4_WLOG_SRC_WRITE);
			}
		}
		/* the device itself is not affected */
		assert_int_equal(e4_wlog_dev_point(d), (int64_t)nent - 1);
		free(drop);
	}
	assert_int_equal(e4_wlog_dev_set_drop(c, NULL, 0), 0);
	e4_wlog_dev_free(c);
	free(skip);
}

static void device_vs_model(uint32_t ss)
{
	const uint64_t nsec = DEV_BYTES / ss;
	const int nent = 300;
	struct lbuild l;
	struct e4_memimg m;
	struct model mo;
	struct ment *me;
	unsigned char *base, *buf;
	io_channel bch;
	e4_wlog_t log;
	e4_wlog_dev_t d;
	io_channel ch;
	char *path;
	int64_t p, ent;
	uint64_t ents_past[1];
	int i, k;

	base = malloc(DEV_BYTES);
	buf = malloc(DEV_BYTES);
	mo.dev = malloc(DEV_BYTES);
	mo.last = malloc(nsec * sizeof(int64_t));
	mo.disc = malloc(nsec * sizeof(int));
	me = calloc(nent, sizeof(*me));
	assert_non_null(base && buf && mo.dev && mo.last && mo.disc && me);
	for (i = 0; i < (int)DEV_BYTES; i++)
		base[i] = (unsigned char)(i * 7 + 3);
	lb_init(&l, ss);
	for (i = 0; i < nent; i++) {
		uint64_t r = rnd() % 10, s = rnd() % nsec;
		uint64_t n = rnd() % 64 + 1, x;

		if (s + n > nsec)
			n = nsec - s;
		me[i].s = s;
		me[i].n = n;
		if (r < 6) {
			me[i].data = malloc(n * ss);
			for (x = 0; x < n * ss; x++)
				me[i].data[x] = (unsigned char)rnd();
			lb_add(&l, s, n, r == 0 ? E4_WLOG_FUA : 0, me[i].data,
			       NULL);
		} else if (r < 8) {
			me[i].kind = 1;
			lb_add(&l, s, n, E4_WLOG_DISCARD, NULL, NULL);
		} else {
			me[i].kind = 2;
			lb_add(&l, 0, 0, r < 9 ? E4_WLOG_FLUSH : E4_WLOG_MARK,
			       NULL, r < 9 ? NULL : "m");
		}
	}
	path = lb_write(&l, l.len);
	assert_int_equal(e4_wlog_open(path, unix_io_manager, &log, NULL), 0);
	unlink(path);
	assert_int_equal(e4_memimg_init(&m, base, DEV_BYTES), 0);
	assert_int_equal(e4_mem_io_manager->open(m.name, 0, &bch), 0);
	assert_int_equal(e4_wlog_dev_create(log, bch, DEV_BYTES, &d), 0);
	assert_int_equal(e4_wlog_io_manager->open(e4_wlog_dev_name(d), 0, &ch),
			 0);
	assert_int_equal(e4_wlog_io_manager->open(e4_wlog_dev_name(d),
						  IO_FLAG_RW, &ch),
			 E4_ERR_READ_ONLY);
	assert_int_equal(io_channel_set_blksize(ch, 4096), 0);
	/* Forward over every point, then random points both ways. */
	for (k = 0; k < nent + 1 + 100; k++) {
		p = k <= nent ? k - 1 : (int64_t)(rnd() % (nent + 1)) - 1;
		assert_int_equal(e4_wlog_dev_set_point(d, p), 0);
		assert_int_equal(e4_wlog_dev_point(d), p);
		model_at(&mo, base, me, p, nsec, ss, NULL);
		assert_int_equal(io_channel_read_blk64(ch, 0,
					(int)(DEV_BYTES / 4096), buf), 0);
		assert_memory_equal(buf, mo.dev, DEV_BYTES);
		for (i = 0; i < 20; i++) {
			uint64_t off = rnd() % DEV_BYTES;
			uint64_t len = rnd() % 20000 + 1;

			if (off + len > DEV_BYTES)
				len = DEV_BYTES - off;
			assert_int_equal(e4_wlog_dev_read(d, off, buf, len), 0);
			assert_memory_equal(buf, mo.dev + off, len);
		}
		for (i = 0; i < 50; i++) {
			uint64_t s = rnd() % nsec;
			int src = e4_wlog_dev_latest(d, s, p, &ent);

			if (mo.last[s] < 0) {
				assert_int_equal(src, E4_WLOG_SRC_BASE);
			} else {
				assert_int_equal(src, mo.disc[s] ?
						 E4_WLOG_SRC_DISCARD :
						 E4_WLOG_SRC_WRITE);
				assert_int_equal(ent, mo.last[s]);
			}
		}
	}
	/* Entries left out (e4_wlog_dev_set_drop(), a witness of
	 * --reorder): reads and e4_wlog_dev_latest() skip them. */
	for (k = 0; k < 40; k++) {
		unsigned char drop[300];
		uint64_t ents[300];
		size_t nd = 0;

		memset(drop, 0, sizeof(drop));
		for (i = 0; i < nent; i++)
			if (rnd() % 4 == 0) {
				drop[i] = 1;
				ents[nd++] = (uint64_t)i;
			}
		p = (int64_t)(rnd() % (nent + 1)) - 1;
		assert_int_equal(e4_wlog_dev_set_drop(d, ents, nd), 0);
		assert_int_equal(e4_wlog_dev_set_point(d, p), 0);
		model_at(&mo, base, me, p, nsec, ss, drop);
		assert_int_equal(io_channel_read_blk64(ch, 0,
					(int)(DEV_BYTES / 4096), buf), 0);
		assert_memory_equal(buf, mo.dev, DEV_BYTES);
		for (i = 0; i < 50; i++) {
			uint64_t s = rnd() % nsec;
			int src = e4_wlog_dev_latest(d, s, p, &ent);

			if (mo.last[s] < 0) {
				assert_int_equal(src, E4_WLOG_SRC_BASE);
			} else {
				assert_int_equal(src, mo.disc[s] ?
						 E4_WLOG_SRC_DISCARD :
						 E4_WLOG_SRC_WRITE);
				assert_int_equal(ent, mo.last[s]);
			}
		}
	}
	ents_past[0] = (uint64_t)nent;
	assert_int_equal(e4_wlog_dev_set_drop(d, ents_past, 1),
			 EXT2_ET_INVALID_ARGUMENT);
	assert_int_equal(e4_wlog_dev_set_drop(d, NULL, 0), 0);
	p = nent - 1;
	assert_int_equal(e4_wlog_dev_set_point(d, p), 0);
	model_at(&mo, base, me, p, nsec, ss, NULL);
	assert_int_equal(io_channel_read_blk64(ch, 0, (int)(DEV_BYTES / 4096),
					       buf), 0);
	assert_memory_equal(buf, mo.dev, DEV_BYTES);
	/* First write or discard of a sector in an open interval. */
	for (i = 0; i < 300; i++) {
		uint64_t s = rnd() % nsec;
		int64_t a = (int64_t)(rnd() % (nent + 1)) - 1;
		int64_t b = a + 1 + (int64_t)(rnd() % 100), want = -1, x;

		for (x = a + 1; x < b && x < nent && want < 0; x++)
			if (me[x].kind != 2 && me[x].s <= s &&
			    s < me[x].s + me[x].n)
				want = x;
		assert_int_equal(e4_wlog_dev_first_write(d, s, a, b), want);
	}
	assert_int_equal(e4_wlog_dev_set_point(d, nent - 1), 0);
	durable_vs_model(log, d, &mo, base, me, nent, nsec, ss, buf);
	assert_int_equal(e4_wlog_dev_set_point(d, nent),
			 EXT2_ET_INVALID_ARGUMENT);
	assert_int_equal(e4_wlog_dev_set_point(d, -2),
			 EXT2_ET_INVALID_ARGUMENT);
	assert_int_equal(e4_wlog_dev_read(d, DEV_BYTES - 1, buf, 2),
			 EXT2_ET_SHORT_READ);
	assert_int_equal(io_channel_write_blk64(ch, 0, 1, buf),
			 E4_ERR_READ_ONLY);
	io_channel_close(ch);
	e4_wlog_dev_free(d);
	io_channel_close(bch);
	e4_memimg_free(&m);
	e4_wlog_close(log);
	for (i = 0; i < nent; i++)
		free(me[i].data);
	free(me);
	free(mo.dev);
	free(mo.last);
	free(mo.disc);
	free(l.b);
	free(base);
	free(buf);
}

static void test_device_512(void **state)
{
	(void)state;
	device_vs_model(512);
}

static void test_device_4096(void **state)
{
	(void)state;
	device_vs_model(4096);
}

static void test_promise_parse(void **state)
{
	static const struct { const char *label; int kind; const char *path; }
	t[] = {
		{ "fsync /a/b", E4_WLOG_PROMISE_FSYNC, "/a/b" },
		{ "fsync a", E4_WLOG_PROMISE_FSYNC, "a" },
		{ "fdatasync /x y", E4_WLOG_PROMISE_FDATASYNC, "/x y" },
		{ "sync", E4_WLOG_PROMISE_SYNC, NULL },
		{ "syncfs", E4_WLOG_PROMISE_SYNCFS, NULL },
		{ "fsync", E4_WLOG_PROMISE_NONE, NULL },
		{ "fsync ", E4_WLOG_PROMISE_NONE, NULL },
		{ "fsync /a ", E4_WLOG_PROMISE_NONE, NULL },
		{ "fsyncx /a", E4_WLOG_PROMISE_NONE, NULL },
		{ "sync ", E4_WLOG_PROMISE_NONE, NULL },
		{ "Sync", E4_WLOG_PROMISE_NONE, NULL },
		{ "populate", E4_WLOG_PROMISE_NONE, NULL },
		{ NULL, E4_WLOG_PROMISE_NONE, NULL },
	};
	const char *path;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(e4_wlog_promise_parse(t[i].label, &path),
				 t[i].kind);
		if (t[i].path)
			assert_string_equal(path, t[i].path);
		else
			assert_null(path);
	}
	assert_string_equal(e4_wlog_promise_name(E4_WLOG_PROMISE_FDATASYNC),
			    "fdatasync");
	assert_string_equal(e4_wlog_dfield_name(E4_WLOG_D_DATA), "data");
}

static void test_device_refuses_past(void **state)
{
	struct lbuild l;
	struct e4_memimg m;
	unsigned char data[512];
	io_channel bch;
	e4_wlog_t log;
	e4_wlog_dev_t d;
	char *path;

	(void)state;
	memset(data, 0, sizeof(data));
	lb_init(&l, 512);
	lb_add(&l, 2047, 2, 0, NULL, NULL);	/* a DISCARD-less write, */
	l.b[512 + 16] = E4_WLOG_DISCARD;	/* made a discard */
	path = lb_write(&l, l.len);
	assert_int_equal(e4_wlog_open(path, unix_io_manager, &log, NULL), 0);
	unlink(path);
	assert_int_equal(e4_memimg_init(&m, NULL, 2048 * 512), 0);
	assert_int_equal(e4_mem_io_manager->open(m.name, 0, &bch), 0);
	assert_int_equal(e4_wlog_dev_create(log, bch, 2048 * 512, &d),
			 E4_ERR_WLOG_PAST_DEVICE);
	assert_int_equal(e4_wlog_dev_create(log, bch, 2049 * 512, &d), 0);
	e4_wlog_dev_free(d);
	io_channel_close(bch);
	e4_memimg_free(&m);
	e4_wlog_close(log);
	free(l.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_device_512),
		cmocka_unit_test(test_device_4096),
		cmocka_unit_test(test_device_refuses_past),
		cmocka_unit_test(test_promise_parse),
	};

	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
