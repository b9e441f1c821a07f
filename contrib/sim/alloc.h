/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  alloc.h - libra-sim's allocation helpers.
 *
 *  The simulator is a batch program: when memory runs out there is nothing
 *  to fall back on, so these print "libra-sim: out of memory" and exit
 *  with status 1 instead of returning NULL.  A size of 0 allocates one
 *  byte, so a NULL result never means "empty".  The engines, the workload
 *  and the queues (squeue.c, pq.h) allocate through them.
\*****************************************************************************/

#ifndef LIBRA_SIM_ALLOC_H
#define LIBRA_SIM_ALLOC_H

#include <stddef.h>

extern void *sim_xmalloc(size_t n);
extern void *sim_xcalloc(size_t n, size_t size);
extern void *sim_xrealloc(void *p, size_t n);

#endif /* LIBRA_SIM_ALLOC_H */
