/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  watch.c - what a provider watches: the counters per partition and
 *  account, the nodes at a look, the page in Prometheus' text format
 *  (watch.h; doc/design.md decision 44).
\*****************************************************************************/

#define _GNU_SOURCE	/* open_memstream() */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "power.h"
#include "watch.h"

/* One refusal reason's count on a row. */
typedef struct {
	char reason[LIBRA_WATCH_NAME];
	uint64_t n;
} refused_t;

/* One partition and account. */
typedef struct {
	char partition[LIBRA_WATCH_NAME], account[LIBRA_WATCH_NAME];
	uint64_t admitted, met, missed;
	double revenue, penalties;
	refused_t *refused;
	int nrefused;
} row_t;

struct libra_watch {
	double start;		/* when counting began */
	row_t *rows;
	int nrows, cap;
};

#define OTHER "(other)"
#define NONE "(none)"

extern libra_watch_t *libra_watch_create(double now)
{
	libra_watch_t *w = calloc(1, sizeof(*w));

	if (w)
		w->start = now;
	return w;
}

extern void libra_watch_destroy(libra_watch_t *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nrows; i++)
		free(w->rows[i].refused);
	free(w->rows);
	free(w);
}

static const char *_name(const char *s)
{
	return s && *s ? s : NONE;
}

/* The row of (partition, account), made when new; NULL: out of memory. */
static row_t *_row(libra_watch_t *w, const char *partition,
		   const char *account)
{
	row_t *r;

	partition = _name(partition);
	account = _name(account);
	for (int i = 0; i < w->nrows; i++)
		if (!strncmp(w->rows[i].partition, partition,
			     LIBRA_WATCH_NAME - 1) &&
		    !strncmp(w->rows[i].account, account,
			     LIBRA_WATCH_NAME - 1))
			return &w->rows[i];
	/* nearly full: the partition's "(other)" account, then "(other)"
	 * for both, which the last row is kept for */
	if (w->nrows >= LIBRA_WATCH_ROWS - 2 && strcmp(account, OTHER))
		return _row(w, partition, OTHER);
	if (w->nrows >= LIBRA_WATCH_ROWS - 1 && strcmp(partition, OTHER))
		return _row(w, OTHER, OTHER);
	if (w->nrows == w->cap) {
		int cap = w->cap ? 2 * w->cap : 8;
		row_t *rows = realloc(w->rows, (size_t) cap * sizeof(*rows));

		if (!rows)
			return NULL;
		w->rows = rows;
		w->cap = cap;
	}
	r = &w->rows[w->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->partition, sizeof(r->partition), "%s", partition);
	snprintf(r->account, sizeof(r->account), "%s", account);
	return r;
}

extern int libra_watch_admitted(libra_watch_t *w, const char *partition,
				const char *account)
{
	row_t *r = _row(w, partition, account);

	if (!r)
		return -1;
	r->admitted++;
	return 0;
}

extern int libra_watch_refused(libra_watch_t *w, const char *partition,
			       const char *account, const char *reason)
{
	row_t *r = _row(w, partition, account);
	refused_t *f;

	if (!r)
		return -1;
	reason = _name(reason);
	for (int i = 0; i < r->nrefused; i++)
		if (!strncmp(r->refused[i].reason, reason,
			     LIBRA_WATCH_NAME - 1)) {
			r->refused[i].n++;
			return 0;
		}
	f = realloc(r->refused, (size_t) (r->nrefused + 1) * sizeof(*f));
	if (!f)
		return -1;
	r->refused = f;
	f = &r->refused[r->nrefused++];
	snprintf(f->reason, sizeof(f->reason), "%s", reason);
	f->n = 1;
	return 0;
}

extern int libra_watch_settled(libra_watch_t *w, const char *partition,
			       const char *account,
			       libra_watch_outcome_t outcome, double charge,
			       double penalty)
{
	row_t *r = _row(w, partition, account);

	if (!r)
		return -1;
	if (outcome == LIBRA_WATCH_MET)
		r->met++;
	else if (outcome == LIBRA_WATCH_MISSED)
		r->missed++;
	r->revenue += charge + penalty;
	r->penalties += penalty;
	return 0;
}

