/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm.c - records, parameters and ledger synchronisation for the
 *  slurmctld plugins (see libra_slurm.h).
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

#define _GNU_SOURCE	/* pthread_setname_np(), libra_thread_create() */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/node_conf.h"
#include "src/common/parse_time.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"

#include "history.h"
#include "libra_slurm.h"
#include "statefile.h"

/* StateSaveLocation's history of finished jobs (decision 23) */
#define HISTORY "libra_history"

/* The name of the plugin this file is compiled into: its log prefix. */
extern const char plugin_type[];

extern bool libra_slurm_is_record(const char *admin_comment)
{
	return libra_record_text_is_record(admin_comment);
}

/*
 * Parsed records by job id (finding F.4 of contrib/bench/findings.md):
 * sched/libra reads the record of every pending admitted job in every pass.
 * Direct-mapped: slot job_id % REC_CACHE holds one job's AdminComment as
 * it was parsed and the record it gave; a hit needs the same job id and
 * the same text (length and bytes: a pointer alone could be reused by a
 * new string), so any change of the AdminComment, by libra_slurm_store_
 * record() or anyone else, misses and parses again.  A colliding job
 * replaces the slot; the full sync frees the slots of jobs no longer
 * pending, running or suspended, so the cache holds active jobs only.  Off
 * unless the plugin turns it on (sched/libra; jobcomp/libra reads a record
 * once, at the job's end).  The mutex, because job_submit/qos may read
 * records under the job read lock in several RPC threads at once.
 */
#define REC_CACHE 4096

typedef struct {
	uint32_t job_id;
	size_t len;		/* strlen(text) */
	char *text;		/* the AdminComment parsed (xmalloc'd) */
	libra_record_t rec;	/* what it gave */
} rec_slot_t;

static bool rec_cache_on;
static rec_slot_t *rec_cache[REC_CACHE];
static pthread_mutex_t rec_mutex = PTHREAD_MUTEX_INITIALIZER;

extern void libra_slurm_record_cache(bool on)
{
	rec_cache_on = on;
}

/* A deep copy of a record (its placement is malloc'd: libra_record_free()).
 * Returns false when out of memory. */
static bool _record_copy(libra_record_t *to, const libra_record_t *from)
{
	*to = *from;
	to->place = NULL;
	if (from->nplace > 0) {
		to->place = malloc((size_t) from->nplace * sizeof(*to->place));
		if (!to->place) {
			to->nplace = 0;
			return false;
		}
		memcpy(to->place, from->place,
		       (size_t) from->nplace * sizeof(*to->place));
	}
	return true;
}

/* The cached record of this text, copied into rec; false: not cached. */
static bool _cache_get(uint32_t job_id, const char *text, size_t len,
		       libra_record_t *rec)
{
	rec_slot_t *s;
	bool hit;

	slurm_mutex_lock(&rec_mutex);
	s = rec_cache[job_id % REC_CACHE];
	hit = s && s->job_id == job_id && s->len == len &&
	      !memcmp(s->text, text, len) && _record_copy(rec, &s->rec);
	slurm_mutex_unlock(&rec_mutex);
	return hit;
}

static void _slot_free(rec_slot_t **s)
{
	if (!*s)
		return;
	libra_record_free(&(*s)->rec);
	xfree((*s)->text);
	xfree(*s);
}

static void _cache_put(uint32_t job_id, const char *text, size_t len,
		       const libra_record_t *rec)
{
	rec_slot_t **s = &rec_cache[job_id % REC_CACHE];

	slurm_mutex_lock(&rec_mutex);
	_slot_free(s);
	*s = xmalloc(sizeof(**s));
	if (_record_copy(&(*s)->rec, rec)) {
		(*s)->job_id = job_id;
		(*s)->len = len;
		(*s)->text = xmalloc(len + 1);
		memcpy((*s)->text, text, len + 1);
	} else {
		xfree(*s);
	}
	slurm_mutex_unlock(&rec_mutex);
}

static bool _active(job_record_t *job_ptr);

/* Free the cached records of jobs no longer active.  Job read lock. */
static void _cache_prune(void)
{
	if (!rec_cache_on)
		return;
	slurm_mutex_lock(&rec_mutex);
	for (int i = 0; i < REC_CACHE; i++) {
		job_record_t *job_ptr;

		if (!rec_cache[i])
			continue;
		job_ptr = find_job_record(rec_cache[i]->job_id);
		if (!job_ptr || !_active(job_ptr))
			_slot_free(&rec_cache[i]);
	}
	slurm_mutex_unlock(&rec_mutex);
}

extern bool libra_slurm_job_record(job_record_t *job_ptr,
				   libra_record_t *rec)
{
	const char *text = job_ptr->admin_comment;
	char err[256];
	size_t len;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (!libra_slurm_is_record(text)) {
		memset(rec, 0, sizeof(*rec));
		return false;
	}
	len = strlen(text);
	if (rec_cache_on && _cache_get(job_ptr->job_id, text, len, rec))
		return true;
	if (libra_record_from_json(text, rec, err, sizeof(err))) {
		error("%s: %pJ has an unreadable record in AdminComment: %s",
		      plugin_type, job_ptr, err);
		return false;
	}
	if (rec_cache_on)
		_cache_put(job_ptr->job_id, text, len, rec);
	return true;
}

extern char *libra_slurm_record_text(const libra_record_t *rec,
				     const char *current)
{
	char *json = libra_record_to_json(rec);
	char *admin = libra_record_admin_text(current);
	char *text = NULL, *with;

	if (json && admin && (with = libra_record_json_with_admin(json, admin))) {
		free(json);
		json = with;
	}
	if (json)
		text = xstrdup(json);
	free(json);
	free(admin);
	return text;
}

extern int libra_slurm_store_record(job_record_t *job_ptr,
				    const libra_record_t *rec)
{
	char *text;

	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);
	text = libra_slurm_record_text(rec, job_ptr->admin_comment);
	if (!text) {
		error("%s: %pJ: cannot encode its record", plugin_type, job_ptr);
		return SLURM_ERROR;
	}
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = text;
	return SLURM_SUCCESS;
}

/* The history of finished jobs, in StateSaveLocation (decision 23). */
static char *_history_path(void)
{
	char *path = NULL;

	xstrfmtcat(path, "%s/%s", slurm_conf.state_save_location, HISTORY);
	return path;
}

/*
 * The hub's predictor in step with libra_predict and libra_predict_min
 * (hub lock held): dropped for "none"; made anew, and filled from the
 * history file, when the method or the least history changed.  Only then
 * is the file read: at the first use and after a reconfigure that changed
 * them.
 */
