/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_sync.c - the ledger kept in step with slurmctld's node
 *  and job tables for the slurmctld plugins (see libra_slurm.h).
 *
 *  The job record is the source of truth; the ledger is a cache of it.
 *  libra_slurm_sync() makes the cache agree with the job table: every
 *  pending, running or suspended job whose AdminComment holds an admission
 *  is in the ledger under its job id, and nothing else is, except
 *  admissions made a moment ago whose job does not exist yet (they are
 *  under a token, see hub.h, and expire after a short hold).  The ledger's
 *  node i is slurmctld's node i, so bitmaps and ledger indices agree.
 *
 *  Only jobs not yet in the ledger have their record parsed, so a full sync
 *  costs one look at each active job plus a hash lookup; sched/libra's
 *  passes in between look only at the jobs created since
 *  (libra_slurm_sync_pass(), decision 25).  Parsed records are cached by
 *  job id and AdminComment text (libra_slurm_job_record()).
\*****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm_int.h"

/* Does the ledger's node table still match slurmctld's? */
static bool _nodes_match(libra_ledger_t *l)
{
	node_record_t *node_ptr;

	if (libra_ledger_node_count(l) != node_record_count)
		return false;
	for (int i = 0; i < node_record_count; i++) {
		node_ptr = node_record_table_ptr[i];
		if (!node_ptr)
			continue;
		if (xstrcmp(libra_ledger_node_name(l, i), node_ptr->name) ||
		    libra_ledger_node_cpus(l, i) != node_ptr->cpus_efctv)
			return false;
	}
	return true;
}

/* Rebuild the ledger's nodes (and so drop its jobs) from the node table. */
static libra_ledger_t *_rebuild_nodes(void)
{
	libra_ledger_t *l = libra_ledger_create(libra_hub_params()->share_min);
	char name[32];

	if (!l)
		return NULL;
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];

		if (node_ptr) {
			libra_ledger_add_node(l, node_ptr->name,
					      node_ptr->cpus_efctv ?
					      node_ptr->cpus_efctv : 1);
		} else {
			/* keep indices aligned: an unused slot, never up */
			snprintf(name, sizeof(name), "#%d", i);
			libra_ledger_add_node(l, name, 1);
			libra_ledger_set_node_up(l, i, false);
		}
	}
	return l;
}

/* The GRES plugin id of "gpu" (a hash of the name, the same in every
 * process: gres_build_id()). */
static uint32_t _gpu_id(void)
{
	static uint32_t id;

	if (!id)
		id = gres_build_id("gpu");
	return id;
}

/*
 * A node's memory for jobs [MB], as select/cons_tres counts it (RealMemory
 * minus MemSpecLimit), or 0 (not tracked) when the cluster does not track
 * memory; and its GPUs, the GRES gpu count slurm.conf gives it.
 */
static void _node_resources(node_record_t *node_ptr, uint64_t *mem,
			    int *gpus)
{
	uint64_t n;

	*mem = 0;
	if (libra_slurm_mem_tracked()) {
		*mem = node_ptr->real_memory > node_ptr->mem_spec_limit ?
		       node_ptr->real_memory - node_ptr->mem_spec_limit : 0;
		if (!*mem)
			*mem = 1;	/* tracked, and none to give: not 0 */
	}
	n = node_ptr->gres_list ?
	    gres_node_config_cnt(node_ptr->gres_list, "gpu") : 0;
	*gpus = n > LIBRA_TRES_GPUS_MAX ? LIBRA_TRES_GPUS_MAX : (int) n;
}

/*
 * What a running job holds on its k-th node (job_resrcs order, which the
 * GRES allocation follows too): the memory Slurm allocated it there when
 * memory is tracked, and its GPUs.
 */
static void _job_held(job_record_t *job_ptr, int k, uint64_t *mem,
		      int *gpus)
{
	job_resources_t *res = job_ptr->job_resrcs;
	libra_list_itr_t iter;
	gres_state_t *gs;

	*mem = 0;
	*gpus = 0;
	if (libra_slurm_mem_tracked() && res && res->memory_allocated &&
	    k < (int) res->nhosts)
		*mem = res->memory_allocated[k];
	if (!job_ptr->gres_list_alloc)
		return;
	iter = list_iterator_create(job_ptr->gres_list_alloc);
	while ((gs = list_next(iter))) {
		gres_job_state_t *js = gs->gres_data;

		if (gs->plugin_id != _gpu_id() || !js ||
		    !js->gres_cnt_node_alloc || k >= (int) js->node_cnt)
			continue;
		*gpus += (int) MIN(js->gres_cnt_node_alloc[k],
				   (uint64_t) LIBRA_TRES_GPUS_MAX);
	}
	list_iterator_destroy(iter);
}

