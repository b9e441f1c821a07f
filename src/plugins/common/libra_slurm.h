/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm.h - what the slurmctld plugins of slurm-libra share: reading
 *  and writing job records, SchedulerParameters, and keeping the hub's
 *  ledger in step with slurmctld's node and job tables.
 *
 *  This file is compiled into each plugin (it holds no state of its own);
 *  the state they share lives in the hub (src/core/hub.h), in
 *  libslurm_libra.so.
\*****************************************************************************/

#ifndef _LIBRA_SLURM_H
#define _LIBRA_SLURM_H

#include <stdbool.h>
#include <time.h>

#include "src/common/xassert.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_compat.h"

#include "admit.h"
#include "demand.h"
#include "hub.h"
#include "record.h"

/*
 * How long an admission not yet tied to a job holds its capacity [s].  The
 * job is created in the same RPC, right after job_submit, so its record
 * appears within milliseconds; only a quote (sbatch --test-only) or a
 * submission refused after job_submit never gets one, and should not hold
 * capacity for long.
 */
#define LIBRA_TOKEN_HOLD 3

/*
 * A token still waiting this long [s] for its job is late: slurmctld
 * creates the job within milliseconds of its admission.  The sync then
 * walks the job table for it, and job_submit/qos counts it as a quote's
 * (a --test-only without a job; decision 37).
 */
#define LIBRA_TOKEN_LATE 0.25

/*
 * An admitted job's priority (design.md decision 38): slurmctld's
 * TOP_PRIORITY (job_mgr.c), above what its priority plugins give, set
 * directly (direct_set_prio, never recomputed).  While one waits to start,
 * Slurm starts no interactive allocation in its RPC (_top_priority()), its
 * scheduler and backfill take it first, and its pinned nodes are kept
 * from lower jobs.
 */
#define LIBRA_PRIORITY 0xffff0000u

/*
 * The slurmctld locks a function relies on, asserted the way slurmctld's
 * own code does (job_submit.c, node_mgr.c): checked when Slurm is built
 * for debugging (without NDEBUG), compiled out otherwise.  "Read" is met
 * by a read or a write lock.
 */
#define LIBRA_LOCKED(type, level) xassert(verify_lock(type, level))

/* Does this AdminComment hold a slurm-libra record? */
extern bool libra_slurm_is_record(const char *admin_comment);

/*
 * Parse a job's record.  Returns false when the job has none, or when it
 * is unreadable (logged).  The caller frees rec with libra_record_free().
 */
extern bool libra_slurm_job_record(job_record_t *job_ptr,
				   libra_record_t *rec);

/*
 * Keep parsed records by job id and AdminComment text in this plugin
 * (libra_slurm_job_record() parses a record again only when its text
 * changed); the full sync frees those of ended jobs.  Off by default.
 */
extern void libra_slurm_record_cache(bool on);

/*
 * The AdminComment text of rec, with the administrator's text of current
 * (the AdminComment it replaces: a record's "admin", or text that is no
 * record) kept beside it (design.md decision 29).  xmalloc'd; NULL when
 * rec cannot be encoded.
 */
extern char *libra_slurm_record_text(const libra_record_t *rec,
				     const char *current);

/*
 * Settle an admitted job's SLA in rec (libra_record_settle(): the site's
 * rules, decision 37; rec->settled set, the caller stores it).  A task of a job array admitted as one bag
 * (decision 36) is settled once for the whole: each task that is not the
 * last to end is charged nothing and leaves its outcome in the records of
 * the array's tasks still to end; the last settles the bag.  Returns true
 * when the job's admission may leave the ledger (not a bag's, or its
 * last).  Job write lock held, not the hub's.
 */
extern bool libra_slurm_settle(job_record_t *job_ptr, libra_record_t *rec,
			       double start, double end, libra_end_t how);

/*
 * Could only the provider have suspended the job (scontrol suspend), so
 * that the time it lost is the provider's (design.md decision 30)?  Not
 * where Slurm lets its owner suspend it (26.05), nor where its owner
 * coordinates its account (24.11, 26.05).  Job lock held.
 */
