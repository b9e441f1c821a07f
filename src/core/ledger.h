/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  ledger.h - the per-node book of committed processor shares.
 *
 *  Libra admits a job only if every node it is placed on can still give each
 *  of the job's CPUs its deadline share (Yeo thesis Eq. 4.3/5.5)
 *
 *	share_ij = remainRE_ij / remainD_i
 *
 *  The ledger remembers, per node, every admitted job's CPUs and share, and
 *  keeps the node totals current, so that an admission test is a lookup and
 *  not a scan of slurmctld's tables.
 *
 *  Model and invariants (doc/design.md, decisions 1, 2 and 4):
 *  - Capacity is per CPU: a node with N CPUs offers N CPU-seconds per
 *    second; a job with c CPUs on it commits c * share of it.
 *  - Between progress reports a job is assumed to progress at exactly its
 *    share, so its share stays constant and its remaining work at time t is
 *	W(t) = W(since) - share * (t - since).
 *    This is the guaranteed minimum: a job that received more (leftover
 *    capacity is shared out in proportion to the shares) reports it with
 *    libra_ledger_progress() and its share then falls.
 *  - The committed work of a job inside a window [now, T] is
 *	c * share * (min(T, TD) - now),
 *    the work it will have done at its share by T (decision 2: only
 *    remaining work counts, never work already done).
 *  - Shares are clamped to [share_min, 1]: a job past its estimate or its
 *    deadline keeps share_min (a best-effort weight, never zero), and no job
 *    can use more than one CPU per CPU (decision 4).  Best-effort jobs
 *    (admitted without an SLA) commit nothing.
 *  - node share = sum over entries of cpus * share, maintained on every
 *    change; it is recomputed from the entries after every release so that
 *    rounding errors cannot accumulate.
 *  - Memory and GPUs are space-shared, never time-shared (decision 17): a
 *    job holds the memory (MB) and GPUs of each of its places from its
 *    commit to its release, best-effort jobs included, and the node totals
 *    of what is held are kept like the share.  A node's memory of 0 means
 *    the ledger does not track it (no memory limit, as before memory was
 *    known); its GPUs are GRES gpu, 0 when it has none.  The ledger records
 *    what it is given, even beyond a node's size (a record restored after
 *    a node shrank): the fit is admission's test, not the ledger's.
 *    Scratch disk (Slurm's --tmp, a node's TmpDisk, in MB) is held the
 *    same way, whole per node like memory per node: a node's TmpDisk of
 *    0 means the ledger does not track it.
 *
 *  - Advance reservations (decision 21): a job booked to begin later
 *    counts only from its begin time: its share RE / (target - begin)
 *    holds on [begin, target).  Every job's committed share is a step
 *    function of time: cpus * share on [start, target), then a tail of
 *    cpus * share_min (a job that overran its estimate runs on at
 *    share_min; best-effort jobs commit nothing).  A job already past its
 *    target now keeps the share it has.  libra_ledger_node_peak_share() is the
 *    most of that sum at any time of a window, the admission test's load;
 *    with no booked entry on the node it is the node share, so jobs that
 *    may run now are admitted exactly as before reservations existed.
 *
 *  The ledger is a cache: the plugins rebuild it from the job records.
 *  It has no locking; the owner serialises access.
\*****************************************************************************/

#ifndef LIBRA_LEDGER_H
#define LIBRA_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include "sla.h"
#include "statefile.h"

typedef struct libra_ledger libra_ledger_t;

/* Memory is counted in MB (Slurm's RealMemory and --mem unit), GPUs whole. */
#define LIBRA_MEM_UNTRACKED UINT64_MAX	/* free memory of a node whose
					 * memory the ledger does not track */

/* Where a job runs: some CPUs on one node, and what it holds there. */
typedef struct libra_place {
	int node;		/* ledger node index */
	int cpus;		/* CPUs of the job on that node */
	uint64_t mem_mb;	/* memory it holds there [MB], 0: none */
	int gpus;		/* GPUs it holds there, 0: none */
	uint64_t tmp_mb;	/* scratch disk it holds there [MB], 0: none */
} libra_place_t;

/*
 * What a job asks besides CPUs (Slurm's --mem, --mem-per-cpu or the
 * partition's DefMemPerCPU, --gres=gpu:N or --gpus-per-node, --gpus,
 * --tmp).  At most one memory form and one GPU form; all 0: nothing
 * asked.
 */
