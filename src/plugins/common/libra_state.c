/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_state.c - the hub's state that is in no job record, kept in
 *  StateSaveLocation so that it survives a restart of slurmctld and a
 *  takeover by a backup controller (see libra_slurm.h):
 *
 *    libra_quotes  the book of binding quotes (doc/design.md decision 20)
 *    libra_beta    Libra+$Auto's beta of each node (decision 9)
 *
 *  Each is written whole, to "<file>.new", fsync()ed and renamed over the
 *  file (libra_slurm_write_state()), so that a reader finds the old state
 *  or the new one, never a torn one.  The text is made under the hub's lock and written outside
 *  it, under the hub's save lock (hub.h), which orders the writers of
 *  both plugins.
\*****************************************************************************/

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_slurm.h"

#define QUOTES "libra_quotes"
#define BETAS "libra_beta"
#define PARAMS "libra_params"
#define PARAMS_MAGIC "libra_params"
#define PARAMS_VERSION 1

extern const char plugin_type[];

static char *_path(const char *name, const char *suffix)
{
	char *path = NULL;

	xstrfmtcat(path, "%s/%s%s", slurm_conf.state_save_location, name,
		   suffix);
	return path;
}

/* A skipped line of a state file (statefile.h). */
static void _report(void *arg, const char *msg)
{
	(void) arg;
	error("%s: %s", plugin_type, msg);
}

/* The whole of StateSaveLocation/name (NULL: none, or unreadable: logged);
 * free() it. */
static char *_read(const char *name, char **path)
{
	struct stat st;
	char *text = NULL;
	FILE *f;

	*path = _path(name, "");
	if (!(f = fopen(*path, "r"))) {
		if (errno != ENOENT)
			error("%s: cannot read %s: %m", plugin_type, *path);
		return NULL;
	}
	if (fstat(fileno(f), &st) || !(text = malloc((size_t) st.st_size + 1)) ||
	    fread(text, 1, (size_t) st.st_size, f) != (size_t) st.st_size) {
		error("%s: cannot read %s: %m", plugin_type, *path);
		free(text);
		text = NULL;
	} else {
		text[st.st_size] = '\0';
	}
	fclose(f);
	return text;
}

/* text as StateSaveLocation/name, atomically; hub save lock held. */
static int _write(const char *name, const char *text)
{
	return libra_slurm_write_state(name, text);
}

extern void libra_state_save_quotes(void)
{
	libra_quotes_t *b;
	uint64_t changes;
	char *text = NULL;

	libra_hub_save_lock();
	libra_hub_lock();
	b = libra_hub_quotes();
	changes = libra_quotes_changes(b);
	if (changes != libra_quotes_saved(b) &&
	    !(text = libra_quotes_format(b, libra_hub_ledger())))
		error("%s: cannot save the book of binding quotes (out of memory, or a node name with a blank, ':' or ',')",
		      plugin_type);
	libra_hub_unlock();
	if (text && !_write(QUOTES, text)) {
		libra_hub_lock();
		if (b == libra_hub_quotes())
			libra_quotes_set_saved(b, changes);
		libra_hub_unlock();
	}
	libra_hub_save_unlock();
	free(text);
}

extern void libra_state_save(void)
{
	/* the ledger the betas last saved were of, and their changes then */
	static libra_ledger_t *saved_ledger;
	static uint64_t saved_changes;
	libra_ledger_t *l;
	uint64_t changes;
	char *text = NULL;

	libra_state_save_quotes();
	libra_hub_save_lock();
	libra_hub_lock();
	l = libra_hub_ledger();
	changes = libra_ledger_betas_changes(l);
	/* a new ledger is saved once it has betas (read back, carried
	 * over from the old one, or set since) */
	if ((l != saved_ledger || changes != saved_changes) && changes &&
	    !(text = libra_ledger_betas_format(l)))
		error("%s: cannot save the betas: out of memory", plugin_type);
	libra_hub_unlock();
	if (text && !_write(BETAS, text)) {
		saved_ledger = l;
		saved_changes = changes;
	}
	libra_hub_save_unlock();
	free(text);
}

/*
 * A binding quote's capacity held in l again, under its token and at its
 * hold's end as when it was given (job_submit/qos's _commit()), unless it
 * is taken (its job's record holds it), over, or held already.  A job made
 * of it whose taking the book missed finds the token at its commit time
 * and is re-keyed to it (_sync_job()): it is not counted twice.
 */
