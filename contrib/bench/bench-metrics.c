/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bench-metrics.c - what the metrics file costs sched/libra (doc/design.md
 *  decision 44; src/core/watch.h; sched_libra_metrics.c).
 *
 *  The scheduler thread writes the file after its passes, in two steps,
 *  timed here apart through the same calls:
 *    locked:  under slurmctld's node read lock and the hub's lock (which
 *	       admissions wait for): each node's figures
 *	       (libra_watch_nodes(): its share, jobs, speed, price factor and
 *	       reference price, a walk of its entries under Libra+$) and a
 *	       copy of the counters (libra_watch_copy());
 *    after:   with no lock: the page (libra_watch_text()) written to a
 *	       file and renamed over the last, as the plugin does.
 *  The ledgers are synthetic: N nodes of 32 CPUs, 10 jobs per node on
 *  average (1-8 CPUs each, deadlines 1-48 h, shares 0.05-0.5), speeds and
 *  base price factors 1; the counters hold 4 partitions x 50 accounts,
 *  each with refusals of 5 reasons and settlements.  Seeded.
 *
 *  Printed: a markdown table, per node count, of the median and p99 of
 *  each step over the repeats (thread CPU time: a step preempted on a busy
 *  machine does not count its wait) and the page's size.  Exit status 1
 *  when the locked step's median at 1,000 nodes is 1 ms or more (the
 *  target), 0 otherwise.
 *
 *  Usage: bench-metrics [--nodes N,...] (default 100,1000,10000)
 *	   [--repeats R] (default 200) [--seed S] [--dir DIR] (where the
 *	   file is written; default $TMPDIR or /tmp)
\*****************************************************************************/

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"
#include "ledger.h"
#include "params.h"
#include "share.h"
#include "watch.h"

static uint64_t rng = 1;

static uint64_t _rand64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double _uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((_rand64() >> 11) * (1.0 / 9007199254740992.0));
}

static double _cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int _cmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

static double _quantile(double *v, int n, double q)
{
	qsort(v, (size_t) n, sizeof(*v), _cmp);
	return v[(int) fmin(n - 1, floor(q * n))];
}

/* A ledger of nodes 32-CPU nodes with 10 jobs per node on average. */
static libra_ledger_t *_ledger(int nodes)
{
	static const int cpus_choice[] = { 1, 2, 4, 8 };
	libra_ledger_t *l = libra_ledger_create(LIBRA_SHARE_MIN_DEFAULT);
	char name[32];

	for (int j = 0; j < nodes; j++) {
		snprintf(name, sizeof(name), "n%d", j);
		if (libra_ledger_add_node(l, name, 32) != j)
			exit(2);
	}
	for (int k = 0; k < 10 * nodes; k++) {
		libra_sla_t sla = { 0 };
		libra_place_t place = { .node = (int) (_rand64() % (uint64_t)
						       nodes),
					.cpus = cpus_choice[_rand64() % 4] };
		double window = _uniform(3600.0, 48 * 3600.0);

		sla.submit = 0.0;
		sla.deadline = window;
		sla.runtime = window * _uniform(0.05, 0.5);
		(void) libra_ledger_commit(l, (uint32_t) k + 1, &sla, &place,
					   1, 0.0);
	}
	return l;
}

static libra_watch_t *_counters(void)
{
	static const char *const reasons[] = { "deadline", "budget", "invalid",
					       "memory", "no_sla" };
	libra_watch_t *w = libra_watch_create(0.0);
	char part[16], acct[16];

	for (int p = 0; p < 4; p++)
		for (int a = 0; a < 50; a++) {
			snprintf(part, sizeof(part), "part%d", p);
			snprintf(acct, sizeof(acct), "acct%d", a);
			libra_watch_admitted(w, part, acct);
			for (int r = 0; r < 5; r++)
				libra_watch_refused(w, part, acct, reasons[r]);
			libra_watch_settled(w, part, acct, LIBRA_WATCH_MET,
					    _uniform(1, 100), 0.0);
			libra_watch_settled(w, part, acct, LIBRA_WATCH_MISSED,
					    _uniform(1, 100), _uniform(0, 5));
		}
	return w;
}

static int _write(const char *path, const char *text)
{
	char tmp[4096 + 8];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if (!(f = fopen(tmp, "w")))
		return -1;
	if (fputs(text, f) < 0) {
		fclose(f);
		return -1;
	}
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	const char *list = "100,1000,10000", *dir = getenv("TMPDIR");
	int repeats = 200, status = 0;
	libra_params_t p;
	libra_quote_t *scratch = malloc(sizeof(*scratch));
	char path[4096], *copy, *tok, *save = NULL;

	for (int i = 1; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--nodes") && val)
			list = val;
		else if (!strcmp(argv[i], "--repeats") && val)
			repeats = atoi(val);
		else if (!strcmp(argv[i], "--seed") && val)
			rng = strtoull(val, NULL, 10) | 1;
		else if (!strcmp(argv[i], "--dir") && val)
			dir = val;
		else {
			fprintf(stderr, "usage: bench-metrics [--nodes N,...] [--repeats R] [--seed S] [--dir DIR]\n");
			return 2;
		}
		i++;
	}
	if (repeats < 1 || !scratch) {
		fprintf(stderr, "bench-metrics: --repeats must be 1 or more\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/bench-metrics.%d.prom",
		 dir ? dir : "/tmp", (int) getpid());
	libra_params_default(&p);
	p.policy = LIBRA_POLICY_LIBRA_PRICE;

	printf("| nodes | jobs | locked: node figures and counters, median / p99 | after: page made and written, median / p99 | page |\n");
	printf("|---|---|---|---|---|\n");
	copy = strdup(list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int nodes = atoi(tok);
		libra_ledger_t *l;
		libra_watch_t *w = _counters();
		libra_watch_node_t *fig;
		double *locked = calloc((size_t) repeats, sizeof(double));
		double *after = calloc((size_t) repeats, sizeof(double));
		size_t size = 0;
		double med;

		if (nodes < 1 || !locked || !after) {
			fprintf(stderr, "bench-metrics: bad --nodes '%s'\n",
				tok);
			return 2;
		}
		l = _ledger(nodes);
		fig = calloc((size_t) nodes, sizeof(*fig));
		for (int r = 0; r < repeats; r++) {
			double t0 = _cpu_now(), t1, t2;
			libra_watch_t *c;
			char *text;

			libra_watch_nodes(l, &p, 1800.0, fig, scratch);
			c = libra_watch_copy(w);
			t1 = _cpu_now();
			text = libra_watch_text(c, fig, nodes, NULL);
			if (!text || _write(path, text)) {
				perror(path);
				return 2;
			}
			t2 = _cpu_now();
			size = strlen(text);
			free(text);
			libra_watch_destroy(c);
			locked[r] = t1 - t0;
			after[r] = t2 - t1;
		}
		med = _quantile(locked, repeats, 0.5);
		printf("| %d | %d | %.3f ms / %.3f ms | %.3f ms / %.3f ms | %zu kB |\n",
		       nodes, libra_ledger_job_count(l), 1e3 * med,
		       1e3 * _quantile(locked, repeats, 0.99),
		       1e3 * _quantile(after, repeats, 0.5),
		       1e3 * _quantile(after, repeats, 0.99),
		       (size + 512) / 1024);
		if (nodes == 1000 && med >= 1e-3)
			status = 1;
		unlink(path);
		free(fig);
		free(locked);
		free(after);
		libra_watch_destroy(w);
		libra_ledger_destroy(l);
	}
	free(copy);
	free(scratch);
	return status;
}
