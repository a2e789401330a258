/*
 * test_target.c --- unit tests of lib/support/target.c: outputs built
 * under a temporary name (commit replaces, abort leaves the old bytes and
 * no stray file), undo files kept on failed and no-op runs, and the name
 * checks (same file, wrong type, not an e2undo file, uncreatable), the
 * advisory locks (counted within the process, a shared lock made
 * exclusive, another process's lock refused and its holder named), the
 * stack of a plain file.  The mount and loop-device checks need root and
 * loop devices: image tests s_* cover them.
 */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "stack.h"
#include "target.h"

static char dir[64];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static size_t get(const char *path, void *data, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, data, len);
	close(fd);
	assert_true(n >= 0);
	return (size_t)n;
}

/* Number of entries in the test directory (no stray temporary files). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/e4target.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_output_commit_abort(void **state)
{
	struct e4s_output out;
	char p[128], buf[64];
	struct stat st;

	(void)state;
	path_of(p, sizeof(p), "out.img");
	put(p, "precious", 8);
	/* Abort: the old bytes stay, no temporary file is left. */
	assert_int_equal(e4s_output_begin("t", "OUTPUT", p, &out), 0);
	assert_non_null(out.tmp);
	assert_int_equal(write(out.fd, "new bytes", 9), 9);
	assert_int_equal(entries(), 2);
	e4s_output_abort(&out);
	e4s_output_abort(&out);		/* twice is harmless */
	assert_int_equal(get(p, buf, sizeof(buf)), 8);
	assert_memory_equal(buf, "precious", 8);
	assert_int_equal(entries(), 1);
	/* Commit: replaced, mode of the old file kept. */
	assert_int_equal(e4s_output_begin("t", "OUTPUT", p, &out), 0);
	assert_int_equal(write(out.fd, "new bytes", 9), 9);
	assert_int_equal(e4s_output_commit("t", &out), 0);
	assert_null(out.tmp);
	assert_int_equal(get(p, buf, sizeof(buf)), 9);
	assert_memory_equal(buf, "new bytes", 9);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(entries(), 1);
	/* A new name: absent until the commit. */
	path_of(p, sizeof(p), "fresh.img");
	assert_int_equal(e4s_output_begin("t", "OUTPUT", p, &out), 0);
	assert_int_not_equal(access(p, F_OK), 0);
	e4s_output_abort(&out);
	assert_int_not_equal(access(p, F_OK), 0);
	unlink(p);
	path_of(p, sizeof(p), "out.img");
	unlink(p);
	assert_int_equal(entries(), 0);
}

/* An e2undo header with @keys in num_keys (little-endian at byte 8). */
static void fake_undo(const char *path, uint64_t keys)
{
	unsigned char hdr[1024];
	int i;

	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, "E2UNDO02", 8);
	for (i = 0; i < 8; i++)
		hdr[8 + i] = (unsigned char)(keys >> (8 * i));
	put(path, hdr, sizeof(hdr));
}

