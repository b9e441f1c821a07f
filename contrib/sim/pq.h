/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  pq.h - a binary min-heap of (time, index) for the event queues of the
 *  space-shared engines.  Ties on time break by index, so the order of
 *  simultaneous events is the job order and never depends on memory.
\*****************************************************************************/

#ifndef LIBRA_SIM_PQ_H
#define LIBRA_SIM_PQ_H

#include <stddef.h>
#include <stdlib.h>

#include "alloc.h"

typedef struct sim_pq_item {
	double t;
	int idx;
} sim_pq_item_t;

typedef struct sim_pq {
	sim_pq_item_t *a;
	size_t n, cap;
} sim_pq_t;

static inline int _pq_less(const sim_pq_item_t *x, const sim_pq_item_t *y)
{
	return x->t < y->t || (x->t == y->t && x->idx < y->idx);
}

static inline void sim_pq_push(sim_pq_t *q, double t, int idx)
{
	size_t i;

	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->a = sim_xrealloc(q->a, q->cap * sizeof(*q->a));
	}
	i = q->n++;
	q->a[i].t = t;
	q->a[i].idx = idx;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		sim_pq_item_t tmp;

		if (!_pq_less(&q->a[i], &q->a[up]))
			break;
		tmp = q->a[i];
		q->a[i] = q->a[up];
		q->a[up] = tmp;
		i = up;
	}
}

static inline sim_pq_item_t sim_pq_pop(sim_pq_t *q)
{
	sim_pq_item_t top = q->a[0];
	size_t i = 0;

	q->a[0] = q->a[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		sim_pq_item_t tmp;

		if (l < q->n && _pq_less(&q->a[l], &q->a[m]))
			m = l;
		if (r < q->n && _pq_less(&q->a[r], &q->a[m]))
			m = r;
		if (m == i)
			break;
		tmp = q->a[i];
		q->a[i] = q->a[m];
		q->a[m] = tmp;
		i = m;
	}
	return top;
}

static inline void sim_pq_free(sim_pq_t *q)
{
	free(q->a);
	q->a = NULL;
	q->n = q->cap = 0;
}

#endif /* LIBRA_SIM_PQ_H */
