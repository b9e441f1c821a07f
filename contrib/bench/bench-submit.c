/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  bench-submit.c - submission throughput and submit-to-running latency of
 *  a Slurm cluster, through the Slurm API (libslurm), with no sbatch in
 *  the way (sbatch costs ~30 ms of its own per job: fork, exec, option
 *  parsing, SPANK).
 *
 *  bench-submit submit -n COUNT [-P PROCS] [options]
 *	COUNT batch jobs, back to back, by PROCS processes at once (each
 *	slurm_submit_batch_job() waits for slurmctld's answer before the
 *	next).  Prints one line:
 *	  submitted=N failed=F seconds=S rate=R first_error="..."
 *	The clock runs from the moment all processes are released until the
 *	last answer.
 *
 *  bench-submit latency -n COUNT [options]
 *	COUNT jobs one after another on an otherwise idle cluster: submit,
 *	then poll slurm_load_job() every --poll-us until slurmctld reports
 *	the job no longer PENDING (RUNNING, or already done); that interval
 *	is the latency.  Then wait until the job has ended before the next,
 *	so that the cluster is idle again.  Prints one line per job
 *	("sample MS") and a summary:
 *	  n=N min=... p50=... p99=... max=... (milliseconds)
 *
 *  Options: --comment TEXT (the SLA), --hold (priority 0: pending until
 *  released, as sbatch --hold), --time MINUTES (default 10), --nodelist
 *  LIST, --script TEXT (default "#!/bin/sh\nexit 0\n"), --name NAME,
 *  --workdir DIR (default /tmp), --poll-us N (default 1000), --timeout S
 *  (latency: give up on a job after S seconds, default 60).
 *
 *  Jobs run as the calling user; their output goes to /dev/null.
\*****************************************************************************/

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static const char *opt_comment, *opt_nodelist, *opt_name = "bench";
static const char *opt_script = "#!/bin/sh\nexit 0\n";
static const char *opt_workdir = "/tmp";
static int opt_hold, opt_time = 10, opt_count = 100, opt_procs = 1;
static long opt_poll_us = 1000;
static double opt_timeout = 60.0;

static char *job_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin",
			   "HOME=/tmp", NULL };

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void _desc(job_desc_msg_t *d)
{
	slurm_init_job_desc_msg(d);
	d->name = (char *) opt_name;
	d->script = (char *) opt_script;
	d->work_dir = (char *) opt_workdir;
	d->std_out = "/dev/null";
	d->std_err = "/dev/null";
	d->user_id = getuid();
	d->group_id = getgid();
	d->min_nodes = 1;
	d->max_nodes = 1;
	d->num_tasks = 1;
	d->min_cpus = 1;
	d->time_limit = (uint32_t) opt_time;
	d->environment = job_env;
	d->env_size = 2;
	if (opt_comment)
		d->comment = (char *) opt_comment;
	if (opt_nodelist)
		d->req_nodes = (char *) opt_nodelist;
	if (opt_hold)
		d->priority = 0;	/* as sbatch --hold */
}

/* Submit one job; returns its id, or 0 with errno set. */
static uint32_t _submit_one(job_desc_msg_t *d)
{
	submit_response_msg_t *resp = NULL;
	uint32_t id;

	if (slurm_submit_batch_job(d, &resp) != SLURM_SUCCESS)
		return 0;
	id = resp ? resp->job_id : 0;
	slurm_free_submit_response_response_msg(resp);
	return id;
}

/* ------------------------------------------------------------ submit */

typedef struct {
	int ok, failed, first_errno;
} result_t;