static void test_undo_kept(void **state)
{
	struct e4s_undo u;
	char p[128], buf[2048], old[1024], kept[256], fresh[128];

	(void)state;
	path_of(p, sizeof(p), "keep.undo");
	fake_undo(p, 7);
	assert_int_equal(get(p, old, sizeof(old)), sizeof(old));
	assert_int_equal(e4s_is_undo_file(p), 1);

	/* A run that wrote nothing: the temporary undo file is empty. */
	assert_int_equal(e4s_undo_begin("t", p, &u), 0);
	assert_int_equal(e4s_undo_finish("t", &u, 1), 0);
	assert_int_equal(get(p, buf, sizeof(buf)), sizeof(old));
	assert_memory_equal(buf, old, sizeof(old));

	/* A failed run that recorded blocks: the old undo file stays, the
	 * new one is kept under its temporary name (it undoes the failed
	 * run's writes). */
	assert_int_equal(e4s_undo_begin("t", p, &u), 0);
	fake_undo(u.out.tmp, 3);
	snprintf(kept, sizeof(kept), "%s", u.out.tmp);
	assert_int_equal(e4s_undo_finish("t", &u, 0), 2);
	assert_int_equal(get(p, buf, sizeof(buf)), sizeof(old));
	assert_memory_equal(buf, old, sizeof(old));
	assert_int_equal(entries(), 2);
	assert_int_equal(e4s_is_undo_file(kept), 1);
	unlink(kept);
	assert_int_equal(entries(), 1);

	/* A failed run that recorded blocks, no undo file before: it
	 * becomes the named one. */
	path_of(fresh, sizeof(fresh), "fresh.undo");
	assert_int_equal(e4s_undo_begin("t", fresh, &u), 0);
	fake_undo(u.out.tmp, 2);
	assert_int_equal(e4s_undo_finish("t", &u, 0), 1);
	assert_int_equal(e4s_is_undo_file(fresh), 1);
	unlink(fresh);
	assert_int_equal(entries(), 1);

	/* A successful run that recorded blocks replaces it. */
	assert_int_equal(e4s_undo_begin("t", p, &u), 0);
	fake_undo(u.out.tmp, 3);
	assert_int_equal(e4s_undo_finish("t", &u, 1), 1);
	assert_int_equal(get(p, buf, sizeof(buf)), sizeof(old));
	assert_int_equal(buf[8], 3);
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_check_names(void **state)
{
	char a[128], b[128], c[128], nd[128];
	struct e4s_target t[3];

	(void)state;
	path_of(a, sizeof(a), "in.img");
	path_of(b, sizeof(b), "link.img");
	path_of(c, sizeof(c), "not.undo");
	path_of(nd, sizeof(nd), "nodir/x.img");
	put(a, "x", 1);
	assert_int_equal(link(a, b), 0);
	put(c, "plain text, not an undo file", 28);
	assert_int_equal(e4s_is_undo_file(c), 0);

	memset(t, 0, sizeof(t));
	t[0] = (struct e4s_target){ .what = "IMAGE", .path = a,
				    .flags = E4S_T_ANY };
	t[1] = (struct e4s_target){ .what = "OUTPUT", .path = b,
				    .flags = E4S_T_WRITE | E4S_T_CREATE |
				    E4S_T_REG | E4S_T_BLK };
	assert_int_equal(e4s_check_targets("t", t, 2), EINVAL);
	assert_true(e4s_usage_error(EINVAL));

	/* Not an e2undo file: refused, not replaced. */
	t[1] = (struct e4s_target){ .what = "undo file", .path = c,
				    .flags = E4S_T_WRITE | E4S_T_CREATE |
				    E4S_T_REG | E4S_T_UNDO };
	assert_int_equal(e4s_check_targets("t", t, 2), EINVAL);

	/* A directory where a regular file or device is wanted. */
	t[1] = (struct e4s_target){ .what = "OUTPUT", .path = dir,
				    .flags = E4S_T_WRITE | E4S_T_REG | E4S_T_BLK };
	assert_int_equal(e4s_check_targets("t", t, 2), EINVAL);

	/* In a missing directory: an operational error, not usage. */
	t[1] = (struct e4s_target){ .what = "OUTPUT", .path = nd,
				    .flags = E4S_T_WRITE | E4S_T_CREATE |
				    E4S_T_REG };
	assert_int_equal(e4s_check_targets("t", t, 2), ENOENT);
	assert_false(e4s_usage_error(ENOENT));

	/* Two new names for one new file. */
	t[1] = (struct e4s_target){ .what = "OUTPUT", .path = "new.img",
				    .flags = E4S_T_WRITE | E4S_T_CREATE |
				    E4S_T_REG };
	t[2] = (struct e4s_target){ .what = "undo file", .path = "./new.img",
				    .flags = E4S_T_WRITE | E4S_T_CREATE |
				    E4S_T_REG | E4S_T_UNDO };
	assert_int_equal(e4s_check_targets("t", t, 3), EINVAL);

	/* Distinct, fine; a regular file written in place is checked. */
	t[1].path = c;
	t[1].flags = E4S_T_WRITE | E4S_T_REG;
	t[2].path = NULL;
	assert_int_equal(e4s_check_targets("t", t, 3), 0);
	e4s_release_targets(t, 3);
	assert_int_equal(e4s_check_write("t", "IMAGE", a), 0);
	unlink(a);
	unlink(b);
	unlink(c);
}

static void test_size(void **state)
{
	char p[128];
	uint64_t bytes = 1;

	(void)state;
	path_of(p, sizeof(p), "s.img");
	put(p, "0123456789", 10);
	assert_int_equal(e4s_size_bytes(p, &bytes), 0);
	assert_int_equal(bytes, 10);
	unlink(p);
	assert_int_equal(e4s_size_bytes(p, &bytes), ENOENT);
}

static void test_locks(void **state)
{
	char p[128], why[256];
	int h1, h2, pfd[2];
	pid_t child;
	char c;

	(void)state;
	path_of(p, sizeof(p), "l.img");
	put(p, "x", 1);
	/* One process: counted, a reader's lock made a writer's. */
	h1 = e4s_lock_take(p, 0, why, sizeof(why));
	assert_true(h1 >= 0);
	h2 = e4s_lock_take(p, 1, why, sizeof(why));
	assert_int_equal(h1, h2);
	e4s_lock_drop(h2);
	e4s_lock_drop(h1);
	assert_int_equal(e4s_lock_take(dir, 1, why, sizeof(why)), -2);
	/* Another process holds it exclusively: refused, holder named. */
	assert_int_equal(pipe(pfd), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		int fd = open(p, O_RDONLY);

		close(pfd[0]);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	assert_int_equal(e4s_lock_take(p, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "holds it for writing"));
	assert_non_null(strstr(why, "(pid "));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pfd[0]);
	/* Released with the holder: ours now. */
	h1 = e4s_lock_take(p, 1, why, sizeof(why));
	assert_true(h1 >= 0);
	e4s_lock_drop(h1);
	unlink(p);
}

static void test_stack_file(void **state)
{
	struct e4s_stack s;
	struct stat st, other;
	char p[128], q[128], chain[256];

	(void)state;
	path_of(p, sizeof(p), "st.img");
	path_of(q, sizeof(q), "st2.img");
	put(p, "x", 1);
	put(q, "y", 1);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(stat(q, &other), 0);
	/* A file no loop device is over: one layer, itself. */
	e4s_stack_build(p, &st, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(e4s_stack_find(&s, &st), 0);
	assert_int_equal(e4s_stack_find(&s, &other), -1);
	assert_string_equal(e4s_stack_chain(&s, 0, chain, sizeof(chain)), p);
	assert_int_equal(e4s_stack_via_loop(&s, 0), 0);
	unlink(p);
	unlink(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_commit_abort),
		cmocka_unit_test(test_undo_kept),
		cmocka_unit_test(test_check_names),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_locks),
		cmocka_unit_test(test_stack_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