static void _predictor_current(const char *who)
{
	libra_params_t *p = libra_hub_params();
	libra_predictor_t *pred = libra_hub_predictor();
	uint64_t read = 0, skipped = 0;
	char *path;

	if (p->predict == LIBRA_PREDICT_NONE) {
		libra_hub_set_predictor(NULL);
		return;
	}
	if (pred && libra_predictor_method(pred) == p->predict &&
	    libra_predictor_min_samples(pred) == (int) p->predict_min)
		return;
	if (!(pred = libra_predictor_create(p->predict,
					    (int) p->predict_min))) {
		error("%s: cannot make the runtime predictor; admitting on the declared runtimes",
		      who);
		libra_hub_set_predictor(NULL);
		return;
	}
	path = _history_path();
	if (libra_history_load(path, pred, &read, &skipped) &&
	    errno != ENOENT)
		error("%s: cannot read %s: %m; predicting from the jobs that end from now on",
		      who, path);
	if (skipped)
		error("%s: %s: %"PRIu64" line(s) that do not read skipped",
		      who, path, skipped);
	info("%s: runtime predictions (%s) from %"PRIu64" finished job(s) in %s",
	     who, libra_predict_method_name(p->predict), read, path);
	xfree(path);
	libra_hub_set_predictor(pred);
}

/*
 * The history file as jobcomp/libra appends to it, and the thread that
 * compacts it (decision 23).  Only jobcomp/libra's copy of this file uses
 * them, from libra_slurm_history_add() (one job end at a time, under the
 * job write lock) and libra_slurm_history_fini().
 */
static libra_history_t *history;
static pthread_t compact_tid;

/* Compact the history: no slurmctld lock, nor the hub's; appends wait
 * only for the copy of the lines they made meanwhile and the rename. */
static void *_history_compact(void *arg)
{
	const char *path = libra_history_path(history);
	libra_history_stats_t st;

	if (libra_history_compact(history, &st)) {
		error("%s: cannot compact %s: %m; it is kept as it is",
		      plugin_type, path);
		return NULL;
	}
	if (st.skipped)
		error("%s: %s: %"PRIu64" line(s) that do not read dropped",
		      plugin_type, path, st.skipped);
	info("%s: %s compacted to the last %d jobs of each key: %"PRIu64" of %"PRIu64" line(s) kept, %"PRIu64" bytes now (%"PRIu64" before)",
	     plugin_type, path, LIBRA_PREDICT_DEPTH, st.kept, st.lines,
	     st.after, st.before);
	return NULL;
}

extern void libra_slurm_history_add(job_record_t *job_ptr, double runtime,
				    double estimate, double end)
{
	char line[160], *path;
	libra_predictor_t *pred;
	int n, rc;

	n = libra_predict_format_line(line, sizeof(line), job_ptr->user_id,
				      job_ptr->group_id, runtime, estimate,
				      end);
	if (n < 0)
		return;
	if (!history) {
		path = _history_path();
		history = libra_history_create(path, 0);
		xfree(path);
		if (!history) {
			error("%s: %pJ: out of memory for the history of finished jobs",
			      __func__, job_ptr);
			return;
		}
	}
	/* one short append: a crash tears at most this line, which the
	 * reader skips */
	if ((rc = libra_history_append(history, line, (size_t) n)) < 0) {
		error("%s: %pJ: cannot append to %s: %m", __func__, job_ptr,
		      libra_history_path(history));
	} else if (rc > 0) {
		/* due: the last compaction has ended, its thread with it */
		if (compact_tid)
			libra_thread_join(compact_tid);
		debug("%s: compacting %s", plugin_type,
		      libra_history_path(history));
		libra_thread_create(&compact_tid, "libra_history",
				    _history_compact, NULL);
	}
	libra_hub_lock();
	if ((pred = libra_hub_predictor()))
		libra_predictor_record(pred, job_ptr->user_id,
				       job_ptr->group_id, runtime, estimate);
	libra_hub_unlock();
}

extern void libra_slurm_history_fini(void)
{
	if (compact_tid)
		libra_thread_join(compact_tid);
	libra_history_destroy(history);
	history = NULL;
}

/* Seconds east of UTC of the local time zone now. */
static long _utc_offset(void)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm))
		return 0;
	return tm.tm_gmtoff;
}

/* Parameters read from text over the defaults: 0, or -1 with err. */
static int _parse_params(libra_params_t *fresh, const char *text, char *err,
			 size_t len)
{
	libra_params_default(fresh);
	/* the tariff's clock is local time (tariff.h) */
	fresh->tariff.offset = _utc_offset();
	return libra_params_parse(fresh, text, err, len);
}

/*
 * A bad value in a slurmctld that has read none yet: one re-executed by a
 * reconfigure (23.11 and later) keeps the parameters of before, as saved
 * in StateSaveLocation (decision 28); else the defaults.  0: *fresh set
 * from the saved ones.
 */
static int _params_before(const char *who, const char *err,
			  libra_params_t *fresh)
{
	char *saved = NULL, *path = NULL, why[256];
	int rc = -1;

	if (getenv("SLURMCTLD_RECONF") &&
	    (saved = libra_state_load_params(&path)) &&
	    !(rc = _parse_params(fresh, saved, why, sizeof(why))))
		error("%s: SchedulerParameters: %s; keeping the previous settings (saved in %s before the reconfigure)",
		      who, err, path);
	else
		error("%s: SchedulerParameters: %s; using the defaults", who,
		      err);
	xfree(saved);
	xfree(path);
	return rc;
}

extern int libra_slurm_load_params(const char *who)
{
	static bool loaded;
	libra_params_t *p = libra_hub_params();
	libra_params_t fresh;
	char err[256], shown[2048];

	if (_parse_params(&fresh, slurm_conf.sched_params, err, sizeof(err))) {
		if (loaded) {
			error("%s: SchedulerParameters: %s; keeping the previous settings",
			      who, err);
			return SLURM_ERROR;
		}
		loaded = true;
		if (_params_before(who, err, &fresh))
			return SLURM_ERROR;
	} else {
		loaded = true;
		libra_state_save_params(slurm_conf.sched_params);
	}
	*p = fresh;
	libra_ledger_set_share_min(libra_hub_ledger(), p->share_min);
	libra_params_format(p, shown, sizeof(shown));
	verbose("%s: %s", who, shown);
	_predictor_current(who);
	return SLURM_SUCCESS;
}

extern void libra_slurm_params_current(const char *who)
{
	static time_t loaded;

	if (loaded == slurm_conf.last_update)
		return;
	loaded = slurm_conf.last_update;
	libra_slurm_load_params(who);
}

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

