/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bag.c - a job array admitted as one (bag.h; doc/design.md decision 36).
\*****************************************************************************/

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag.h"

/* A whole number at *s, 0 .. INT_MAX; advances *s past it. */
static bool _whole(const char **s, long *out)
{
	char *end;

	if (!isdigit((unsigned char) **s))
		return false;
	errno = 0;
	*out = strtol(*s, &end, 10);
	if (errno || *out > 0x7fffffffL)
		return false;
	*s = end;
	return true;
}

/* One id or range "a", "a-b", "a-b:step" of length len, marked in seen;
 * returns 0 or -1 with the message. */
static int _token(const char *tok, size_t len, int max_size, char *seen,
		  char *err, size_t errlen)
{
	const char *s = tok;
	long a, b, step = 1;

	if (!_whole(&s, &a))
		goto bad;
	b = a;
	if (*s == '-') {
		s++;
		if (!_whole(&s, &b))
			goto bad;
		if (*s == ':') {
			s++;
			if (!_whole(&s, &step) || step < 1)
				goto bad;
		}
	}
	if (s != tok + len)
		goto bad;
	if (b < a) {
		snprintf(err, errlen, "array: range '%.*s' ends before it starts",
			 (int) len, tok);
		return -1;
	}
	if (b >= max_size) {
		snprintf(err, errlen, "array: id %ld is not below MaxArraySize (%d)",
			 b, max_size);
		return -1;
	}
	for (long i = a; i <= b; i += step)
		seen[i] = 1;
	return 0;
bad:
	snprintf(err, errlen, "array: '%.*s' is not an id, a range a-b or a-b:step",
		 (int) len, tok);
	return -1;
}

/* "%k" after the ids: at most k at once. */
static int _throttle(const char *s, libra_bag_t *b, char *err, size_t errlen)
{
	long k;

	if (!_whole(&s, &k) || *s || k < 1) {
		snprintf(err, errlen, "array: the throttle after '%%' is not a whole number of tasks at least 1");
		return -1;
	}
	b->throttle = (int) k;
	return 0;
}

extern int libra_bag_parse(const char *inx, int max_size, libra_bag_t *b,
			   char *err, size_t errlen)
{
	const char *s = inx, *pct;
	char *seen;
	size_t len;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	if (!inx || !*inx) {
		snprintf(err, errlen, "array: empty");
		return -1;
	}
	if (max_size < 1 || !(seen = calloc((size_t) max_size, 1))) {
		snprintf(err, errlen, "array: out of memory");
		return -1;
	}
	pct = strchr(inx, '%');
	len = pct ? (size_t) (pct - inx) : strlen(inx);
	while (!rc && s < inx + len) {
		size_t n = strcspn(s, ",%");

		rc = _token(s, n, max_size, seen, err, errlen);
		s += n + (s[n] == ',');
		if (!rc && s[-1] == ',' && s >= inx + len) {
			snprintf(err, errlen, "array: ends with ','");
			rc = -1;
		}
	}
	if (!rc && len == 0) {
		snprintf(err, errlen, "array: no ids before '%%'");
		rc = -1;
	}
	if (!rc && pct)
		rc = _throttle(pct + 1, b, err, errlen);
	for (int i = 0; !rc && i < max_size; i++)
		b->tasks += seen[i];
	free(seen);
	if (rc) {
		memset(b, 0, sizeof(*b));
		return -1;
	}
	b->lanes = (b->throttle && b->throttle < b->tasks) ? b->throttle :
							       b->tasks;
	b->waves = (b->tasks + b->lanes - 1) / b->lanes;
	return 0;
}

extern void libra_bag_sla(const libra_bag_t *b, const libra_sla_t *task,
			  libra_sla_t *bag)
{
	*bag = *task;
	bag->runtime = task->runtime * b->waves;
}

extern double libra_bag_task_target(double now, double deadline, int left)
{
	if (!(deadline > now))
		return deadline;
	return now + (deadline - now) / (left > 1 ? left : 1);
}

extern int libra_bag_lane_tasks(const libra_bag_t *b, int lane)
{
	int full = b->tasks - (b->waves - 1) * b->lanes;

	/* the first "full" lanes run W tasks, the others W - 1 */
	if (lane < 0 || lane >= b->lanes)
		return 0;
	return lane < full ? b->waves : b->waves - 1;
}

extern void libra_bag_task_settle(const libra_sla_t *sla, double start,
				  double end, libra_end_t how,
				  libra_settlement_t *out)
{
	libra_settle(sla, 0.0, start, end, how, out);
	out->penalty = 0.0;
	out->charge = 0.0;
}

extern void libra_bag_count(libra_record_bag_t *b,
			    const libra_settlement_t *task, int n)
{
	int left = b->tasks > b->ended ? b->tasks - b->ended : 0;

	/* at least one task, and the tally stays within the bag */
	n = n < 1 ? 1 : n;
	n = n > left ? left : n;
	b->ended += n;
	if (!task->deadline_met)
		b->late += n;
	if (task->how != LIBRA_END_COMPLETED)
		b->failed += n;
	b->last_end = fmax(b->last_end, task->end);
}

extern void libra_bag_settle(const libra_sla_t *sla,
			     const libra_record_bag_t *b, double price,
			     double start, double end, libra_end_t how,
			     libra_settlement_t *out)
{
	if (b->failed > 0 && how == LIBRA_END_COMPLETED)
		how = LIBRA_END_FAILED;
	libra_settle(sla, price, start, fmax(end, b->last_end), how, out);
	if (b->late > 0)
		out->deadline_met = false;
	/* ended by its owner (or failed): the tasks that completed are
	 * paid for, whatever the last one to end did (decision 37) */
	if ((how == LIBRA_END_CANCELLED || how == LIBRA_END_WITHDRAWN ||
	     how == LIBRA_END_FAILED) && b->tasks > 0 && b->ended > b->failed)
		out->charge = fmax(out->charge, price * (b->ended - b->failed) /
						 b->tasks);
}