extern bool libra_slurm_suspend_by_provider(job_record_t *job_ptr);

/*
 * Has no other task of the job's bag still to end?  True for a job that
 * is no bag's.  Job read lock held.
 */
extern bool libra_slurm_bag_done(job_record_t *job_ptr,
				 const libra_record_t *rec);

/* Replace the job's AdminComment with rec, the administrator's text kept
 * (libra_slurm_record_text()).  Returns SLURM_SUCCESS. */
extern int libra_slurm_store_record(job_record_t *job_ptr,
				    const libra_record_t *rec);

/*
 * Read the libra_* keys of SchedulerParameters into the hub's parameters.
 * A bad value is logged and the previous parameters stay.  Hub lock held.
 */
extern int libra_slurm_load_params(const char *who);

/*
 * The node half of libra_slurm_sync(): the ledger's nodes match the node
 * table (rebuilt, without jobs, if not: returns true then) and their up or
 * down state is current.  O(nodes); same locks.
 */
extern bool libra_slurm_sync_nodes(void);

/*
 * slurmctld takes control: it starts, or a backup takes over (sched/libra's
 * init).  What the hub holds is dropped (decision 28): a backup loads
 * job_submit/qos, and so the hub, at its own start and keeps it in standby
 * and after it hands control back, when its ledger, quotes and runtime
 * history are those of an earlier time.  The ledger is rebuilt from the
 * job records slurmctld recovered, at the first sync; the parameters are
 * loaded and the predictor read from libra_history.  Hub lock held; before
 * slurmctld takes RPCs.
 */
extern void libra_slurm_take_control(const char *who);

/* Reload the parameters if slurm.conf changed since the last load.  Hub
 * lock held. */
extern void libra_slurm_params_current(const char *who);

/*
 * Bring the hub's ledger in step with slurmctld: nodes (and their state),
 * admitted jobs still pending or running, provisional admissions re-keyed
 * to their job ids, finished jobs released.
 * Returns how many admissions still wait for their job to appear.
 * Locks: slurmctld job, node and partition read (or write) locks, then the
 * hub lock.
 */
extern int libra_slurm_sync(time_t now);

/*
 * libra_slurm_sync() for sched/libra's passes, made incremental (finding
 * F.2, doc/design.md decision 25): only the jobs created since the last
 * sync (ids past the newest seen) are looked at, and the ledger's tokens;
 * ended jobs are released where they end (jobcomp/libra).  The whole job
 * table is walked (libra_slurm_sync()) when "full", on the first call,
 * after the ledger was rebuilt or replaced, when a token's hold ran out
 * and when a token waits for its job longer than slurmctld takes to
 * create it (LIBRA_TOKEN_LATE).  Same locks and return.  *nnew is -1 after a walk of the whole
 * table; else the active jobs created since the last call are in
 * *new_jobs (xfree() it), *nnew of them, in id order.
 */
extern int libra_slurm_sync_pass(time_t now, bool full,
				 job_record_t ***new_jobs, int *nnew);

/*
 * Why nodes of the job's partition were left out of its admission, for
 * the refusal's reason (libra_slurm_left_out_msg()).
 */
typedef struct {
	int unshared;	/* a job that does not share its CPUs runs there */
	int completing;	/* completing a job for over MessageTimeout */
	int reserved;	/* in a reservation the job is not in, during its
			 * window */
	int features;	/* lacks the features the job asks (-C) */
	int busy;	/* a whole-node request: a job runs there, or is
			 * admitted */
	int tmp;	/* less scratch disk (TmpDisk) than the job asks */
	uint32_t tmp_mb; /* what it asks (--tmp) [MB] */
	char resv[64];	/* the first such reservation's name */
	time_t resv_start; /* and its start */
	int planned;	/* planned by backfill for the waiting job at the
			 * head of the queue (decision 40) */
	uint32_t planned_job; /* that job */
	time_t planned_start; /* and its planned start */
	bool slot_follows; /* the caller gives the next free slot after
			    * the "unshared" nodes' jobs (decision 39) */
	double *free_at; /* xmalloc'd when a partition not OverSubscribe=FORCE
			  * was looked at: per node, when the jobs that do
			  * not share free an "unshared" node (their time
			  * limits, decision 39; INFINITY: unbounded), 0
			  * elsewhere; the caller xfree()s it */
} libra_slurm_left_out_t;