static void _submit_child(int n, int start_fd, int out_fd)
{
	job_desc_msg_t d;
	result_t r = { 0, 0, 0 };
	char c;

	_desc(&d);
	if (read(start_fd, &c, 1) < 0)	/* released at EOF */
		_exit(1);
	for (int i = 0; i < n; i++) {
		if (_submit_one(&d)) {
			r.ok++;
		} else {
			if (!r.failed)
				r.first_errno = slurm_get_errno();
			r.failed++;
		}
	}
	if (write(out_fd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

static int _cmd_submit(void)
{
	int start[2], out[2], ok = 0, failed = 0, first_errno = 0;
	pid_t *pids = calloc((size_t) opt_procs, sizeof(pid_t));
	double t0, t1;

	if (!pids || pipe(start) || pipe(out)) {
		perror("bench-submit");
		return 1;
	}
	for (int p = 0; p < opt_procs; p++) {
		int n = opt_count / opt_procs + (p < opt_count % opt_procs);

		pids[p] = fork();
		if (pids[p] < 0) {
			perror("bench-submit: fork");
			return 1;
		}
		if (!pids[p]) {
			close(start[1]);
			close(out[0]);
			_submit_child(n, start[0], out[1]);
		}
	}
	close(start[0]);
	close(out[1]);
	usleep(100000);		/* let every child reach its read() */
	t0 = _now();
	close(start[1]);	/* go */
	for (int p = 0; p < opt_procs; p++) {
		result_t r;

		if (read(out[0], &r, sizeof(r)) != sizeof(r)) {
			fprintf(stderr, "bench-submit: a submitter died\n");
			return 1;
		}
		ok += r.ok;
		failed += r.failed;
		if (r.failed && !first_errno)
			first_errno = r.first_errno;
	}
	t1 = _now();
	for (int p = 0; p < opt_procs; p++)
		waitpid(pids[p], NULL, 0);
	printf("submitted=%d failed=%d procs=%d seconds=%.3f rate=%.1f first_error=\"%s\"\n",
	       ok, failed, opt_procs, t1 - t0, ok / (t1 - t0),
	       failed ? slurm_strerror(first_errno) : "");
	free(pids);
	return failed ? 1 : 0;
}

/* ----------------------------------------------------------- latency */

/* The job's state (base state and flags), or -1 if slurmctld no longer
 * knows it. */
static int _job_state(uint32_t id)
{
	job_info_msg_t *msg = NULL;
	int state;

	if (slurm_load_job(&msg, id, SHOW_ALL) != SLURM_SUCCESS || !msg ||
	    !msg->record_count) {
		slurm_free_job_info_msg(msg);
		return -1;
	}
	state = (int) msg->job_array[0].job_state;
	slurm_free_job_info_msg(msg);
	return state;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

static double _pct(const double *v, int n, double q)
{
	int k = (int) ceil(q * n) - 1;

	return v[k < 0 ? 0 : (k >= n ? n - 1 : k)];
}

static int _cmd_latency(void)
{
	double *lat = calloc((size_t) opt_count, sizeof(double));
	job_desc_msg_t d;
	int n = 0;

	if (!lat)
		return 1;
	_desc(&d);
	for (int i = 0; i < opt_count; i++) {
		double t0 = _now(), t1 = 0.0;
		uint32_t id = _submit_one(&d);
		int st;

		if (!id) {
			fprintf(stderr, "bench-submit: submission failed: %s\n",
				slurm_strerror(slurm_get_errno()));
			return 1;
		}
		for (;;) {
			st = _job_state(id);
			if (st < 0 || (st & JOB_STATE_BASE) != JOB_PENDING) {
				t1 = _now();
				break;
			}
			if (_now() - t0 > opt_timeout) {
				fprintf(stderr, "bench-submit: job %u still pending after %.0f s\n",
					id, opt_timeout);
				return 1;
			}
			usleep((useconds_t) opt_poll_us);
		}
		lat[n++] = (t1 - t0) * 1e3;
		printf("sample %.3f job=%u\n", lat[n - 1], id);
		fflush(stdout);
		/*
		 * Let it end, completing phase included, so that the next job
		 * finds the cluster idle (stock schedule() starts nothing while
		 * any job is still completing).
		 */
		while ((st = _job_state(id)) >= 0 &&
		       ((st & JOB_STATE_BASE) == JOB_RUNNING ||
			(st & JOB_STATE_BASE) == JOB_PENDING ||
			(st & JOB_STATE_BASE) == JOB_SUSPENDED ||
			(st & JOB_COMPLETING))) {
			if (_now() - t0 > opt_timeout) {
				fprintf(stderr, "bench-submit: job %u did not end within %.0f s\n",
					id, opt_timeout);
				return 1;
			}
			usleep(10000);
		}
		usleep(100000);
	}
	qsort(lat, (size_t) n, sizeof(*lat), _cmp_double);
	printf("n=%d min=%.3f p50=%.3f p99=%.3f max=%.3f\n", n, lat[0],
	       _pct(lat, n, 0.5), _pct(lat, n, 0.99), lat[n - 1]);
	free(lat);
	return 0;
}

/* -------------------------------------------------------------- main */

static void _usage(void)
{
	fprintf(stderr,
		"usage: bench-submit submit|latency -n COUNT [-P PROCS] [--hold]\n"
		"       [--comment TEXT] [--time MIN] [--nodelist LIST] [--script TEXT]\n"
		"       [--name NAME] [--workdir DIR] [--poll-us N] [--timeout S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		_usage();
	cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--hold")) {
			opt_hold = 1;
			continue;
		}
		if (!v)
			_usage();
		i++;
		if (!strcmp(a, "-n"))
			opt_count = atoi(v);
		else if (!strcmp(a, "-P"))
			opt_procs = atoi(v);
		else if (!strcmp(a, "--comment"))
			opt_comment = v;
		else if (!strcmp(a, "--time"))
			opt_time = atoi(v);
		else if (!strcmp(a, "--nodelist"))
			opt_nodelist = v;
		else if (!strcmp(a, "--script"))
			opt_script = v;
		else if (!strcmp(a, "--name"))
			opt_name = v;
		else if (!strcmp(a, "--workdir"))
			opt_workdir = v;
		else if (!strcmp(a, "--poll-us"))
			opt_poll_us = atol(v);
		else if (!strcmp(a, "--timeout"))
			opt_timeout = atof(v);
		else
			_usage();
	}
	if (opt_count < 1 || opt_procs < 1 || opt_procs > opt_count)
		_usage();
	signal(SIGPIPE, SIG_IGN);
	slurm_init(NULL);
	if (!strcmp(cmd, "submit"))
		return _cmd_submit();
	if (!strcmp(cmd, "latency"))
		return _cmd_latency();
	_usage();
	return 2;
}
