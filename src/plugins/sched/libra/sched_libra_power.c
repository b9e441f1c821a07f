/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_power.c - sched/libra's power plan (doc/design.md
 *  decision 24): at decision points libra_power_interval apart, each node
 *  is kept, powered down or powered up as libra_power_decide() says, by
 *  Slurm's own power saving (POWER_DOWN / POWER_UP, then SuspendProgram
 *  and ResumeProgram).  Between decision points each pass looks at the
 *  powered-down nodes only, and powers up the ones that work booked on
 *  them needs within a boot and two passes.  A node that admission places work on while it is
 *  powered down is powered up by slurmctld itself when the job starts.
 *
 *  Every pass also notes each node's power state; the changes are
 *  appended to StateSaveLocation/libra_power ("EPOCH NODE STATE", STATE
 *  on, off, booting or stopping), which libra-report --power reads.  The
 *  lines are collected under the pass's locks and written after them
 *  (libra_power_flush(); the lines have a mutex of their own).
 *
 *  Locks: the pass's (config read, job write, node write, partition read);
 *  the hub is taken for each node's ledger entries.
\*****************************************************************************/

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "hub.h"
#include "ledger.h"
#include "libra_compat.h"
#include "libra_slurm.h"
#include "nodemap.h"
#include "power.h"
#include "sched_libra.h"

/* The power plan's state (decision 24), in one place. */
static struct {
	int nnodes;
	int *idle_points;
	libra_node_power_t *seen;	/* the state last noted */
	time_t next_decision;
	/* lines not yet written, and where; the pass fills them under its
	 * locks, libra_power_flush() takes them after: their own mutex */
	pthread_mutex_t journal_lock;
	char *journal;
	char *journal_path;
} pw = { .journal_lock = PTHREAD_MUTEX_INITIALIZER };

/* Size the per-node tables to the node table (it can grow on reconfigure). */
static void _resize(void)
{
	if (pw.nnodes == node_record_count)
		return;
	xrecalloc(pw.idle_points, node_record_count, sizeof(*pw.idle_points));
	xrecalloc(pw.seen, node_record_count, sizeof(*pw.seen));
	for (int i = pw.nnodes; i < node_record_count; i++)
		pw.seen[i] = (libra_node_power_t) -1;	/* noted at once */
	pw.nnodes = node_record_count;
}

/* Note the nodes whose power state changed since the last pass. */
static void _note_states(time_t now)
{
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];
		libra_node_power_t st;

		if (!node_ptr)
			continue;
		st = libra_slurm_node_power(node_ptr);
		if (st == pw.seen[i])
			continue;
		pw.seen[i] = st;
		slurm_mutex_lock(&pw.journal_lock);
		xstrfmtcat(pw.journal, "%ld %s %s\n", (long) now, node_ptr->name,
			   libra_name_of(libra_node_power_names, (int) st));
		if (!pw.journal_path)
			pw.journal_path = xstrdup_printf(
				"%s/libra_power",
				slurm_conf.state_save_location);
		slurm_mutex_unlock(&pw.journal_lock);
	}
}

/* Power the listed nodes down or up through Slurm's power saving. */
static void _request(const char *names, uint32_t state, const char *what,
		     const libra_params_t *p)
{
	update_node_msg_t msg;
	int rc;

	slurm_init_update_node_msg(&msg);
	msg.node_names = (char *) names;
	msg.node_state = state;
	rc = update_node(&msg, slurm_conf.slurm_user_id);
	if (rc != SLURM_SUCCESS)
		error("sched/libra: power (%s): cannot power %s %s: %s",
		      libra_power_name(p->power), what, names,
		      slurm_strerror(rc));
	else
		info("sched/libra: power (%s): powering %s %s",
		     libra_power_name(p->power), what, names);
}

static bool _busy_in_slurm(node_record_t *node_ptr)
{
	return IS_NODE_ALLOCATED(node_ptr) || IS_NODE_MIXED(node_ptr) ||
	       IS_NODE_COMPLETING(node_ptr);
}

/*
 * The site's exclusions from power saving (Slurm's own rules for its
 * power save, kept by ours; decision 24): SuspendExcParts' nodes and
 * SuspendExcNodes' are never powered down; an item "LIST:COUNT" of
 * SuspendExcNodes instead keeps COUNT nodes of LIST powered and idle, as
 * slurmctld's power save does.  Without act, the exempt nodes are marked
 * in n[]; with it, the counted sets applied to act[].  Node write lock.
 */