extern bool libra_slurm_mem_tracked(void)
{
	return (slurm_conf.select_type_param & LIBRA_SELECT_MEMORY) != 0;
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

/*
 * The translation both forms of a request share: "a" holds the TRES
 * strings, pn_min_memory is Slurm's encoding (MB, MEM_PER_CPU set for a
 * figure per CPU; NO_VAL64 unset), and the defaults come from part_ptr and
 * slurm_conf.
 */
static libra_demand_err_t _demand(libra_job_ask_t *a, uint64_t pn_min_memory,
				  part_record_t *part_ptr, libra_demand_t *d,
				  char *err, size_t errlen)
{
	uint64_t part_def = part_ptr ? part_ptr->def_mem_per_cpu : 0;

	a->mem_tracked = libra_slurm_mem_tracked();
	if (pn_min_memory != NO_VAL64) {
		a->mem.set = true;
		a->mem.per_cpu = pn_min_memory & MEM_PER_CPU;
		a->mem.mb = pn_min_memory & ~MEM_PER_CPU;
	}
	/* a partition's 0 is "not set"; the cluster's 0 is "no default" */
	if (part_def && part_def != NO_VAL64) {
		a->part_default.set = true;
		a->part_default.per_cpu = part_def & MEM_PER_CPU;
		a->part_default.mb = part_def & ~MEM_PER_CPU;
	}
	if (slurm_conf.def_mem_per_cpu & ~MEM_PER_CPU) {
		a->cluster_default.set = true;
		a->cluster_default.per_cpu = slurm_conf.def_mem_per_cpu &
					     MEM_PER_CPU;
		a->cluster_default.mb = slurm_conf.def_mem_per_cpu &
					~MEM_PER_CPU;
	}
	return libra_demand_from_job(a, d, err, errlen);
}

extern int libra_slurm_demand(job_desc_msg_t *job_desc,
			      part_record_t *part_ptr, libra_demand_t *d,
			      char **err_msg)
{
	libra_job_ask_t a = {
		.mem_per_tres = job_desc->mem_per_tres,
		.tres_per_node = job_desc->tres_per_node,
		.tres_per_job = job_desc->tres_per_job,
		.tres_per_socket = job_desc->tres_per_socket,
		.tres_per_task = job_desc->tres_per_task,
	};
	char err[256];
	libra_demand_err_t rc;

	rc = _demand(&a, job_desc->pn_min_memory, part_ptr, d, err,
		     sizeof(err));
	if (rc == LIBRA_DEMAND_OK)
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: %s", err);
	return rc == LIBRA_DEMAND_EMEM ? ESLURM_INVALID_TASK_MEMORY :
					 ESLURM_INVALID_GRES;
}

extern bool libra_slurm_job_demand(job_record_t *job_ptr, libra_demand_t *d)
{
	libra_job_ask_t a = {
		.mem_per_tres = job_ptr->mem_per_tres,
		.tres_per_node = job_ptr->tres_per_node,
		.tres_per_job = job_ptr->tres_per_job,
		.tres_per_socket = job_ptr->tres_per_socket,
		.tres_per_task = job_ptr->tres_per_task,
	};
	char err[256];

	if (!job_ptr->details)
		return false;
	if (_demand(&a, job_ptr->details->pn_min_memory, job_ptr->part_ptr,
		    d, err, sizeof(err)) == LIBRA_DEMAND_OK)
		return true;
	debug("%s: %pJ: %s", plugin_type, job_ptr, err);
	return false;
}

extern bitstr_t *libra_slurm_held_excluded(job_record_t *job_ptr,
					   const libra_demand_t *d, int *n)
{
	libra_ledger_t *l = libra_hub_ledger();
	uint32_t cpus = job_ptr->details ? job_ptr->details->min_cpus : 1;
	int nodes = MIN(libra_ledger_node_count(l), node_record_count);
	bitstr_t *exc = NULL;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	*n = 0;
	if (!d->mem_per_cpu && !d->mem_per_node && !d->mem_whole_node &&
	    !d->gpus_per_node && !d->gpus)
		return NULL;
	for (int i = 0; i < nodes; i++) {
		int on_node = (int) MIN(cpus, (uint32_t)
					libra_ledger_node_cpus(l, i));

		if (libra_admit_held_fits(l, d, i, on_node))
			continue;
		if (!exc)
			exc = bit_alloc(node_record_count);
		bit_set(exc, i);
		(*n)++;
	}
	return exc;
}

extern libra_node_power_t libra_slurm_node_power(node_record_t *node_ptr)
{
	if (IS_NODE_POWERING_UP(node_ptr))
		return LIBRA_NODE_BOOTING;
	if (IS_NODE_POWERING_DOWN(node_ptr))
		return LIBRA_NODE_STOPPING;
	if (IS_NODE_POWERED_DOWN(node_ptr) || IS_NODE_POWER_DOWN(node_ptr))
		return LIBRA_NODE_OFF;
	return LIBRA_NODE_ON;
}

extern double *libra_slurm_power_up(const bool *eligible, double now,
				    double boot, double shutdown)
{
	double *up = xcalloc(node_record_count + 1, sizeof(*up));

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];

		if (!eligible[i] || !node_ptr) {
			up[i] = INFINITY;
			continue;
		}
		switch (libra_slurm_node_power(node_ptr)) {
		case LIBRA_NODE_ON:
			up[i] = now;
			break;
		case LIBRA_NODE_STOPPING:
			up[i] = now + shutdown + boot;
			break;
		default:
			up[i] = now + boot;
			break;
		}
	}
	return up;
}

extern bool libra_slurm_node_usable(node_record_t *node_ptr)
{
	return node_ptr && !IS_NODE_DOWN(node_ptr) &&
	       !IS_NODE_DRAIN(node_ptr) && !IS_NODE_FAIL(node_ptr) &&
	       !IS_NODE_FUTURE(node_ptr) && !IS_NODE_NO_RESPOND(node_ptr);
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

/* Commit a job from its record (after a restart, or a lost ledger). */
static void _commit_record(libra_ledger_t *l, job_record_t *job_ptr,
			   const libra_record_t *rec)
{
	libra_place_t *place;
	int n = 0;

	if (rec->best_effort || rec->nplace < 1)
		return;		/* best-effort jobs commit no share */
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
	if (n && libra_ledger_commit_booked(l, job_ptr->job_id, &rec->sla,
					    place, n,
					    libra_record_commit_time(rec),
					    rec->begin))
		error("%s: %pJ: cannot restore its admission into the ledger",
		      plugin_type, job_ptr);
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
			n++;
		}
		k++;
	}
	if (n)
		libra_ledger_commit(l, job_ptr->job_id, NULL, place, n,
				    (double) job_ptr->start_time);
	xfree(place);
}

extern int libra_slurm_slots_per_cpu(part_record_t *part_ptr)
{
	uint16_t share;

	if (!part_ptr)
		return 0;
	share = part_ptr->max_share & ~SHARED_FORCE;
	/* OverSubscribe=NO or EXCLUSIVE: one job per CPU */
	return share > 1 ? share : 1;
}

