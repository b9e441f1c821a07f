/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra-replay - decide again, with the policy core alone, every admission
 *  a real cluster made, and say whether each decision was the same.
 *
 *  usage: libra-replay --nodes n1:1,n2:1,... [--params SCHEDULER_PARAMETERS]
 *		       --sacct-file FILE [--refusals FILE]
 *		       [--history FILE] [-v]
 *
 *  Each node is NAME:CPUS, NAME:CPUS:MEMORY_MB, NAME:CPUS:MEMORY_MB:GPUS
 *  or NAME:CPUS:MEMORY_MB:GPUS:TMP_MB where the cluster tracks memory, has
 *  GPUs or its nodes a TmpDisk (memory or TmpDisk 0: not tracked;
 *  libra_ledger_set_node_resources(), libra_ledger_set_node_tmp()).
 *
 *  FILE is sacct's parsable output with AdminComment as the last field
 *  (sacct -X -a -P -n -o JobID,...,AdminComment%65535); the refusal log is
 *  job_submit/qos's libra_refusals.jsonl.  From the records and refusals
 *  the arrival sequence is rebuilt: each admission or refusal at its time,
 *  with its SLA, CPU count and the memory and GPUs it asked, and each
 *  admitted job's release when it
 *  ended (a job array admitted as one, whose every task's row holds the
 *  array's record, once: released by the row of its last task to end,
 *  design.md decision 36).  The core then replays them on a fresh ledger of the given nodes,
 *  committing each admitted job where the cluster placed it, and the
 *  verdicts are compared.
 *
 *  A job re-planned at its plan (doc/design.md decision 34) is committed
 *  again as its record says, from then on, so the admissions after it see
 *  what the cluster's did.  With --history (StateSaveLocation/
 *  libra_history) the re-planning is decided again too: the predictor is
 *  filled with the jobs that ended before it and libra_replan() is asked
 *  for the plan; the sacct lines then need the job's UID and GID as their
 *  second and third fields (sacct -o JobID,UID,GID,...,AdminComment).
 *  Only a job's last re-planning is in its record: one re-planned more
 *  than once is replayed, not decided again ("unchecked").
 *
 *  Peak hours and a power tariff are read on this machine's local time,
 *  as slurmctld reads them: run it in the cluster's time zone (TZ=...).
 *
 *  Decisions are timed to the microsecond, but a job's end only to the
 *  second, so a job that ended in the second before a decision may have
 *  been released before or after it: such a decision is replayed both ways
 *  and counted as agreeing if either way agrees ("ambiguous").
 *
 *  Exit status: 0 when every decision agrees, 1 when one does not, 2 on
 *  bad usage or input.
\*****************************************************************************/

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "ledger.h"
#include "params.h"
#include "predict.h"
#include "price.h"
#include "record.h"

typedef struct {
	double time;
	bool release;		/* else an admission decision */
	uint32_t job_id;	/* 0 for refusals */
	bool accepted;		/* what the cluster decided */
	char verdict[16];
	libra_sla_t sla;
	libra_request_t req;
	libra_place_t *place;	/* cluster's placement (ledger indices) */
	int nplace;
	double price;
	bool done;		/* a release already applied */
	/* a re-planning (decision 34): the record's last */
	bool replan;
	double work_done;	/* CPU-seconds per CPU done then */
	double plan, plan_end;	/* what the cluster planned */
	libra_replan_t ask;	/* what libra_replan() is asked (plan 0:
				 * re-planned more than once, unchecked) */
} event_t;

static event_t *events;
static int nevents, cap_events;
static int verbose;

static void _die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void _die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "libra-replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

static event_t *_new_event(void)
{
	if (nevents == cap_events) {
		cap_events = cap_events ? cap_events * 2 : 64;
		events = realloc(events, (size_t) cap_events * sizeof(*events));
		if (!events)
			_die("%s", "out of memory");
	}
	memset(&events[nevents], 0, sizeof(events[0]));
	return &events[nevents++];
}

static void _read_nodes(libra_ledger_t *l, const char *spec)
{
	char *copy = strdup(spec), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		unsigned long long mem = 0, tmp = 0;
		int cpus = 1, gpus = 0, node;

		if (colon) {
			*colon = '\0';
			cpus = 0;	/* a bad count is refused below */
			sscanf(colon + 1, "%d:%llu:%d:%llu", &cpus, &mem, &gpus,
			       &tmp);
		}
		node = libra_ledger_add_node(l, tok, cpus);
		if (node < 0 ||
		    libra_ledger_set_node_resources(l, node, mem, gpus) ||
		    libra_ledger_set_node_tmp(l, node, tmp))
			_die("bad node '%s' in --nodes", tok);
	}
	free(copy);
}

