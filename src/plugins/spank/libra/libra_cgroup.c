/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_cgroup.c - node-side enforcement of deadline shares.
 *
 *  Libra's promise rests on every job getting at least its share of each
 *  processor it runs on (Yeo thesis section 3.4.3, Fig. 3.3):
 *
 *	share = (RE - cpu_done) / (TD - now)		clamped, share.h
 *
 *  The kernel divides a busy CPU between sibling cgroups in proportion to
 *  their weights, so each job's tasks go into a cgroup of its own whose
 *  weight is proportional to the job's share (times its CPUs on the node);
 *  whatever the admitted jobs leave goes to all in proportion to their
 *  shares (thesis section 6.4.2).  A thread in slurmstepd recomputes the
 *  weight every libra_weight_interval seconds from the CPU time the
 *  cgroup's own accounting reports and from the clock, until the step ends.
 *  A weight holds until the next update, so the thread paces each job to be
 *  done one interval before its deadline (libra_share_paced(), share.h).
 *
 *  Layout (cgroup v1; v2 has the same tree in one hierarchy, with
 *  cpu.weight = weight and cpu.stat's usage_usec the CPU time):
 *
 *	cpu/libra/<node>/job_<id>	cpu.shares = weight
 *	cpuacct/libra/<node>/job_<id>	cpuacct.usage = CPU time [ns]
 *	cpuset/libra/<node>		cpuset.cpus = one CPU (pin=yes)
 *
 *  One directory per emulated node, so that several slurmd on one host
 *  (each an emulated node) divide among themselves only their own jobs; with
 *  pin=yes each node is also pinned to its own CPU, where the host has
 *  enough of them.  Every directory we create is removed when the last step
 *  of its job ends; empty job directories left by a crashed slurmstepd are
 *  removed when the next step on the node starts.
 *
 *  The SLA comes from the job's record (AdminComment), fetched from
 *  slurmctld as root, never from anything the user can set.  A best-effort
 *  job (a record without an SLA, libra_no_sla=best_effort) runs at
 *  share_min.  A job with no record at all is Slurm's (libra_no_sla=slurm,
 *  doc/design.md decision 27): its tasks stay where Slurm put them, at the
 *  weight Slurm gave them, as on a stock cluster.
 *
 *  This file has the cgroup tree (v1 or v2, one directory per node and
 *  job, the pinning cpusets), the tasks put in it (or the weight put on
 *  Slurm's own cgroup/v2 job directory, decision 31) and the SPANK hooks;
 *  libra_cgroup_weight.c the job's SLA, its share and weight, and the
 *  updater thread; libra_cgroup_args.c the plugstack.conf arguments; the
 *  state they share is in libra_cgroup_int.h.
 *
 *  plugstack.conf arguments: enforce=yes|no, interval=SECONDS,
 *  share_min=FRACTION, pin=yes|no, cgroup_root=DIR, cgroup_v2_root=DIR
 *  (the v2 hierarchy, instead of the first cgroup2 mount with the cpu
 *  controller; v2 is then used even where v1 is mounted; a plain
 *  directory there is written as the kernel's files would be, which is
 *  how the tests exercise v2 on a host whose cpu controller is v1),
 *  cgroup_prefix=NAME
 *  (the top directory, "libra" by default; several clusters on one host,
 *  as in the tests, each need their own), top_weight=N (the top
 *  directory's weight against the host's other processes; left alone by
 *  default).
\*****************************************************************************/

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "libra_cgroup.h"
#include "libra_cgroup_int.h"
#include "share.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* Top directory under each controller; plugstack "cgroup_prefix=". */
char libra_dir[LIBRA_DIR_LEN] = "libra";
#define LIBRA_DIR libra_dir

/* The step's state (libra_cgroup_int.h). */
libra_cgroup_state_t cg = {
	.enforce = true,
	.interval = 2.0,
	.share_min = LIBRA_SHARE_MIN_DEFAULT,
	.root = "/sys/fs/cgroup",
	.mutex = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* ------------------------------------------------------------ files */

/*
 * Write val to dir/file (on a plain v2 tree, cg.plain, the file is made).
 * Returns 0, or -1 with errno set.
 */
extern int libra_cgroup_write_file(const char *dir, const char *file,
				   const char *val)
{
	char path[PATH_MAX];
	int fd, rc = 0, err, flags = O_WRONLY;
	ssize_t len = (ssize_t) strlen(val);
	bool procs = !strcmp(file, "cgroup.procs");

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (cg.plain)	/* a file per value; cgroup.procs a line per task */
		flags |= O_CREAT | (procs ? O_APPEND : O_TRUNC);
	if ((fd = open(path, flags, 0644)) < 0)
		return -1;
	if (write(fd, val, (size_t) len) != len ||
	    (cg.plain && procs && write(fd, "\n", 1) != 1))
		rc = -1;
	/* callers read errno after a failure (_enter: ENOENT, ENODEV) */
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* Read dir/file into buf (len bytes, with its '\0'); returns 0 or -1. */
extern int libra_cgroup_read_file(const char *dir, const char *file,
				  char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int _mkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* mkdir base/libra/<node>[/job_<id>]; returns 0 or -1. */
static int _make_tree(const char *base, const char *node, uint32_t job_id,
		      char *out, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", base, LIBRA_DIR);
	if (_mkdir(path))
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", base, LIBRA_DIR, node);
	if (_mkdir(path))
		return -1;
	if (job_id) {
		snprintf(out, len, "%s/%s/%s/job_%u", base, LIBRA_DIR, node,
			 job_id);
		return _mkdir(out);
	}
	snprintf(out, len, "%s", path);
	return 0;
}

/* ------------------------------------------------------------ setup */

static bool _v2_has_cpu(const char *dir)
{
	char buf[512];

	if (libra_cgroup_read_file(dir, "cgroup.controllers", buf, sizeof(buf)))
		return false;
	for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
		if (!strcmp(tok, "cpu"))
			return true;
	return false;
}

/*
 * Where is the cgroup v2 hierarchy (with the cpu controller)?  The one
 * cgroup_v2_root= names, else the first cgroup2 mount in /proc/mounts.
 */
static bool _find_v2(char *out, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64];
	bool found = false;
	FILE *f;

	if (cg.v2root[0]) {
		struct statfs fs;

		if (!_v2_has_cpu(cg.v2root))
			return false;
		cg.plain = !statfs(cg.v2root, &fs) &&
			   fs.f_type != CGROUP2_SUPER_MAGIC;
		snprintf(out, len, "%s", cg.v2root);
		return true;
	}
	if (!(f = fopen("/proc/mounts", "r")))
		return false;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]\n", dev, dir,
				type) == 3) {
		if (!strcmp(type, "cgroup2") && _v2_has_cpu(dir)) {
			snprintf(out, len, "%s", dir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The CPU a node is pinned to: its trailing number, modulo the CPUs. */
static int _node_cpu(const char *node)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t len = strlen(node), i = len;
	unsigned long num = 0, hash = 5381;

	while (i > 0 && node[i - 1] >= '0' && node[i - 1] <= '9')
		i--;
	if (i < len) {
		num = strtoul(node + i, NULL, 10);
		num = num ? num - 1 : 0;	/* n1 -> CPU 0 */
	} else {
		for (const char *c = node; *c; c++)
			hash = hash * 33 + (unsigned char) *c;
		num = hash;
	}
	return (int) (num % (unsigned long) (ncpu > 0 ? ncpu : 1));
}

/* Weight of our top directory against everything else on the host. */
static void _top_weight(const char *top, const char *file, unsigned max)
{
	char val[32];

	if (!cg.top_weight)
		return;
	snprintf(val, sizeof(val), "%u", cg.top_weight < max ? cg.top_weight :
		 max);
	libra_cgroup_write_file(top, file, val);
}

static int _setup_v1(void)
{
	char path[PATH_MAX], cpu[16], top[PATH_MAX + 72];

	cg.cpu_job[0] = cg.acct_job[0] = '\0';
	if (!cg.enforce)
		goto pin;	/* emulated node's CPU only, no weights */
	snprintf(path, sizeof(path), "%s/cpu", cg.root);
	if (_make_tree(path, cg.node, cg.job_id, cg.cpu_job,
		       sizeof(cg.cpu_job)))
		return -1;
	snprintf(top, sizeof(top), "%s/%s", path, LIBRA_DIR);
	_top_weight(top, "cpu.shares", 262144);
	snprintf(path, sizeof(path), "%s/cpuacct", cg.root);
	if (_make_tree(path, cg.node, cg.job_id, cg.acct_job,
		       sizeof(cg.acct_job))) {
		/* cpu and cpuacct mounted together: one tree serves both */
		snprintf(cg.acct_job, sizeof(cg.acct_job), "%s", cg.cpu_job);
	}
pin:
	cg.cpuset_node[0] = '\0';
	if (cg.pin) {
		snprintf(path, sizeof(path), "%s/cpuset", cg.root);
		if (!_make_tree(path, cg.node, 0, cg.cpuset_node,
				sizeof(cg.cpuset_node))) {
			char parent[PATH_MAX + 72], mems[64], cpus[256];

			/* a cpuset needs cpus and mems before it takes tasks */
			snprintf(parent, sizeof(parent), "%s/%s", path,
				 LIBRA_DIR);
			if (!libra_cgroup_read_file(path, "cpuset.cpus", cpus,
						    sizeof(cpus)))
				libra_cgroup_write_file(parent, "cpuset.cpus",
							cpus);
			if (!libra_cgroup_read_file(path, "cpuset.mems", mems,
						    sizeof(mems))) {
				libra_cgroup_write_file(parent, "cpuset.mems",
							mems);
				libra_cgroup_write_file(cg.cpuset_node,
							"cpuset.mems", mems);
			}
			snprintf(cpu, sizeof(cpu), "%d", _node_cpu(cg.node));
			if (libra_cgroup_write_file(cg.cpuset_node,
						    "cpuset.cpus", cpu))
				cg.cpuset_node[0] = '\0';
		} else {
			cg.cpuset_node[0] = '\0';
		}
	}
	return 0;
}

/*
 * Enable the cpu controller for dir's children, so that they get a
 * cpu.weight.  The kernel refuses with ENOENT when dir's own parent has
 * not enabled it, and (kernels before 4.15, where cpu was not yet a
 * threaded controller) with EBUSY while dir holds processes of its own:
 * the job then runs with whatever CPU the kernel gives it, and the log
 * says why.  A 6.1 kernel takes "+cpu" in a cgroup with processes and
 * refuses the move of a task below it instead (_enter: EOPNOTSUPP).
 */
static void _delegate_cpu(const char *dir)
{
	if (!libra_cgroup_write_file(dir, "cgroup.subtree_control", "+cpu"))
		return;
	if (errno == EBUSY)
		slurm_error("libra: job %u: cannot enable the cpu controller below %s: it holds processes of its own (cgroup v2 lets only leaves hold them once a controller is enabled below): its jobs' shares are not enforced",
			    cg.job_id, dir);
	else if (errno == ENOENT || errno == EINVAL)
		slurm_error("libra: job %u: cannot enable the cpu controller below %s: its parent has not enabled cpu for it (cgroup.subtree_control): its jobs' shares are not enforced",
			    cg.job_id, dir);
	else
		slurm_error("libra: job %u: cannot enable the cpu controller below %s: %m",
			    cg.job_id, dir);
}

static int _setup_v2(const char *root)
{
	/* root, our directory and a node name (64 bytes each at most) */
	char path[PATH_MAX + 136];

	snprintf(cg.v2mount, sizeof(cg.v2mount), "%s", root);
	_delegate_cpu(root);
	if (_make_tree(root, cg.node, 0, path, sizeof(path)))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", root, LIBRA_DIR);
	_delegate_cpu(path);
	_top_weight(path, "cpu.weight", 10000);
	snprintf(path, sizeof(path), "%s/%s/%s", root, LIBRA_DIR, cg.node);
	_delegate_cpu(path);
	if (_make_tree(root, cg.node, cg.job_id, cg.cpu_job,
		       sizeof(cg.cpu_job)))
		return -1;
	snprintf(cg.acct_job, sizeof(cg.acct_job), "%s", cg.cpu_job);
	cg.cpuset_node[0] = '\0';
	return 0;
}

/*
 * Remove empty job directories of other jobs under our node, left by a
 * slurmstepd that died; only ones untouched for a minute, so that a step
 * being set up right now is never disturbed.
 */
static void _collect(const char *node_dir)
{
	DIR *d = opendir(node_dir);
	struct dirent *de;
	char path[PATH_MAX], self[32];
	struct stat st;

	if (!d)
		return;
	snprintf(self, sizeof(self), "job_%u", cg.job_id);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "job_", 4) || !strcmp(de->d_name, self))
			continue;
		snprintf(path, sizeof(path), "%s/%s", node_dir, de->d_name);
		if (stat(path, &st) || time(NULL) - st.st_mtime < 60)
			continue;
		if (!rmdir(path))
			slurm_verbose("libra: removed stale cgroup %s", path);
	}
	closedir(d);
}