extern bool libra_slurm_preemptable(part_record_t *part_ptr, char **why)
{
	uint16_t mode = slurm_conf.preempt_mode;
	part_record_t *p, *top = NULL;
	libra_list_itr_t iter;

	LIBRA_LOCKED(PART_LOCK, READ_LOCK);
	if (mode & PREEMPT_MODE_GANG) {
		xstrfmtcat(*why, "PreemptMode=%s: Slurm's gang scheduling suspends jobs that share CPUs in turns, as admitted jobs do",
			   preempt_mode_string(mode));
		return true;
	}
	/* preempt/none; or PreemptMode=OFF, which disables preemption */
	if (!part_ptr || mode == PREEMPT_MODE_OFF ||
	    !xstrcasestr(slurm_conf.preempt_type, "partition_prio"))
		return false;
	if (part_ptr->preempt_mode != NO_VAL16)
		mode = part_ptr->preempt_mode;
	if (mode == PREEMPT_MODE_OFF)
		return false;
	/* preempt/partition_prio's rule: a higher tier sharing nodes */
	iter = list_iterator_create(part_list);
	while ((p = list_next(iter))) {
		if (p->priority_tier > part_ptr->priority_tier &&
		    p->node_bitmap && part_ptr->node_bitmap &&
		    bit_overlap_any(p->node_bitmap, part_ptr->node_bitmap) &&
		    (!top || p->priority_tier > top->priority_tier))
			top = p;
	}
	list_iterator_destroy(iter);
	if (!top)
		return false;
	xstrfmtcat(*why, "jobs of partition %s (PriorityTier %u, PreemptMode=%s) can be preempted by jobs of partition %s (PriorityTier %u) on the same nodes",
		   part_ptr->name, part_ptr->priority_tier,
		   preempt_mode_string(mode), top->name, top->priority_tier);
	return true;
}

extern bool libra_slurm_sync_nodes(void)
{
	static libra_ledger_t *seen_ledger;
	static time_t seen_update;
	libra_ledger_t *l = libra_hub_ledger();
	bool rebuilt = false;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	/* nothing changed in the node table since the last look */
	if (l == seen_ledger && seen_update == last_node_update &&
	    libra_ledger_node_count(l) == node_record_count)
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
	}
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

	if (!libra_slurm_job_record(job_ptr, &rec) || rec.best_effort) {
		if (!IS_JOB_PENDING(job_ptr))
			libra_slurm_commit_unadmitted(job_ptr);
		libra_record_free(&rec);
		return;
	}
	if (rec.token && libra_ledger_has_job(l, rec.token) &&
	    libra_ledger_job_committed(l, rec.token) ==
	    libra_record_commit_time(&rec) &&
	    !libra_ledger_rekey(l, rec.token, job_ptr->job_id)) {
		debug("%s: admission %u is %pJ", plugin_type, rec.token,
		      job_ptr);
		if (s)
			_mark(s, rec.token);
		if (rec.quote_id)	/* made of a binding quote */
			libra_quotes_mark_taken(libra_hub_quotes(),
						rec.quote_id);
	} else {
		_commit_record(l, job_ptr, &rec);
	}
	libra_record_free(&rec);
}

static bool _active(job_record_t *job_ptr)
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
		if (!_active(job_ptr))
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
	_cache_prune();
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
 * A token still waiting this long [s] for its job, not a binding quote's,
 * makes the sync walk the job table: slurmctld creates the job within
 * milliseconds of its admission, so the ids looked up missed it (one
 * given out of sequence, ids that went on while the job list was empty
 * after a restart).
 */
#define TOKEN_LATE 0.25

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
		if (!_active(job_ptr))
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
		if (age >= TOKEN_LATE) {
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

/*
 * A pending job admitted to whole nodes (--exclusive, decision 29): its
 * admitted nodes into *held (allocated when NULL), as a running job that
 * does not share would be, so that no other job is admitted there before
 * it starts.
 */
static void _whole_admitted(job_record_t *job_ptr, bitstr_t **held)
{
	libra_ledger_t *l = libra_hub_ledger();
	libra_record_t rec;

	if (!job_ptr->details ||
	    !(job_ptr->details->whole_node & WHOLE_NODE_REQUIRED) ||
	    !libra_slurm_job_record(job_ptr, &rec))
		return;
	for (int i = 0; i < rec.nplace; i++) {
		int n = libra_ledger_find_node(l, rec.place[i].node);

		if (n < 0 || n >= node_record_count)
			continue;
		if (!*held)
			*held = bit_alloc(node_record_count);
		bit_set(*held, n);
	}
	libra_record_free(&rec);
}

/*
 * Nodes admission leaves out, from slurmctld's jobs (not from the ledger:
 * jobs that Slurm's own scheduler starts reach the ledger only at
 * sched/libra's next pass), in one walk of the job list per admission
 * (tens of microseconds at 10,000 jobs):
 *  - *unshared (when not NULL): where a running job does not share its
 *    CPUs: one of a partition not OverSubscribe=FORCE that did not ask
 *    --oversubscribe (a job without an SLA: job_submit/qos drops the
 *    request).  Slurm's select/cons_tres then puts no job that shares on
 *    any CPU of such a node (it is in "one row" use: job_test.c,
 *    _get_job_node_req()), so an admitted job could not start there until
 *    it ends (decision 27);
 *  - *stuck: where a job ended more than MessageTimeout ago and its node
 *    has not yet reported the end done (node_bitmap_cg).  select_nodes()
 *    takes no node completing a job; most complete within a second of
 *    the end, and a job admitted there starts at the next pass, but one
 *    still completing after a message timeout waits for something that
 *    went wrong (a slurmd killed in the job's end: 54 s in rel_faults),
 *    for as long as that takes (decision 29).
 * A pending job admitted to whole nodes (--exclusive) counts in *unshared
 * as a running one that does not share (decision 29).
 * Each NULL when empty.
 */
static void _held_nodes(bitstr_t **unshared, bitstr_t **stuck)
{
	time_t old = time(NULL) - (time_t) slurm_conf.msg_timeout;
	libra_list_itr_t iter;
	job_record_t *job_ptr;

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (unshared)
		*unshared = NULL;
	*stuck = NULL;
	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		part_record_t *p = job_ptr->part_ptr;

		if (IS_JOB_COMPLETING(job_ptr) && job_ptr->node_bitmap_cg &&
		    job_ptr->end_time && job_ptr->end_time < old) {
			if (!*stuck)
				*stuck = bit_alloc(node_record_count);
			bit_or(*stuck, job_ptr->node_bitmap_cg);
		}
		if (unshared && IS_JOB_PENDING(job_ptr) && p &&
		    !(p->max_share & SHARED_FORCE))
			_whole_admitted(job_ptr, unshared);
		if (!unshared ||
		    (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr)) ||
		    !job_ptr->node_bitmap || !p ||
		    (p->max_share & SHARED_FORCE))
			continue;
		if (p->max_share > 1 && job_ptr->details &&
		    job_ptr->details->share_res == 1)
			continue;	/* it shares */
		if (!*unshared)
			*unshared = bit_alloc(node_record_count);
		bit_or(*unshared, job_ptr->node_bitmap);
	}
	list_iterator_destroy(iter);
}