typedef struct libra_demand {
	uint64_t mem_per_cpu;	/* MB per CPU of the job */
	uint64_t mem_per_node;	/* MB on each node the job uses */
	bool mem_whole_node;	/* --mem=0: all the memory of each node used */
	int gpus_per_node;	/* GPUs on each node the job uses */
	int gpus;		/* GPUs of the job in all, spread over its
				 * nodes, each of which must have one free */
	uint64_t tmp_mb;	/* scratch disk (--tmp) [MB] on each node the
				 * job uses */
} libra_demand_t;

/* One job's commitment on one node (read-only view for policies). */
typedef struct libra_entry {
	uint32_t job_id;
	int cpus;		/* CPUs of the job on this node */
	double share;		/* committed share per CPU, clamped */
	double work;		/* remaining estimated work per CPU at since */
	double since;		/* time of the last progress report */
	double start;		/* from when its share counts: -INFINITY
				 * for a job that may run now, its begin
				 * time for an advance reservation */
	double runtime;		/* RE, in reference-CPU seconds */
	double speed;		/* the node's speed when committed: work and
				 * share are in its seconds (work = RE /
				 * speed at commit) */
	double submit;		/* TSU */
	double deadline;	/* TD, or the target its admission aimed
				 * the share at (libra_sla_target()) */
	double budget;		/* B, or -1 without a budget */
	double penalty_rate;	/* PR per hour */
	double penalty_cap;	/* the most the penalty can be: the SLA's
				 * penalty_cap, INFINITY without one (ISQoS;
				 * design.md decision 35) */
	libra_deadline_type_t type;
	bool best_effort;	/* no SLA: share 0 committed */
	uint64_t mem_mb;	/* memory held on this node [MB] */
	int gpus;		/* GPUs held on this node */
	uint64_t tmp_mb;	/* scratch disk held on this node [MB] */
} libra_entry_t;

extern libra_ledger_t *libra_ledger_create(double share_min);
extern void libra_ledger_destroy(libra_ledger_t *l);

/* Forget every job, keep the nodes. */
extern void libra_ledger_clear_jobs(libra_ledger_t *l);
extern void libra_ledger_set_share_min(libra_ledger_t *l, double share_min);

/* Nodes.  add returns the new index, or -1 (bad cpus, duplicate name). */
extern int libra_ledger_add_node(libra_ledger_t *l, const char *name,
				 int cpus);
extern int libra_ledger_node_count(const libra_ledger_t *l);
extern int libra_ledger_find_node(const libra_ledger_t *l, const char *name);
extern const char *libra_ledger_node_name(const libra_ledger_t *l, int node);
extern int libra_ledger_node_cpus(const libra_ledger_t *l, int node);
extern void libra_ledger_set_node_up(libra_ledger_t *l, int node, bool up);
extern bool libra_ledger_node_up(const libra_ledger_t *l, int node);

/*
 * The nodes' speeds relative to the reference CPU that runtimes are given
 * in (1, the default; design.md decision 43): RE reference seconds of
 * work take RE / speed of a node's CPU seconds, so a job's share there is
 * RE / (speed x window).  Set for every node at once, speeds[i] for node i
 * (n the node count): all set, or none (-1: a count not the node count,
 * or a speed not in (0, LIBRA_SPEED_MAX]).  Jobs committed before a
 * change keep the speed they were committed at until they are committed
 * again.
 */
#define LIBRA_SPEED_MAX 64.0
extern int libra_ledger_set_speeds(libra_ledger_t *l, const double *speeds,
				   int n);
extern double libra_ledger_node_speed(const libra_ledger_t *l, int node);
/* The fastest node's speed (1 on a ledger without nodes). */
extern double libra_ledger_max_speed(const libra_ledger_t *l);

/*
 * The factor of the base price on each node (the thesis' PBase_j, Eq. 3.3:
 * a site prices node groups differently; 1, the default: PBase itself;
 * decision 43), all set at once as libra_ledger_set_speeds(); the
 * cheapest node's (1 without nodes).
 */
#define LIBRA_PRICE_FACTOR_MAX 1000.0
extern int libra_ledger_set_price_factors(libra_ledger_t *l,
					 const double *factors, int n);
extern double libra_ledger_node_price_factor(const libra_ledger_t *l,
					     int node);
extern double libra_ledger_min_price_factor(const libra_ledger_t *l);

/*
 * A node's memory [MB] (0: not tracked, the default) and GPUs (GRES gpu;
 * 0: none, the default).  May be called again (a reconfigured node); what
 * jobs hold is kept.  Returns 0, or -1 for a bad node or GPU count.
 */
extern int libra_ledger_set_node_resources(libra_ledger_t *l, int node,
					   uint64_t mem_mb, int gpus);
extern uint64_t libra_ledger_node_mem(const libra_ledger_t *l, int node);
extern int libra_ledger_node_gpus(const libra_ledger_t *l, int node);