/*
 * What else select_nodes() checks of a job's nodes over its window
 * [start, end] (design.md decision 29): its reservation (--reservation),
 * the reservations it is not in, its features (-C) and a whole-node
 * request (--exclusive).
 */
typedef struct {
	const char *features;	/* -C/--constraint, or NULL */
	const char *resv_name;	/* --reservation, or NULL */
	time_t start;		/* when it may start */
	time_t end;		/* its deadline */
	bool whole;		/* --exclusive: whole idle nodes */
	uint32_t tmp_mb;	/* --tmp: scratch disk per node [MB]; 0: none */
} libra_slurm_window_t;

/*
 * Clear in mask (libra_slurm_eligible()'s) the nodes select_nodes() would
 * not give the job over w's window, counting each rule's in *out: a node
 * of a reservation (maintenance or advance) overlapping [start, end] that
 * the job is not in; every node outside the job's own reservation; nodes
 * without the features (names joined by & or , for AND and | for OR,
 * evaluated left to right as Slurm does); for a whole-node request, nodes
 * where a job runs or is admitted.  Returns SLURM_SUCCESS, or an errno
 * with "libra: rejected: ..." in err_msg: no such reservation, a window
 * outside it, a feature expression admission cannot read.  Node read
 * lock, job read lock, and the hub lock for a whole-node request.
 */
extern int libra_slurm_restrict(bool *mask, const libra_slurm_window_t *w,
				libra_slurm_left_out_t *out, char **err_msg);

/*
 * Seconds Slurm's own time limit of a hard-deadline job lies past the
 * deadline.  sched/libra ends the job at its deadline (_check_deadline():
 * settled DEADLINE, state CANCELLED); slurmctld's job_time_limit(), which
 * runs every PERIODIC_TIMEOUT (30 s) and ends a job as TIMEOUT, is only
 * the backstop for a pass that comes late.  With both at the same second
 * the first to run won: seen on Slurm 24.11, where the periodic check fell
 * on the deadline's second.
 */
#define LIBRA_END_GRACE 5

/*
 * A booking's Slurm reservation (design.md decision 42) is sched/libra's,
 * named LIBRA_RESV_PREFIX and the booked job's id ("libra_42").  Is
 * "names" (a reservation's name, or a job's --reservation: names joined
 * by commas) or one of them such a name?
 */
#define LIBRA_RESV_PREFIX "libra_"
extern bool libra_slurm_booking_resv(const char *names);

/* Does the job carry an admission (a record that is not best effort)? */
extern bool libra_slurm_is_admitted(job_record_t *job_ptr);

/*
 * The nodes where Slurm starts no admitted job now: where a running job
 * does not share its CPUs, until it ends (decision 27), and where a job
 * ended more than MessageTimeout ago and the node still has not reported
 * its end done, until it does (decision 29); NULL when none (else
 * FREE_NULL_BITMAP() it).  Job and node read locks.
 */
extern bitstr_t *libra_slurm_blocked_nodes(void);

/*
 * The nodes a job may use: its partition, minus down nodes, restricted to
 * req_nodes when given, minus exc_nodes, minus the nodes still completing
 * a job that ended more than MessageTimeout ago (select_nodes() takes no
 * node of cg_node_bitmap: design.md decision 29),
 * and, unless the partition is OverSubscribe=FORCE, minus the nodes where
 * a job that does not share runs (Slurm would not start a sharing job
 * there: decision 27); how many of each in *out when not NULL.  Given
 * *out, those last nodes stay in the mask, and out->free_at says when
 * each frees (decision 39): the caller leaves out the ones not free by
 * its job's start.
 * xmalloc'd array indexed like the node table (and the ledger); NULL on a
 * bad node list (err_msg set).  Job, node and partition read locks.
 */