extern bool *libra_slurm_eligible(part_record_t *part_ptr,
				  const char *req_nodes,
				  const char *exc_nodes,
				  libra_slurm_left_out_t *out,
				  char **err_msg)
{
	bitstr_t *req = NULL, *exc = NULL, *held = NULL, *stuck = NULL;
	libra_slurm_left_out_t none;
	bool *mask;

	if (!out)
		out = &none;
	memset(out, 0, sizeof(*out));

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	LIBRA_LOCKED(PART_LOCK, READ_LOCK);
	if (req_nodes && libra_node_name2bitmap((char *) req_nodes, &req)) {
		xstrfmtcat(*err_msg, "libra: invalid node list '%s'",
			   req_nodes);
		FREE_NULL_BITMAP(req);
		return NULL;
	}
	if (exc_nodes && libra_node_name2bitmap((char *) exc_nodes, &exc)) {
		xstrfmtcat(*err_msg, "libra: invalid excluded node list '%s'",
			   exc_nodes);
		FREE_NULL_BITMAP(req);
		FREE_NULL_BITMAP(exc);
		return NULL;
	}
	_held_nodes(part_ptr && !(part_ptr->max_share & SHARED_FORCE) ?
		    &held : NULL, &stuck);
	mask = xcalloc(node_record_count ? node_record_count : 1,
		       sizeof(*mask));
	for (int i = 0; i < node_record_count; i++) {
		if (!node_record_table_ptr[i])
			continue;
		if (part_ptr && part_ptr->node_bitmap &&
		    !bit_test(part_ptr->node_bitmap, i))
			continue;
		if (req && !bit_test(req, i))
			continue;
		if (exc && bit_test(exc, i))
			continue;
		if (stuck && bit_test(stuck, i) &&
		    IS_NODE_COMPLETING(node_record_table_ptr[i])) {
			out->completing++;
			continue;
		}
		if (held && bit_test(held, i)) {
			out->unshared++;
			continue;
		}
		mask[i] = true;
	}
	FREE_NULL_BITMAP(req);
	FREE_NULL_BITMAP(exc);
	FREE_NULL_BITMAP(held);
	FREE_NULL_BITMAP(stuck);
	return mask;
}

/* Does the node satisfy the feature expression (its active features,
 * else its configured ones: demand.h)? */
static bool _node_features(node_record_t *node_ptr, const char *expr)
{
	return libra_features_match(expr, node_ptr->features_act ?
					  node_ptr->features_act :
					  node_ptr->features);
}

/* Can admission read this feature expression?  Else why not in err_msg. */
static int _features_ok(const char *expr, char **err_msg)
{
	if (libra_features_valid(expr))
		return SLURM_SUCCESS;
	xstrfmtcat(*err_msg, "libra: rejected: --constraint=%s: an SLA job may ask node features joined by & and | only (no brackets, counts, parentheses or !)",
		   expr);
	return ESLURM_INVALID_FEATURE;
}

/* A reservation's node_bitmap over the job's window; NULL when it reserves
 * no nodes or does not overlap [start, end]. */
static bitstr_t *_resv_nodes(slurmctld_resv_t *resv, time_t start,
			     time_t end)
{
	if (!resv->node_bitmap || resv->start_time >= end ||
	    (resv->end_time && resv->end_time <= start))
		return NULL;
	return resv->node_bitmap;
}

/* Its own reservation: its nodes only, the window inside its time. */
static int _own_resv(bool *mask, const libra_slurm_window_t *w,
		     char **err_msg)
{
	slurmctld_resv_t *resv = find_resv_name((char *) w->resv_name);

	if (!resv) {
		xstrfmtcat(*err_msg, "libra: rejected: --reservation=%s: no such reservation",
			   w->resv_name);
		return ESLURM_RESERVATION_INVALID;
	}
	if (resv->start_time > w->start ||
	    (resv->end_time && resv->end_time < w->end)) {
		char s[32], e[32];

		slurm_make_time_str(&resv->start_time, s, sizeof(s));
		slurm_make_time_str(&resv->end_time, e, sizeof(e));
		xstrfmtcat(*err_msg, "libra: rejected: --reservation=%s runs from %s to %s, and the job's window (from its start to its deadline) is not inside it: admission places a job in its reservation only when the whole window is",
			   w->resv_name, s, e);
		/* it begins later, long enough for the window (to the
		 * second: the deadline is rounded up): book it there
		 * (decision 21: its times then count from its begin) */
		if (resv->start_time > w->start &&
		    (!resv->end_time ||
		     resv->end_time - resv->start_time + 1 >= w->end - w->start))
			xstrfmtcat(*err_msg, "; to book it there, submit it with --begin=%s (its times then count from its begin)",
				   s);
		return ESLURM_RESERVATION_NOT_USABLE;
	}
	/* one that reserves no nodes (licenses only) leaves the nodes be */
	for (int i = 0; resv->node_bitmap && i < node_record_count; i++)
		if (!bit_test(resv->node_bitmap, i))
			mask[i] = false;
	return SLURM_SUCCESS;
}

/* The nodes of the reservations, other than its own, in its window. */
static bitstr_t *_reserved(const libra_slurm_window_t *w,
			   libra_slurm_left_out_t *out)
{
	bitstr_t *reserved = NULL, *b;
	libra_list_itr_t iter;
	slurmctld_resv_t *resv;

	if (!resv_list)
		return NULL;
	iter = list_iterator_create(resv_list);
	while ((resv = list_next(iter))) {
		if (w->resv_name && !xstrcmp(resv->name, w->resv_name))
			continue;
		if (!(b = _resv_nodes(resv, w->start, w->end)))
			continue;
		if (!reserved)
			reserved = bit_alloc(node_record_count);
		bit_or(reserved, b);
		if (!out->resv[0]) {
			snprintf(out->resv, sizeof(out->resv), "%s",
				 resv->name);
			out->resv_start = resv->start_time;
		}
	}
	list_iterator_destroy(iter);
	return reserved;
}

/* Whole nodes: those where no job runs (slurmctld's), none is admitted
 * (the ledger's). */
