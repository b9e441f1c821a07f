/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  record.h - a job's Libra record: the SLA, the admission, the outcome.
 *
 *  The record is the source of truth for the plugins (doc/design.md, Architecture): it
 *  lives in the job's AdminComment as JSON, survives a slurmctld restart and
 *  reaches accounting with the job, where sacct shows it.  The in-memory
 *  ledger is rebuilt from these records.  Example (one line in practice):
 *
 *  {"libra":1,"policy":"libra+$",
 *   "sla":{"runtime":3600,"submit":1795000000,"deadline":1795007200,
 *	    "budget":100,"penalty":2.5,"type":"hard",
 *	    "given":["runtime","deadline","budget","penalty"]},
 *   "admit":{"time":1795000000,"price":96.1,"rate":0.0267,
 *	      "place":[{"node":"n1","cpus":1}]},
 *   "start":1795000001,
 *   "final":{"how":"COMPLETED","end":1795006000,"delay":0,"met":true,
 *	      "penalty":0,"charge":96.1}}
 *
 *  A job that asks memory, GPUs (decision 17) or scratch disk has them in
 *  "admit": what it asked ("demand", the keys of libra_demand_t that are
 *  set), what each place holds ("mem" and "tmp" in MB, "gpus") and what
 *  they cost ("price_mem", "price_gpus", "price_disk", parts of "price"),
 *  e.g.
 *
 *   "admit":{"time":1795000000,"price":120.5,"rate":0.0267,
 *	      "demand":{"mem_per_node":4096,"gpus_per_node":1},
 *	      "price_mem":16.4,"price_gpus":8,
 *	      "place":[{"node":"g1","cpus":2,"mem":4096,"gpus":1}]}
 *
 *  A job made of a binding quote (decision 20) names it and the end of its
 *  hold, from which its share was committed: "quote":481272,
 *  "hold_end":1795000300 in "admit", both or neither.
 *
 *  A job admitted on a runtime prediction (decision 23) has the runtime
 *  its user declared and the prediction, both or neither:
 *  "declared":3600,"predicted":900 in "admit"; its SLA's runtime is then
 *  the work admitted (the prediction, paced).
 *
 *  A job re-planned when its node reported it at its plan (decision 34)
 *  has "replanned":1795000450,"done":880,"replans":1,"plan":1800,
 *  "plan_end":1795004000 in "admit", all or none: from that time, with
 *  that much done, it is committed with the plan as its runtime and its
 *  share aimed at plan_end (libra_record_committed_sla()).  The SLA and
 *  "predicted" stay as admitted, so the admission can be replayed.
 *
 *  An advance reservation (decision 21) has its begin time, from which its
 *  share counts: "begin":1795000600 in "admit".
 *  The site's cap on the job's penalty (decision 37) is "penalty_max" in
 *  "admit"; the time its owner kept it from running is "owner" (seconds)
 *  and, while it is still stopped, "owner_since" (when), at the top.
 *
 *  Each is written only when not 0, so the record of a job asking neither
 *  is the one written before memory was known, and such records still
 *  parse.
 *
 *  "given" lists the fields the user wrote (the others were derived, e.g.
 *  the runtime from --time); without it, every field present counts as
 *  given.  Numbers are written with the fewest digits
 *  (15 to 17) that read back as the same double, so a record read back is
 *  bit for bit the record written.  The decoder is strict: every field is
 *  type- and range-checked, unknown fields are refused, and on error the
 *  output is left empty.
\*****************************************************************************/

#ifndef LIBRA_RECORD_H
#define LIBRA_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "ledger.h"
#include "params.h"
#include "settle.h"
#include "sla.h"

#define LIBRA_RECORD_VERSION	1
#define LIBRA_NODE_NAME_MAX	64

typedef struct libra_record_place {
	char node[LIBRA_NODE_NAME_MAX];
	int cpus;
	uint64_t mem_mb;	/* memory held there [MB] ("mem") */
	int gpus;		/* GPUs held there */
	uint64_t tmp_mb;	/* scratch disk held there [MB] ("tmp") */
	double speed;		/* the node's speed its share was planned
				 * at (decision 43); 1 (not written) unless
				 * the site set one; 0 read as 1 */
} libra_record_place_t;