/*
 * The re-planning of the admission at events[ei] (decision 34): the plan
 * the record keeps, and what libra_replan() is asked for it, the job's
 * UID and GID read from the line's second and third fields (_check_replan()
 * asks only with --history).
 */
static void _add_replan(const libra_record_t *rec, int ei, const char *line)
{
	event_t *r = _new_event(), *a = &events[ei];
	const char *f = strchr(line, '|');

	r->time = rec->replanned;
	r->replan = true;
	r->job_id = a->job_id;
	r->work_done = rec->replan_done;
	r->plan = rec->plan;
	r->plan_end = rec->plan_end;
	libra_record_committed_sla(rec, &r->sla);
	r->ask.user = f ? strtoll(f + 1, NULL, 10) : -1;
	r->ask.group = (f && (f = strchr(f + 1, '|'))) ?
		       strtoll(f + 1, NULL, 10) : -1;
	r->ask.estimate = r->ask.cap = rec->declared;
	r->ask.hard = rec->sla.type == LIBRA_DEADLINE_HARD;
	r->ask.plan = rec->replans == 1 ? rec->predicted : 0.0;
	r->ask.done = rec->replan_done;
	r->ask.deadline = rec->sla.deadline;
}

/* Has an admission of this job been read? */
static bool _admitted(uint32_t job_id)
{
	for (int i = 0; i < nevents; i++)
		if (events[i].job_id == job_id && events[i].accepted &&
		    !events[i].release)
			return true;
	return false;
}

/* The admission a record of accounting holds, as an event. */
static void _add_admission(const libra_ledger_t *l, const libra_record_t *rec,
			   uint32_t job_id, const char *line)
{
	event_t *e = _new_event();
	int ei = nevents - 1;

	e->time = rec->admitted;
	e->job_id = job_id;
	e->accepted = true;
	e->sla = rec->sla;
	e->req.demand = rec->demand;
	e->price = rec->price;
	e->nplace = rec->nplace;
	e->place = calloc((size_t) rec->nplace + 1, sizeof(*e->place));
	for (int i = 0; i < rec->nplace; i++) {
		e->place[i].node = libra_ledger_find_node(l,
						rec->place[i].node);
		e->place[i].cpus = rec->place[i].cpus;
		e->place[i].mem_mb = rec->place[i].mem_mb;
		e->place[i].gpus = rec->place[i].gpus;
		e->place[i].tmp_mb = rec->place[i].tmp_mb;
		e->req.cpus += rec->place[i].cpus;
		if (e->place[i].node < 0)
			_die("record names unknown node %s",
			     rec->place[i].node);
	}
	if (rec->replanned > 0.0)
		_add_replan(rec, ei, line);
}

static void _read_sacct(const libra_ledger_t *l, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, err[256];
	size_t len = 0;
	long lineno = 0;

	if (!f)
		_die("cannot read %s", path);
	while (getline(&line, &len, f) > 0) {
		char *json = strrchr(line, '|');
		libra_record_t rec;
		uint32_t job_id;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		json = json ? json + 1 : line;
		if (strncmp(json, "{\"libra\":", 9))
			continue;
		if (libra_record_from_json(json, &rec, err, sizeof(err))) {
			fprintf(stderr, "libra-replay: %s:%ld: %s\n", path,
				lineno, err);
			exit(2);
		}
		if (rec.best_effort) {
			libra_record_free(&rec);
			continue;
		}
		job_id = (uint32_t) strtoul(line, NULL, 10);
		/* a job array admitted as one (decision 36): every task's row
		 * (JobID "7_3") has the array's record: one admission, released
		 * by the row of the task that ended last */
		if (!(rec.bag.tasks > 0 && _admitted(job_id)))
			_add_admission(l, &rec, job_id, line);
		if (libra_record_settles_job(&rec)) {
			event_t *r = _new_event();

			r->time = rec.final.end;
			r->release = true;
			r->job_id = job_id;
		}
		libra_record_free(&rec);
	}
	free(line);
	if (f != stdin)
		fclose(f);
}

static void _read_refusals(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t len = 0;
	long lineno = 0;

	if (!f) {
		if (errno == ENOENT)
			return;
		_die("cannot read %s", path);
	}
	while (getline(&line, &len, f) > 0) {
		libra_refusal_t ref;
		event_t *e;

		lineno++;
		if (libra_refusal_from_json(line, &ref, err, sizeof(err))) {
			fprintf(stderr, "libra-replay: %s:%ld: %s\n", path,
				lineno, err);
			exit(2);
		}
		if (!ref.has_sla)
			continue;	/* refused before any decision */
		e = _new_event();
		e->time = ref.time;
		e->sla = ref.sla;
		e->req.cpus = ref.cpus;
		e->req.min_nodes = ref.min_nodes;
		e->req.max_nodes = ref.max_nodes;
		e->req.demand = ref.demand;
		snprintf(e->verdict, sizeof(e->verdict), "%s", ref.verdict);
	}
	free(line);
	fclose(f);
}

