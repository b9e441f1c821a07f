/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra_metrics.c - the metrics file a provider watches (doc/
 *  design.md decision 44; the page: src/core/watch.h).
 *
 *  With libra_metrics_file set, the scheduler thread writes the page there
 *  after its passes, at most once every libra_metrics_interval seconds:
 *  for node_exporter's textfile collector (a *.prom file in its
 *  --collector.textfile.directory), which serves it with the node's own
 *  metrics.  slurmctld serves no HTTP and the pass is not slowed: under
 *  the node read lock and the hub's lock only the figures are copied (the
 *  counters, and each node's share, jobs and reference price: a walk of
 *  its entries); the page is made and written after both are released,
 *  to a temporary file renamed over the last (a scrape reads the old page
 *  or the new, never a torn one).  A file that cannot be written is logged
 *  once until a write succeeds again.
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "hub.h"
#include "power.h"
#include "sched_libra_int.h"
#include "watch.h"

static struct {
	double last;		/* monotonic time of the last write, 0: none */
	bool failing;		/* the last write failed (logged) */
	libra_quote_t *scratch;	/* libra_reference_price()'s */
} mx;

/* text to path through path.new (mode 0644: node_exporter reads it as
 * its own user); 0, or -1 with errno. */
static int _write(const char *path, const char *text)
{
	char *tmp = xstrdup_printf("%s.new", path);
	int fd, rc = -1, e = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (!libra_write_all(fd, text, strlen(text)) && !close(fd))
			rc = rename(tmp, path);
		else
			close(fd);
		e = errno;
		if (rc)
			(void) unlink(tmp);
	} else {
		e = errno;
	}
	xfree(tmp);
	errno = e;
	return rc;
}

extern void libra_sched_metrics(void)
{
	slurmctld_lock_t node_read = { .node = READ_LOCK };
	libra_watch_sched_t s = { .passes = st.passes,
				  .pass_cpu_seconds = st.passes_cpu };
	libra_watch_node_t *nodes = NULL;
	libra_watch_t *w;
	libra_ledger_t *l;
	libra_params_t *p;
	char path[LIBRA_PATH_LEN], *text;
	double now = libra_sched_monotonic(), interval;
	bool power;
	int n;

	libra_hub_lock();
	p = libra_hub_params();
	snprintf(path, sizeof(path), "%s", p->metrics_file);
	interval = p->metrics_interval;
	libra_hub_unlock();
	if (!path[0] || (mx.last > 0.0 && now - mx.last < interval))
		return;
	mx.last = now;
	if (!mx.scratch)
		mx.scratch = xmalloc(sizeof(*mx.scratch));

	lock_slurmctld(node_read);
	libra_hub_lock();
	l = libra_hub_ledger();
	p = libra_hub_params();
	power = p->power != LIBRA_POWER_NONE;
	n = libra_ledger_node_count(l);
	nodes = xcalloc(n ? n : 1, sizeof(*nodes));
	libra_watch_nodes(l, p, (double) time(NULL), nodes, mx.scratch);
	for (int j = 0; power && j < n; j++) {
		node_record_t *node_ptr = find_node_record(nodes[j].name);

		if (node_ptr)
			nodes[j].power = libra_name_of(
				libra_node_power_names,
				(int) libra_slurm_node_power(node_ptr));
	}
	s.jobs = libra_ledger_job_count(l);
	s.quotes = libra_quotes_count(libra_hub_quotes());
	w = libra_watch_copy(libra_hub_watch());
	libra_hub_unlock();
	unlock_slurmctld(node_read);

	text = libra_watch_text(w, nodes, n, &s);
	libra_watch_destroy(w);
	xfree(nodes);
	if (!text) {
		error("sched/libra: out of memory making the metrics for %s",
		      path);
		return;
	}
	if (_write(path, text)) {
		if (!mx.failing)
			error("sched/libra: cannot write the metrics file %s (libra_metrics_file): %m",
			      path);
		mx.failing = true;
	} else if (mx.failing) {
		info("sched/libra: the metrics file %s is written again",
		     path);
		mx.failing = false;
	}
	free(text);
}

extern void libra_sched_metrics_fini(void)
{
	xfree(mx.scratch);
	mx.last = 0.0;
}