static bool _node_idle(int i, bitstr_t *running)
{
	libra_ledger_t *l = libra_hub_ledger();

	if (running && bit_test(running, i))
		return false;
	return i >= libra_ledger_node_count(l) ||
	       (!libra_ledger_node_job_cpus(l, i) &&
		libra_ledger_node_share(l, i) <= 0.0);
}

static bitstr_t *_running_nodes(void)
{
	bitstr_t *running = NULL;
	libra_list_itr_t iter;
	job_record_t *job_ptr;

	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		if ((!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr)) ||
		    !job_ptr->node_bitmap)
			continue;
		if (!running)
			running = bit_alloc(node_record_count);
		bit_or(running, job_ptr->node_bitmap);
	}
	list_iterator_destroy(iter);
	return running;
}

extern int libra_slurm_restrict(bool *mask, const libra_slurm_window_t *w,
				libra_slurm_left_out_t *out, char **err_msg)
{
	bitstr_t *reserved, *running = NULL;
	int rc;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (w->features && (rc = _features_ok(w->features, err_msg)))
		return rc;
	if (w->resv_name && (rc = _own_resv(mask, w, err_msg)))
		return rc;
	reserved = _reserved(w, out);
	if (w->whole)
		running = _running_nodes();
	for (int i = 0; i < node_record_count; i++) {
		if (!mask[i])
			continue;
		if (reserved && bit_test(reserved, i)) {
			out->reserved++;
			mask[i] = false;
		} else if (w->features &&
			   !_node_features(node_record_table_ptr[i],
					   w->features)) {
			out->features++;
			mask[i] = false;
		} else if (w->whole && !_node_idle(i, running)) {
			out->busy++;
			mask[i] = false;
		}
	}
	FREE_NULL_BITMAP(reserved);
	FREE_NULL_BITMAP(running);
	return SLURM_SUCCESS;
}

extern void libra_slurm_left_out_msg(const libra_slurm_left_out_t *out,
				     char **msg)
{
	if (out->unshared)
		xstrfmtcat(*msg, "; %d of the nodes it may use run jobs without an SLA, which do not share their CPUs (or are admitted to an --exclusive job not started yet), and the others cannot take it: submit it again when those end",
			   out->unshared);
	if (out->completing)
		xstrfmtcat(*msg, "; %d of the nodes it may use have been completing a job for longer than MessageTimeout, and Slurm starts nothing there until they finish: submit it again then",
			   out->completing);
	if (out->reserved) {
		char t[32];

		slurm_make_time_str((time_t *) &out->resv_start, t, sizeof(t));
		xstrfmtcat(*msg, "; %d of the nodes it may use are in reservation %s (from %s) or another, inside the job's window, which the job is not in",
			   out->reserved, out->resv, t);
	}
	if (out->features)
		xstrfmtcat(*msg, "; %d of the nodes it may use lack the features it asks (--constraint)",
			   out->features);
	if (out->busy)
		xstrfmtcat(*msg, "; %d of the nodes it may use run or are admitted jobs, and --exclusive takes whole idle nodes",
			   out->busy);
}

extern char *libra_slurm_place_names(const libra_record_t *rec)
{
	char *names = NULL;

	for (int i = 0; i < rec->nplace; i++)
		xstrfmtcat(names, "%s%s", i ? "," : "", rec->place[i].node);
	return names;
}

extern char *libra_slurm_quote_nodes(const libra_quote_t *q)
{
	libra_ledger_t *l = libra_hub_ledger();
	libra_hostlist_t hl = hostlist_create(NULL);
	char *out;

	for (int i = 0; i < q->nplace; i++)
		hostlist_push_host(hl, libra_ledger_node_name(l,
							     q->place[i].node));
	hostlist_sort(hl);
	out = hostlist_ranged_string_xmalloc(hl);
	hostlist_destroy(hl);
	return out;
}

/* ------------------------------------------------------------------------
 * The journal of ended jobs (libra_slurm.h)
 * ------------------------------------------------------------------------ */
#define JOURNAL "libra_ended.log"
#define JOURNAL_MAX (16 * 1024 * 1024)

static char *_journal_path(const char *suffix)
{
	char *path = NULL;

	xstrfmtcat(path, "%s/%s%s", slurm_conf.state_save_location, JOURNAL,
		   suffix);
	return path;
}

extern void libra_slurm_journal_end(job_record_t *job_ptr,
				    const libra_record_t *rec)
{
	char *path = _journal_path(""), *json, *line = NULL;
	struct stat st;
	int fd;

	if (!(json = libra_record_to_json(rec))) {
		xfree(path);
		return;
	}
	if (!stat(path, &st) && st.st_size > JOURNAL_MAX) {
		char *old = _journal_path(".old");

		if (rename(path, old))
			error("%s: cannot rotate %s: %m", plugin_type, path);
		xfree(old);
	}
	/*
	 * One write() of the whole line to an O_APPEND file: it survives a
	 * killed slurmctld (the page cache has it) and lines never mix.
	 */
	xstrfmtcat(line, "%u %u %u %s\n", job_ptr->job_id,
		   job_ptr->job_state & JOB_STATE_BASE, job_ptr->exit_code,
		   json);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t) strlen(line))
		error("%s: cannot append to %s: %m", plugin_type, path);
	if (fd >= 0)
		close(fd);
	xfree(line);
	xfree(path);
	free(json);
}

/* One journal line: end its job as it ended, if it came back running. */
static int _journal_line(char *line)
{
	libra_record_t cur, end;
	job_record_t *job_ptr;
	unsigned long id, state, code;
	char *p = line, *e, err[128];
	int done = 0;

	id = strtoul(p, &e, 10);
	if (e == p || *e != ' ')
		return 0;
	state = strtoul(p = e + 1, &e, 10);
	if (e == p || *e != ' ')
		return 0;
	code = strtoul(p = e + 1, &e, 10);
	if (e == p || *e != ' ')
		return 0;
	p = e + 1;
	p[strcspn(p, "\n")] = '\0';

	job_ptr = find_job_record((uint32_t) id);
	if (!job_ptr || !(IS_JOB_RUNNING(job_ptr) ||
			  IS_JOB_SUSPENDED(job_ptr)))
		return 0;
	if (!libra_slurm_job_record(job_ptr, &cur))
		return 0;
	if (libra_record_from_json(p, &end, err, sizeof(err))) {
		libra_record_free(&cur);
		return 0;
	}
	/* the same admission (not a later job given the same id), unsettled */
	if (!cur.settled && end.settled && cur.token == end.token &&
	    cur.admitted == end.admitted) {
		libra_slurm_store_record(job_ptr, &end);
		info("%s: %pJ ended (%s) before slurmctld was restarted and came back running; ending it as it ended (%s)",
		     plugin_type, job_ptr, job_state_string((uint32_t) state),
		     libra_end_name(end.final.how));
		if (state == JOB_COMPLETE || state == JOB_FAILED) {
			/*
			 * It ended within its time limit, which may have
			 * passed while slurmctld was down: _job_complete()
			 * takes a completion after the limit for a TIMEOUT.
			 */
			time_t now = time(NULL);

			if (job_ptr->end_time < now)
				job_ptr->end_time = now;
			libra_job_complete(job_ptr, 0, false, false,
					   (uint32_t) code);
		} else {
			job_signal(job_ptr, SIGKILL, 0, 0, false);
		}
		done = 1;
	}
	libra_record_free(&cur);
	libra_record_free(&end);
	return done;
}

