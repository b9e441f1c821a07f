/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_submit - submit batch jobs with the Slurm API, fast or odd.
 *
 *  usage: libra_submit [options]
 *    -n COUNT          submissions (default 1)
 *    -w WORKERS        processes submitting at once (default 1)
 *    -c COMMENT        --comment; several -c are used in turn (i mod k)
 *    -C FILE           comments from FILE, NUL-separated, one submission
 *                      each (overrides -n)
 *    -a EVERY:COMMENT  every EVERY-th submission (i % EVERY == 0) uses
 *                      COMMENT instead (e.g. the jobs meant to be admitted)
 *    -s KEY=VALUE      a SPANK option of the libra plugin, sent as
 *                      _SLURM_SPANK_OPTION_libra_KEY=VALUE (repeatable)
 *    -S FILE           raw SPANK environment entries from FILE,
 *                      NUL-separated, one per submission (overrides -n)
 *    -A TEXT           AdminComment (only operators may set it)
 *    -e NAME=VALUE     an extra variable in the job's environment
 *    -x SCRIPT         the batch script body (default "true")
 *    -p CPUS           CPUs (tasks) per job (default 1)
 *    -D DIR            working directory (default /tmp)
 *    -H                submit held (priority 0)
 *    -q                quiet: no per-submission lines
 *
 *  One line per submission on standard error, after whatever Slurm itself
 *  printed for it (a refusal's message is logged by libslurm as
 *  "error: ..."):
 *	RESULT <index> <rc> <jobid or 0> <errno name> <user message>
 *  and a summary on standard output:
 *	submitted N admitted A refused R failed F seconds S rate R/s
 *  "failed" counts communication errors (no answer from slurmctld).
 *  Exit status 0 unless a submission failed to communicate.
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#define MAXLIST 64

static char *comments[MAXLIST];
static int ncomments;
static char **file_items;	/* -C or -S */
static int nfile_items, file_is_spank;
static int admit_every;
static char *admit_comment;
static char *spank_opts[MAXLIST];
static int nspank;
static char *extra_env[MAXLIST];
static int nextra;
static char *admin_comment, *script_body = "true", *work_dir = "/tmp";
static int cpus = 1, hold, quiet;

typedef struct {
	long admitted, refused, failed;
} counts_t;

static double _now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* NUL-separated items of a file. */
static int _read_items(const char *path, char ***out)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0, max = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	*out = NULL;
	while ((len = getdelim(&buf, &cap, '\0', f)) > 0) {
		if (n == max) {
			max = max ? 2 * max : 256;
			*out = realloc(*out, max * sizeof(**out));
		}
		(*out)[n++] = strdup(buf);
	}
	free(buf);
	fclose(f);
	return n;
}

