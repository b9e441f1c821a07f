/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  hub.h - the one view of admitted work that both slurmctld plugins share.
 *
 *  job_submit/qos admits jobs and sched/libra starts and follows them; both
 *  must see the same ledger, or two submissions in a row could both be
 *  admitted against the same free capacity (doc/design.md, Architecture).  Both plugins
 *  link libslurm_libra.so, so this file's globals exist once in slurmctld.
 *
 *  The hub holds the ledger, the parameters and a generation counter, under
 *  one mutex; a condition variable wakes the scheduler thread as soon as a
 *  job is admitted or ends.  Lock order: slurmctld's locks first, then the
 *  hub (job_submit runs with slurmctld's read locks held and takes the hub;
 *  the scheduler takes slurmctld's locks and then the hub, never the other
 *  way round).
\*****************************************************************************/

#ifndef LIBRA_HUB_H
#define LIBRA_HUB_H

#include <stdbool.h>

#include "ledger.h"
#include "params.h"
#include "predict.h"
#include "quote.h"
#include "watch.h"

/* Create the hub on first use (idempotent); returns 0 or -1. */
extern int libra_hub_init(void);
/* Destroy when the last user is gone (reference counted). */
extern void libra_hub_fini(void);

/* Lock/unlock; the pointers returned by the getters are valid under the
 * lock only, and the getters and setters assert that the calling thread
 * holds it (builds without NDEBUG).  libra_hub_held() says whether it
 * does, for the plugins' own assertions. */
extern void libra_hub_lock(void);
extern void libra_hub_unlock(void);
extern bool libra_hub_held(void);
extern libra_ledger_t *libra_hub_ledger(void);
extern libra_params_t *libra_hub_params(void);
/* The binding quotes given and not yet gone (quote.h).  set replaces the
 * book (destroying the old one), e.g. with the one saved before a
 * restart.  Lock held. */
extern libra_quotes_t *libra_hub_quotes(void);
extern void libra_hub_set_quotes(libra_quotes_t *b);

/* The counters a provider watches (watch.h, decision 44), since this
 * slurmctld started: kept across a takeover's reset.  Lock held. */
extern libra_watch_t *libra_hub_watch(void);

/*
 * Writers of the plugins' state files in StateSaveLocation (the book,
 * the betas: decisions 9 and 20) take this lock around making the text
 * and writing it, so that the last file written is the newest state; not
 * the hub's lock, so that a write in progress does not hold up admissions.
 * Taken before the hub's lock, never while holding it.
 */
extern void libra_hub_save_lock(void);
extern void libra_hub_save_unlock(void);
/* The runtime predictor (predict.h, decision 23): NULL unless libra_predict
 * names a method.  set replaces it (destroying the old one).  Lock held. */
extern libra_predictor_t *libra_hub_predictor(void);
extern void libra_hub_set_predictor(libra_predictor_t *p);

/*
 * Replace the ledger, the book of quotes and the predictor by empty ones,
 * and mark the ledger not synced (decision 28: what slurmctld knew before
 * it took control is not trusted).  Returns 0, or -1 (out of memory: all
 * kept, the ledger marked not synced).  Lock held.
 */
extern int libra_hub_reset(void);

/* Replace the ledger (destroying the old one), e.g. when the node table
 * changed.  Lock held. */
extern void libra_hub_set_ledger(libra_ledger_t *l);

/* Has the ledger been brought in step with slurmctld since it started?
 * Lock held. */
extern bool libra_hub_synced(void);
extern void libra_hub_set_synced(bool synced);

/*
 * Admissions happen before slurmctld gives the job its id; they are
 * committed under a token (LIBRA_TOKEN_BASE and libra_is_token(), in
 * ledger.h) and re-keyed later.
 */
extern uint32_t libra_hub_next_token(void);	/* call with the lock held */
/* How many tokens libra_hub_next_token() has given out (wraps); lock held.
 * No token in the ledger at one look and the same count later: still
 * none, and the ledger need not be searched for them. */
extern uint32_t libra_hub_tokens_issued(void);

/* Wake the scheduler (call with or without the lock). */
extern void libra_hub_wake(void);

/* Wait, holding the lock, until woken or "secs" pass; returns true when
 * woken. */
extern bool libra_hub_wait(double secs);

/* Ask the scheduler to stop waiting for good (plugin shutdown). */
extern void libra_hub_shutdown(void);
extern bool libra_hub_stopping(void);

#endif /* LIBRA_HUB_H */
