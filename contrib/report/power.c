/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  power.c - sched/libra's node power log (<StateSaveLocation>/libra_power,
 *  design.md decision 24): the transitions read, and each node's powered
 *  hours, energy cost and power-ups and power-downs over a window (see
 *  report.h).
 *
 *  A node is billed from the start of booting to the end of stopping
 *  (Sung 2006, Eq. 4.1): every second from a line that says it is on,
 *  booting or stopping to its next line that says otherwise.  Its first
 *  line (slurmctld writes one per node when it starts) opens its record;
 *  the last state runs on to the end of the window.
\*****************************************************************************/

#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static bool _powered(libra_node_power_t s)
{
	return s != LIBRA_NODE_OFF;
}

static int _cmp_name(const void *a, const void *b)
{
	return strcmp(((const rpt_node_t *) a)->name,
		      ((const rpt_node_t *) b)->name);
}

static rpt_node_t *_node(rpt_power_t *pw, const char *name, size_t len)
{
	rpt_node_t key, *n, **found;

	key.name = rpt_xstrndup(name, len);
	found = tfind(&key, &pw->index, _cmp_name);
	if (found) {
		free(key.name);
		return *found;
	}
	n = rpt_xmalloc(sizeof(*n));
	n->name = key.name;
	if (pw->n == pw->cap) {
		pw->cap = pw->cap ? 2 * pw->cap : 64;
		pw->v = rpt_xrealloc(pw->v, pw->cap * sizeof(*pw->v));
	}
	pw->v[pw->n++] = n;
	if (!tsearch(n, &pw->index, _cmp_name)) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return n;
}

/* The next whitespace-separated word of [*p, end): its start and length,
 * 0 when there is none. */
static size_t _word(const char **p, const char *end, const char **w)
{
	const char *s = *p;

	while (s < end && isspace((unsigned char) *s))
		s++;
	*w = s;
	while (s < end && !isspace((unsigned char) *s))
		s++;
	*p = s;
	return (size_t) (s - *w);
}

/* "EPOCH NODE STATE" in [s, end); -1 with the reason in why. */
static int _line(const char *s, const char *end, long long *when,
		 const char **node, size_t *nlen, libra_node_power_t *state,
		 char *why, size_t whylen)
{
	const char *w, *p = s;
	char word[16], list[LIBRA_NAMES_MAX];
	size_t len;
	int k;

	len = _word(&p, end, &w);
	*when = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char) w[i]) || *when > 922337203685LL) {
			snprintf(why, whylen, "'%.*s' is not a time (seconds "
				 "since the Epoch)", (int) (len > 24 ? 24 : len),
				 w);
			return -1;
		}
		*when = *when * 10 + (w[i] - '0');
	}
	*nlen = _word(&p, end, node);
	len = _word(&p, end, &w);
	if (!*nlen || !len) {
		snprintf(why, whylen, "want EPOCH NODE STATE");
		return -1;
	}
	/* the words sched/libra's journal writes (power.h) */
	snprintf(word, sizeof(word), "%.*s", (int) len, w);
	if (len >= sizeof(word) ||
	    !libra_value_of(libra_node_power_names, word, &k)) {
		snprintf(why, whylen, "state '%.*s' is not %s",
			 (int) (len > 24 ? 24 : len), w,
			 libra_names_list(libra_node_power_names, list,
					  sizeof(list)));
		return -1;
	}
	*state = (libra_node_power_t) k;
	if (_word(&p, end, &w)) {
		snprintf(why, whylen, "more than EPOCH NODE STATE");
		return -1;
	}
	return 0;
}

/* Is there anything but white space in [s, end)? */
static bool _blank(const char *s, const char *end)
{
	while (s < end && isspace((unsigned char) *s))
		s++;
	return s == end;
}

/* Bill one powered interval [from, to), clipped to the window. */
static void _bill(rpt_node_t *n, const libra_tariff_t *t, double from,
		  double to, double start, double end)
{
	if (from < start)
		from = start;
	if (to > end)
		to = end;
	if (!(to > from))
		return;
	n->hours += (to - from) / 3600.0;
	n->cost += libra_tariff_cost(t, from, to);
}

