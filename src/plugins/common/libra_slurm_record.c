/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_slurm_record.c - a job's record in its AdminComment for the
 *  slurmctld plugins (see libra_slurm.h): read (through a cache of parsed
 *  records by job id and text, which the full sync prunes: libra_slurm_
 *  sync()), encoded and stored.
\*****************************************************************************/

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "bag.h"
#include "libra_slurm_int.h"

extern bool libra_slurm_is_record(const char *admin_comment)
{
	return libra_record_text_is_record(admin_comment);
}

/*
 * Parsed records by job id (finding F of contrib/bench/findings.md):
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

/* Free the cached records of jobs no longer active.  Job read lock. */
extern void glue_cache_prune(void)
{
	if (!rec_cache_on)
		return;
	slurm_mutex_lock(&rec_mutex);
	for (int i = 0; i < REC_CACHE; i++) {
		job_record_t *job_ptr;

		if (!rec_cache[i])
			continue;
		job_ptr = find_job_record(rec_cache[i]->job_id);
		if (!job_ptr || !glue_active(job_ptr))
			_slot_free(&rec_cache[i]);
	}
	slurm_mutex_unlock(&rec_mutex);
}

extern bool libra_slurm_is_admitted(job_record_t *job_ptr)
{
	return libra_record_text_is_record(job_ptr->admin_comment) &&
	       !libra_record_text_is_best_effort(job_ptr->admin_comment);
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

/* Is job_ptr, not self, a task of self's array still to run or running? */
static bool _bag_sibling(job_record_t *job_ptr, job_record_t *self)
{
	return job_ptr != self && job_ptr->array_job_id == self->array_job_id &&
	       (IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr) ||
		IS_JOB_SUSPENDED(job_ptr));
}

/*
 * The tasks of job_ptr's array still pending (the array's record of those
 * not split off counts once), running or suspended, but job_ptr; with
 * "task" given, its outcome, n tasks', is counted into each of their
 * records.
 */
static int _bag_live(job_record_t *job_ptr, const libra_settlement_t *task,
		     int n)
{
	libra_list_itr_t iter = list_iterator_create(job_list);
	job_record_t *other;
	int live = 0;

	while ((other = list_next(iter))) {
		libra_record_t rec;

		if (!_bag_sibling(other, job_ptr))
			continue;
		live++;
		if (!task || !libra_slurm_job_record(other, &rec))
			continue;
		if (rec.bag.tasks > 0 && !rec.settled) {
			libra_bag_count(&rec.bag, task, n);
			libra_slurm_store_record(other, &rec);
		}
		libra_record_free(&rec);
	}
	list_iterator_destroy(iter);
	return live;
}

extern bool libra_slurm_bag_done(job_record_t *job_ptr,
				 const libra_record_t *rec)
{
	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	return rec->bag.tasks <= 0 || !job_ptr->array_job_id ||
	       !_bag_live(job_ptr, NULL, 0);
}

extern bool libra_slurm_settle(job_record_t *job_ptr, libra_record_t *rec,
			       double start, double end, libra_end_t how)
{
	libra_settlement_t task;
	int n;

	LIBRA_LOCKED(JOB_LOCK, WRITE_LOCK);
	rec->settled = true;
	if (rec->bag.tasks <= 0 || !job_ptr->array_job_id) {
		libra_params_t p;

		libra_hub_lock();	/* a copy: reconfigure may change it */
		p = *libra_hub_params();
		libra_hub_unlock();
		libra_record_settle(rec, &p, start, end, how, &rec->final);
		return true;
	}
	libra_bag_task_settle(&rec->sla, start, end, how, &task);
	/* the array's pending rest, ended at once (a hard deadline, a
	 * cancel): as many tasks as it holds (libra_bag_count() keeps the
	 * tally within the bag) */
	n = (job_ptr->array_recs && job_ptr->array_recs->task_cnt > 1) ?
	    (int) job_ptr->array_recs->task_cnt : 1;
	if (_bag_live(job_ptr, &task, n)) {
		rec->final = task;
		return false;
	}
	libra_bag_count(&rec->bag, &task, n);
	libra_bag_settle(&rec->sla, &rec->bag, rec->price, start, end, how,
			 &rec->final);
	/* the site's cap binds a bag as any job (decision 37) */
	if (rec->penalty_max > 0.0 && rec->final.penalty > rec->penalty_max) {
		rec->final.charge += rec->final.penalty - rec->penalty_max;
		rec->final.penalty = rec->penalty_max;
	}
	info("%s: %pJ was the last of its array's %d tasks to end: the array's SLA %s (%d of them late, %d not completed), charge %.2f",
	     plugin_type, job_ptr, rec->bag.tasks,
	     rec->final.deadline_met ? "met" : "missed", rec->bag.late,
	     rec->bag.failed, rec->final.charge);
	return true;
}

extern bool libra_slurm_suspend_by_provider(job_record_t *job_ptr)
{
	LIBRA_LOCKED(JOB_LOCK, READ_LOCK);
	if (LIBRA_SUSPEND_BY_OWNER)
		return false;
	/* another coordinator of the account: taken for the provider's (a
	 * limit: sched_libra(8), SUSPENDED JOBS) */
	return !LIBRA_SUSPEND_BY_COORD ||
	       !libra_is_acct_coord(job_ptr->user_id, job_ptr->account);
}