extern int libra_slurm_journal_recover(void)
{
	const char *suffixes[] = { ".old", "" };
	int n = 0;

	for (int i = 0; i < 2; i++) {
		char *path = _journal_path(suffixes[i]), *line = NULL;
		size_t cap = 0;
		FILE *f = fopen(path, "r");

		if (!f) {
			if (errno != ENOENT)
				error("%s: cannot read %s: %m", plugin_type, path);
			xfree(path);
			continue;
		}
		while (getline(&line, &cap, f) > 0)
			n += _journal_line(line);
		free(line);
		fclose(f);
		xfree(path);
	}
	return n;
}

extern int libra_slurm_write_state(const char *name, const char *text)
{
	char *dir = slurm_conf.state_save_location, *tmp = NULL, *path = NULL;
	int fd, rc = -1;

	xstrfmtcat(path, "%s/%s", dir, name);
	xstrfmtcat(tmp, "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && !libra_write_all(fd, text, strlen(text)) &&
	    !fsync(fd) && !close(fd)) {
		fd = -1;
		rc = rename(tmp, path);
	}
	if (rc) {
		error("%s: cannot write %s: %m", plugin_type, path);
		if (fd >= 0)
			close(fd);
		(void) unlink(tmp);
	} else if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		   fsync(fd)) {
		/* the new file is in place, if not yet surely on disk */
		error("%s: cannot sync the directory %s: %m", plugin_type, dir);
	}
	if (!rc && fd >= 0)
		close(fd);
	xfree(tmp);
	xfree(path);
	return rc;
}

extern void libra_slurm_copy_state(const char *from, const char *to)
{
	char *src = NULL, *dst = NULL, buf[65536];
	int in, out = -1;
	ssize_t n = 0;

	xstrfmtcat(src, "%s/%s", slurm_conf.state_save_location, from);
	xstrfmtcat(dst, "%s/%s", slurm_conf.state_save_location, to);
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0600);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t) n) != n) {
			n = -1;
			break;
		}
	if (in < 0 || out < 0 || n < 0)
		error("%s: cannot copy %s to %s: %m", plugin_type, src, dst);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	xfree(src);
	xfree(dst);
}

/* ---- licenses (design.md decision 29) ------------------------------------ */

/* Holds of one license, grown as the job table is walked. */
typedef struct {
	const char *name;
	libra_license_hold_t *h;
	int n, cap;
} _lic_holds_t;

/* Add what lic holds of holds->name until "until" (lic unreadable: nothing,
 * Slurm read it when the job was submitted, or it is an "or" of 26.05). */
static void _lic_hold(_lic_holds_t *holds, const char *lic, double until)
{
	libra_license_ask_t a[LIBRA_LICENSES_MAX];
	int i, n = libra_license_parse(lic, a, LIBRA_LICENSES_MAX);

	for (i = 0; i < n; i++) {
		if (strcmp(a[i].name, holds->name))
			continue;
		if (holds->n == holds->cap) {
			holds->cap = holds->cap ? 2 * holds->cap : 16;
			xrecalloc(holds->h, holds->cap, sizeof(*holds->h));
		}
		holds->h[holds->n].count = a[i].count;
		holds->h[holds->n].until = until;
		holds->n++;
	}
}

/* When a job that has started gives its licenses back: its end (now at
 * the earliest: a completing job holds them until its epilog is done). */
static double _lic_until(job_record_t *job_ptr, double now)
{
	if (IS_JOB_RUNNING(job_ptr) && job_ptr->time_limit == INFINITE)
		return INFINITY;
	return MAX((double) job_ptr->end_time, now + 1.0);
}

/* The holds of holds->name: the job table's and extra's (those whose job
 * is not in the table yet). */
static void _lic_holds(_lic_holds_t *holds, double now,
		       const libra_slurm_lic_hold_t *extra, int nextra)
{
	uint32_t *seen = NULL;
	int i, j, nseen = 0;
	libra_list_itr_t iter;
	job_record_t *job_ptr;
	libra_record_t rec;

	iter = list_iterator_create(job_list);
	while ((job_ptr = list_next(iter))) {
		bool started = IS_JOB_RUNNING(job_ptr) ||
			       IS_JOB_SUSPENDED(job_ptr) ||
			       IS_JOB_COMPLETING(job_ptr);

		if (!job_ptr->licenses ||
		    (!started && !IS_JOB_PENDING(job_ptr)))
			continue;
		if (started)
			_lic_hold(holds, job_ptr->licenses,
				  _lic_until(job_ptr, now));
		if (!libra_slurm_job_record(job_ptr, &rec))
			continue;
		if (!started && !rec.best_effort)
			_lic_hold(holds, job_ptr->licenses, rec.sla.deadline);
		/* its admission's token, if the sync has not re-keyed it */
		xrecalloc(seen, nseen + 1, sizeof(*seen));
		seen[nseen++] = rec.token;
		libra_record_free(&rec);
	}
	list_iterator_destroy(iter);
	for (i = 0; i < nextra; i++) {
		for (j = 0; j < nseen && seen[j] != extra[i].token; j++)
			;
		if (j == nseen)
			_lic_hold(holds, extra[i].licenses, extra[i].until);
	}
	xfree(seen);
}

