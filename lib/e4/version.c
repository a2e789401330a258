/*
 * version.c --- e4_version(): which e4tools release the library is, and
 * with which libext2fs and crc32c it runs.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>

#include "e4.h"

const char *e4_version(void)
{
	return E4_VERSION;
}

int e4_version_num(void)
{
	return E4_VERSION_NUM;
}

void e4_version_line(const char *tool, char *buf, size_t len)
{
	const char *e2ver = NULL, *e2date = NULL;

	ext2fs_get_library_version(&e2ver, &e2date);
	snprintf(buf, len, "%s (e4tools) %s, libext2fs %s (%s), crc32c %s",
		 tool, E4_VERSION, e2ver ? e2ver : "?",
		 e2date ? e2date : "?", e4_crc32c_impl());
}