extern bool *libra_slurm_eligible(part_record_t *part_ptr,
				  const char *req_nodes,
				  const char *exc_nodes,
				  libra_slurm_left_out_t *out,
				  char **err_msg);

/*
 * Append to *msg why a refusal for resources may pass (the nodes left out
 * in *out and when they come back); nothing when none were left out.
 */
extern void libra_slurm_left_out_msg(const libra_slurm_left_out_t *out,
				     char **msg);

/* Does the cluster track memory (SelectTypeParameters=CR_*_Memory)? */
extern bool libra_slurm_mem_tracked(void);

/* Can jobs be placed on the node (not down, drained, failed, future or
 * not responding; powered down counts as usable)?  Node lock. */
extern bool libra_slurm_node_usable(node_record_t *node_ptr);

/* A node's power state in Slurm's power saving (decision 24): booting,
 * stopping, off (powered down, or asked to be), else on.  Node lock. */
extern libra_node_power_t libra_slurm_node_power(node_record_t *node_ptr);

/* For each node, from when it can be up, as libra_admit_power() asks
 * (decision 24): now when on; after a boot when off or booting (Slurm
 * keeps no boot's start, so a whole one); after a shutdown and a boot
 * when stopping; INFINITY where eligible says no (xfree() it).  Node read
 * lock. */
extern double *libra_slurm_power_up(const bool *eligible, double now,
				    double boot, double shutdown);

/*
 * What a job asks besides CPUs (decision 17): its memory (--mem,
 * --mem-per-cpu, --mem-per-gpu; else part_ptr's DefMemPerCPU or
 * DefMemPerNode, else the cluster's, else all of each node; none when the
 * cluster does not track memory) and GPUs (--gres=gpu:N, --gpus-per-node,
 * --gpus), translated by the policy core (demand.h).  Returns
 * SLURM_SUCCESS, or ESLURM_INVALID_TASK_MEMORY / ESLURM_INVALID_GRES with
 * "libra: rejected: <option>: why" in err_msg.  Needs no lock of its own
 * (the job description, part_ptr and slurm_conf are the caller's).
 */
extern int libra_slurm_demand(job_desc_msg_t *job_desc,
			      part_record_t *part_ptr, libra_demand_t *d,
			      char **err_msg);

/*
 * The same for a job slurmctld holds (its details and TRES strings, with
 * the defaults Slurm applied at submission).  Returns false, logged at
 * debug level, when the job has no details or asks what demand.h refuses.
 */
extern bool libra_slurm_job_demand(job_record_t *job_ptr, libra_demand_t *d);

/*
 * The nodes where a job without an admission, asking d, would take memory
 * or GPUs that running or admitted jobs hold (libra_admit_held_fits(),
 * with as many of its CPUs as the node has, up to the job's minimum):
 * a bitmap of the node table to exclude, with *n nodes set, or NULL when
 * none is.  Hub lock and slurmctld's node read lock held.
 */
extern bitstr_t *libra_slurm_held_excluded(job_record_t *job_ptr,
					   const libra_demand_t *d, int *n);

/*
 * Put a running job that has no admission (best effort) into the ledger
 * with its CPUs and no share: it holds job slots, and the memory and GPUs
 * Slurm allocated it.  Hub lock held.
 */
extern void libra_slurm_commit_unadmitted(job_record_t *job_ptr);

/*
 * The id a job's admission is under in the ledger: its job id, or for a
 * task of a job array admitted as one bag (rec->bag, decision 36) its
 * array's job id, which every task shares.
 */
extern uint32_t libra_slurm_ledger_id(job_record_t *job_ptr,
				      const libra_record_t *rec);

/*
 * An admission whose job does not exist yet (its token still in the
 * ledger): the licenses it holds, until its deadline.
 */
typedef struct {
	uint32_t token;
	char *licenses;		/* -L as given */
	double until;
} libra_slurm_lic_hold_t;