static void _submit(long i, counts_t *c)
{
	job_desc_msg_t d;
	submit_response_msg_t *resp = NULL;
	char *env[MAXLIST + 4], *spank[MAXLIST + 1], script[4096], name[32];
	int nenv = 0, nsp = 0, rc;

	slurm_init_job_desc_msg(&d);
	snprintf(name, sizeof(name), "api%ld", i);
	d.name = name;
	d.user_id = getuid();
	d.group_id = getgid();
	d.work_dir = work_dir;
	d.std_out = "/dev/null";
	d.std_err = "/dev/null";
	snprintf(script, sizeof(script), "#!/bin/sh\n%s\n", script_body);
	d.script = script;
	env[nenv++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	env[nenv++] = "HOME=/tmp";
	for (int k = 0; k < nextra; k++)
		env[nenv++] = extra_env[k];
	env[nenv] = NULL;
	d.environment = env;
	d.env_size = nenv;
	d.min_cpus = cpus;
	d.num_tasks = cpus;
	d.min_nodes = 1;
	if (hold)
		d.priority = 0;
	if (admin_comment)
		d.admin_comment = admin_comment;

	if (file_items && !file_is_spank)
		d.comment = file_items[i];
	else if (admit_every && i % admit_every == 0)
		d.comment = admit_comment;
	else if (ncomments)
		d.comment = comments[i % ncomments];

	for (int k = 0; k < nspank; k++)
		spank[nsp++] = spank_opts[k];
	if (file_items && file_is_spank)
		spank[nsp++] = file_items[i];
	spank[nsp] = NULL;
	if (nsp) {
		d.spank_job_env = spank;
		d.spank_job_env_size = nsp;
	}

	errno = 0;
	rc = slurm_submit_batch_job(&d, &resp);
	if (rc == SLURM_SUCCESS && resp) {
		c->admitted++;
		if (!quiet)
			dprintf(2, "RESULT %ld 0 %u OK %s\n", i, resp->job_id,
				resp->job_submit_user_msg ?
				resp->job_submit_user_msg : "");
		slurm_free_submit_response_response_msg(resp);
		return;
	}
	rc = slurm_get_errno();
	if (rc == SLURM_COMMUNICATIONS_CONNECTION_ERROR ||
	    rc == SLURM_COMMUNICATIONS_SEND_ERROR ||
	    rc == SLURM_COMMUNICATIONS_RECEIVE_ERROR ||
	    rc == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR ||
	    rc == SLURMCTLD_COMMUNICATIONS_SEND_ERROR ||
	    rc == SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR ||
	    rc == SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR ||
	    rc == SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT)
		c->failed++;
	else
		c->refused++;
	if (!quiet)
		dprintf(2, "RESULT %ld %d 0 %s\n", i, rc, slurm_strerror(rc));
}

int main(int argc, char **argv)
{
	long count = 1, workers = 1;
	counts_t *shared;
	double t0;
	int opt;

	while ((opt = getopt(argc, argv, "n:w:c:C:a:s:S:A:e:x:p:D:Hq")) != -1) {
		switch (opt) {
		case 'n': count = atol(optarg); break;
		case 'w': workers = atol(optarg); break;
		case 'c':
			if (ncomments < MAXLIST)
				comments[ncomments++] = optarg;
			break;
		case 'C':
			nfile_items = _read_items(optarg, &file_items);
			file_is_spank = 0;
			break;
		case 'a': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				goto usage;
			*colon = '\0';
			admit_every = atoi(optarg);
			admit_comment = colon + 1;
			break;
		}
		case 's':
			if (nspank < MAXLIST) {
				char *e = malloc(strlen(optarg) + 40);

				sprintf(e, "_SLURM_SPANK_OPTION_libra_%s", optarg);
				spank_opts[nspank++] = e;
			}
			break;
		case 'S':
			nfile_items = _read_items(optarg, &file_items);
			file_is_spank = 1;
			break;
		case 'A': admin_comment = optarg; break;
		case 'e':
			if (nextra < MAXLIST)
				extra_env[nextra++] = optarg;
			break;
		case 'x': script_body = optarg; break;
		case 'p': cpus = atoi(optarg); break;
		case 'D': work_dir = optarg; break;
		case 'H': hold = 1; break;
		case 'q': quiet = 1; break;
		default:
		usage:
			fprintf(stderr, "usage: see the comment at the top of libra_submit.c\n");
			return 2;
		}
	}
	if (file_items)
		count = nfile_items;
	if (workers < 1)
		workers = 1;
	if (workers > count)
		workers = count > 0 ? count : 1;

	slurm_init(NULL);
	shared = mmap(NULL, sizeof(*shared) * workers, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(shared, 0, sizeof(*shared) * workers);
	t0 = _now();
	for (long w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			for (long i = w; i < count; i += workers)
				_submit(i, &shared[w]);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	{
		counts_t t = { 0, 0, 0 };
		double secs = _now() - t0;

		for (long w = 0; w < workers; w++) {
			t.admitted += shared[w].admitted;
			t.refused += shared[w].refused;
			t.failed += shared[w].failed;
		}
		printf("submitted %ld admitted %ld refused %ld failed %ld seconds %.2f rate %.1f/s\n",
		       count, t.admitted, t.refused, t.failed, secs,
		       secs > 0 ? count / secs : 0.0);
		slurm_fini();
		return t.failed ? 1 : 0;
	}
}