/* Releases before admissions at the same time; then by job id. */
static int _cmp(const void *a, const void *b)
{
	const event_t *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->release != y->release)
		return x->release ? -1 : 1;
	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

static bool _decide(const libra_ledger_t *l, const libra_params_t *p,
		    const event_t *e, libra_quote_t *q)
{
	libra_admit(l, p, &e->sla, &e->req, e->time, q);
	return q->verdict == LIBRA_ACCEPT;
}

/* The command line. */
typedef struct {
	const char *nodes, *sacct, *refusals, *history;
	const char *sched_params;
} options_t;

static void _parse_args(int argc, char **argv, options_t *o)
{
	o->nodes = o->sacct = o->refusals = o->history = NULL;
	o->sched_params = "";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v")) {
			verbose = 1;
			continue;
		}
		if (!v)
			_die("%s needs a value", a);
		if (!strcmp(a, "--nodes"))
			o->nodes = v;
		else if (!strcmp(a, "--params"))
			o->sched_params = v;
		else if (!strcmp(a, "--sacct-file"))
			o->sacct = v;
		else if (!strcmp(a, "--refusals"))
			o->refusals = v;
		else if (!strcmp(a, "--history"))
			o->history = v;
		else
			_die("unknown option %s (see the comment at the top of libra-replay.c)",
			     a);
		i++;
	}
	if (!o->nodes || !o->sacct)
		_die("%s", "usage: libra-replay --nodes n1:1,... [--params P] --sacct-file FILE [--refusals FILE] [--history FILE] [-v]");
}

/*
 * Applies to l the releases that came before decision e for sure, and
 * returns how many more may have come before it.  A release at whole
 * second R happened in [R, R + 1): before this decision for sure when
 * R + 1 <= t, perhaps when R <= t.
 */
static int _release_before(libra_ledger_t *l, const event_t *e)
{
	int unsure = 0;

	for (int k = 0; k < nevents; k++) {
		event_t *x = &events[k];

		if (!x->release || x->done)
			continue;
		if (x->time + 1.0 <= e->time) {
			libra_ledger_release(l, x->job_id);
			x->done = true;
		} else if (x->time <= e->time) {
			unsure++;
		}
	}
	return unsure;
}

/*
 * The core's verdict on decision e on a fresh ledger of the nodes: every
 * admission before it committed, and every release that may have come
 * first (at its whole second or before) applied.  Leaves its quote in q.
 */
static bool _decide_released(const char *nodes, const libra_params_t *p,
			     const event_t *e, libra_quote_t *q)
{
	libra_ledger_t *alt = libra_ledger_create(p->share_min);
	bool core_alt;

	_read_nodes(alt, nodes);
	for (int k = 0; k < nevents; k++) {
		event_t *x = &events[k];

		if (!x->release && x->accepted && x->time < e->time)
			libra_ledger_commit(alt, x->job_id, &x->sla, x->place,
					    x->nplace, x->time);
	}
	for (int k = 0; k < nevents; k++) {
		event_t *x = &events[k];

		if (x->release && x->time <= e->time)
			libra_ledger_release(alt, x->job_id);
	}
	libra_ledger_expire(alt, e->time);
	core_alt = _decide(alt, p, e, q);
	libra_ledger_destroy(alt);
	return core_alt;
}

/*
 * The core's verdict on decision e, on l as it was when the cluster
 * decided.  When a release in the same second may have come before it and
 * changes the verdict (*amb), the verdict that agrees with the cluster's
 * (either way may have been the cluster's).  Leaves the quote on l in q,
 * for the feedback that follows the decision.
 */
static bool _replay(libra_ledger_t *l, const libra_params_t *p,
		    const char *nodes, const event_t *e, libra_quote_t *q,
		    bool *amb)
{
	int unsure = _release_before(l, e);
	bool core, core_alt;

	*amb = false;
	libra_ledger_expire(l, e->time);
	core = _decide(l, p, e, q);
	if (unsure) {
		/* the same, with the releases that may have come first */
		core_alt = _decide_released(nodes, p, e, q);
		if (core_alt != core) {
			*amb = true;
			core = e->accepted ? (core || core_alt) :
					     (core && core_alt);
		}
		_decide(l, p, e, q);	/* restore q */
	}
	return core;
}

/*
 * Decide re-planning r again (decision 34): a predictor of the cluster's
 * method filled with the history's jobs that ended before it, asked
 * libra_replan() as slurmctld asked it.  1: the same plan, 0: another,
 * -1: not checked (no --history, or re-planned more than once).
 */