/* What the node's jobs hold, best-effort ones included. */
extern uint64_t libra_ledger_node_mem_used(const libra_ledger_t *l, int node);
extern int libra_ledger_node_gpus_used(const libra_ledger_t *l, int node);

/* What is left: memory [MB] (LIBRA_MEM_UNTRACKED when the node's memory is
 * not tracked) and GPUs; never below 0, even when more is held. */
extern uint64_t libra_ledger_node_mem_free(const libra_ledger_t *l, int node);
extern int libra_ledger_node_gpus_free(const libra_ledger_t *l, int node);

/*
 * A node's scratch disk [MB] (Slurm's TmpDisk; 0: not tracked, the
 * default), what the node's jobs hold of it (best-effort ones included),
 * and what is left (LIBRA_MEM_UNTRACKED when not tracked; never below 0).
 * Held whole per node as memory per node is.  The setter may be called
 * again (a reconfigured node); what jobs hold is kept.  Returns 0, or -1
 * for a bad node.
 */
extern int libra_ledger_set_node_tmp(libra_ledger_t *l, int node,
				     uint64_t tmp_mb);
extern uint64_t libra_ledger_node_tmp(const libra_ledger_t *l, int node);
extern uint64_t libra_ledger_node_tmp_used(const libra_ledger_t *l, int node);
extern uint64_t libra_ledger_node_tmp_free(const libra_ledger_t *l, int node);

/*
 * Memory [MB-seconds], GPU-seconds and scratch disk [MB-seconds] the
 * node's jobs hold inside [now, t_end] (decision 2's window, for a
 * space-shared resource): a job with an SLA holds until its deadline (it
 * runs at its share until then); a best-effort job, or one past its
 * deadline, until an end the ledger does not know, so through the whole
 * window.
 */
extern void libra_ledger_node_held_window(const libra_ledger_t *l, int node,
					  double now, double t_end,
					  double *mem_mb_s, double *gpu_s,
					  double *tmp_mb_s);

/* Libra+$Auto keeps one beta per node (NaN until first set). */
extern double libra_ledger_node_beta(const libra_ledger_t *l, int node);
extern void libra_ledger_set_node_beta(libra_ledger_t *l, int node,
				       double beta);

/*
 * The betas survive a restart of slurmctld (decision 9): the plugins save
 * them as text when they changed and read them back into the new ledger.
 * changes: a number that changes whenever a beta does.  format: "libra_beta
 * 1", then "beta <node> <beta>" for each node whose beta is set (NULL: out
 * of memory; free() it).  parse: sets the betas of the nodes named (a line
 * that does not read, or names a node not in the ledger, is skipped and
 * reported: statefile.h); the number read, or -1 when text is not such a
 * file.
 */
#define LIBRA_BETAS_MAGIC "libra_beta"
#define LIBRA_BETAS_VERSION 1
extern uint64_t libra_ledger_betas_changes(const libra_ledger_t *l);
extern char *libra_ledger_betas_format(const libra_ledger_t *l);
extern int libra_ledger_betas_parse(libra_ledger_t *l, const char *text,
				    const char *name, libra_report_fn *report,
				    void *arg);

/*
 * The node's smoothed load for Libra+$'s price damping (price.h): the
 * committed share per CPU as averaged up to "when" (NaN until first set).
 * Not in the job records: a restarted slurmctld starts undamped.
 */
extern double libra_ledger_node_load_avg(const libra_ledger_t *l, int node,
					 double *when);
extern void libra_ledger_set_node_load_avg(libra_ledger_t *l, int node,
					   double load, double when);

/* Sum of cpus * share of the jobs on the node [CPUs]. */
extern double libra_ledger_node_share(const libra_ledger_t *l, int node);

/* Committed CPU-seconds on the node inside [now, t_end] (decision 2). */
extern double libra_ledger_node_window_work(const libra_ledger_t *l, int node,
					    double now, double t_end);

/*
 * The next free slot's candidate begins (admit.h, libra_next_slot()): into
 * t[0..m), distinct whole seconds ascending, merge the whole seconds
 * ceil(target) in (after, until] at which the node's jobs' shares fall
 * (best-effort jobs commit none), keeping the max earliest; returns the
 * new count.  A value not below t's last, once t is full, is dropped at
 * once: O(entries).
 */
extern int libra_ledger_node_targets(const libra_ledger_t *l, int node,
				     double after, double until, double *t,
				     int m, int max);

/*
 * A number that changes whenever anything of the node's entries does (a
 * commit, a release, a share): what a memo is checked against.
 */