/* The offset of node "inx" among a running job's nodes, or -1. */
static int _job_node_offset(job_record_t *job_ptr, int inx)
{
	job_resources_t *res = job_ptr->job_resrcs;

	if (!res || !res->node_bitmap || inx >= bit_size(res->node_bitmap) ||
	    !bit_test(res->node_bitmap, inx))
		return -1;
	return bit_set_count_range(res->node_bitmap, 0, inx);
}

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

typedef struct {
	uint32_t *ids;		/* ledger job ids before the pass, sorted */
	bool *seen;
	int n;
} seen_t;

static void _mark(seen_t *s, uint32_t id)
{
	uint32_t *hit = bsearch(&id, s->ids, (size_t) s->n, sizeof(*s->ids),
				_cmp_u32);

	if (hit)
		s->seen[hit - s->ids] = true;
}

/*
 * Commit a job from its record (after a restart, or a lost ledger), under
 * id (the job's, or its array's for a bag's task, decision 36).
 */
static void _commit_record(libra_ledger_t *l, job_record_t *job_ptr,
			   uint32_t id, const libra_record_t *rec)
{
	libra_place_t *place;
	libra_sla_t sla;
	int n = 0;

	if (rec->best_effort || rec->nplace < 1)
		return;		/* best-effort jobs commit no share */
	libra_record_committed_sla(rec, &sla);	/* re-planned: decision 34 */
	place = xcalloc(rec->nplace, sizeof(*place));
	for (int i = 0; i < rec->nplace; i++) {
		int node = libra_ledger_find_node(l, rec->place[i].node);

		if (node < 0) {
			error("%s: %pJ was placed on %s, which is no longer in the configuration",
			      plugin_type, job_ptr, rec->place[i].node);
			continue;
		}
		place[n].node = node;
		place[n].cpus = MIN(rec->place[i].cpus,
				    libra_ledger_node_cpus(l, node));
		place[n].mem_mb = rec->place[i].mem_mb;
		place[n].gpus = rec->place[i].gpus;
		place[n].tmp_mb = rec->place[i].tmp_mb;
		/* running: what Slurm gave it there (a record written before
		 * memory was tracked says none) */
		if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
			int k = _job_node_offset(job_ptr, node);
			uint64_t mem;
			int gpus;

			if (k >= 0) {
				_job_held(job_ptr, k, &mem, &gpus);
				place[n].mem_mb = MAX(place[n].mem_mb, mem);
				place[n].gpus = MAX(place[n].gpus, gpus);
			}
		}
		n++;
	}
	if (n && libra_ledger_commit_booked(l, id, &sla,
					    place, n,
					    libra_record_commit_time(rec),
					    rec->begin))
		error("%s: %pJ: cannot restore its admission into the ledger",
		      plugin_type, job_ptr);
	else if (n && rec->replanned > 0.0)
		libra_ledger_progress(l, id, -1, rec->replan_done,
				      rec->replanned);
	xfree(place);
}

/*
 * A running job without an admission (best effort, or started before the
 * plugins): it commits no share, but it holds job slots on its nodes
 * (OverSubscribe=FORCE:N), so it is in the ledger with its CPUs.
 */
extern void libra_slurm_commit_unadmitted(job_record_t *job_ptr)
{
	libra_ledger_t *l = libra_hub_ledger();
	job_resources_t *res = job_ptr->job_resrcs;
	libra_place_t *place;
	int n = 0, k = 0;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	if (!res || !res->node_bitmap || !res->cpus)
		return;
	place = xcalloc(bit_set_count(res->node_bitmap) + 1, sizeof(*place));
	for (int i = 0; i < node_record_count; i++) {
		if (!bit_test(res->node_bitmap, i))
			continue;
		if (res->cpus[k] > 0 && i < libra_ledger_node_count(l)) {
			place[n].node = i;
			place[n].cpus = MIN(res->cpus[k],
					    libra_ledger_node_cpus(l, i));
			_job_held(job_ptr, k, &place[n].mem_mb,
				  &place[n].gpus);
			/* its --tmp, where the node's TmpDisk is tracked */
			if (job_ptr->details &&
			    job_ptr->details->pn_min_tmp_disk != NO_VAL &&
			    libra_ledger_node_tmp(l, i))
				place[n].tmp_mb =
					job_ptr->details->pn_min_tmp_disk;
			n++;
		}
		k++;
	}
	if (n)
		libra_ledger_commit(l, job_ptr->job_id, NULL, place, n,
				    (double) job_ptr->start_time);
	xfree(place);
}

