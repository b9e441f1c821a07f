/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  settle.h - what a job finally costs, once it has ended.
 *
 *  LibraSLA's utility (Yeo thesis Eq. 4.1/4.2) is what the provider earns:
 *
 *	DY = max(0, TF - TD)		delay past the deadline
 *	U  = price - DY * PR		penalty linear in the delay
 *
 *  where price is the quoted price (the budget itself in the bid-based
 *  LibraSLA).  The penalty is bounded by the penalty cap when the SLA has
 *  one (ISQoS); without a cap it is unbounded, and U below zero is
 *  compensation paid to the user.  PR is per hour of delay.
 *
 *  How the job ended decides the rest (documented in doc/design.md):
 *  COMPLETED, FAILED	the job ran to its end; charge as above.  A FAILED
 *			job that never started (Slurm refused it after its
 *			admission, e.g. for memory no node has) pays nothing.
 *  DEADLINE		a hard-deadline job still running at TD was ended
 *			there.  Admission guaranteed it RE of CPU by TD, so it
 *			overran its own estimate: charge the price, no
 *			penalty, deadline not met.
 *  CANCELLED		by the user: pay for the part of the reserved window
 *			used, price * (end - start) / (TD - start); nothing if
 *			it never started.
 *  NODE_FAIL		the provider broke the promise: no charge, and a
 *			penalty of PR * RE (the least delay a rerun costs),
 *			capped.
 *  UNSTARTED		admitted but still pending at its hard deadline (its
 *			nodes failed and no others could take it): as
 *			NODE_FAIL.
 *  WITHDRAWN		still pending at its hard deadline because its owner
 *			kept it from starting (held it, requeued it, gave it
 *			a later start or a dependency): a penalty pays for
 *			the provider's broken promise, not for the owner's
 *			own delay, so none; charged as CANCELLED (nothing if
 *			it never started).
 *  SUSPENDED		an operator suspended the job (scontrol suspend) and
 *			it was still running or suspended at its hard
 *			deadline (or a capped soft job at its end limit):
 *			the deadline does not move for a suspend, the time
 *			lost is the provider's, so as NODE_FAIL.  Only where
 *			the owner could not have suspended it (the caller
 *			knows: doc/design.md decision 30); else DEADLINE.
 *  PREEMPTED		Slurm's preemption cancelled it (a configuration
 *			libra-check reports): the provider's, as NODE_FAIL.
 *
 *  With a due date before the deadline (ISQoS's z-curve, doc/design.md
 *  decision 18) lateness counts from the due date, not the deadline: the
 *  charge is the full price up to the due date and falls, linearly at the
 *  penalty rate, to the price less the penalty cap, where it stays.  A
 *  user who gave no cap gets the price as cap (the paper's experiments:
 *  the charge falls to 0 at the deadline) and one who gave no rate the
 *  rate that reaches the cap at the deadline, cap / (TD - due) per second.
 *  DEADLINE then charges what completing at the agreed target costs
 *  (libra_sla_t.target), NODE_FAIL and UNSTARTED pay that penalty for RE.
\*****************************************************************************/

#ifndef LIBRA_SETTLE_H
#define LIBRA_SETTLE_H

#include <stdbool.h>

#include "sla.h"

typedef enum {
	LIBRA_END_COMPLETED = 0,
	LIBRA_END_FAILED,
	LIBRA_END_DEADLINE,
	LIBRA_END_CANCELLED,
	LIBRA_END_NODE_FAIL,
	LIBRA_END_UNSTARTED,
	LIBRA_END_WITHDRAWN,
	LIBRA_END_SUSPENDED,
	LIBRA_END_PREEMPTED,
} libra_end_t;

typedef struct libra_settlement {
	libra_end_t how;
	double end;		/* TF */
	double delay;		/* DY [s] */
	double late;		/* past the due date [s]; 0 without one */
	bool deadline_met;
	double penalty;		/* >= 0 */
	double charge;		/* what the user pays; < 0 is compensation */
} libra_settlement_t;

/* Grace, in seconds, for "finished by the deadline" (clock granularity). */
#define LIBRA_DEADLINE_GRACE 1.0

extern const char *libra_end_name(libra_end_t how);
extern bool libra_end_from_name(const char *name, libra_end_t *how);