extern uint64_t libra_ledger_node_stamp(const libra_ledger_t *l, int node);

/*
 * A number that changes whenever the node's entries change other than by
 * their progress (a commit, a release: not a share, work left or "since"
 * that a progress report or libra_ledger_expire() sets); never 0.  What
 * a memo of figures that do not depend on the shares is checked against.
 */
extern uint64_t libra_ledger_node_shape(const libra_ledger_t *l, int node);

/*
 * Figures admission derives from a node's entries alone and keeps between
 * decisions (LibraSLA's return of the node as it is: admit_sla.c).  The
 * ledger only keeps the space, one per node, empty (stamp 0) at first; a
 * memo is valid while its stamp is the node's and its params are those it
 * was made with.  Written through a const ledger: it is a cache, no part
 * of the ledger's state, under the same serialisation as the rest.
 */
typedef struct libra_node_memo {
	uint64_t stamp;		/* libra_ledger_node_stamp() when made */
	uint64_t shape;		/* libra_ledger_node_shape() when made
				 * (0: never) */
	double params[4];	/* what it was made with */
	double share;		/* the entries' cpus * share, summed in order */
	double ret;		/* their returns, summed in order */
	double best_ret;	/* the highest return */
	int best;		/* its entry (the first), -1: none */
	bool any_hard;		/* an entry with a hard deadline */
	double prot_hard;	/* cpus * share of the hard ones, in order */
	double prot_best;	/* of the hard ones and the best, in order */
	double *ret0;		/* each entry's undelayed return (0 for a
				 * best-effort one), nret0 of them; the
				 * space admission's (realloc()), the
				 * ledger frees it when destroyed */
	double *bid;		/* each entry's bid (0 for a best-effort
				 * one), nret0 of them, in ret0's space:
				 * ret0 + ret0_cap */
	int nret0, ret0_cap;
} libra_node_memo_t;

extern libra_node_memo_t *libra_ledger_node_memo(const libra_ledger_t *l,
						 int node);

/*
 * A hint: libra_ledger_node_window_work() of this node comes soon (a loop
 * over the nodes asks for a node a few ahead).  Reads nothing, changes
 * nothing.
 */
extern void libra_ledger_prefetch_node(const libra_ledger_t *l, int node);

/*
 * A hint: a walk over this node's entries (libra_ledger_node_entries())
 * and its memo's returns and bids comes soon.  Reads nothing, changes
 * nothing.
 */
extern void libra_ledger_prefetch_entries(const libra_ledger_t *l, int node);

/* CPUs of all jobs on the node, best-effort ones included: the job slots
 * in use (Slurm lets at most OverSubscribe=FORCE:N jobs share a CPU). */
extern int libra_ledger_node_job_cpus(const libra_ledger_t *l, int node);

/* Sum of cpus * RE of the jobs on the node (thesis Eq. 3.6). */
extern double libra_ledger_node_thesis_work(const libra_ledger_t *l,
					    int node);

/* The entries on a node; valid until the ledger next changes. */
extern int libra_ledger_node_entries(const libra_ledger_t *l, int node,
				     const libra_entry_t **entries);

/*
 * Commit a job on its placement at time now.  sla NULL commits a
 * best-effort job (no share).  The initial share is RE / (target - now)
 * (libra_sla_target(): TD unless an admission set a due-date target),
 * clamped.  Each place's memory, GPUs and scratch disk are held until the
 * job (or that part of it) is released.  Returns 0, or -1 if the job is
 * already in the ledger or the placement names a bad node, CPU count or
 * GPU count.
 */
extern int libra_ledger_commit(libra_ledger_t *l, uint32_t job_id,
			       const libra_sla_t *sla,
			       const libra_place_t *place, int nplace,
			       double now);

/*
 * Commit an advance reservation (decision 21): as libra_ledger_commit() at
 * now, but the job's share counts only from begin (> now, else this is
 * libra_ledger_commit()): share RE / (target - begin), and no work is done
 * before begin.  Memory and GPUs are held from now (a space-shared
 * resource is not booked by time).
 */
extern int libra_ledger_commit_booked(libra_ledger_t *l, uint32_t job_id,
				      const libra_sla_t *sla,
				      const libra_place_t *place, int nplace,
				      double now, double begin);

/*
 * The most share [CPUs] the node's jobs commit at any time in [from,
 * until], from >= now (the step functions of the model above, seen at
 * now).  With no booked entry and from = now it is
 * libra_ledger_node_share(); entries booked later add where they begin,
 * jobs whose target falls before "from" leave their tail only.
 * O(entries) per booked entry that begins inside the window.
 */
