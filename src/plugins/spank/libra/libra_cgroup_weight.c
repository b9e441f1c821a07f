/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_cgroup_weight.c - the SPANK plugin's cgroup weight (the design is
 *  in libra_cgroup.c's header): the job's SLA, its share now and the
 *  weight that gives it, kept up to date by a thread in slurmstepd.
 *
 *  The SLA is what the ledger committed, read from the job's record
 *  (AdminComment) as slurmctld has it: a re-planned job's plan (decision
 *  34), a bag's task paced to the end of its lane (decision 36).  Every
 *  libra_weight_interval the thread reads the CPU time the job's cgroup
 *  reports (cpuacct.usage in v1, cpu.stat in v2; in Slurm's cgroup/v2
 *  tree its steps' user time only, decision 31), and writes the weight of
 *  the job's share (share.h) times its CPUs on the node; a best-effort
 *  job runs at share_min.  A job admitted on a prediction tells slurmctld
 *  when it has reached its plan (decision 34).
\*****************************************************************************/

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "libra_cgroup_int.h"
#include "libra_compat.h"
#include "predict.h"
#include "record.h"
#include "share.h"
#include "bag.h"
#include "sla.h"

/* ------------------------------------------------------------- SLA */

/*
 * A task of a job array admitted as one bag (decision 36): its own run
 * time, paced to the end sched/libra gave it on its lane.  Until its
 * record has that (a task Slurm's own scheduler started is given it at
 * sched/libra's next pass), it is paced as a task of the first wave and
 * its record read again at the next interval.
 */
static void _bag_task(const libra_record_t *rec)
{
	struct timespec now;

	if (rec->bag.tasks <= 0)
		return;
	cg.runtime = rec->bag.runtime;
	if (rec->bag.target > 0.0) {
		cg.target = rec->bag.target;
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	cg.target = libra_bag_task_target(now.tv_sec + now.tv_nsec / 1e9,
					  rec->sla.deadline, rec->bag.waves);
	cg.reload = true;
}

/* Fetch the job's record from slurmctld: its SLA and CPUs here. */
extern bool libra_cgroup_load_sla(void)
{
	job_info_msg_t *msg = NULL;
	libra_record_t rec;
	char err[256];
	bool ok = false;

	if (libra_load_job(&msg, cg.job_id, SHOW_DETAIL) || !msg ||
	    msg->record_count < 1) {
		int rc = libra_errno();

		/*
		 * A step run with "srun --no-allocate" (root only) has no job
		 * record in slurmctld, hence no SLA and no share: not an error.
		 */
		if (rc == ESLURM_INVALID_JOB_ID)
			slurm_debug("libra: job %u: no job record in slurmctld (srun --no-allocate?): no share to enforce",
				    cg.job_id);
		else
			slurm_error("libra: job %u: cannot load its record from slurmctld: %s",
				    cg.job_id, slurm_strerror(rc));
		if (msg)
			slurm_free_job_info_msg(msg);
		return false;
	}
	cg.has_sla = true;
	cg.best_effort = true;
	cg.slurms = true;
	if (msg->job_array[0].admin_comment &&
	    !strncmp(msg->job_array[0].admin_comment, "{\"libra\":", 9)) {
		cg.slurms = false;
		if (libra_record_from_json(msg->job_array[0].admin_comment,
					   &rec, err, sizeof(err))) {
			slurm_error("libra: job %u: unreadable record: %s",
				    cg.job_id, err);
		} else {
			if (!rec.best_effort) {
				libra_sla_t sla;

				/* what the ledger committed: the runtime
				 * (a re-planned job's plan, decision 34)
				 * and the share's target: a due date's,
				 * opt=time's or a plan's paced end, else
				 * the deadline (libra_sla_target()) */
				libra_record_committed_sla(&rec, &sla);
				cg.best_effort = false;
				cg.runtime = sla.runtime;
				cg.deadline = sla.deadline;
				cg.target = libra_sla_target(&sla);
				cg.begin = rec.begin;
				cg.predicted = !(rec.declared > 0.0) ? 0.0 :
					       rec.replanned > 0.0 ? rec.plan :
					       rec.predicted;
				/* not a bag's task (its lane paces it) nor
				 * a job requeued after a node failure (the
				 * provider's late start to make good) */
				cg.from = rec.bag.tasks > 0 ||
					  rec.requeues > 0 ? 0.0 :
					  fmax(libra_record_commit_time(&rec),
					       rec.begin);
				_bag_task(&rec);
			}
			cg.speed = 1.0;
			for (int i = 0; i < rec.nplace; i++)
				if (!strcmp(rec.place[i].node, cg.node)) {
					cg.cpus = rec.place[i].cpus /
						  (rec.bag.lanes > 0 ?
						   rec.bag.lanes : 1);
					if (rec.place[i].speed > 0.0)
						cg.speed = rec.place[i].speed;
				}
			/* the work in this node's seconds, as the ledger
			 * committed it (decision 43) */
			if (!rec.best_effort)
				cg.runtime /= cg.speed;
			libra_record_free(&rec);
		}
	}
	ok = true;
	slurm_free_job_info_msg(msg);
	return ok;
}

/* ------------------------------------------------------------ weight */

/* A v2 cgroup's CPU time: cpu.stat's usage_usec, in seconds. */
static double _usage_seconds(const char *dir)
{
	char buf[256];

	if (libra_cgroup_read_file(dir, "cpu.stat", buf, sizeof(buf)))
		return 0.0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!strncmp(l, "usage_usec ", 11))
			return strtod(l + 11, NULL) / 1e6;
	return 0.0;
}

/*
 * The CPU time of the job's tasks in Slurm's cgroup/v2 tree: the sum over
 * job_<id>/step_<s>/user.  Slurm keeps each step's slurmstepd in
 * step_<s>/slurm, so job_<id>'s own cpu.stat also counts the daemons'
 * time (seen in the VM: about half a second of a 6-second job under
 * emulation), which is not the job's work.
 */
static double _slurm_user_seconds(void)
{
	DIR *d = opendir(cg.acct_job);
	struct dirent *de;
	char dir[PATH_MAX];
	double sum = 0.0;

	if (!d)
		return 0.0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "step_", 5))
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s/user", cg.acct_job,
			     de->d_name) < (int) sizeof(dir))
			sum += _usage_seconds(dir);
	}
	closedir(d);
	return sum;
}