extern libra_watch_t *libra_watch_copy(const libra_watch_t *w)
{
	libra_watch_t *c = libra_watch_create(w->start);

	if (!c)
		return NULL;
	if (w->nrows) {
		c->rows = malloc((size_t) w->nrows * sizeof(*c->rows));
		if (!c->rows) {
			free(c);
			return NULL;
		}
	}
	for (int i = 0; i < w->nrows; i++) {
		row_t *r = &c->rows[i];

		*r = w->rows[i];
		r->refused = NULL;
		if (r->nrefused) {
			r->refused = malloc((size_t) r->nrefused *
					    sizeof(*r->refused));
			if (!r->refused) {
				c->nrows = i;
				libra_watch_destroy(c);
				return NULL;
			}
			memcpy(r->refused, w->rows[i].refused,
			       (size_t) r->nrefused * sizeof(*r->refused));
		}
		c->nrows = c->cap = i + 1;
	}
	return c;
}

extern int libra_watch_nodes(const libra_ledger_t *l, const libra_params_t *p,
			     double now, libra_watch_node_t *nodes,
			     libra_quote_t *q)
{
	int count = libra_ledger_node_count(l);

	for (int j = 0; j < count; j++) {
		libra_watch_node_t *n = &nodes[j];
		const libra_entry_t *e;

		snprintf(n->name, sizeof(n->name), "%s",
			 libra_ledger_node_name(l, j));
		n->cpus = libra_ledger_node_cpus(l, j);
		n->up = libra_ledger_node_up(l, j);
		n->committed = libra_ledger_node_share(l, j);
		n->jobs = libra_ledger_node_entries(l, j, &e);
		n->speed = libra_ledger_node_speed(l, j);
		n->price_factor = libra_ledger_node_price_factor(l, j);
		n->reference_price = libra_reference_price(l, p, j, now, q);
		n->power = NULL;
	}
	return count;
}

/* ------------------------------------------------------------- the page */