/*
 * A number per node from a map of hostlists (libra_node_speed,
 * libra_node_price: design.md decision 43) into values[], 1 for nodes it
 * does not name; each hostlist expanded by Slurm's own code, a later
 * entry winning.  A name Slurm does not know is logged (this runs when the
 * node table or a map changed), the nodes it does know still set.
 */
static void _node_map(const libra_node_map_t *m, const char *key,
		      double *values)
{
	for (int i = 0; i < node_record_count; i++)
		values[i] = 1.0;
	for (int k = 0; k < m->n; k++) {
		bitstr_t *b = NULL;

		if (libra_node_name2bitmap((char *) m->e[k].nodes, &b))
			error("%s: %s: '%s' names a node slurm.conf does not have; its known nodes are set",
			      plugin_type, key, m->e[k].nodes);
		for (int i = 0; b && i < node_record_count; i++)
			if (bit_test(b, i))
				values[i] = m->e[k].value;
		FREE_NULL_BITMAP(b);
	}
}

/* The nodes' speeds and base price factors, all set at once. */
static void _node_maps(libra_ledger_t *l, const libra_params_t *p)
{
	double *v = xcalloc(node_record_count + 1, sizeof(*v));

	_node_map(&p->node_speed, "libra_node_speed", v);
	if (libra_ledger_set_speeds(l, v, node_record_count))
		error("%s: libra_node_speed: the ledger refused the speeds",
		      plugin_type);
	_node_map(&p->node_price, "libra_node_price", v);
	if (libra_ledger_set_price_factors(l, v, node_record_count))
		error("%s: libra_node_price: the ledger refused the factors",
		      plugin_type);
	xfree(v);
}

extern bool libra_slurm_sync_nodes(void)
{
	static libra_ledger_t *seen_ledger;
	static time_t seen_update;
	static libra_node_map_t seen_speeds, seen_prices;
	libra_ledger_t *l = libra_hub_ledger();
	const libra_params_t *p = libra_hub_params();
	bool rebuilt = false;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	/* nothing changed in the node table or its maps since the last
	 * look */
	if (l == seen_ledger && seen_update == last_node_update &&
	    libra_ledger_node_count(l) == node_record_count &&
	    !memcmp(&seen_speeds, &p->node_speed, sizeof(seen_speeds)) &&
	    !memcmp(&seen_prices, &p->node_price, sizeof(seen_prices)))
		return false;
	if (!_nodes_match(l)) {
		libra_ledger_t *fresh = _rebuild_nodes();

		if (!fresh) {
			error("%s: out of memory rebuilding the ledger",
			      plugin_type);
			return false;
		}
		if (libra_ledger_node_count(l))
			info("%s: node table changed, rebuilding the ledger from the job records",
			     plugin_type);
		libra_state_carry(l, fresh);
		libra_hub_set_ledger(fresh);
		l = fresh;
		rebuilt = true;
	}
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];
		uint64_t mem;
		int gpus;

		libra_ledger_set_node_up(l, i, libra_slurm_node_usable(node_ptr));
		if (!node_ptr)
			continue;
		_node_resources(node_ptr, &mem, &gpus);
		libra_ledger_set_node_resources(l, i, mem, gpus);
		/* scratch disk held whole (decision 17): TmpDisk */
		libra_ledger_set_node_tmp(l, i, node_ptr->tmp_disk);
	}
	_node_maps(l, p);
	seen_speeds = p->node_speed;
	seen_prices = p->node_price;
	seen_ledger = l;
	seen_update = last_node_update;
	return rebuilt;
}

/*
 * One active job not in the ledger: a new job's admission re-keyed from its
 * token, an admission restored from its record (after a restart or a lost
 * ledger), or a running job without one committed with its CPUs.  The
 * token re-keyed is marked in s, if given.
 */