/*
 * A job array admitted as one bag of tasks (decision 36): "bag" in the
 * record, e.g. "bag":{"tasks":20,"lanes":4,"waves":5,"runtime":600}.  The
 * array's pending tasks share the record of its admission (the SLA is the
 * bag's, libra_bag_sla()); Slurm copies it to each task it splits off,
 * and sched/libra gives a started task its paced end ("target",
 * libra_bag_task_target()).  Tasks that end leave their outcome in the
 * records of those still pending or running ("ended", "late", "failed",
 * "last_end"), so the last to end settles the bag once, its own
 * record's tally then counting every task.
 */
typedef struct libra_record_bag {
	int tasks;		/* N; 0: not an array */
	int lanes;		/* L */
	int waves;		/* W = ceil(N / L) */
	double runtime;		/* RE: one task's run time [s] */
	double target;		/* a started task: when it is paced to end;
				 * 0: not started */
	int ended;		/* tasks of the bag ended before (all of
				 * them in the settling record) */
	int late;		/* of which past the bag's deadline */
	int failed;		/* of which not COMPLETED */
	double last_end;	/* the latest of their ends */
} libra_record_bag_t;

typedef struct libra_record {
	libra_policy_t policy;
	uint32_t token;		/* provisional ledger id given at admission,
				 * before slurmctld assigned the job id */
	bool best_effort;	/* admitted without an SLA (no "sla") */
	libra_sla_t sla;
	double admitted;	/* admission time */
	double price;		/* quoted price */
	double price_mem;	/* of which for memory */
	double price_gpus;	/* of which for GPUs */
	double price_disk;	/* of which for scratch disk */
	double rate;		/* highest per-CPU-second rate */
	libra_demand_t demand;	/* the memory, GPUs and scratch disk the job
				 * asked */
	uint32_t quote_id;	/* made of binding quote N (quote.h), 0: not
				 * ("quote" in "admit") */
	double quote_until;	/* the end of that quote's hold, from which
				 * its share was committed ("hold_end") */
	double declared;	/* admitted on a prediction (decision 23):
				 * the runtime the user declared, the SLA's
				 * runtime being the work admitted
				 * ("declared"); 0: not predicted */
	double predicted;	/* the predicted run time P ("predicted") */
	double replanned;	/* last re-planned then (decision 34),
				 * committed again from then ("replanned");
				 * 0: never */
	double replan_done;	/* CPU-seconds per CPU the job had done
				 * then, by its node's report ("done") */
	int replans;		/* times re-planned ("replans") */
	double plan;		/* the new plan, its run time [s] ("plan") */
	double plan_end;	/* when that plan is paced to end ("plan_end") */
	double penalty_max;	/* the site's cap on its penalty, fixed at
				 * admission ("penalty_max", decision 37);
				 * 0: none */
	double begin;		/* an advance reservation: booked to begin
				 * then, its share counted from then
				 * ("begin"); 0: not booked */
	int nplace;
	libra_record_place_t *place;	/* malloc'd, nplace entries */
	double started;		/* 0: not started */
	int requeues;		/* times a node failure sent it back to pending */
	double owner;		/* seconds its owner kept it from running:
				 * held, requeued ("owner", decision 37) */
	double owner_since;	/* the owner stopped it then and it has not
				 * started since ("owner_since"); 0: not */
	libra_record_bag_t bag;	/* a job array under one SLA ("bag") */
	bool settled;
	libra_settlement_t final;
} libra_record_t;

/*
 * Settle r's job, started at start (0: never) and ended at end as "how",
 * by the site's rules or the papers' (p->settle_paper), under the cap it
 * was admitted with (settle.h, decision 37).
 */
extern void libra_record_settle(const libra_record_t *r,
				const libra_params_t *p, double start,
				double end, libra_end_t how,
				libra_settlement_t *out);

/* The owner stopped r's job (held or requeued it) at "now": counted from
 * then until it starts again (libra_record_owner_end()). */
extern void libra_record_owner_stop(libra_record_t *r, double now);

/* The job starts again (or ends) at "now": the owner's stop, if any, is
 * added to r->owner. */
extern void libra_record_owner_end(libra_record_t *r, double now);

/* Encode; returns a malloc'd string the caller free()s, or NULL. */
extern char *libra_record_to_json(const libra_record_t *r);

/* Decode; returns 0 or -1 with a message. r is zeroed first and owns its
 * place array afterwards (libra_record_free()). */
extern int libra_record_from_json(const char *text, libra_record_t *r,
				  char *err, size_t errlen);

extern void libra_record_free(libra_record_t *r);

/*
 * The SLA the ledger commits the job with: its SLA, or for a re-planned
 * job the SLA of its last plan (libra_sla_replanned()).
 */