/* Strip the last path component into out. */
static void _parent(const char *path, char *out, size_t len)
{
	char *slash;

	snprintf(out, len, "%s", path);
	if ((slash = strrchr(out, '/')))
		*slash = '\0';
}

/* ------------------------------------------------------------ hooks */

static int _setup_once(void)
{
	char v2root[PATH_MAX];

	if (cg.version == 1)
		return _setup_v1();
	if (_find_v2(v2root, sizeof(v2root)))
		return _setup_v2(v2root);
	return -1;
}

/*
 * A step that finishes removes its node's directory when no other job is
 * left in it (libra_cgroup_exit).  A step starting on that node at the
 * same moment finds a directory of its tree gone (ENOENT) or being removed
 * (ENODEV): it builds the tree again, a few times.  Seen with 1,000 jobs
 * starting and ending on 4 emulated nodes.
 */
#define SETUP_TRIES 3

static bool _gone(int err)
{
	return err == ENOENT || err == ENODEV;
}

static int _setup(void)
{
	for (int i = 1;; i++) {
		if (!_setup_once())
			return 0;
		if (i == SETUP_TRIES || !_gone(errno))
			return -1;
	}
}

/* Put pid into dir; rebuild the tree if a finishing step removed it. */
static void _enter(const char *dir, pid_t pid)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", (int) pid);
	for (int i = 1;; i++) {
		if (!libra_cgroup_write_file(dir, "cgroup.procs", val))
			return;
		if (i == SETUP_TRIES || !_gone(errno))
			break;
		(void) _setup_once();	/* a failure shows at the next write */
	}
	if (errno == EOPNOTSUPP)
		slurm_error("libra: job %u: cannot move task %d into %s: the kernel refuses (EOPNOTSUPP): a cgroup above it holds processes of its own while a controller is enabled below it, which leaves no valid domain there: the task runs where it is, its share not enforced",
			    cg.job_id, (int) pid, dir);
	else if (errno == EBUSY)
		slurm_error("libra: job %u: cannot move task %d into %s: the kernel refuses (EBUSY): it has controllers enabled for children of its own, and cgroup v2 puts processes in leaves only: the task runs where it is, its share not enforced",
			    cg.job_id, (int) pid, dir);
	else
		slurm_error("libra: job %u: cannot move task %d into %s: %m",
			    cg.job_id, (int) pid,
			    *dir ? dir : "(its cgroup could not be created)");
}