/*
 * Licenses (design.md decision 29): are the licenses lic asks (-L) free
 * from "from" on?  Held are those of running, suspended and completing
 * jobs (until their end; Slurm gives them back when the job's epilog is
 * done), of pending jobs admitted with an SLA (until their deadline) and
 * of the admissions in extra whose job is not in the job table yet.
 * Returns SLURM_SUCCESS, or an errno with "libra: rejected: licenses:
 * ..." in err_msg naming the license, what is asked and free, and when
 * enough would be.  Job read lock (libra_slurm_job_record()'s).
 */
extern int libra_slurm_licenses(const char *lic, double from, double now,
				const libra_slurm_lic_hold_t *extra,
				int nextra, char **err_msg);

/*
 * QOS and association limits (design.md decision 29): would Slurm hold a
 * job of job_desc's user, account, QOS and partition, asking cpus CPUs on
 * nodes nodes, the memory and GPUs of d, for time_limit minutes (NO_VAL:
 * the partition's), with a limit reason now (CPU, node, memory, GPU and
 * billing TRES counted as slurmctld counts a new job's)?  Slurm's own acct_policy_job_runnable_pre_select()
 * and _post_select() decide, on a job record made for the question (no
 * job is created).  Returns SLURM_SUCCESS (also when accounting limits
 * are not enforced, or the association or QOS is not found: Slurm refuses
 * that job itself), or ESLURM_ACCOUNTING_POLICY with "libra: rejected:
 * limits: ..." in err_msg naming the limit as squeue's reason does
 * (AssocMaxJobsLimit, QOSMaxCpuPerUserLimit, ...).  slurmctld's job and
 * partition read locks; takes the assoc_mgr's.
 */
extern int libra_slurm_limits(job_desc_msg_t *job_desc,
			      part_record_t *part_ptr, int cpus, int nodes,
			      const libra_demand_t *d, uint32_t time_limit,
			      char **err_msg);

/* Jobs that may share one CPU in the partition (OverSubscribe=FORCE:N). */
extern int libra_slurm_slots_per_cpu(part_record_t *part_ptr);

/*
 * Could Slurm stop a job of this partition that admission would promise a
 * deadline (design.md decision 30)?  Gang scheduling (PreemptMode=GANG)
 * suspends jobs sharing CPUs in turns; preempt/partition_prio preempts a
 * partition whose PreemptMode is not OFF for one of a higher PriorityTier
 * sharing its nodes.  preempt/qos is not looked at (the job's QOS is
 * Slurm's choice after job_submit).  If so, *why says it (xstrfmtcat).
 * Partition read lock.
 */
extern bool libra_slurm_preemptable(part_record_t *part_ptr, char **why);

/* Node names of a record's placement, comma separated (xmalloc'd). */
extern char *libra_slurm_place_names(const libra_record_t *rec);

/* Node names of a placement in the ledger (a quote's, a held quote's), as
 * a Slurm hostlist (xmalloc'd).  Hub lock held. */
extern char *libra_slurm_place_nodes(const libra_place_t *place, int n);

/*
 * The journal of ended jobs, <StateSaveLocation>/libra_ended.log: one line
 * per job end, "<job id> <job state> <exit code> <record>", appended in
 * the same locked section as the settlement (jobcomp/libra).  slurmctld
 * writes its job state file only now and then; a job that ended after the
 * last write, in a slurmctld killed before the next, comes back running.
 * libra_slurm_journal_recover() (sched/libra's first pass after a start,
 * job and node write locks held) ends such jobs as they ended, with their
 * settled records.  Rotated to libra_ended.log.old at 16 MiB.
 */
/*
 * A finished job's run time (the wall time it ran: an upper bound of the
 * work it did, exact for a job that had its CPUs alone) against the runtime
 * its user declared: one line appended to StateSaveLocation/libra_history
 * and, when runtime predictions are on, recorded in the hub's predictor
 * (decision 23).  Takes the hub lock; call without it.  When the file has
 * grown past twice its compacted length (history.h), a thread of its own
 * compacts it to the lines the predictor reads.
 */
