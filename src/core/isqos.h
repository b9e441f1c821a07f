/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  isqos.h - the ISQoS provider and broker (Kavanagh & Djemame 2014,
 *  doc/design.md decision 51): the action-count price, an offer's
 *  measures, the ranking by profit, the offer filters and the going rate.
 *  Pure functions of their arguments.
 *
 *	rate	= PBase (1 + k A / C)	A actions (tasks) in the schedule,
 *					C CPUs, k the slope
 *	R	= rate x CPU-seconds	the offer's resource cost
 *	S	= (1 + m) R		its service price
 *	charge	= min(B, S - z(c - due))  the broker's pay at completion c
 *	profit	= charge - R,  profit rate = profit / (c - now) per hour
\*****************************************************************************/

#ifndef LIBRA_ISQOS_H
#define LIBRA_ISQOS_H

#include <stdbool.h>

#include "number.h"
#include "sla.h"

/* The offer filters of section 5.3.2. */
typedef enum {
	LIBRA_ISQOS_HYBRID = 0,	/* Algorithm 2: on time at once, else the
				 * going rate */
	LIBRA_ISQOS_GOING,	/* near going rate */
	LIBRA_ISQOS_PROFIT,	/* topmost profitable */
	LIBRA_ISQOS_TOP,	/* topmost */
} libra_isqos_filter_t;

/* The broker's filter and its settings. */
typedef struct libra_isqos {
	libra_isqos_filter_t filter;
	int history;		/* n: accepted offers the going rate is the
				 * mean of (at most LIBRA_GOING_MAX) */
	double deviation;	/* accepted below the going rate by at most
				 * this fraction of it */
	double min_rate;	/* every filter but top: profit per hour at
				 * least this (0: any profit > 0) */
} libra_isqos_t;

#define LIBRA_GOING_MAX 256

/* The going rate: the profit rates of the last accepted offers. */
typedef struct libra_going {
	double rate[LIBRA_GOING_MAX];
	int n;			/* how many are held (<= size) */
	int next;		/* where the next one goes */
} libra_going_t;

/* One provider's offer for one job, and its measures. */
typedef struct libra_isqos_offer {
	int provider;
	double now;		/* when the offer is made */
	double cost;		/* R: the resource cost */
	double price;		/* S = (1 + m) R: the service price */
	double completion;	/* c: the estimated completion time */
	/* libra_offer_measure(): */
	double charge;		/* the broker's pay at c: the z-curve's
				 * charge, at most the budget */
	double profit;		/* charge - R */
	double profit_rate;	/* profit per hour of c - now */
	double budget_slack;	/* B - S (INFINITY without a budget) */
	double resilience;	/* B - R (likewise) */
	double due_slack;	/* due date - c (deadline - c without one) */
	double breakeven_slack;	/* break-even point - c */
	double deadline_slack;	/* deadline - c */
	bool over_budget;	/* S > B */
	bool late;		/* c past the break-even point */
	bool on_time;		/* c by the due date and S within B */
} libra_isqos_offer_t;

/* "hybrid", "going", "profit", "top" */
extern const libra_name_t libra_isqos_filter_names[];
extern const char *libra_isqos_filter_name(libra_isqos_filter_t f);
extern bool libra_isqos_filter_from_name(const char *name,
					 libra_isqos_filter_t *f);

/* The action-count rate per CPU-second: base (1 + slope actions / cpus);
 * base with no CPUs. */
extern double libra_isqos_rate(double base, double actions, int cpus,
			       double slope);

/*
 * The break-even point of sla at service price S and resource cost R: when
 * the z-curve's charge falls to R (the deadline without a due window, or
 * when the cap keeps it above R).
 */
extern double libra_isqos_breakeven(const libra_sla_t *sla, double price,
				    double cost);

/* Fill o's measures from o->now, cost, price and completion under sla. */
extern void libra_offer_measure(const libra_sla_t *sla, libra_isqos_offer_t *o);

/* qsort() order of the ranking: the most profit first, then the earliest
 * completion, then the lowest provider. */
extern int libra_offer_rank_cmp(const void *a, const void *b);

/* Sort offers[0..n-1] by libra_offer_rank_cmp(). */
extern void libra_offers_rank(libra_isqos_offer_t *offers, int n);

extern void libra_going_init(libra_going_t *g);
/* Record an accepted offer's profit rate, keeping the last size. */
extern void libra_going_add(libra_going_t *g, double rate, int size);
/* The mean of the rates held; 0 with none (a cold market). */
extern double libra_going_rate(const libra_going_t *g);

/*
 * Does filter f (with going rate g) pass offer o?  Every filter
 * refuses an offer past the deadline; all but top one at a loss.
 */
extern bool libra_offer_passes(const libra_isqos_t *f, const libra_going_t *g,
			       const libra_isqos_offer_t *o);

/* The index of the first of the ranked offers[0..n-1] that f passes, or
 * -1: the broker's selection. */
extern int libra_offer_select(const libra_isqos_t *f, const libra_going_t *g,
			      const libra_isqos_offer_t *offers, int n);

/* A refused job's cause, from its top-ranked offer: "budget", "duedate"
 * (past the break-even point), "deadline" or "profit". */
extern const char *libra_offer_refusal(const libra_isqos_offer_t *top);

#endif /* LIBRA_ISQOS_H */