static void _sync_job(libra_ledger_t *l, job_record_t *job_ptr, seen_t *s)
{
	libra_record_t rec;
	uint32_t id;

	/* a settled SLA holds nothing (a job Slurm ran again after it
	 * ended: decision 37) */
	if (!libra_slurm_job_record(job_ptr, &rec) || rec.best_effort ||
	    rec.settled) {
		if (!IS_JOB_PENDING(job_ptr))
			libra_slurm_commit_unadmitted(job_ptr);
		libra_record_free(&rec);
		return;
	}
	/* a bag's tasks share their array's entry (decision 36) */
	id = libra_slurm_ledger_id(job_ptr, &rec);
	if (id != job_ptr->job_id && libra_ledger_has_job(l, id)) {
		if (s)
			_mark(s, id);
	} else if (rec.token && libra_ledger_has_job(l, rec.token) &&
	    libra_ledger_job_committed(l, rec.token) ==
	    libra_record_commit_time(&rec) &&
	    !libra_ledger_rekey(l, rec.token, id)) {
		debug("%s: admission %u is %pJ", plugin_type, rec.token,
		      job_ptr);
		libra_slurm_watch_admitted(job_ptr);
		if (s)
			_mark(s, rec.token);
		if (rec.quote_id)	/* made of a binding quote */
			libra_quotes_mark_taken(libra_hub_quotes(),
						rec.quote_id);
	} else {
		_commit_record(l, job_ptr, id, &rec);
		if (s && id != job_ptr->job_id)
			_mark(s, id);
	}
	libra_record_free(&rec);
}

extern uint32_t libra_slurm_ledger_id(job_record_t *job_ptr,
				      const libra_record_t *rec)
{
	if (rec && rec->bag.tasks > 0 && job_ptr->array_job_id)
		return job_ptr->array_job_id;
	return job_ptr->job_id;
}

extern bool glue_active(job_record_t *job_ptr)
{
	return IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr) ||
	       IS_JOB_SUSPENDED(job_ptr);
}

/*
 * What libra_slurm_sync_pass() knows of the last sync in this plugin (only
 * sched/libra's agent calls it): the ledger it was made for, the newest
 * job id looked at, and the second the ledger's deadlines were last
 * expired in.
 */
static libra_ledger_t *inc_ledger;
static uint32_t inc_last_id;
static time_t inc_expired;
/* tokens in the ledger at the incremental sync's last look (-1: not
 * looked since the full sync) and libra_hub_tokens_issued() then */
static int inc_tokens = -1;
static uint32_t inc_issued;

extern void libra_slurm_take_control(const char *who)
{
	if (libra_hub_reset())
		error("%s: out of memory: the ledger is rebuilt from the job records, the quotes and runtime history of the last time in control are kept",
		      who);
	inc_ledger = NULL;
	inc_tokens = -1;
	/* the predictor from libra_history as it is now */
	libra_slurm_load_params(who);
}

/* The wall clock to the microsecond: admissions are timed finely. */
static double _fine_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Quotes forgotten, and shares past their deadline at the least; an
 * incremental sync does the latter once a second (the same second expires
 * the same entries: no admission has a deadline in the past). */
static void _expire(libra_ledger_t *l, double fine_now, time_t now,
		    bool full)
{
	libra_quotes_expire(libra_hub_quotes(), fine_now, LIBRA_QUOTE_FORGET);
	if (full || l != inc_ledger || now != inc_expired)
		libra_ledger_expire(l, (double) now);
	inc_expired = now;
}