extern void libra_record_committed_sla(const libra_record_t *r,
				       libra_sla_t *out);

/*
 * Does the record settle its whole job: any settled record but a bag's
 * task's, and of a bag's (decision 36) the last task's to end, whose tally
 * counts every task (the others' count at most N - 2: neither their own
 * end nor the last's).  An earlier tally left out the last task's own
 * end: N - 1 is taken too.
 */
static inline bool libra_record_settles_job(const libra_record_t *r)
{
	return r->settled &&
	       (r->bag.tasks <= 0 || r->bag.ended >= r->bag.tasks - 1);
}

/*
 * What a node sends slurmctld, as an AdminComment update from slurmstepd
 * (root), when a job admitted on a prediction has reached its plan
 * (decision 34): this prefix and the CPU-seconds per CPU done, e.g.
 * "libra-progress:done=880.25".  job_submit/qos takes it as a report and
 * never stores it.
 */
#define LIBRA_PROGRESS_PREFIX "libra-progress:done="

/*
 * When the job's share was committed in the ledger (libra_ledger_commit()'s
 * "now"): the admission time, or the end of the hold of the quote it was
 * made of (quote.h).  A ledger rebuilt from the record commits there.
 */
extern double libra_record_commit_time(const libra_record_t *r);

/* The slowest speed among the job's places (decision 43), which paces a
 * job spread over several: 1 without places or speeds.  A wall time there
 * times it is reference-CPU seconds. */
extern double libra_record_speed(const libra_record_t *r);

/*
 * Without decoding it (the scheduler asks for every pending job at every
 * pass): does this text hold a record, and a best-effort one?  Both read
 * what libra_record_to_json() writes: the record starts with its version,
 * and a best-effort record says so.
 */
extern bool libra_record_text_is_record(const char *text);
extern bool libra_record_text_is_best_effort(const char *text);

/*
 * An administrator's AdminComment beside the record (design.md decision
 * 29): the record, which lives in AdminComment, keeps the text
 * the administrator wrote there as its member "admin", so that it is
 * never lost and sacct still shows it.
 *   libra_record_admin_text(): the administrator's text of what
 *	AdminComment holds: a record's "admin" member, or the whole text
 *	when it is no record; NULL when none.  malloc'd.
 *   libra_record_json_with_admin(): a record's JSON with "admin" set to
 *	admin (removed when admin is NULL or empty); malloc'd, NULL when
 *	json is no JSON object.
 */
#define LIBRA_RECORD_ADMIN_KEY "admin"
extern char *libra_record_admin_text(const char *text);
extern char *libra_record_json_with_admin(const char *json,
					  const char *admin);

/*
 * Set the record's placement to a quote's (ledger node indices turned into
 * names, with the memory and GPUs of each place), replacing the one it
 * had.  Returns 0, or -1 when out of memory, leaving no placement.
 */
extern int libra_record_set_place(libra_record_t *r, const libra_ledger_t *l,
				  const libra_place_t *place, int nplace);

/*
 * A refused submission leaves no job record, so job_submit/qos appends one
 * line per refusal to a log (JSON lines) that libra-report reads:
 *
 *  {"time":1795000000,"uid":1001,"account":"phys","partition":"batch",
 *   "verdict":"budget","cpus":4,"budget":100,"sla":{...},
 *   "demand":{"mem_per_cpu":2048,"gpus":2},
 *   "reason":"libra: rejected: ..."}
 *
 *  ("demand" only when the job asked memory or GPUs, as in the record).
 */
typedef struct libra_refusal {
	double time;
	unsigned uid;
	char account[64];
	char partition[64];
	char verdict[16];	/* libra_verdict_name(), "invalid", "no_sla" */
	int cpus;
	bool has_budget;
	double budget;
	bool has_sla;		/* the SLA parsed: "sla" holds it, so that the
				 * decision can be replayed (libra-replay) */
	libra_sla_t sla;
	int min_nodes, max_nodes;
	libra_demand_t demand;	/* the memory and GPUs it asked */
	char reason[512];
} libra_refusal_t;

extern char *libra_refusal_to_json(const libra_refusal_t *r);
extern int libra_refusal_from_json(const char *text, libra_refusal_t *r,
				   char *err, size_t errlen);

/* Encode/decode just an SLA as a JSON object string (tests, tools). */
extern char *libra_sla_to_json(const libra_sla_t *sla);
extern int libra_sla_from_json(const char *text, libra_sla_t *sla,
			       char *err, size_t errlen);

#endif /* LIBRA_RECORD_H */