extern int rpt_read_power(const char *path, rpt_power_t *pw, int verbose,
			  char *err, size_t errlen)
{
	const char *name = strcmp(path, "-") ? path : "(stdin)";
	char *text = rpt_slurp(path, NULL), why[128];
	const char *s, *end;
	long lineno = 0;

	memset(pw, 0, sizeof(*pw));
	if (!text) {
		snprintf(err, errlen, "cannot read %s: %s", name,
			 errno == EILSEQ ? "binary data, not a power log" :
			 strerror(errno));
		return -1;
	}
	for (s = text; *s; s = *end ? end + 1 : end) {
		rpt_power_line_t *l;
		const char *node;
		size_t nlen;
		long long when;
		libra_node_power_t state;

		end = strchrnul(s, '\n');
		lineno++;
		if (_blank(s, end))
			continue;
		if (_line(s, end, &when, &node, &nlen, &state, why,
			  sizeof(why))) {
			if (!*end || _blank(end + 1, end + strlen(end))) {
				fprintf(stderr, PROG ": %s:%ld: warning: "
					"last line skipped: %s (cut short by "
					"a crash?)\n", name, lineno, why);
				pw->torn++;
				break;
			}
			snprintf(err, errlen, "%s:%ld: %s", name, lineno, why);
			free(text);
			return -1;
		}
		if (pw->nlines == pw->linecap) {
			pw->linecap = pw->linecap ? 2 * pw->linecap : 1024;
			pw->lines = rpt_xrealloc(pw->lines, pw->linecap *
						 sizeof(*pw->lines));
		}
		l = &pw->lines[pw->nlines++];
		l->when = (double) when;
		l->node = _node(pw, node, nlen);
		l->state = state;
		l->lineno = lineno;
		if (pw->nlines == 1 || l->when < pw->first)
			pw->first = l->when;
		if (verbose > 1)
			fprintf(stderr, PROG ": %s:%ld: %s %s at %lld\n", name,
				lineno, l->node->name,
				libra_name_of(libra_node_power_names, state),
				when);
	}
	free(text);
	if (verbose)
		fprintf(stderr, PROG ": %s: %zu lines of %zu nodes read\n",
			name, pw->nlines, pw->n);
	return 0;
}

/* On the way up (booting, on) or down (stopping, off)?  A change of side
 * is a power-up or a power-down; booting -> on and stopping -> off are
 * the same one going on. */
static bool _up(libra_node_power_t s)
{
	return s == LIBRA_NODE_ON || s == LIBRA_NODE_BOOTING;
}

extern void rpt_power_fold(rpt_power_t *pw, const char *name,
			   const libra_tariff_t *t, double start, double end)
{
	for (size_t i = 0; i < pw->nlines; i++) {
		rpt_power_line_t *l = &pw->lines[i];
		rpt_node_t *n = l->node;
		bool was = n->seen && _powered(n->state);
		bool is = _powered(l->state);
		double when = l->when;

		if (!n->seen) {
			n->seen = true;
			n->first = when;
		} else {
			if (when < n->since) {
				fprintf(stderr, PROG ": %s:%ld: warning: node "
					"%s at %.0f is before its previous "
					"line (%.0f): taken as then\n", name,
					l->lineno, n->name, when, n->since);
				when = n->since;
			}
			if (_up(l->state) != _up(n->state) &&
			    when >= start && when < end)
				_up(l->state) ? n->ups++ : n->downs++;
		}
		/* a powered interval is billed whole, when it ends */
		if (is && !was)
			n->powered_since = when;
		else if (!is && was)
			_bill(n, t, n->powered_since, when, start, end);
		n->state = l->state;
		n->since = when;
	}
	for (size_t i = 0; i < pw->n; i++)
		if (_powered(pw->v[i]->state))
			_bill(pw->v[i], t, pw->v[i]->powered_since, end, start,
			      end);
}

static void _keep(void *p)
{
	(void) p;	/* the nodes are freed from pw->v */
}

extern void rpt_power_free(rpt_power_t *pw)
{
	tdestroy(pw->index, _keep);
	for (size_t i = 0; i < pw->n; i++) {
		free(pw->v[i]->name);
		free(pw->v[i]);
	}
	free(pw->v);
	free(pw->lines);
	memset(pw, 0, sizeof(*pw));
}
