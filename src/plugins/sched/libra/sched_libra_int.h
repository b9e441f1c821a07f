/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_int.h - internal to sched/libra's scheduler thread, not
 *  part of sched_libra.h: the thread's state, in one place (st, defined in
 *  sched_libra.c), and the steps its files share, each described where it
 *  is defined, in the file named above its declaration.  Hidden from the
 *  plugin's exported symbols.
 *
 *  The files, by concern:
 *    sched_libra.c          the pass: the job list, running jobs (their
 *                           hard deadlines, suspends), its clock and log
 *    sched_libra_pending.c  a pending job tried: started, placed again,
 *                           ended at its hard deadline, told why it waits
 *    sched_libra_agent.c    the thread's loop, start and stop; durable
 *                           starts (the job state, launches, orphans)
 *    sched_libra_metrics.c  the metrics file a provider watches
\*****************************************************************************/

#ifndef _SCHED_LIBRA_INT_H
#define _SCHED_LIBRA_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "src/common/bitstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"
#include "params.h"
#include "record.h"
#include "sched_libra.h"

#pragma GCC visibility push(hidden)

/* A growing list of job ids.  Agent thread only. */
typedef struct {
	uint32_t *id;
	int n, cap;
} id_list_t;

/*
 * Held jobs (priority 0) in the ledger, looked up once (contrib/bench/
 * findings.md, F): a pending job's SLA in the ledger changes only when it
 * is placed again, which a held job is not, so its hard deadline (0: none)
 * is the one its first look found.  Direct-mapped by job id; an entry is
 * this job's only with the same record pointer, id and submission time.
 */
#define HELD_MEMO 4096

typedef struct {
	job_record_t *job_ptr;
	uint32_t job_id;
	time_t submit;
	double deadline;
} held_memo_t;

/*
 * The plugin's state, in one place.  All of it is the agent thread's,
 * except no_sla_mode (set at init(), before the agent starts) and
 * agent_tid (init() and fini()).
 */
typedef struct {
	pthread_t agent_tid;
	/* libra_no_sla at init(): LIBRA_NOSLA_SLURM leaves jobs without an
	 * SLA to Slurm's schedulers (decision 27). */
	libra_nosla_t no_sla_mode;
	/*
	 * The batch jobs a pass started, to be launched (their script sent
	 * to their first node) once the journal of starts holds them, by
	 * _launch() after the pass's libra_starts_write().
	 */
	id_list_t launches;
	/*
	 * For tests only (tests/integration/test_sched_launch.sh): seconds
	 * to wait, in the environment variable LIBRA_TEST_LAUNCH_DELAY of
	 * slurmctld, between the journal of starts' write after a pass that
	 * started jobs and their launch, so that a test can kill slurmctld
	 * in between.  0: none.
	 */
	unsigned int test_launch_delay;
	/*
	 * For tests only (tests/integration/test_sched_launch.sh,
	 * tests/reliability/rel_faults.sh), with LIBRA_TEST_STALE_STATE=1 in
	 * slurmctld's environment: each write of the job state before new jobs
	 * start is copied to StateSaveLocation/job_state.libra-test, and each
	 * launch logged, so that a test can kill slurmctld after a launch and
	 * put that copy in place of the job state: what a write of slurmctld's
	 * state save thread packed before the start and completed after
	 * sched/libra's own leaves (sched_libra_starts.c).  Never set in
	 * production.
	 */
	bool test_stale_state;
	/*
	 * slurmctld writes its job state file at most every 5 s
	 * (state_save.c).  A job started before it is written, then lost with a
	 * SIGKILLed slurmctld, would run on unknown to the restarted one, which
	 * would give its id to another job (and slurmd would drain the node:
	 * "Duplicate jobid").  So the agent writes the state itself (decision
	 * 26) after each pass that has new jobs to start, and starts a job only
	 * once it is written.  The jobs a pass started are appended to the
	 * journal of starts before any is launched (sched_libra_starts.c): a
	 * restarted slurmctld whose state has such a job pending (the state
	 * save thread's write, packed before the start, came last) takes it as
	 * running on its nodes again, and the orphan check finds out whether
	 * its launch got there; one that has it running without its batch step
	 * is such an orphan too.  Ends are not written here (a burst of ends
	 * would be a burst of writes, each holding the job read lock while it
	 * packs every job): jobcomp/libra journals them and the agent replays
	 * the journal when it starts, before the journal of starts
	 * (libra_slurm_journal_recover()).  Written: every job submitted before
	 * second saved_sec, and those of that second up to job id
	 * saved_upto.  Agent thread only.
	 */
	time_t saved_sec;
	uint32_t saved_upto;
	/*
	 * Batch jobs that slurmctld, just started, knows as running without
	 * their batch step: _launch() had not launched them when it was killed,
	 * or had and the state was not written again before the kill.  Their
	 * first node's registration, which a restarted slurmctld asks every
	 * node for within seconds, tells which
	 * (libra_sched_check_orphans()).  Agent thread only.
	 */
	id_list_t orphans;
	time_t adopt_since;
	/*
	 * What an incremental pass (decision 25) carries from the last: the ids
	 * of the pending jobs it tried and did not start, in the order tried
	 * (admitted first), and the earliest deadline among the jobs it does
	 * not look at (running jobs' hard deadlines, held jobs'), at which a
	 * pass walks the whole job list again.  Agent thread.
	 */
	id_list_t carry;
	time_t carry_next;
	time_t last_full;
	held_memo_t held_memo[HELD_MEMO];
	/* _long_pass(): when it last logged, the longest pass, the most CPU
	 * time a pass took */
	double last_log, longest, most_cpu;
	/* the passes since slurmctld started and their thread CPU time, for
	 * the metrics (decision 44) */
	uint64_t passes;
	double passes_cpu;
} libra_sched_state_t;

/* Slurm's hold of a job whose batch launch failed (job_mgr.c) */
#define LAUNCH_FAILED_HOLD "launch failed requeued held"

/* sched_libra.c */
extern libra_sched_state_t st;
extern void libra_sched_note_started(job_record_t *job_ptr,
				     libra_record_t *rec, bool has_rec);
extern double libra_sched_monotonic(void);
extern time_t libra_sched_pass(bool *waiting, uint32_t *unsaved,
			       uint32_t *nstarted, bool *more);

/* sched_libra_pending.c */
extern int libra_sched_select(job_record_t *job_ptr, const char *nodes,
			      bitstr_t *exc);
extern void libra_sched_held(job_record_t *job_ptr, time_t now,
			     time_t *next);
extern bool libra_sched_try_pending(job_record_t *job_ptr, time_t now,
				    time_t *next, uint32_t *unsaved);
extern uint32_t libra_sched_try_admitted(job_record_t *job_ptr, time_t now,
					 time_t *next, uint32_t *unsaved);

/* sched_libra_metrics.c */
extern void libra_sched_metrics(void);
extern void libra_sched_metrics_fini(void);

/* sched_libra_agent.c */
extern void libra_sched_ids_add(id_list_t *l, uint32_t job_id);
extern bool libra_sched_state_saved(job_record_t *job_ptr);
extern bool libra_sched_check_orphans(void);

#pragma GCC visibility pop

#endif /* _SCHED_LIBRA_INT_H */
