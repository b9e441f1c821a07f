/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  squeue.c - sorted wait queue with lazy removal; see squeue.h.
\*****************************************************************************/

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "squeue.h"

static int _less(const sim_qkey_t *x, double a, double b, int idx)
{
	if (x->a != a)
		return x->a < a;
	if (x->b != b)
		return x->b < b;
	return x->idx < idx;
}

extern void sim_squeue_insert(sim_squeue_t *q, double a, double b, int idx)
{
	size_t lo = q->head, hi = q->len;

	if (q->len == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->k = sim_xrealloc(q->k, q->cap * sizeof(*q->k));
	}
	/* first position whose key is not less than the new one */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (_less(&q->k[mid], a, b, idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&q->k[lo + 1], &q->k[lo], (q->len - lo) * sizeof(*q->k));
	q->k[lo].a = a;
	q->k[lo].b = b;
	q->k[lo].idx = idx;
	q->len++;
}

static void _sweep(sim_squeue_t *q, const unsigned char *live)
{
	size_t i, o = 0;

	for (i = q->head; i < q->len; i++)
		if (live[q->k[i].idx])
			q->k[o++] = q->k[i];
	q->len = o;
	q->head = 0;
	q->dead = 0;
}

extern void sim_squeue_dead(sim_squeue_t *q)
{
	q->dead++;
}

extern void sim_squeue_remove(sim_squeue_t *q, unsigned char *live, int idx)
{
	live[idx] = 0;
	sim_squeue_dead(q);
}

extern void sim_squeue_tidy(sim_squeue_t *q, const unsigned char *live)
{
	if (q->dead > 64 && q->dead * 2 > q->len - q->head)
		_sweep(q, live);
}

extern int sim_squeue_head(sim_squeue_t *q, const unsigned char *live)
{
	while (q->head < q->len && !live[q->k[q->head].idx]) {
		q->head++;
		if (q->dead)
			q->dead--;
	}
	if (q->head == q->len) {
		q->head = q->len = 0;
		q->dead = 0;
		return -1;
	}
	return q->k[q->head].idx;
}

extern void sim_squeue_free(sim_squeue_t *q)
{
	free(q->k);
	memset(q, 0, sizeof(*q));
}