static void _site_exclusions(libra_power_node_t *n, libra_power_action_t *act,
			     const bool *usable)
{
	char *list = xstrdup(slurm_conf.suspend_exc_nodes), *item, *save;
	char *parts = xstrdup(slurm_conf.suspend_exc_parts), *name;
	bool *set = xcalloc(node_record_count + 1, sizeof(*set));

	for (item = libra_hostlist_next(list, &save); item;
	     item = libra_hostlist_next(NULL, &save)) {
		char *colon = strrchr(item, ':');
		bitstr_t *b = NULL;
		int count = -1;

		if (colon && !strchr(colon, ']')) {
			*colon = '\0';
			count = atoi(colon + 1);
		}
		if (libra_node_name2bitmap(item, &b))
			debug("sched/libra: power: SuspendExcNodes names nodes slurm.conf lacks: %s",
			      item);
		for (int i = 0; b && i < node_record_count; i++) {
			set[i] = bit_test(b, i) && usable[i];
			if (set[i] && count < 0 && !act)
				n[i].exempt = true;
		}
		if (b && count > 0 && act)
			(void) libra_power_keep_idle(n, act, node_record_count,
						     set, count);
		FREE_NULL_BITMAP(b);
	}
	for (name = act ? NULL : strtok_r(parts, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		part_record_t *part_ptr = find_part_record(name);

		for (int i = 0; part_ptr && part_ptr->node_bitmap &&
		     i < node_record_count; i++)
			if (bit_test(part_ptr->node_bitmap, i))
				n[i].exempt = true;
	}
	xfree(set);
	xfree(parts);
	xfree(list);
}

/* What the power plan sees of node i now: its state and use. */
static void _node_now(int i, node_record_t *node_ptr, time_t now,
		      bool decision, libra_power_node_t *n)
{
	memset(n, 0, sizeof(*n));
	n->state = libra_slurm_node_power(node_ptr);
	libra_hub_lock();
	if (i < libra_ledger_node_count(libra_hub_ledger()))
		libra_power_node_use(libra_hub_ledger(), i, (double) now,
				     &n->busy, &n->next_use);
	else
		n->busy = false, n->next_use = INFINITY;
	libra_hub_unlock();
	n->busy = n->busy || _busy_in_slurm(node_ptr);
	if (!decision)
		;	/* idle points count decision points */
	else if (n->state == LIBRA_NODE_ON && !n->busy)
		pw.idle_points[i]++;
	else
		pw.idle_points[i] = 0;
	n->idle_points = pw.idle_points[i];
}

extern void libra_power_pass(time_t now)
{
	libra_params_t p;
	libra_power_cfg_t cfg;
	libra_power_node_t *n;
	libra_power_action_t *act;
	bool *usable, decision;
	char *down = NULL, *up = NULL;

	LIBRA_LOCKED(NODE_LOCK, WRITE_LOCK);
	libra_hub_lock();
	p = *libra_hub_params();
	libra_hub_unlock();
	if (p.power == LIBRA_POWER_NONE) {
		pw.next_decision = 0;
		return;
	}
	_resize();
	_note_states(now);
	/* between decision points, only powered-down nodes are looked at,
	 * to power up the ones booked work needs: then, not up to an
	 * interval before (two passes' margin) */
	decision = now >= pw.next_decision;
	if (decision)
		pw.next_decision = now + (time_t) p.power_interval;
	cfg = libra_params_power(&p);
	cfg.lead = 2.0 * p.interval;

	n = xcalloc(node_record_count + 1, sizeof(*n));
	act = xcalloc(node_record_count + 1, sizeof(*act));
	usable = xcalloc(node_record_count + 1, sizeof(*usable));
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];

		/* never act on a node that is down or drained */
		if (!node_ptr || !libra_slurm_node_usable(node_ptr)) {
			pw.idle_points[i] = 0;
			n[i].busy = true;	/* in no pool */
			continue;
		}
		if (!decision &&
		    libra_slurm_node_power(node_ptr) != LIBRA_NODE_OFF)
			continue;
		usable[i] = true;
		_node_now(i, node_ptr, now, decision, &n[i]);
	}
	if (decision) {
		/* the exemptions before the decisions, the pools after */
		_site_exclusions(n, NULL, usable);
		for (int i = 0; i < node_record_count; i++)
			if (usable[i])
				act[i] = libra_power_decide(&cfg, &p.tariff,
							    &n[i],
							    (double) now);
		_site_exclusions(n, act, usable);
		/* the warm pool (Sung's p_min), over every usable node */
		if (p.power_warm > 0.0)
			(void) libra_power_keep_idle(n, act, node_record_count,
						     usable,
						     (int) p.power_warm);
	} else {
		for (int i = 0; i < node_record_count; i++)
			if (usable[i])
				act[i] = libra_power_decide(&cfg, &p.tariff,
							    &n[i],
							    (double) now);
	}
	for (int i = 0; i < node_record_count; i++) {
		if (!usable[i] || (!decision && act[i] != LIBRA_POWER_UP))
			continue;
		if (act[i] == LIBRA_POWER_DOWN)
			xstrfmtcat(down, "%s%s", down ? "," : "",
				   node_record_table_ptr[i]->name);
		else if (act[i] == LIBRA_POWER_UP)
			xstrfmtcat(up, "%s%s", up ? "," : "",
				   node_record_table_ptr[i]->name);
	}
	xfree(n);
	xfree(act);
	xfree(usable);
	if (decision)
		debug("sched/libra: power (%s): decision at %ld, rate %g per node-hour",
		      libra_power_name(p.power), (long) now,
		      libra_tariff_rate(&p.tariff, (double) now));
	if (down)
		_request(down, NODE_STATE_POWER_DOWN, "down", &p);
	if (up)
		_request(up, NODE_STATE_POWER_UP, "up", &p);
	xfree(down);
	xfree(up);
}

static bool _torn(int fd)
{
	struct stat st;
	char last;

	return !fstat(fd, &st) && st.st_size > 0 &&
	       pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
}

extern void libra_power_flush(void)
{
	char *lines, *path;
	int fd;

	slurm_mutex_lock(&pw.journal_lock);
	lines = pw.journal;
	pw.journal = NULL;
	path = xstrdup(pw.journal_path);
	slurm_mutex_unlock(&pw.journal_lock);
	if (!lines)
		goto out;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0 && _torn(fd) && write(fd, "\n", 1) != 1)
		error("sched/libra: cannot append to %s: %m", path);
	if (fd < 0 || write(fd, lines, strlen(lines)) !=
		      (ssize_t) strlen(lines))
		error("sched/libra: cannot append to %s: %m", path);
	if (fd >= 0)
		close(fd);
out:
	xfree(lines);
	xfree(path);
}

extern void libra_power_fini(void)
{
	slurm_mutex_lock(&pw.journal_lock);
	xfree(pw.idle_points);
	xfree(pw.seen);
	xfree(pw.journal);
	xfree(pw.journal_path);
	slurm_mutex_unlock(&pw.journal_lock);
	pw.nnodes = 0;
}