extern int libra_slurm_licenses(const char *lic, double from, double now,
				const libra_slurm_lic_hold_t *extra,
				int nextra, char **err_msg)
{
	libra_license_ask_t a[LIBRA_LICENSES_MAX];
	int i, n, rc = SLURM_SUCCESS;
	uint32_t total, free_now;
	_lic_holds_t holds;
	double when;
	char span[32];

	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if ((n = libra_license_parse(lic, a, LIBRA_LICENSES_MAX)) < 0) {
		xstrfmtcat(*err_msg, "libra: rejected: licenses: '%s' cannot be counted by admission (an SLA job asks licenses as name[:count], separated by commas, at most %d names, no '|')",
			   lic, LIBRA_LICENSES_MAX);
		return ESLURM_INVALID_LICENSES;
	}
	for (i = 0; i < n && !rc; i++) {
		if (!a[i].count)
			continue;
		total = get_total_license_cnt(a[i].name);
		if (a[i].count > total) {
			xstrfmtcat(*err_msg, "libra: rejected: licenses: %s: %u asked, %u configured",
				   a[i].name, a[i].count, total);
			return ESLURM_INVALID_LICENSES;
		}
		memset(&holds, 0, sizeof(holds));
		holds.name = a[i].name;
		_lic_holds(&holds, now, extra, nextra);
		free_now = libra_license_free(total, holds.h, holds.n, from);
		if (free_now < a[i].count) {
			when = libra_license_free_when(total, holds.h, holds.n,
						       a[i].count, from);
			xstrfmtcat(*err_msg, "libra: rejected: licenses: %s: %u asked, %u free",
				   a[i].name, a[i].count, free_now);
			if (isinf(when)) {
				xstrfmtcat(*err_msg, ", held by jobs without a time limit");
			} else {
				libra_format_duration(when - now, span,
						      sizeof(span));
				xstrfmtcat(*err_msg, " until %s from now, when jobs holding them end",
					   span);
			}
			rc = LIBRA_ESLURM_LICENSES_HELD;
		}
		xfree(holds.h);
	}
	return rc;
}

/* ---- QOS and association limits (design.md decision 29) ------------------ */

/*
 * The TRES a pending job of this request counts against limits, as
 * slurmctld sets a new job's tres_req_cnt (_job_create()): CPUs, nodes,
 * memory from Slurm's own job_get_tres_mem() (per CPU times the CPUs, per
 * node times the nodes; all of a node's, --mem=0, counts 0 until
 * allocated, as for any pending job), GPUs on gres/gpu when it is a TRES,
 * and billing from the partition's TRESBillingWeights.  assoc_mgr's TRES
 * lock held.
 */
static void _tres_asked(uint64_t *tres, part_record_t *part_ptr, int cpus,
			int nodes, const libra_demand_t *d)
{
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
	uint64_t pn_mem = 0;
	int pos, gpus;

	tres[TRES_ARRAY_CPU] = (uint64_t) cpus;
	tres[TRES_ARRAY_NODE] = (uint64_t) nodes;
	if (d->mem_per_cpu)
		pn_mem = d->mem_per_cpu | MEM_PER_CPU;
	else if (d->mem_per_node && !d->mem_whole_node)
		pn_mem = d->mem_per_node;
	if (pn_mem)
		tres[TRES_ARRAY_MEM] = job_get_tres_mem(NULL, pn_mem, cpus,
							 nodes, part_ptr, NULL,
							 true, NO_VAL16,
							 NO_VAL);
	gpus = d->gpus ? d->gpus : d->gpus_per_node * nodes;
	if (gpus > 0 && (pos = assoc_mgr_find_tres_pos(&gpu, true)) >= 0)
		tres[pos] = (uint64_t) gpus;
	tres[TRES_ARRAY_BILLING] =
		(uint64_t) assoc_mgr_tres_weighted(tres,
						   part_ptr->billing_weights,
						   slurm_conf.priority_flags,
						   true);
}

/* Slurm's verdict on a job record made for the question; false: held,
 * with the reason in job_ptr->state_reason.  assoc_mgr locks held. */
static bool _limits_runnable(job_record_t *job_ptr, int cpus, int nodes,
			     const libra_demand_t *d)
{
	uint64_t *tres = xcalloc(slurmctld_tres_cnt, sizeof(*tres));
	bool ok;

	_tres_asked(tres, job_ptr->part_ptr, cpus, nodes, d);
	ok = acct_policy_job_runnable_pre_select(job_ptr, true) &&
	     acct_policy_job_runnable_post_select(job_ptr, tres, true);
	xfree(tres);
	return ok;
}

extern int libra_slurm_limits(job_desc_msg_t *job_desc,
			      part_record_t *part_ptr, int cpus, int nodes,
			      const libra_demand_t *d, uint32_t time_limit,
			      char **err_msg)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK,
				   .qos = LIBRA_ACCT_POLICY_QOS_LOCK,
				   .tres = READ_LOCK, .user = READ_LOCK };
	slurmdb_assoc_rec_t assoc_rec, *assoc_ptr = NULL;
	slurmdb_qos_rec_t qos_rec, *qos_ptr = NULL;
	libra_job_details_t details;
	job_record_t job;
	bool ok = true;

	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) || !part_ptr)
		return SLURM_SUCCESS;
	memset(&assoc_rec, 0, sizeof(assoc_rec));
	assoc_rec.acct = job_desc->account;
	assoc_rec.partition = part_ptr->name;
	assoc_rec.uid = job_desc->user_id;
	memset(&qos_rec, 0, sizeof(qos_rec));
	qos_rec.name = job_desc->qos;
	memset(&job, 0, sizeof(job));
	memset(&details, 0, sizeof(details));

	assoc_mgr_lock(&locks);
	if (assoc_mgr_fill_in_assoc(acct_db_conn, &assoc_rec,
				    accounting_enforce, &assoc_ptr, true) ||
	    !assoc_ptr)
		goto unlock;
	assoc_mgr_get_default_qos_info(assoc_ptr, &qos_rec);
	if (assoc_mgr_fill_in_qos(acct_db_conn, &qos_rec, accounting_enforce,
				  &qos_ptr, true))
		goto unlock;
	job.magic = JOB_MAGIC;
	job.job_state = JOB_PENDING;
	job.user_id = job_desc->user_id;
	job.assoc_id = assoc_ptr->id;
	job.assoc_ptr = assoc_ptr;
	job.account = assoc_ptr->acct;
	job.partition = part_ptr->name;
	job.part_ptr = part_ptr;
	job.qos_ptr = qos_ptr;
	job.qos_id = qos_ptr ? qos_ptr->id : 0;
	job.time_limit = time_limit;
	details.min_cpus = (uint32_t) cpus;
	details.min_nodes = (uint32_t) nodes;
	job.details = &details;
	job.limit_set.tres = xcalloc(slurmctld_tres_cnt,
				     sizeof(*job.limit_set.tres));
	ok = _limits_runnable(&job, cpus, nodes, d);
unlock:
	assoc_mgr_unlock(&locks);
	if (!ok) {
		xstrfmtcat(*err_msg, "libra: rejected: limits: Slurm would hold the job with reason %s (account %s, QOS %s), so it cannot be admitted to meet a deadline; submit it once the limit allows",
			   libra_job_reason_string(job.state_reason),
			   assoc_ptr->acct ? assoc_ptr->acct : "?",
			   qos_ptr ? qos_ptr->name : "none");
	}
	xfree(job.state_desc);
	xfree(job.limit_set.tres);
	return ok ? SLURM_SUCCESS : ESLURM_ACCOUNTING_POLICY;
}