extern int libra_cgroup_init(spank_t sp, int ac, char **av)
{
	char v2root[PATH_MAX], path[PATH_MAX];
	const char *node = getenv("SLURMD_NODENAME");
	uint32_t step_id = 0;
	uint16_t ncpus = 0;

	if (libra_cgroup_parse_args(ac, av))
		return -1;
	if (!cg.enforce && !cg.pin)
		return 0;
	if (spank_get_item(sp, S_JOB_ID, &cg.job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS)
		return 0;
	if (step_id == SLURM_EXTERN_CONT)
		return 0;	/* no tasks of the job's own */
	if (!node || !*node || strlen(node) >= sizeof(cg.node) ||
	    strchr(node, '/')) {
		slurm_error("libra: SLURMD_NODENAME unset or unusable; not enforcing shares");
		return 0;
	}
	snprintf(cg.node, sizeof(cg.node), "%s", node);
	if (spank_get_item(sp, S_JOB_NCPUS, &ncpus) == ESPANK_SUCCESS)
		cg.cpus = ncpus;

	snprintf(path, sizeof(path), "%s/cpu/cpu.shares", cg.root);
	if (cg.v2root[0] && !_find_v2(v2root, sizeof(v2root))) {
		slurm_error("libra: cgroup_v2_root=%s has no cpu in its cgroup.controllers; not enforcing shares",
			    cg.v2root);
		return 0;
	}
	if (!cg.v2root[0] && !access(path, W_OK)) {
		cg.version = 1;
		if (_setup())
			goto fail;
	} else if (_find_v2(v2root, sizeof(v2root))) {
		if (!cg.enforce)
			return 0;	/* pinning is done with v1 cpusets only */
		cg.version = 2;
		if (_setup())
			goto fail;
	} else {
		slurm_error("libra: no writable cgroup cpu controller (v1 %s/cpu or v2); not enforcing shares",
			    cg.root);
		return 0;
	}
	cg.active = true;
	if (!cg.enforce)
		return 0;
	libra_cgroup_load_sla();
	_parent(cg.cpu_job, path, sizeof(path));
	_collect(path);
	if (strcmp(cg.acct_job, cg.cpu_job)) {
		_parent(cg.acct_job, path, sizeof(path));
		_collect(path);
	}
	return 0;
fail:
	slurm_error("libra: cannot create the cgroups of job %u on %s: %m",
		    cg.job_id, cg.node);
	return 0;
}

static void _remove_tree(const char *path, int levels);

/*
 * Slurm's own cgroup/v2 plugin (proctrack/cgroup, task/cgroup) has put the
 * task into <its scope>/job_<id>/step_<s>/... before task_post_fork runs
 * (slurmstepd adds a task to its tracking first).  Moving the task into our
 * tree would hide it from Slurm's process tracking, signals and limits, so
 * the job's weight goes on Slurm's job_<id> directory instead, whose
 * siblings are the other jobs of the node (doc/design.md, decision 31).
 * True when the task is in such a cgroup; cpu_job then names it.
 */
static bool _adopt_slurm(pid_t pid)
{
	char file[64], line[PATH_MAX], want[32], top[80], *p, *end;
	char parent[PATH_MAX], weight[PATH_MAX + 16];
	bool found = false;
	FILE *f;

	if (cg.version != 2 || cg.plain)
		return false;
	if (cg.slurm_owned)
		return true;
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int) pid);
	if (!(f = fopen(file, "r")))
		return false;
	snprintf(want, sizeof(want), "/job_%u", cg.job_id);
	snprintf(top, sizeof(top), "/%s/", LIBRA_DIR);
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) || !strncmp(line + 3, top,
							 strlen(top)))
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (p = strstr(line + 3, want); p; p = strstr(p + 1, want)) {
			end = p + strlen(want);
			if (*end == '/' || *end == '\0') {
				*end = '\0';
				found = true;
				break;
			}
		}
		/* 26.05 names the job's directory by its SLUID: the one
		 * above the task's step_<s> */
		if (!found && (p = strstr(line + 3, "/step_")) && p > line + 3) {
			*p = '\0';
			found = true;
		}
	}
	fclose(f);
	if (!found)
		return false;
	if (cg.cpu_job[0])	/* ours, made at init and still empty */
		_remove_tree(cg.cpu_job, 3);
	cg.slurm_owned = true;	/* never move its tasks out of Slurm's */
	cg.cpu_job[0] = cg.acct_job[0] = '\0';
	if (strlen(cg.v2mount) + strlen(line + 3) >= sizeof(cg.cpu_job)) {
		slurm_error("libra: job %u: Slurm's cgroup %s%s: path too long: its share is not enforced",
			    cg.job_id, cg.v2mount, line + 3);
		return true;
	}
	memcpy(cg.cpu_job, cg.v2mount, strlen(cg.v2mount));
	strcpy(cg.cpu_job + strlen(cg.v2mount), line + 3);
	snprintf(cg.acct_job, sizeof(cg.acct_job), "%s", cg.cpu_job);
	/* Slurm enables cpu in its scope for every job; where not, do it */
	snprintf(weight, sizeof(weight), "%s/cpu.weight", cg.cpu_job);
	if (access(weight, F_OK)) {
		_parent(cg.cpu_job, parent, sizeof(parent));
		_delegate_cpu(parent);
	}
	slurm_info("libra: job %u: Slurm's cgroup/v2 tracks its tasks: its weight goes on %s",
		   cg.job_id, cg.cpu_job);
	return true;
}

