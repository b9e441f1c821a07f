/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  watch.h - what a provider watches (doc/design.md decision 44): the
 *  market's figures as Prometheus metrics.
 *
 *  Counted as it happens, per partition and account: admissions, refusals
 *  by reason (the refusal log's verdict: libra_verdict_name(), "invalid",
 *  "no_sla", ...), and each admitted job's settlement: its deadline met or
 *  missed, the revenue (charge + penalty, what was billed before
 *  penalties) and the penalties, the figures libra-report sums from the
 *  job records (libra-report(1): Revenue, Penalties; Net = Revenue -
 *  Penalties).  A best-effort job's charge counts in the revenue and in no
 *  deadline.  Counters start at 0 when slurmctld starts
 *  (libra_start_time_seconds says when), as Prometheus' counters do: its
 *  rate() and increase() read across the reset.
 *
 *  Read at a look, per node: its CPUs, the CPUs' worth of share admitted
 *  jobs hold now, its admitted jobs, its speed and base price factor
 *  (decision 43), what the policy charges a reference job there
 *  (libra_reference_price(): one CPU, 1 h by 2 h), its power state; and the
 *  binding quotes held, the scheduler's passes and their CPU time.
 *
 *  The page is Prometheus' text exposition format (version 0.0.4, what
 *  node_exporter's textfile collector and a scrape both read): names with
 *  the libra_ prefix and their unit, counters ending in _total, one HELP
 *  and one TYPE line per family, label values escaped (\\, \", \n),
 *  numbers in the fewest digits that read back exactly.
 *
 *  Cardinality is bounded: at most LIBRA_WATCH_ROWS partition/account
 *  pairs are told apart; later pairs are counted under account="(other)"
 *  of their partition, or partition="(other)" when that row is full too.
\*****************************************************************************/

#ifndef LIBRA_WATCH_H
#define LIBRA_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "admit.h"
#include "ledger.h"
#include "params.h"

#define LIBRA_WATCH_ROWS 1024
#define LIBRA_WATCH_NAME 64	/* longest partition, account, reason + 1 */

typedef struct libra_watch libra_watch_t;

extern libra_watch_t *libra_watch_create(double now);
extern void libra_watch_destroy(libra_watch_t *w);

/* A copy to read outside the lock that guards w (the hub's); NULL when
 * out of memory. */
extern libra_watch_t *libra_watch_copy(const libra_watch_t *w);

/* A job admitted (a job array under one SLA counts once); an empty or
 * NULL partition or account is counted under "(none)".  Returns 0, or -1
 * when out of memory (nothing counted). */
extern int libra_watch_admitted(libra_watch_t *w, const char *partition,
				const char *account);
/* A submission refused for reason (the refusal log's verdict). */
extern int libra_watch_refused(libra_watch_t *w, const char *partition,
			       const char *account, const char *reason);

typedef enum {
	LIBRA_WATCH_MET,	/* an admitted job, its deadline met */
	LIBRA_WATCH_MISSED,	/* an admitted job, its deadline missed */
	LIBRA_WATCH_BEST_EFFORT, /* a job without an SLA that was charged */
} libra_watch_outcome_t;

/* A job settled: charge is what it pays after the penalty, penalty what
 * the provider paid back (settle.h). */
extern int libra_watch_settled(libra_watch_t *w, const char *partition,
			       const char *account,
			       libra_watch_outcome_t outcome, double charge,
			       double penalty);

/* One node at a look: libra_watch_nodes() fills the ledger's figures,
 * the caller the power state. */
typedef struct libra_watch_node {
	char name[LIBRA_WATCH_NAME];
	int cpus;
	bool up;		/* the ledger may place on it */
	double committed;	/* CPUs' worth of share held now */
	int jobs;		/* admitted jobs with an entry on it */
	double speed, price_factor;
	double reference_price;	/* NAN: cannot take the reference job */
	const char *power;	/* libra_node_power_names' (power.h), or
				 * NULL: not under libra_power */
} libra_watch_node_t;

/*
 * The ledger's nodes into nodes[0 .. count) (count:
 * libra_ledger_node_count()), q scratch space for the reference price.
 * Returns the count.  Takes no lock: the caller holds the hub's.
 */
extern int libra_watch_nodes(const libra_ledger_t *l, const libra_params_t *p,
			     double now, libra_watch_node_t *nodes,
			     libra_quote_t *q);

/* The scheduler's figures at a look. */
typedef struct libra_watch_sched {
	uint64_t passes;	/* passes since slurmctld started */
	double pass_cpu_seconds; /* their CPU time */
	int jobs;		/* admitted jobs in the ledger */
	int quotes;		/* binding quotes held */
} libra_watch_sched_t;

/*
 * The page: the counters of w (NULL: none), the nodes and s.  A malloc'd
 * string, or NULL when out of memory.
 */
extern char *libra_watch_text(const libra_watch_t *w,
			      const libra_watch_node_t *nodes, int count,
			      const libra_watch_sched_t *s);

#endif /* LIBRA_WATCH_H */