extern void libra_slurm_history_add(job_record_t *job_ptr, double runtime,
				    double estimate, double end);

/*
 * A node reports that a running job admitted on a prediction has done
 * "done" CPU-seconds per CPU, its plan or more (decision 34): re-plan it
 * with the core's libra_replan() (the simulator's own), commit it again on
 * its places from now and rewrite its record (the SLA's runtime the new
 * plan, its target the paced end).  Logged either way.  Job write lock
 * held; takes the hub lock.  True when re-planned.
 */
extern bool libra_slurm_replan(job_record_t *job_ptr, double done,
			       double now);

/*
 * libra_state.c: the hub's state that no job record holds, in
 * StateSaveLocation (decisions 9 and 20): the book of binding quotes
 * (libra_quotes) and Libra+$Auto's betas (libra_beta).
 *
 * libra_state_load(): read both into the hub when this slurmctld becomes
 * the primary (sched/libra's init: at start and after a takeover), the
 * ledger's nodes first made slurmctld's; the untaken quotes hold their
 * capacity again.  Node read lock held, hub lock not.
 *
 * libra_state_save_quotes(): write the book if it changed since it was
 * last written; libra_state_save(): the book and the betas.  Hub lock not
 * held; best outside slurmctld's locks (sched/libra after each pass), but
 * job_submit/qos writes the book before it answers a quote given or taken,
 * so that what a user was told survives.
 *
 * libra_state_carry(): a rebuilt ledger takes the old one's betas and the
 * book's untaken quotes, their nodes found by name (a quote with a node no
 * longer configured is dropped).  Hub lock held.
 */
extern void libra_state_load(void);
extern void libra_state_save_quotes(void);

/*
 * SchedulerParameters as last read without error, in StateSaveLocation, so
 * that a slurmctld that re-executes itself to reconfigure (23.11 and
 * later) can keep the settings before a reconfigure that brought a bad
 * value, as 22.05's in-place reconfigure does (design.md decision 28).
 * libra_state_save_params() writes them when they changed;
 * libra_state_load_params() returns them (xfree()) or NULL, *where the
 * file's path (xfree()).
 */
extern void libra_state_save_params(const char *sched_params);
extern char *libra_state_load_params(char **where);
extern void libra_state_save(void);
extern void libra_state_carry(libra_ledger_t *from, libra_ledger_t *to);

/* The history's last compaction waited for and its state freed
 * (jobcomp/libra's fini()). */
extern void libra_slurm_history_fini(void);

extern void libra_slurm_journal_end(job_record_t *job_ptr,
				    const libra_record_t *rec);
extern int libra_slurm_journal_recover(void);

/*
 * What a provider watches (decision 44; libra_slurm_watch.c).  A
 * submission refused for verdict (the refusal log's), counted under its
 * partition (the default one when it named none) and account (its user's
 * default when it named none): takes assoc_mgr's own locks and the hub's
 * (not held).  An admission that became job_ptr, once: where its token is
 * tied to the job, or released with an ended job that never was (hub lock
 * held).  A job settled, once at its end: its charge, penalty and
 * deadline (hub lock not held).
 */
extern void libra_slurm_watch_refused(const job_desc_msg_t *job_desc,
				      uint32_t uid, const char *verdict);
extern void libra_slurm_watch_admitted(job_record_t *job_ptr);
extern void libra_slurm_watch_settled(job_record_t *job_ptr,
				      const libra_record_t *rec);

/*
 * text as StateSaveLocation/name, atomically: written to name.new,
 * fsync()ed, renamed over name, the directory fsync()ed; a reader finds
 * the old file or the new one, never a torn one.  0 or -1 (logged).
 */
extern int libra_slurm_write_state(const char *name, const char *text);

/* For tests: copy StateSaveLocation/<from> to StateSaveLocation/<to>. */
extern void libra_slurm_copy_state(const char *from, const char *to);

#endif /* _LIBRA_SLURM_H */
