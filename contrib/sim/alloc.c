/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  alloc.c - allocate or exit; see alloc.h.
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"

static void _die_oom(void)
{
	fprintf(stderr, "libra-sim: out of memory\n");
	exit(1);
}

extern void *sim_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		_die_oom();
	return p;
}

extern void *sim_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		_die_oom();
	return p;
}

extern void *sim_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		_die_oom();
	return p;
}