extern double libra_ledger_node_peak_share(const libra_ledger_t *l, int node,
					   double now, double from,
					   double until);

/* Entries on the node booked to begin later than t (0: none). */
extern int libra_ledger_node_booked(const libra_ledger_t *l, int node,
				    double t);

/* Remove a job (finished, failed, cancelled), freeing its shares, memory
 * and GPUs.  Returns 0 or -1 if absent. */
extern int libra_ledger_release(libra_ledger_t *l, uint32_t job_id);

/* Remove a job from one node only (its part there finished); the job goes
 * when its last node is released.  Returns 0 or -1 if absent. */
extern int libra_ledger_release_node(libra_ledger_t *l, uint32_t job_id,
				     int node);

/*
 * Report progress: the job has done cpu_done CPU-seconds per CPU on node
 * (or on all its nodes when node < 0) by time now, in reference-CPU
 * seconds (a node's CPU seconds times its speed).  Its share becomes
 * (RE - cpu_done) / (speed x (TD - now)), clamped (thesis Fig. 3.3).  A booked job
 * before its begin keeps its booked share (a report then is ignored).
 */
extern int libra_ledger_progress(libra_ledger_t *l, uint32_t job_id, int node,
				 double cpu_done, double now);

/*
 * Commit a job again from now with a new SLA, on the places it has (a
 * re-planning, design.md decision 34): release it, commit it with sla on
 * a copy of its places (the same CPUs, memory and GPUs; sla NULL as for
 * libra_ledger_commit()), then report cpu_done CPU-seconds per CPU done
 * on all of them by now (libra_ledger_progress()).  Its committed time
 * becomes now, and its entries are new ones, as after any release and
 * commit (the nodes' stamps and shapes change).  Returns 0, or -1 when
 * the job has no places (it is not in the ledger) or the ledger refuses.
 * Nothing is left half done: before the release (no places, no memory
 * for the copy) the ledger is unchanged and the job keeps its old
 * commitment; after it (the commit or the report failed: out of memory,
 * as its places are the ledger's own) the job is not in the ledger at
 * all, holding no share, memory or GPUs, as after libra_ledger_release().
 */
extern int libra_ledger_recommit(libra_ledger_t *l, uint32_t job_id,
				 const libra_sla_t *sla, double cpu_done,
				 double now);

/*
 * Without progress reports (slurmctld cannot see a job's CPU time) a job is
 * assumed to progress at its share; at its deadline it has done its
 * estimate and drops to share_min.  Apply that to every entry whose
 * deadline is at or before now.
 */
extern void libra_ledger_expire(libra_ledger_t *l, double now);

extern bool libra_ledger_has_job(const libra_ledger_t *l, uint32_t job_id);

/*
 * Progress of every entry on one node at once: cpu_done[k] is for the k-th
 * entry of libra_ledger_node_entries() (n must be their count).  One pass,
 * no lookups: what a node-local Job Control loop wants.  Returns 0 or -1.
 */
extern int libra_ledger_progress_node(libra_ledger_t *l, int node,
				      const double *cpu_done, int n,
				      double now);

/* The SLA a job was committed with; NULL if it is not in the ledger. */
extern const libra_sla_t *libra_ledger_job_sla(const libra_ledger_t *l,
					       uint32_t job_id);

/* When the job was committed (its "now"); NAN if absent. */
extern double libra_ledger_job_committed(const libra_ledger_t *l,
					 uint32_t job_id);

/*
 * Admissions happen before slurmctld gives the job its id; they are
 * committed under a token, an id from this range (libra_hub_next_token()
 * gives them out), and re-keyed to the job's id later.
 */
#define LIBRA_TOKEN_BASE 0xF0000000u

static inline bool libra_is_token(uint32_t id)
{
	return id >= LIBRA_TOKEN_BASE;
}

/* Give a job a new id (a provisional admission becoming a real job).
 * Returns 0, or -1 if old is absent or new is taken. */
extern int libra_ledger_rekey(libra_ledger_t *l, uint32_t old_id,
			      uint32_t new_id);

/* Copy up to max job ids into ids (no order); returns the job count. */
extern int libra_ledger_jobs(const libra_ledger_t *l, uint32_t *ids, int max);
extern int libra_ledger_job_count(const libra_ledger_t *l);

/* The job's placement; returns the number of places (0 if absent). */
extern int libra_ledger_job_places(const libra_ledger_t *l, uint32_t job_id,
				   const libra_place_t **place);

/* Remaining estimated work per CPU of an entry at time now (all of it
 * before the entry's progress starts, at its "since"). */
extern double libra_entry_work_at(const libra_entry_t *e, double now);

#endif /* LIBRA_LEDGER_H */
