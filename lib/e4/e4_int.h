/*
 * e4_int.h --- small helpers several libe4 files share (sorting, growing
 * arrays, comparing fs block numbers).  Private to libe4.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_INT_H
#define E4_INT_H

#include <stdlib.h>

#include "e4.h"

/* qsort() that accepts an empty (NULL) array. */
static inline void xsort(void *a, size_t n, size_t sz,
			 int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(a, n, sz, cmp);
}

/*
 * Make room for @want elements of @sz bytes in the array at *@pptr (a
 * pointer to the array pointer), which holds *@alloc: doubling from 16.
 * Returns 0 or EXT2_ET_NO_MEMORY (the array is unchanged).
 */
static inline errcode_t grow(void *pptr, size_t *alloc, size_t want,
			     size_t sz)
{
	size_t na;
	errcode_t retval;

	if (want <= *alloc)
		return 0;
	na = *alloc ? *alloc : 16;
	while (na < want)
		na *= 2;
	retval = ext2fs_resize_mem(*alloc * sz, na * sz, pptr);
	if (retval)
		return retval;
	*alloc = na;
	return 0;
}

/* qsort()/bsearch() order of blk64_t values. */
static inline int blk_cmp(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* E4_INT_H */