static double _cpu_seconds(void)
{
	char buf[256];

	if (cg.version == 1) {
		if (libra_cgroup_read_file(cg.acct_job, "cpuacct.usage", buf,
					   sizeof(buf)))
			return 0.0;
		return strtod(buf, NULL) / 1e9;
	}
	if (cg.slurm_owned)
		return _slurm_user_seconds();
	return _usage_seconds(cg.acct_job);
}

/* CPU-seconds per CPU the job has done here. */
static double _done(void)
{
	return _cpu_seconds() / (cg.cpus > 0 ? cg.cpus : 1);
}

/* The job's share now, per CPU (share.h clamps). */
static double _share_now(void)
{
	double done, share, cap;
	struct timespec now;

	if (cg.has_sla && cg.slurms)
		return 1.0;	/* its CPUs are its own (decision 27) */
	if (!cg.has_sla || cg.best_effort)
		return cg.share_min;
	done = _done();
	clock_gettime(CLOCK_REALTIME, &now);
	/* share_min before its begin (a job counted from a boot that came
	 * early); paced to its target, past that to its deadline
	 * (libra_share_enforced()); never above what was committed to it
	 * (libra_share_committed()) */
	share = libra_share_enforced(cg.runtime, done,
				     now.tv_sec + now.tv_nsec / 1e9, cg.begin,
				     cg.target, cg.deadline, cg.interval,
				     cg.share_min);
	cap = libra_share_committed(cg.runtime, cg.from, cg.target,
				    cg.interval, cg.share_min);
	return cap > 0.0 && share > cap ? cap : share;
}