/* Penalty for a delay under an SLA: min(cap, PR * delay / 3600). */
extern double libra_penalty(const libra_sla_t *sla, double delay);

/* Does the SLA have a due date before its deadline (by more than the
 * grace), so that the z-curve applies? */
static inline bool libra_sla_has_due_window(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_DUEDATE) &&
	       sla->deadline - sla->due_date > LIBRA_DEADLINE_GRACE;
}

/* The z-curve's penalty for completing late seconds after the due date at
 * a quoted price (see above); 0 without a due window or when late <= 0. */
extern double libra_due_penalty(const libra_sla_t *sla, double price,
				double late);

/* Settle a job that started at start (0: never started) and ended at end. */
extern void libra_settle(const libra_sla_t *sla, double price, double start,
			 double end, libra_end_t how, libra_settlement_t *s);

/*
 * The site's settlement (design.md decision 37): the rules above are the
 * papers', which know nothing of what an owner can do to a job on a real
 * cluster.  At a site the provider pays only for delay it caused, work
 * that ran is paid for and holding capacity is never free:
 *  COMPLETED, FAILED	the penalty counts only the provider's delay: the
 *			start past its plan (admission, or a booking's
 *			begin) less the time the owner kept the job from
 *			running, and the lateness its admission planned
 *			(a target past the due date, priced by the
 *			z-curve).  A job that started when planned and
 *			ended later than planned ran past its own estimate
 *			(its share delivered RE of CPU by its target, as
 *			for a hard job ended at its deadline): no penalty
 *			for that.
 *  CANCELLED, WITHDRAWN	started: the time it ran as if at full speed,
 *			price * min(1, (end - start) / RE), at least what
 *			the papers' rule gives; never started: the part of
 *			the window it held, price * (end - held) / (TD -
 *			held), held from its admission.
 *  UNSTARTED, FAILED	never started, as WITHDRAWN when the owner kept it
 *			from running at any time (held it, requeued it): the
 *			provider cannot be told from the owner then.
 *  the others		as above.
 * Under either rules no penalty exceeds the site's cap (libra_penalty_cap
 * times the price, fixed at admission in the record): the most the
 * provider pays for a job is known when it is sold.
 */
typedef struct libra_settle_site {
	double held;		/* when the admission began to hold capacity */
	double planned;		/* when the provider planned the start */
	double owner;		/* seconds the owner kept it from running */
	double cap;		/* the site's bound on the penalty; INFINITY:
				 * none */
	bool paper;		/* the papers' rules, capped (libra_settle()) */
} libra_settle_site_t;

extern void libra_settle_at_site(const libra_sla_t *sla, double price,
				 double start, double end, libra_end_t how,
				 const libra_settle_site_t *site,
				 libra_settlement_t *s);

/*
 * How an admitted job ended, in the terms above, from how the resource
 * manager saw it end ("reported") and the job's history:
 *  - a rerun after a node failure (requeues > 0) ended at its hard
 *    deadline lost its time to the provider: NODE_FAIL;
 *  - a job that never started pays nothing unless the provider kept it
 *    from starting: NODE_FAIL, UNSTARTED, WITHDRAWN, CANCELLED and
 *    PREEMPTED stay,
 *    anything else is FAILED.
 */
extern libra_end_t libra_end_of(libra_end_t reported, bool started,
				int requeues);

/*
 * How an admitted job that an operator suspended at some time of its run
 * ("suspended") ended: one ended at its end limit (DEADLINE) lost time to
 * the provider, SUSPENDED (design.md decision 30); anything else, or a job
 * never suspended, as "how".
 */
extern libra_end_t libra_end_suspended(libra_end_t how, bool suspended);

/*
 * Settle a best-effort job (admitted without an SLA): the base price per
 * CPU-second held, rate x cpus x (end - start), nothing if it never
 * started; no deadline, so none is missed (design.md, decision 10).
 */
extern void libra_settle_best_effort(double rate, int cpus, double start,
				     double end, libra_end_t how,
				     libra_settlement_t *s);

/*
 * When the resource manager should end an admitted job (design.md,
 * decision 12): a hard-deadline job at TD; a soft one whose penalty is
 * capped where the cap is reached, TD + cap / PR hours; 0 for a soft job
 * without a cap (or without a penalty rate): no end of ours.
 */
extern double libra_end_limit(const libra_sla_t *sla);

#endif /* LIBRA_SETTLE_H */
