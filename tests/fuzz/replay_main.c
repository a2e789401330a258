/*
 * replay_main.c --- run a libFuzzer target's LLVMFuzzerTestOneInput() on
 * saved inputs without libFuzzer: the regression replayer make check
 * builds with gcc for every tests/fuzz/fuzz_*.c.
 * Usage: replay_TARGET FILE|DIR...  (exit 0 when every input ran; a
 * property failure or sanitizer report aborts)
 * With $E4_FUZZ_DUMP_DIR set, the journal-area targets write the journal
 * of each input's image to DIR/NAME.jnl (tests/f_fuzz_regress).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	static uint8_t buf[4 * FUZZ_MAX_INPUT];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* $E4_FUZZ_DUMP_DIR: the journal of each input's image goes to
	 * DIR/NAME.jnl (harness.c fuzz_dump_journal()) */
	if (getenv("E4_FUZZ_DUMP_DIR")) {
		char p[4096];
		const char *b = strrchr(path, '/');

		snprintf(p, sizeof(p), "%s/%s.jnl", getenv("E4_FUZZ_DUMP_DIR"),
			 b ? b + 1 : path);
		setenv("E4_FUZZ_DUMP_JOURNAL", p, 1);
	}
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0, count = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **ents;
		int n, k;

		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]);
			count++;
			continue;
		}
		n = scandir(argv[i], &ents, NULL, alphasort);
		for (k = 0; k < n; k++) {
			char p[4096];

			if (ents[k]->d_name[0] != '.') {
				snprintf(p, sizeof(p), "%s/%s", argv[i],
					 ents[k]->d_name);
				rc |= run_file(p);
				count++;
			}
			free(ents[k]);
		}
		if (n >= 0)
			free(ents);
	}
	printf("%s: %d inputs\n", argv[0], count);
	return rc;
}