/* Write the job's weight for its share now, when it changed (cg.mutex held). */
extern void libra_cgroup_update_weight(void)
{
	double share = _share_now() * (cg.cpus > 0 ? cg.cpus : 1);
	unsigned w;
	char val[32];

	if (cg.version == 1) {
		w = libra_weight_v1(share);
		snprintf(val, sizeof(val), "%u", w);
		if (w != cg.last_weight &&
		    !libra_cgroup_write_file(cg.cpu_job, "cpu.shares", val))
			cg.last_weight = w;
	} else {
		w = libra_weight_v2(share);
		snprintf(val, sizeof(val), "%u", w);
		if (w == cg.last_weight)
			return;
		if (!libra_cgroup_write_file(cg.cpu_job, "cpu.weight", val)) {
			cg.last_weight = w;
			return;
		}
		if (cg.weight_failed)
			return;
		cg.weight_failed = true;
		if (errno == ENOENT)
			slurm_error("libra: job %u: %s has no cpu.weight (the cpu controller is not enabled in its parent's cgroup.subtree_control): its share is not enforced",
				    cg.job_id, cg.cpu_job);
		else
			slurm_error("libra: job %u: cannot write cpu.weight %s in %s: %m",
				    cg.job_id, val, cg.cpu_job);
	}
}

/*
 * A job admitted on a prediction that has reached its plan (decision 34):
 * tell slurmctld how much it has done, once per plan, as an AdminComment
 * update that job_submit/qos takes as a report (LIBRA_PROGRESS_PREFIX),
 * and read its record again at the next interval: its new plan, when it
 * was re-planned.
 */
static void _report(void)
{
	job_desc_msg_t d;
	char text[64], id[16];
	double done;

	if (cg.reload) {
		cg.reload = false;
		libra_cgroup_load_sla();
		return;
	}
	if (!(cg.predicted > 0.0) || cg.reported == cg.predicted)
		return;
	/* in reference seconds, as the plan is (decision 43) */
	if ((done = _done() * cg.speed) < cg.predicted - LIBRA_REPLAN_EPS)
		return;
	slurm_init_job_desc_msg(&d);
	/* the job by its id string: the numeric field moved into step_id
	 * in 26.05, the string is in every release */
	snprintf(id, sizeof(id), "%u", cg.job_id);
	d.job_id_str = id;
	snprintf(text, sizeof(text), LIBRA_PROGRESS_PREFIX "%.3f", done);
	d.admin_comment = text;
	if (slurm_update_job(&d)) {
		slurm_error("libra: job %u: cannot report its progress to slurmctld: %s",
			    cg.job_id, slurm_strerror(errno));
		return;
	}
	slurm_info("libra: job %u: at its plan of %.1f s with %.1f s of CPU per CPU done: reported",
		   cg.job_id, cg.predicted, done);
	cg.reported = cg.predicted;
	cg.reload = true;
}

/*
 * The updater thread (libra_cgroup_task() starts it, libra_cgroup_exit()
 * stops it): every interval, the record read again when due, then the
 * weight.
 */
extern void *libra_cgroup_updater(void *arg)
{
	struct timespec ts;

	pthread_mutex_lock(&cg.mutex);
	while (!cg.stop) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t) cg.interval;
		ts.tv_nsec += (long) ((cg.interval - floor(cg.interval)) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&cg.cond, &cg.mutex, &ts);
		if (cg.stop)
			break;
		if (!cg.has_sla)	/* slurmctld was unreachable */
			libra_cgroup_load_sla();
		else
			_report();
		libra_cgroup_update_weight();
	}
	pthread_mutex_unlock(&cg.mutex);
	return NULL;
}