extern int libra_cgroup_task(spank_t sp)
{
	pid_t pid = 0;

	if (!cg.active)
		return 0;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS || !pid)
		return 0;
	if (cg.cpuset_node[0])
		_enter(cg.cpuset_node, pid);
	if (!cg.enforce)
		return 0;
	if (cg.has_sla && cg.slurms)
		return 0;	/* Slurm's job: where Slurm put it */
	if (!_adopt_slurm(pid)) {
		_enter(cg.cpu_job, pid);
		if (strcmp(cg.acct_job, cg.cpu_job))
			_enter(cg.acct_job, pid);
	}

	pthread_mutex_lock(&cg.mutex);
	libra_cgroup_update_weight();
	if (!cg.thread_started) {
		cg.stop = false;
		if (!pthread_create(&cg.thread, NULL, libra_cgroup_updater,
				    NULL))
			cg.thread_started = true;
	}
	pthread_mutex_unlock(&cg.mutex);
	return 0;
}

/* rmdir path and up to levels-1 of its parents, stopping at the first
 * that is not empty. */
static void _remove_tree(const char *path, int levels)
{
	char dir[PATH_MAX], up[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", path);
	for (int i = 0; i < levels; i++) {
		if (rmdir(dir) && errno != ENOENT)
			return;
		_parent(dir, up, sizeof(up));
		snprintf(dir, sizeof(dir), "%s", up);
	}
}

extern int libra_cgroup_exit(spank_t sp)
{
	if (!cg.active)
		return 0;
	pthread_mutex_lock(&cg.mutex);
	cg.stop = true;
	pthread_cond_broadcast(&cg.cond);
	pthread_mutex_unlock(&cg.mutex);
	if (cg.thread_started) {
		pthread_join(cg.thread, NULL);
		cg.thread_started = false;
	}
	/*
	 * Remove the job's directories, then its node's and our top ones if
	 * they are empty now.  rmdir fails while another step still has
	 * tasks there, which is what we want.
	 */
	if (cg.cpu_job[0] && !cg.slurm_owned)	/* Slurm removes its own */
		_remove_tree(cg.cpu_job, 3);
	if (cg.acct_job[0] && strcmp(cg.acct_job, cg.cpu_job))
		_remove_tree(cg.acct_job, 3);
	if (cg.cpuset_node[0])
		_remove_tree(cg.cpuset_node, 2);
	cg.active = false;
	return 0;
}
