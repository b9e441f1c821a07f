/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  share.h - the deadline share of a job, and the CPU weight that enforces it.
 *
 *  Libra's job control (Yeo thesis Fig. 3.3, Yeo & Buyya Algorithm 2)
 *  periodically sets each running job's processor time partition to
 *
 *	share = (RE - cpu_done) / (TD - now)
 *
 *  i.e. the remaining estimated work over the time left to the deadline.
 *  The thesis leaves the edges open; we clamp (doc/design.md, decision 4):
 *
 *	remaining work <= 0 (past its estimate)	-> share_min
 *	time left <= 0 (past its deadline)	-> share_min
 *	share < share_min			-> share_min
 *	share > 1 (cannot finish in time)	-> 1
 *
 *  share_min is small but never zero, so a late job still runs on whatever
 *  the admitted jobs leave, and never starves or blocks an admission.
 *
 *  On the nodes the share becomes a cgroup CPU weight.  The kernel divides a
 *  busy CPU between sibling cgroups in proportion to their weights, so with
 *  weights proportional to shares each job gets at least its share whenever
 *  the shares on a CPU sum to at most 1 (leftover capacity is spread in
 *  proportion to the shares, thesis section 6.4.2).
 *
 *  The node side sets a weight and holds it for one update interval, so it
 *  paces a job to be done one interval ("lead") before its deadline:
 *  libra_share_paced() uses TD - lead for TD, and gives a job with work left
 *  in its last interval a whole CPU.  Admission and the ledger keep the
 *  thesis's formula; the lead only moves CPU time earlier between the jobs
 *  already admitted.
\*****************************************************************************/

#ifndef LIBRA_SHARE_H
#define LIBRA_SHARE_H

/* Default share_min. */
#define LIBRA_SHARE_MIN_DEFAULT 0.01

/* Weight scale: share 1.0 is weight 10000 (cgroup v2 cpu.weight maximum). */
#define LIBRA_WEIGHT_SCALE 10000.0

/* The clamped deadline share, as above. */
extern double libra_share(double runtime, double cpu_done, double now,
			  double deadline, double share_min);

/*
 * The share the node side enforces: libra_share() with the deadline moved
 * "lead" seconds earlier; 1 while work is left and time left is at most
 * "lead" (before the deadline); share_min past the estimate or the deadline.
 */
extern double libra_share_paced(double runtime, double cpu_done, double now,
				double deadline, double lead, double share_min);

/*
 * What a running job's CPU weight enforces (the SPANK plugin):
 * libra_share_paced(), or share_min before "begin", the time from which
 * the ledger counts the job's share (0: from its admission).  Only a job
 * counted from the boot of powered-down nodes (design.md decision 24) can
 * run before its begin, when its nodes boot sooner than libra_power_boot;
 * the capacity before its begin may be committed to others, so until then
 * it takes only what they leave.  Paced to "target" (what the ledger
 * committed the share to: a due date's or opt=time's, libra_sla_target();
 * else the deadline) and, once that has passed with work left (a busy
 * node), to the deadline, which is still the agreement.
 */
extern double libra_share_enforced(double runtime, double cpu_done,
				   double now, double begin, double target,
				   double deadline, double lead,
				   double share_min);

/*
 * The most a job's CPU weight claims (design.md decision 16): the share
 * the ledger committed to it, its paced share at "from" (its admission,
 * binding quote's hold end, booking's begin or re-planning) with no work
 * done.  Libra's formula alone gives a job that idled first, or was kept
 * from starting by its owner, a share above that as its time runs out,
 * taken from the jobs admitted beside it on what the ledger promised
 * them; capped, it takes only what they leave.  0 when "from" is not set.
 */
extern double libra_share_committed(double runtime, double from,
				    double target, double lead,
				    double share_min);

/* The clamped share from remaining work and time left. */
extern double libra_share_remaining(double work, double time_left,
				    double share_min);

/* libra_share_remaining() inline, for the loops that compute it for
 * every entry of a node (the ledger's progress reports). */
static inline double libra_share_clamp(double work, double time_left,
				       double share_min)
{
	double share;

	/* Past its estimate or past its deadline: best effort only. */
	if (!(work > 0.0) || !(time_left > 0.0))
		return share_min;
	share = work / time_left;
	if (share < share_min)
		return share_min;
	if (share > 1.0)
		return 1.0;	/* one CPU per CPU is all a job can use */
	return share;
}

/* cgroup v2 cpu.weight (1..10000) for a share. */
extern unsigned libra_weight_v2(double share);

/* cgroup v1 cpu.shares (2..262144) for a share; share 1.0 is 10000. */
extern unsigned libra_weight_v1(double share);

#endif /* LIBRA_SHARE_H */
