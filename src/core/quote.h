/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  quote.h - binding quotes: a price and the capacity behind it, held for a
 *  while for one user (doc/design.md decision 20; ISQoS's offers, thesis
 *  chapter 7's request-lock-confirm).
 *
 *  A user asks with "quote=hold" in the SLA (sbatch --test-only): the job
 *  is admitted as usual, but as if it started only when the hold ends, so
 *  that the share committed in the ledger (RE / (TD - until)) still meets
 *  the deadline however late within the hold the user takes the quote.  The
 *  admission is committed under a ledger token (ledger.h) dated at the hold's
 *  end, and the book keeps the quote: its number, owner, the agreed SLA,
 *  price, request and placement.  Submitting "quote=ID" before the hold
 *  ends makes a job of it at that price with no second admission; after
 *  it, or when the capacity is gone (a node of the placement went down),
 *  the submission is refused with that reason.
 *
 *  Bounded: a user holds at most libra_quote_max untaken quotes at once, and
 *  a quote's capacity is released at the end of its hold, taken or not.
 *
 *  The book survives a restart of slurmctld and a takeover: the plugins
 *  save it as text (libra_quotes_format()) in StateSaveLocation whenever
 *  it changes and read it back (libra_quotes_parse()) when they start, and
 *  commit the untaken quotes' tokens again (decision 20).  A job made of a
 *  quote keeps it in its record as well.  The numbers of a new book start
 *  from its creation time, and after a book read back from the numbers it
 *  holds, so that a number is not given again soon.
 *
 *  No locking: the hub's lock serialises access.
\*****************************************************************************/

#ifndef LIBRA_QUOTE_H
#define LIBRA_QUOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "ledger.h"
#include "sla.h"
#include "statefile.h"

/* The shape of the request a quote was for; a job taking it must ask the
 * same. */
typedef struct libra_quote_shape {
	int cpus;
	int min_nodes, max_nodes;	/* 0: not given */
	int cpus_per_task, cpus_per_node; /* 0: not given */
	libra_demand_t demand;
	char partition[64];		/* "" for the default partition */
} libra_quote_shape_t;

typedef struct libra_held_quote {
	uint32_t id;		/* the number the user gives back */
	uint32_t token;		/* the ledger token holding the capacity */
	uint32_t uid;		/* the only user who may take it */
	double issued;		/* when it was given */
	double until;		/* end of the hold; the ledger commit time */
	int policy;		/* libra_policy_t that priced it */
	libra_sla_t sla;	/* the agreed SLA (libra_sla_accept()) */
	double price, price_mem, price_gpus, rate;
	libra_quote_shape_t shape;
	int nplace;
	libra_place_t *place;	/* owned by the book */
	bool taken;		/* a job was submitted with it */
} libra_held_quote_t;

typedef struct libra_quotes libra_quotes_t;

/* How long after its hold a quote is remembered, so that taking it is
 * refused as expired rather than unknown [s]. */
#define LIBRA_QUOTE_FORGET 3600.0

/* An empty book whose first number derives from "now". NULL: no memory. */
extern libra_quotes_t *libra_quotes_create(double now);
extern void libra_quotes_destroy(libra_quotes_t *b);

/* Untaken quotes of uid whose hold has not ended at now. */
extern int libra_quotes_held(const libra_quotes_t *b, uint32_t uid,
			     double now);

/*
 * Keep a quote: *h is copied (its place array too) and given the next
 * number, returned (0: out of memory).  The caller has checked the user's
 * limit and committed the token.
 */
extern uint32_t libra_quotes_add(libra_quotes_t *b, const libra_held_quote_t *h);

typedef enum {
	LIBRA_QUOTE_OK = 0,
	LIBRA_QUOTE_UNKNOWN,	/* no such number (never given, forgotten
				 * after its hold, or before a restart) */
	LIBRA_QUOTE_NOT_OWNER,	/* another user's */
	LIBRA_QUOTE_EXPIRED,	/* its hold ended */
	LIBRA_QUOTE_TAKEN,	/* a job was already submitted with it */
} libra_quote_status_t;

/* A phrase for messages: "no such quote", "expired", ... */
extern const char *libra_quote_status_name(libra_quote_status_t st);

/*
 * Find quote id for uid at now: LIBRA_QUOTE_OK with *h pointing into the
 * book (valid until the book next changes), or why not (*h then still
 * points at the quote when there is one, for the message).
 */
extern libra_quote_status_t libra_quotes_find(libra_quotes_t *b, uint32_t id,
					      uint32_t uid, double now,
					      libra_held_quote_t **h);

/* Does a job ask what the quote was for?  NULL when it does, else what
 * differs ("the CPU count", "the partition", ...). */
extern const char *libra_quote_shape_differs(const libra_quote_shape_t *q,
					     const libra_quote_shape_t *job);

/* A job was made of quote id (no-op when absent). */
extern void libra_quotes_mark_taken(libra_quotes_t *b, uint32_t id);

/* Forget a quote (its capacity gone). */
extern void libra_quotes_remove(libra_quotes_t *b, uint32_t id);

/*
 * Is this ledger token an untaken quote's, held at now?  Its admission is
 * then not a job being created: the scheduler need not look again soon.
 */
extern bool libra_quotes_token_held(const libra_quotes_t *b, uint32_t token,
				    double now);

/* Forget the quotes whose hold ended more than "grace" seconds before now
 * (the ledger releases their tokens itself); returns how many. */
extern int libra_quotes_expire(libra_quotes_t *b, double now, double grace);

/* Quotes in the book; the i-th of them, valid until the book next changes
 * (0 <= i < count). */
extern int libra_quotes_count(const libra_quotes_t *b);
extern libra_held_quote_t *libra_quotes_at(libra_quotes_t *b, int i);

/*
 * A number that changes whenever the book does (a quote kept, taken,
 * removed or forgotten): what the plugins compare with the one they last
 * saved.
 */
extern uint64_t libra_quotes_changes(const libra_quotes_t *b);
/* The changes count the book was last saved at (0: never); set by the
 * plugins when they saved it. */
extern uint64_t libra_quotes_saved(const libra_quotes_t *b);
extern void libra_quotes_set_saved(libra_quotes_t *b, uint64_t changes);

/*
 * The book as text (decision 20): "libra_quotes 1", a line "next N" (the
 * next number), then one line "quote key=value ..." per quote with every
 * field of libra_held_quote_t, its placement by node name (l's), e.g.
 * "place=n1:2:1000:0:0,n2:2:1000:0:0" (node:CPUs:MB:GPUs:TMP; version 1,
 * which is still read, had no TMP and no tmp_mb).  NULL: out of
 * memory, or a node or partition name that would not read back.  The
 * caller frees it with free().
 */
#define LIBRA_QUOTES_MAGIC "libra_quotes"
#define LIBRA_QUOTES_VERSION 2
extern char *libra_quotes_format(const libra_quotes_t *b,
				 const libra_ledger_t *l);

/*
 * Read a book libra_quotes_format() wrote into b (statefile.h: name names
 * the text in reports).  Quotes b would forget at now (their hold ended
 * more than "grace" before) are dropped; a line that does not read (a bad
 * field, a node not in l, a number or token given twice) is skipped and
 * reported; the others are read as written, taken or not.  b's next
 * number is then past every number read, so none is given twice.  Returns
 * the number of quotes kept, or -1 when text is not a book (reported).
 * Nothing is committed in the ledger: the caller commits the untaken ones.
 */
extern int libra_quotes_parse(libra_quotes_t *b, const libra_ledger_t *l,
			      const char *text, const char *name, double now,
			      double grace, libra_report_fn *report,
			      void *arg);

/*
 * Quotes that hold nothing for long: an admission under a token whose job
 * never appears (sbatch --test-only without quote=hold) keeps its capacity
 * until the scheduler releases the token (LIBRA_TOKEN_HOLD, a few
 * seconds).  A loop of them from one user would hold capacity from the
 * others without limit, so each user may have only so many such tokens
 * waiting at once once one of them has waited longer than a job's
 * creation takes ("older": a real submission's token is tied to its job
 * within milliseconds, at the scheduler's next look); decision 37.  No locking: the hub's lock.
 */
typedef struct libra_probe {
	uint32_t uid;
	uint32_t token;
	double at;		/* admitted then */
} libra_probe_t;

typedef struct libra_probes {
	libra_probe_t *v;
	int n, cap;
} libra_probes_t;

/*
 * Forget the probes whose token is no longer in the ledger under its own
 * id (tied to a job, or released) or older than "keep" seconds, then count
 * uid's that have waited "older" seconds or more; *all (may be NULL): all
 * of uid's.  A user with one such old probe is asking quotes without
 * jobs; one without any is submitting jobs, however fast.
 */
extern int libra_probes_waiting(libra_probes_t *p, const libra_ledger_t *l,
				uint32_t uid, double now, double older,
				double keep, int *all);

/* Note an admission under "token" for uid; -1 when out of memory. */
extern int libra_probes_add(libra_probes_t *p, uint32_t uid, uint32_t token,
			    double now);

extern void libra_probes_free(libra_probes_t *p);

#endif /* LIBRA_QUOTE_H */