static int _check_replan(const libra_params_t *p, const char *history,
			 event_t *r)
{
	libra_predictor_t *pred;
	libra_prediction_t pr;
	char *line = NULL;
	size_t len = 0;
	double end;
	FILE *f;
	bool grew;

	if (!history || !(r->ask.plan > 0.0))
		return -1;
	if (!(f = fopen(history, "r")))
		_die("cannot read %s", history);
	pred = libra_predictor_create(p->predict, (int) p->predict_min);
	if (!pred)
		_die("%s", "--params: runtime predictions are off (libra_predict)");
	while (getline(&line, &len, f) > 0) {
		const char *last = strrchr(line, ' ');

		if (last && strtod(last + 1, NULL) < r->time)
			libra_predictor_record_line(pred, line);
	}
	free(line);
	fclose(f);
	r->ask.quantile = 1.0 - p->predict_risk;
	r->ask.pace = p->predict_pace;
	grew = libra_replan(pred, &r->ask, r->time, &pr, &end);
	libra_predictor_destroy(pred);
	if (verbose || !grew || pr.runtime != r->plan || end != r->plan_end)
		printf("%.6f job %u: re-planned to %g s ending %.6f, core %s%s\n",
		       r->time, r->job_id, r->plan, r->plan_end,
		       grew ? "the same" : "does not re-plan",
		       grew && pr.runtime == r->plan && end == r->plan_end ?
		       "" : "  <-- DIFFERS");
	return grew && pr.runtime == r->plan && end == r->plan_end;
}

/* Commit re-planned job r again from its re-planning, as slurmctld did. */
static void _apply_replan(libra_ledger_t *l, const event_t *r)
{
	if (!libra_ledger_has_job(l, r->job_id))
		return;		/* ended before it, as far as the replay knows */
	if (libra_ledger_recommit(l, r->job_id, &r->sla, r->work_done,
				  r->time))
		fprintf(stderr, "libra-replay: job %u: cannot commit its re-planning\n",
			r->job_id);
}

int main(int argc, char **argv)
{
	options_t o;
	libra_params_t p;
	libra_ledger_t *l;
	libra_quote_t *q = malloc(sizeof(*q));
	char err[256];
	int agree = 0, ambiguous = 0, disagree = 0;
	int replans = 0, replans_same = 0, replans_unchecked = 0;

	_parse_args(argc, argv, &o);
	libra_params_default(&p);
	/* the tariff's clock (peak hours, power) is local time, as in the
	 * plugins (libra_slurm_params.c): this machine's zone, now */
	p.tariff.offset = libra_tariff_local_offset();
	if (libra_params_parse(&p, o.sched_params, err, sizeof(err)))
		_die("--params: %s", err);
	if (p.node_speed.n || p.node_price.n)
		fprintf(stderr, "libra-replay: libra_node_speed and libra_node_price are not applied (this tool does not expand hostlists): every node replays at speed 1 and the base price, so decisions made with other speeds or prices may differ\n");
	l = libra_ledger_create(p.share_min);
	_read_nodes(l, o.nodes);
	_read_sacct(l, o.sacct);
	if (o.refusals)
		_read_refusals(o.refusals);
	qsort(events, (size_t) nevents, sizeof(*events), _cmp);

	for (int i = 0; i < nevents; i++) {
		event_t *e = &events[i];
		bool core, amb;

		if (e->release)
			continue;
		if (e->replan) {
			int same = _check_replan(&p, o.history, e);

			replans++;
			replans_same += same == 1;
			replans_unchecked += same < 0;
			_release_before(l, e);
			_apply_replan(l, e);
			continue;
		}
		core = _replay(l, &p, o.nodes, e, q, &amb);
		if (core == e->accepted) {
			agree++;
			ambiguous += amb;
		} else {
			disagree++;
		}
		if (verbose || core != e->accepted)
			printf("%.6f job %u: cluster %s, core %s%s%s\n",
			       e->time, e->job_id,
			       e->accepted ? "admitted" : e->verdict,
			       core ? "admits" : "refuses",
			       amb ? " (a release in the same second: either way)" :
				     "",
			       core == e->accepted ? "" : "  <-- DIFFERS");
		if (e->accepted &&
		    libra_ledger_commit(l, e->job_id, &e->sla, e->place,
					e->nplace, e->time))
			fprintf(stderr, "libra-replay: job %u: cannot commit its placement\n",
				e->job_id);
		libra_auto_feedback(l, &p, q, e->time);
		libra_price_feedback(l, &p, e->time);
	}
	if (replans)
		printf("re-plannings %d, the same %d, differ %d, unchecked %d\n",
		       replans, replans_same,
		       replans - replans_same - replans_unchecked,
		       replans_unchecked);
	printf("decisions %d, agree %d (ambiguous %d), differ %d\n",
	       agree + disagree, agree, ambiguous, disagree);
	libra_ledger_destroy(l);
	free(q);
	return disagree || replans - replans_same - replans_unchecked ? 1 : 0;
}