extern int libra_slurm_sync(time_t now)
{
	libra_ledger_t *l;
	double hold = LIBRA_TOKEN_HOLD;
	libra_list_itr_t iter;
	job_record_t *job_ptr;
	uint32_t last_id = 0;
	seen_t s;
	int waiting = 0;
	double fine_now;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	libra_slurm_sync_nodes();
	l = libra_hub_ledger();

	s.n = libra_ledger_job_count(l);
	s.ids = xcalloc(s.n + 1, sizeof(*s.ids));
	s.seen = xcalloc(s.n + 1, sizeof(*s.seen));
	libra_ledger_jobs(l, s.ids, s.n);
	qsort(s.ids, (size_t) s.n, sizeof(*s.ids), _cmp_u32);

	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		/* slurmctld appends new jobs: the last is the newest (an empty
		 * list says nothing: the ids go on from the last one seen) */
		last_id = job_ptr->job_id;
		if (!glue_active(job_ptr))
			continue;
		if (libra_ledger_has_job(l, job_ptr->job_id)) {
			_mark(&s, job_ptr->job_id);
			continue;
		}
		_sync_job(l, job_ptr, &s);
	}
	list_iterator_destroy(iter);

	/* what the job table no longer has (admissions are timed finely) */
	fine_now = _fine_now();
	for (int i = 0; i < s.n; i++) {
		if (s.seen[i])
			continue;
		/*
		 * A token's job is being created, or it is a binding quote's,
		 * committed at the end of its hold (decision 20): held until
		 * then, and LIBRA_TOKEN_HOLD more.
		 */
		if (libra_is_token(s.ids[i]) &&
		    fine_now - libra_ledger_job_committed(l, s.ids[i]) < hold) {
			if (!libra_quotes_token_held(libra_hub_quotes(),
						     s.ids[i], fine_now))
				waiting++;
			continue;
		}
		libra_ledger_release(l, s.ids[i]);
	}
	xfree(s.ids);
	xfree(s.seen);
	glue_cache_prune();
	_expire(l, fine_now, now, true);
	inc_ledger = l;
	inc_tokens = -1;
	if (last_id)
		inc_last_id = last_id;
	return waiting;
}

/*
 * Job ids looked up past the newest one seen before giving up: slurmctld
 * gives ids in sequence, but skips one whose creation failed after it was
 * given, and ids taken by job arrays' tasks come later.
 */
#define PROBE_MISSES 64

/*
 * A token still waiting LIBRA_TOKEN_LATE for its job, not a binding
 * quote's, makes the sync walk the job table: slurmctld creates the job
 * within milliseconds of its admission, so the ids looked up missed it
 * (one given out of sequence, ids that went on while the job list was
 * empty after a restart).
 */

extern int libra_slurm_sync_pass(time_t now, bool full,
				 job_record_t ***new_jobs, int *nnew)
{
	libra_ledger_t *l;
	job_record_t *job_ptr;
	uint32_t *ids;
	double fine_now;
	int n, misses = 0, waiting = 0, cap = 0;
	bool expired = false;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	*new_jobs = NULL;
	*nnew = -1;
	if (libra_slurm_sync_nodes() || full || !inc_ledger ||
	    inc_ledger != libra_hub_ledger())
		return libra_slurm_sync(now);
	l = inc_ledger;
	*nnew = 0;

	/* the jobs created since: admissions to re-key */
	for (uint32_t id = inc_last_id + 1; misses < PROBE_MISSES; id++) {
		if (!id)
			break;		/* wrapped: the full sync finds them */
		if (!(job_ptr = find_job_record(id))) {
			misses++;
			continue;
		}
		misses = 0;
		inc_last_id = id;
		if (!glue_active(job_ptr))
			continue;
		if (*nnew == cap) {
			cap = cap ? 2 * cap : 64;
			xrecalloc(*new_jobs, cap, sizeof(**new_jobs));
		}
		(*new_jobs)[(*nnew)++] = job_ptr;
		if (!libra_ledger_has_job(l, id))
			_sync_job(l, job_ptr, NULL);
	}

	/* tokens still waiting for their job; one past its hold: full sync
	 * (none at the last look and none given out since: none to find) */
	fine_now = _fine_now();
	if (!inc_tokens && inc_issued == libra_hub_tokens_issued()) {
		_expire(l, fine_now, now, false);
		return 0;
	}
	inc_issued = libra_hub_tokens_issued();
	inc_tokens = 0;
	n = libra_ledger_job_count(l);
	ids = xcalloc(n + 1, sizeof(*ids));
	n = libra_ledger_jobs(l, ids, n);
	for (int i = 0; i < n; i++) {
		double age;

		if (!libra_is_token(ids[i]))
			continue;
		inc_tokens++;
		age = fine_now - libra_ledger_job_committed(l, ids[i]);
		if (age >= LIBRA_TOKEN_HOLD) {
			expired = true;
			break;
		}
		if (libra_quotes_token_held(libra_hub_quotes(), ids[i],
					    fine_now))
			continue;
		if (age >= LIBRA_TOKEN_LATE) {
			expired = true;
			break;
		}
		waiting++;
	}
	xfree(ids);
	if (expired) {
		xfree(*new_jobs);
		*nnew = -1;
		return libra_slurm_sync(now);
	}
	_expire(l, fine_now, now, false);
	return waiting;
}
