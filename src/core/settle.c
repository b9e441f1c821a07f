/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  settle.c - the final charge of a job (see settle.h for the rules).
\*****************************************************************************/

#include <math.h>
#include <string.h>

#include "number.h"
#include "settle.h"

static const libra_name_t end_names[] = {
	{ LIBRA_END_COMPLETED,	"COMPLETED" },
	{ LIBRA_END_FAILED,	"FAILED" },
	{ LIBRA_END_DEADLINE,	"DEADLINE" },
	{ LIBRA_END_CANCELLED,	"CANCELLED" },
	{ LIBRA_END_NODE_FAIL,	"NODE_FAIL" },
	{ LIBRA_END_UNSTARTED,	"UNSTARTED" },
	{ LIBRA_END_WITHDRAWN,	"WITHDRAWN" },
	{ LIBRA_END_SUSPENDED,	"SUSPENDED" },
	{ LIBRA_END_PREEMPTED,	"PREEMPTED" },
	{ 0, NULL }
};

extern const char *libra_end_name(libra_end_t how)
{
	return libra_name_of(end_names, (int) how);
}

extern bool libra_end_from_name(const char *name, libra_end_t *how)
{
	int v;

	if (!libra_value_of(end_names, name, &v))
		return false;
	*how = (libra_end_t) v;
	return true;
}

extern double libra_penalty(const libra_sla_t *sla, double delay)
{
	double pen;

	if (!(delay > 0.0))
		return 0.0;
	pen = sla->penalty_rate * delay / 3600.0;	/* Eq. 4.1 */
	if ((sla->set & LIBRA_SLA_PENALTY_CAP) && pen > sla->penalty_cap)
		pen = sla->penalty_cap;
	return pen;
}

extern double libra_due_penalty(const libra_sla_t *sla, double price,
				double late)
{
	double cap, rate;

	if (!libra_sla_has_due_window(sla) || !(late > 0.0))
		return 0.0;
	cap = (sla->set & LIBRA_SLA_PENALTY_CAP) ? sla->penalty_cap : price;
	if (sla->set & LIBRA_SLA_PENALTY)
		rate = sla->penalty_rate / 3600.0;
	else
		rate = cap / (sla->deadline - sla->due_date);
	return fmin(cap, rate * late);
}

/* The penalty for the delay the rules above name, from the due date when
 * the SLA has one, else from the deadline (Eq. 4.1). */
static double _penalty(const libra_sla_t *sla, double price, double late,
		       double delay)
{
	if (libra_sla_has_due_window(sla))
		return libra_due_penalty(sla, price, late);
	return libra_penalty(sla, delay);
}

extern void libra_settle(const libra_sla_t *sla, double price, double start,
			 double end, libra_end_t how, libra_settlement_t *s)
{
	bool due = libra_sla_has_due_window(sla);
	double window;

	memset(s, 0, sizeof(*s));
	s->how = how;
	s->end = end;
	switch (how) {
	case LIBRA_END_COMPLETED:
	case LIBRA_END_FAILED:
		if (start <= 0.0 && how == LIBRA_END_FAILED) {
			/* never ran (refused by Slurm after admission) */
			s->deadline_met = false;
			break;
		}
		/* Eq. 4.2: DY = max(0, TF - TD) */
		s->delay = end - sla->deadline;
		if (s->delay <= LIBRA_DEADLINE_GRACE)
			s->delay = 0.0;
		s->deadline_met = (s->delay == 0.0);
		if (due && end - sla->due_date > LIBRA_DEADLINE_GRACE)
			s->late = end - sla->due_date;
		s->penalty = _penalty(sla, price, s->late, s->delay);
		s->charge = price - s->penalty;
		break;
	case LIBRA_END_DEADLINE:
		/* ran out its own estimate: delivered as promised, at the
		 * charge agreed for the target the share aimed at */
		if (due) {
			s->late = sla->deadline - sla->due_date;
			s->charge = price - libra_due_penalty(
				sla, price,
				libra_sla_target(sla) - sla->due_date);
		} else {
			s->charge = price;
		}
		break;
	case LIBRA_END_CANCELLED:
	case LIBRA_END_WITHDRAWN:
		window = sla->deadline - start;
		if (start > 0.0 && end > start && window > 0.0)
			s->charge = price * fmin(1.0, (end - start) / window);
		s->deadline_met = false;
		break;
	case LIBRA_END_NODE_FAIL:
	case LIBRA_END_UNSTARTED:
	case LIBRA_END_SUSPENDED:
	case LIBRA_END_PREEMPTED:
		s->penalty = _penalty(sla, price, sla->runtime, sla->runtime);
		s->charge = -s->penalty;
		break;
	}
}

