/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  hub.c - the ledger and parameters shared by the slurmctld plugins
 *  (see hub.h).  Plain pthreads; no Slurm headers.
\*****************************************************************************/

#include <errno.h>
#include <execinfo.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hub.h"
#include "share.h"

static pthread_mutex_t hub_mutex = PTHREAD_MUTEX_INITIALIZER;
/*
 * Does this thread hold hub_mutex through libra_hub_lock()?  What the lock
 * guards is handed out by the getters below, valid under the lock only:
 * they assert it, in builds without NDEBUG (the default, as Slurm's
 * xassert() is on unless Slurm is built with --disable-debug).
 */
static __thread bool hub_held;
#ifdef NDEBUG
#define HUB_HELD() ((void) 0)
#else
#define HUB_HELD() _hub_held(__func__)
/* Where it was called from, then abort(), as assert() would. */
static void _hub_held(const char *fn)
{
	void *frames[32];

	if (hub_held)
		return;
	fprintf(stderr, "libra hub: %s() called without the hub's lock; called from:\n",
		fn);
	backtrace_symbols_fd(frames, backtrace(frames, 32), STDERR_FILENO);
	abort();
}
#endif
static pthread_mutex_t save_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hub_cond;
static bool hub_cond_ready;
static int hub_users;
static bool hub_woken, hub_stop, hub_synced;
static libra_ledger_t *hub_ledger;
static libra_params_t hub_params;
static libra_quotes_t *hub_quotes;
static libra_predictor_t *hub_predictor;
static libra_watch_t *hub_watch;

extern int libra_hub_init(void)
{
	int rc = 0;

	pthread_mutex_lock(&hub_mutex);
	if (!hub_cond_ready) {
		pthread_condattr_t attr;

		/* CLOCK_MONOTONIC: a clock step must not stall the thread */
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&hub_cond, &attr);
		pthread_condattr_destroy(&attr);
		hub_cond_ready = true;
	}
	if (!hub_ledger) {
		libra_params_default(&hub_params);
		hub_ledger = libra_ledger_create(hub_params.share_min);
		if (!hub_ledger)
			rc = -1;
	}
	if (!rc && !hub_quotes &&
	    !(hub_quotes = libra_quotes_create((double) time(NULL))))
		rc = -1;
	if (!rc && !hub_watch &&
	    !(hub_watch = libra_watch_create((double) time(NULL))))
		rc = -1;
	if (!rc) {
		hub_users++;
		hub_stop = false;
	}
	pthread_mutex_unlock(&hub_mutex);
	return rc;
}

/* l and q in place of the ledger and the book, no predictor, not synced. */
static void _hub_replace(libra_ledger_t *l, libra_quotes_t *q)
{
	libra_ledger_destroy(hub_ledger);
	hub_ledger = l;
	libra_quotes_destroy(hub_quotes);
	hub_quotes = q;
	libra_predictor_destroy(hub_predictor);
	hub_predictor = NULL;
	hub_synced = false;
}

extern void libra_hub_fini(void)
{
	pthread_mutex_lock(&hub_mutex);
	if (hub_users > 0 && --hub_users == 0) {
		_hub_replace(NULL, NULL);
		libra_watch_destroy(hub_watch);
		hub_watch = NULL;
	}
	pthread_mutex_unlock(&hub_mutex);
}

extern int libra_hub_reset(void)
{
	HUB_HELD();
	libra_ledger_t *l = libra_ledger_create(hub_params.share_min);
	libra_quotes_t *q = libra_quotes_create((double) time(NULL));

	if (!l || !q) {
		libra_ledger_destroy(l);
		libra_quotes_destroy(q);
		hub_synced = false;
		return -1;
	}
	_hub_replace(l, q);
	return 0;
}

extern libra_predictor_t *libra_hub_predictor(void)
{
	HUB_HELD();
	return hub_predictor;
}

extern void libra_hub_set_predictor(libra_predictor_t *p)
{
	HUB_HELD();
	if (p != hub_predictor)
		libra_predictor_destroy(hub_predictor);
	hub_predictor = p;
}

extern void libra_hub_lock(void)
{
	pthread_mutex_lock(&hub_mutex);
	hub_held = true;
}

extern void libra_hub_unlock(void)
{
	HUB_HELD();
	hub_held = false;
	pthread_mutex_unlock(&hub_mutex);
}

extern bool libra_hub_held(void)
{
	return hub_held;
}

extern libra_ledger_t *libra_hub_ledger(void)
{
	HUB_HELD();
	return hub_ledger;
}

extern libra_params_t *libra_hub_params(void)
{
	HUB_HELD();
	return &hub_params;
}

extern libra_quotes_t *libra_hub_quotes(void)
{
	HUB_HELD();
	return hub_quotes;
}

extern libra_watch_t *libra_hub_watch(void)
{
	HUB_HELD();
	return hub_watch;
}

extern void libra_hub_set_quotes(libra_quotes_t *b)
{
	HUB_HELD();
	if (b != hub_quotes)
		libra_quotes_destroy(hub_quotes);
	hub_quotes = b;
}

extern void libra_hub_save_lock(void)
{
	pthread_mutex_lock(&save_mutex);
}

extern void libra_hub_save_unlock(void)
{
	pthread_mutex_unlock(&save_mutex);
}

static uint32_t tokens_issued;

extern uint32_t libra_hub_tokens_issued(void)
{
	HUB_HELD();
	return tokens_issued;
}

extern uint32_t libra_hub_next_token(void)
{
	static uint32_t seq;

	HUB_HELD();
	tokens_issued++;

	/* start from the clock so tokens differ across restarts */
	if (!seq)
		seq = (uint32_t) time(NULL) & 0x0fffffffu;
	seq = (seq + 1) & 0x0fffffffu;
	if (!seq)
		seq = 1;
	return LIBRA_TOKEN_BASE | seq;
}

extern void libra_hub_set_ledger(libra_ledger_t *l)
{
	HUB_HELD();
	if (l != hub_ledger)
		libra_ledger_destroy(hub_ledger);
	hub_ledger = l;
}

extern bool libra_hub_synced(void)
{
	HUB_HELD();
	return hub_synced;
}

extern void libra_hub_set_synced(bool synced)
{
	HUB_HELD();
	hub_synced = synced;
}

extern void libra_hub_wake(void)
{
	pthread_mutex_lock(&hub_mutex);
	hub_woken = true;
	if (hub_cond_ready)
		pthread_cond_broadcast(&hub_cond);
	pthread_mutex_unlock(&hub_mutex);
}

extern bool libra_hub_wait(double secs)
{
	struct timespec ts;
	bool woken;

	HUB_HELD();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t) secs;
	ts.tv_nsec += (long) ((secs - floor(secs)) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!hub_woken && !hub_stop) {
		if (pthread_cond_timedwait(&hub_cond, &hub_mutex, &ts) ==
		    ETIMEDOUT)
			break;
	}
	woken = hub_woken;
	hub_woken = false;
	return woken;
}

extern void libra_hub_shutdown(void)
{
	pthread_mutex_lock(&hub_mutex);
	hub_stop = true;
	if (hub_cond_ready)
		pthread_cond_broadcast(&hub_cond);
	pthread_mutex_unlock(&hub_mutex);
}

extern bool libra_hub_stopping(void)
{
	return hub_stop;
}