/* A label value as the format wants it: \ " and newline escaped. */
static void _label(FILE *f, const char *name, const char *value)
{
	fprintf(f, "%s=\"", name);
	for (const char *c = value; *c; c++) {
		if (*c == '\\' || *c == '"')
			fputc('\\', f);
		if (*c == '\n')
			fputs("\\n", f);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void _family(FILE *f, const char *name, const char *type,
		    const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void _value(FILE *f, double v)
{
	char buf[LIBRA_NUMBER_LEN];

	fprintf(f, " %s\n", libra_format_number(buf, sizeof(buf), v));
}

/* A family of one sample per row or node: a field read by its offset. */
typedef enum { F_U64, F_INT, F_BOOL, F_DOUBLE } field_kind_t;
typedef struct {
	const char *name, *help;
	size_t off;
	field_kind_t kind;
} family_t;

/* The field at off of base; NAN for a NAN double (no sample). */
static double _field(const void *base, size_t off, field_kind_t kind)
{
	const char *at = (const char *) base + off;

	switch (kind) {
	case F_U64:
		return (double) *(const uint64_t *) at;
	case F_INT:
		return *(const int *) at;
	case F_BOOL:
		return *(const bool *) at ? 1.0 : 0.0;
	default:
		return *(const double *) at;
	}
}

static const family_t row_families[] = {
	{ "libra_admissions_total",
	  "Jobs admitted with an SLA (a job array under one SLA once).",
	  offsetof(row_t, admitted), F_U64 },
	{ "libra_deadlines_met_total",
	  "Admitted jobs settled with their deadline met.",
	  offsetof(row_t, met), F_U64 },
	{ "libra_deadlines_missed_total",
	  "Admitted jobs settled with their deadline missed.",
	  offsetof(row_t, missed), F_U64 },
	{ "libra_revenue_total",
	  "What settled jobs were billed before penalties (charge + penalty), in the price's currency.",
	  offsetof(row_t, revenue), F_DOUBLE },
	{ "libra_penalties_total",
	  "Penalties paid back to users for missed deadlines, in the price's currency.",
	  offsetof(row_t, penalties), F_DOUBLE },
};

static const family_t node_families[] = {
	{ "libra_node_cpus", "The node's CPUs.",
	  offsetof(libra_watch_node_t, cpus), F_INT },
	{ "libra_node_up",
	  "1 when admission may place jobs on the node, else 0.",
	  offsetof(libra_watch_node_t, up), F_BOOL },
	{ "libra_node_committed_cpus",
	  "CPUs' worth of share the admitted jobs on the node hold now (sum of CPUs x share).",
	  offsetof(libra_watch_node_t, committed), F_DOUBLE },
	{ "libra_node_jobs", "Admitted jobs with a share on the node.",
	  offsetof(libra_watch_node_t, jobs), F_INT },
	{ "libra_node_speed_ratio",
	  "The node's speed against the reference CPU (libra_node_speed).",
	  offsetof(libra_watch_node_t, speed), F_DOUBLE },
	{ "libra_node_price_factor_ratio",
	  "The node's base price factor (libra_node_price).",
	  offsetof(libra_watch_node_t, price_factor), F_DOUBLE },
	{ "libra_node_reference_price",
	  "What the policy charges now on the node for 1 CPU, 1 h of reference CPU, deadline 2 h; absent where it cannot take it.",
	  offsetof(libra_watch_node_t, reference_price), F_DOUBLE },
};

#define NFAMILIES(t) (sizeof(t) / sizeof((t)[0]))

static void _counters(FILE *f, const libra_watch_t *w)
{
	_family(f, "libra_start_time_seconds", "gauge",
		"When the counters below began (slurmctld's start), Unix time.");
	fprintf(f, "libra_start_time_seconds");
	_value(f, w->start);
	for (size_t k = 0; k < NFAMILIES(row_families); k++) {
		const family_t *fam = &row_families[k];

		_family(f, fam->name, "counter", fam->help);
		for (int i = 0; i < w->nrows; i++) {
			fprintf(f, "%s{", fam->name);
			_label(f, "partition", w->rows[i].partition);
			fputc(',', f);
			_label(f, "account", w->rows[i].account);
			fputc('}', f);
			_value(f, _field(&w->rows[i], fam->off, fam->kind));
		}
	}
	_family(f, "libra_refusals_total", "counter",
		"Submissions refused, by reason (the refusal log's verdict).");
	for (int i = 0; i < w->nrows; i++) {
		const row_t *r = &w->rows[i];

		for (int k = 0; k < r->nrefused; k++) {
			fputs("libra_refusals_total{", f);
			_label(f, "partition", r->partition);
			fputc(',', f);
			_label(f, "account", r->account);
			fputc(',', f);
			_label(f, "reason", r->refused[k].reason);
			fprintf(f, "} %llu\n",
				(unsigned long long) r->refused[k].n);
		}
	}
}

static void _node_families(FILE *f, const libra_watch_node_t *nodes,
			   int count)
{
	bool power = false;

	for (size_t k = 0; k < NFAMILIES(node_families); k++) {
		const family_t *fam = &node_families[k];

		_family(f, fam->name, "gauge", fam->help);
		for (int j = 0; j < count; j++) {
			double v = _field(&nodes[j], fam->off, fam->kind);

			if (isnan(v))
				continue;
			fprintf(f, "%s{", fam->name);
			_label(f, "node", nodes[j].name);
			fputc('}', f);
			_value(f, v);
		}
	}
	for (int j = 0; j < count; j++)
		power |= nodes[j].power != NULL;
	if (!power)
		return;
	_family(f, "libra_node_power_state", "gauge",
		"1 for the node's power state under libra_power, 0 for the others.");
	for (int j = 0; j < count; j++) {
		if (!nodes[j].power)
			continue;
		for (const libra_name_t *k = libra_node_power_names; k->name;
		     k++) {
			fputs("libra_node_power_state{", f);
			_label(f, "node", nodes[j].name);
			fputc(',', f);
			_label(f, "state", k->name);
			fprintf(f, "} %d\n",
				!strcmp(nodes[j].power, k->name) ? 1 : 0);
		}
	}
}

extern char *libra_watch_text(const libra_watch_t *w,
			      const libra_watch_node_t *nodes, int count,
			      const libra_watch_sched_t *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (w)
		_counters(f, w);
	if (nodes)
		_node_families(f, nodes, count);
	if (s) {
		_family(f, "libra_admitted_jobs", "gauge",
			"Admitted jobs not yet ended (the ledger's).");
		fprintf(f, "libra_admitted_jobs %d\n", s->jobs);
		_family(f, "libra_quotes_held", "gauge",
			"Binding quotes given and not yet taken, released or expired.");
		fprintf(f, "libra_quotes_held %d\n", s->quotes);
		_family(f, "libra_scheduler_passes_total", "counter",
			"sched/libra's passes since slurmctld started.");
		fprintf(f, "libra_scheduler_passes_total %llu\n",
			(unsigned long long) s->passes);
		_family(f, "libra_scheduler_pass_cpu_seconds_total", "counter",
			"The CPU time of those passes.");
		fprintf(f, "libra_scheduler_pass_cpu_seconds_total");
		_value(f, s->pass_cpu_seconds);
	}
	if (fclose(f) != 0 || !text) {
		free(text);
		return NULL;
	}
	return text;
}