extern libra_end_t libra_end_of(libra_end_t reported, bool started,
				int requeues)
{
	/* a rerun after a node failure that misses: the provider's fault */
	if (requeues && reported == LIBRA_END_DEADLINE)
		reported = LIBRA_END_NODE_FAIL;
	if (started)
		return reported;
	switch (reported) {
	case LIBRA_END_NODE_FAIL:
	case LIBRA_END_UNSTARTED:
	case LIBRA_END_WITHDRAWN:
	case LIBRA_END_CANCELLED:
	case LIBRA_END_PREEMPTED:
		return reported;
	default:	/* never started and not the provider's doing */
		return LIBRA_END_FAILED;
	}
}

extern libra_end_t libra_end_suspended(libra_end_t how, bool suspended)
{
	/* the operator took the time the job needed (design.md, decision
	 * 30): the provider's breach, not the job's overrun */
	if (suspended && how == LIBRA_END_DEADLINE)
		return LIBRA_END_SUSPENDED;
	return how;
}

extern void libra_settle_best_effort(double rate, int cpus, double start,
				     double end, libra_end_t how,
				     libra_settlement_t *s)
{
	memset(s, 0, sizeof(*s));
	s->how = how;
	s->end = end;
	s->deadline_met = true;
	if (start > 0.0 && end > start)
		s->charge = rate * cpus * (end - start);
}

extern double libra_end_limit(const libra_sla_t *sla)
{
	if (sla->type == LIBRA_DEADLINE_HARD)
		return sla->deadline;
	if ((sla->set & LIBRA_SLA_PENALTY_CAP) && sla->penalty_rate > 0.0)
		return sla->deadline +
		       sla->penalty_cap / sla->penalty_rate * 3600.0;
	return 0.0;
}

/* Started and cancelled: the time it ran as if at full speed, so at least
 * the CPU time it used, at the admitted price; never started: the part of
 * the window its admission held (settle.h, decision 37). */
static double _site_cancel_charge(const libra_sla_t *sla, double price,
				  double start, double end, double held)
{
	double ran, f;

	if (start > 0.0) {
		ran = fmax(0.0, end - start);
		f = sla->deadline > start ? ran / (sla->deadline - start) : 1.0;
		if (sla->runtime > 0.0)
			f = fmax(f, ran / sla->runtime);
		return price * fmin(1.0, f);
	}
	if (end <= held)
		return 0.0;
	if (sla->deadline <= held)
		return price;
	return price * fmin(1.0, (end - held) / (sla->deadline - held));
}

/* The site's rules where they differ from the papers' (settle.h). */
static void _site_rules(const libra_sla_t *sla, double price, double start,
			double end, libra_end_t how,
			const libra_settle_site_t *site, libra_settlement_t *s)
{
	double cause;

	switch (how) {
	case LIBRA_END_COMPLETED:
	case LIBRA_END_FAILED:
		if (start <= 0.0 || !(s->penalty > 0.0))
			break;
		/* the provider's delay: its late start, not the owner's,
		 * and the lateness its admission planned and priced (a
		 * target past the due date, decision 18) */
		cause = fmax(0.0, start - site->planned - site->owner) +
			fmax(0.0, libra_sla_target(sla) -
				  (libra_sla_has_due_window(sla) ?
				   sla->due_date : sla->deadline));
		s->penalty = _penalty(sla, price, fmin(s->late, cause),
				      fmin(s->delay, cause));
		s->charge = price - s->penalty;
		break;
	case LIBRA_END_CANCELLED:
	case LIBRA_END_WITHDRAWN:
		s->charge = fmax(s->charge,
				 _site_cancel_charge(sla, price, start, end,
						     site->held));
		break;
	default:
		break;
	}
}

extern void libra_settle_at_site(const libra_sla_t *sla, double price,
				 double start, double end, libra_end_t how,
				 const libra_settle_site_t *site,
				 libra_settlement_t *s)
{
	/* never started once its owner had stopped it (held, changed,
	 * requeued): the owner's doing, not a broken promise */
	if (!site->paper && site->owner > 0.0 && start <= 0.0 &&
	    (how == LIBRA_END_UNSTARTED || how == LIBRA_END_FAILED))
		how = LIBRA_END_WITHDRAWN;
	libra_settle(sla, price, start, end, how, s);
	if (!site->paper)
		_site_rules(sla, price, start, end, how, site, s);
	if (s->penalty > site->cap) {
		s->charge += s->penalty - site->cap;
		s->penalty = site->cap;
	}
}