static bool _hold(libra_ledger_t *l, const libra_held_quote_t *h, double now)
{
	if (h->taken || now > h->until || libra_ledger_has_job(l, h->token))
		return false;
	if (libra_ledger_commit_booked(l, h->token, &h->sla, h->place,
				       h->nplace, h->until, 0.0)) {
		error("%s: quote %u: cannot hold its capacity again",
		      plugin_type, h->id);
		return false;
	}
	return true;
}

extern void libra_state_carry(libra_ledger_t *from, libra_ledger_t *to)
{
	libra_quotes_t *b = libra_hub_quotes();
	double now = (double) time(NULL);

	for (int i = 0; i < libra_ledger_node_count(from); i++) {
		int j = libra_ledger_find_node(to, libra_ledger_node_name(from,
									  i));
		double beta = libra_ledger_node_beta(from, i);

		if (j >= 0 && !isnan(beta))
			libra_ledger_set_node_beta(to, j, beta);
	}
	for (int i = 0; i < libra_quotes_count(b);) {
		libra_held_quote_t *h = libra_quotes_at(b, i);
		bool gone = false;

		for (int k = 0; k < h->nplace && !gone; k++) {
			const char *name = libra_ledger_node_name(
				from, h->place[k].node);
			int j = name ? libra_ledger_find_node(to, name) : -1;

			if (j < 0)
				gone = true;
			else
				h->place[k].node = j;
		}
		if (gone) {
			info("%s: quote %u: a node it held is no longer in the configuration; quote dropped",
			     plugin_type, h->id);
			libra_quotes_remove(b, h->id);
			continue;
		}
		_hold(to, h, now);
		i++;
	}
}

extern void libra_state_load(void)
{
	libra_quotes_t *b, *old;
	libra_ledger_t *l;
	double now = (double) time(NULL);
	char *text, *path;
	int n, held = 0;

	LIBRA_LOCKED(NODE_LOCK, READ_LOCK);
	libra_hub_lock();
	libra_slurm_sync_nodes();	/* the ledger has slurmctld's nodes */
	l = libra_hub_ledger();
	old = libra_hub_quotes();
	if ((text = _read(QUOTES, &path)) &&
	    (b = libra_quotes_create(now))) {
		n = libra_quotes_parse(b, l, text, path, now,
				       LIBRA_QUOTE_FORGET, _report, NULL);
		/*
		 * The book this slurmctld kept before (it was the primary
		 * before a takeover) is replaced: the saved one is newer.
		 */
		for (int i = 0; i < libra_quotes_count(old); i++) {
			libra_held_quote_t *h = libra_quotes_at(old, i);

			if (!h->taken && libra_ledger_has_job(l, h->token))
				libra_ledger_release(l, h->token);
		}
		libra_hub_set_quotes(b);
		for (int i = 0; i < libra_quotes_count(b); i++)
			held += _hold(l, libra_quotes_at(b, i), now);
		/* saved as read: written again at its next change */
		libra_quotes_set_saved(b, libra_quotes_changes(b));
		info("%s: %d binding quote(s) read from %s, %d holding their capacity again",
		     plugin_type, n < 0 ? 0 : n, path, held);
		libra_hub_set_synced(false);
	}
	free(text);
	xfree(path);
	if ((text = _read(BETAS, &path))) {
		n = libra_ledger_betas_parse(l, text, path, _report, NULL);
		if (n > 0)
			info("%s: Libra+$Auto's beta of %d node(s) read from %s",
			     plugin_type, n, path);
	}
	free(text);
	xfree(path);
	libra_hub_unlock();
}

/* ---- the last SchedulerParameters that read (decision 28) --------------- */

static int _params_line(void *arg, char *line, char *why, size_t len)
{
	char **text = arg;

	if (*text) {
		snprintf(why, len, "a second line of parameters");
		return -1;
	}
	*text = xstrdup(line);
	return 0;
}

extern void libra_state_save_params(const char *sched_params)
{
	static char *saved;
	char *text = NULL;

	if (saved && !xstrcmp(saved, sched_params))
		return;
	xstrfmtcat(text, "%s %d\n%s\n", PARAMS_MAGIC, PARAMS_VERSION,
		   sched_params ? sched_params : "");
	if (!libra_slurm_write_state(PARAMS, text)) {
		xfree(saved);
		saved = xstrdup(sched_params);
	}
	xfree(text);
}

extern char *libra_state_load_params(char **where)
{
	char *text, *params = NULL;

	text = _read(PARAMS, where);
	if (text && libra_statefile_read(text, *where, PARAMS_MAGIC,
					 PARAMS_VERSION, _params_line, &params,
					 _report, NULL) != 1)
		xfree(params);
	free(text);
	return params;
}
