/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_compat.h - the one place where the slurmctld and SPANK plugins of
 *  slurm-libra meet the differences between the Slurm releases they build
 *  against: 22.05 (Debian 12), 24.11 (Debian 13) and 26.05.
 *
 *  The plugins' logic files contain no release checks: they use the names
 *  below (libra_*, LIBRA_*), and this header maps each to what the release
 *  in SLURM_VERSION_NUMBER (the configured Slurm tree's slurm_version.h)
 *  provides.  A difference in name or argument types only is mapped
 *  silently; one in meaning has a comment saying what differs and how the
 *  shim keeps the plugins' behaviour the one they have on 22.05.
 *  doc/design.md, "Slurm releases", lists them all.
 *
 *  Only the release lines named here are supported: Slurm changes its
 *  private (slurmctld) interfaces between any two releases, and these
 *  plugins use them, so another release fails here, at compile time, as
 *  configure already does.  Every check compares with the first micro
 *  release of a supported line (SLURM_VERSION_NUM(24, 11, 0) means "24.11
 *  or later"), so the three lines are the only cases.
 *
 *  The slurmctld part is seen only by files that included
 *  src/slurmctld/slurmctld.h first (libra_slurm.h does); the SPANK plugin
 *  sees only the public part (slurm/slurm.h).
\*****************************************************************************/

#ifndef _LIBRA_COMPAT_H
#define _LIBRA_COMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#if !defined(SLURM_VERSION_NUMBER) || !defined(SLURM_VERSION_NUM)
#  error "libra_compat.h: slurm_version.h gives no SLURM_VERSION_NUMBER"
#endif

#define LIBRA_SLURM_LINE(major, minor)					\
	((SLURM_VERSION_NUMBER & 0xffff00) ==				\
	 SLURM_VERSION_NUM(major, minor, 0))
#define LIBRA_SLURM_SINCE(major, minor)					\
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

#if !LIBRA_SLURM_LINE(22, 5) && !LIBRA_SLURM_LINE(24, 11) &&		\
	!LIBRA_SLURM_LINE(26, 5)
#  error "slurm-libra supports Slurm 22.05, 24.11 and 26.05 only (see SLURM_VERSION_NUMBER in slurm_version.h)"
#endif

/* ------------------------------------------------------------------------
 * Public API (slurm/slurm.h): all plugins, the SPANK one included.
 * ------------------------------------------------------------------------ */

/*
 * slurm_load_job(): 26.05 takes the job's slurm_step_id_t (job id and
 * SLUID, the cluster-unique id 26.05 adds) instead of a uint32_t job id;
 * its slurm.h maps a job id to it only under SLURM_BACKWARD_COMPAT.  The
 * shim fills in the job id alone (SLURM_STEP_ID_INITIALIZER: SLUID 0,
 * no step), which slurmctld looks up by job id as before: the same job.
 * The symbol itself changed its arguments, so the SPANK plugin must be
 * compiled against the headers of the release that loads it (see
 * src/plugins/spank/libra/Makefile.am).
 */
static inline int libra_load_job(job_info_msg_t **resp, uint32_t job_id,
				 uint16_t show_flags)
{
#if LIBRA_SLURM_SINCE(26, 5)
	slurm_step_id_t step_id = SLURM_STEP_ID_INITIALIZER;

	step_id.job_id = job_id;
	return slurm_load_job(resp, step_id, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

/*
 * The error of the last failed libslurm call: 22.05 has slurm_get_errno()
 * (which returns errno); 24.11 and 26.05 have no such function, errno is
 * the way.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#define libra_errno() (errno)
#else
#define libra_errno() slurm_get_errno()
#endif

/* ------------------------------------------------------------------------
 * slurmctld's private interfaces: sched, job_submit and jobcomp plugins.
 * ------------------------------------------------------------------------ */
#ifdef _HAVE_SLURMCTLD_H

#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/node_scheduler.h"

/*
 * srun_allocate() (tell a waiting srun or salloc that its job has its
 * nodes): 22.05 declares it in src/slurmctld/srun_comm.h; in 24.11 and
 * 26.05 srun_comm.h is in src/stepmgr (the step manager, which slurmd can
 * run too) and srun_allocate() is declared in src/slurmctld/proc_req.h.
 * Same function.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#include "src/slurmctld/proc_req.h"
#else
#include "src/slurmctld/srun_comm.h"
#endif

/*
 * build_batch_step() (a batch job's "batch" step record, which
 * launch_job() makes): declared in src/slurmctld/slurmctld.h in 22.05,
 * in src/stepmgr/stepmgr.h (the step manager) in 24.11 and 26.05.  Same
 * function; pick_batch_host() is in slurmctld.h in all three.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#include "src/stepmgr/stepmgr.h"
#endif

/*
 * GRES (a node's GPUs, a running job's): the interface's header is
 * src/common/gres.h in 22.05 and src/interfaces/gres.h in 24.11 and 26.05.
 * What the plugins use of it is the same in all three:
 * gres_node_config_cnt(gres_list, "gpu") (the node's configured count),
 * gres_build_id(), and gres_state_t {plugin_id, gres_data} holding a
 * gres_job_state_t {node_cnt, gres_cnt_node_alloc[]} in a job's
 * gres_list_alloc.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#include "src/interfaces/gres.h"
#else
#include "src/common/gres.h"
#endif

/*
 * Memory as a consumable resource (SelectTypeParameters=CR_*_Memory): the
 * bit CR_MEMORY of slurm_conf.select_type_param in 22.05 and 24.11,
 * SELECT_MEMORY (an enum of SELECT_* replacing the CR_* macros) in 26.05.
 * Same bit, same meaning.
 */
#if LIBRA_SLURM_SINCE(26, 5)
#define LIBRA_SELECT_MEMORY SELECT_MEMORY
#else
#define LIBRA_SELECT_MEMORY CR_MEMORY
#endif

/*
 * Advance reservations made in-process (a booking's, design.md decision
 * 42): create_resv() and update_resv() take a resv_desc_msg_t in all
 * three; 24.11 and 26.05 add char **err_msg, a message for the requester
 * (freed by the caller), which 22.05 does not give.  delete_resv() is the
 * same in all three.  libra_resv_call(create_resv, &desc, &err) calls
 * either as the release has it.  Locks: {config read, job read, node
 * write, partition read}, as their RPC handlers take.
 */
#include "src/slurmctld/reservation.h"

#if LIBRA_SLURM_SINCE(24, 11)
#define libra_resv_call(fn, desc, err_msg) fn(desc, err_msg)
#else
#define libra_resv_call(fn, desc, err_msg) (*(err_msg) = NULL, fn(desc))
#endif

/* JOBCOMP_EVENT_JOB_FINISH, for LIBRA_JOBCOMP_OPS() (26.05) */
#if LIBRA_SLURM_SINCE(26, 5)
#include "src/interfaces/jobcomp.h"
#endif

/*
 * Threads.  22.05 and 24.11: slurm_thread_create(&id, func, arg) is
 * pthread_create() with Slurm's attributes (src/common/macros.h), and the
 * thread is joined with pthread_join().  26.05 runs threads from a pool
 * (src/common/threadpool.h): slurm_thread_create(name, &id, func, arg),
 * the name being the thread's name for ps/top (15 characters at most),
 * and a joinable thread must be joined with slurm_thread_join(id)
 * (threadpool_join(), which keeps the pool's books; pthread_join() on it
 * would bypass them).  libra_thread_create(id, name, func, arg) and
 * libra_thread_join(id) (sets id to 0) map to each; before 26.05 the
 * name is given with pthread_setname_np() (_GNU_SOURCE), as sched/backfill
 * names its thread "bckfl".
 */
#if LIBRA_SLURM_SINCE(26, 5)
#include "src/common/threadpool.h"
#define libra_thread_create(id, name, func, arg)			\
	slurm_thread_create((name), (id), (func), (arg))
#define libra_thread_join(id) slurm_thread_join(id)
#else
#define libra_thread_create(id, name, func, arg)			\
	do {								\
		slurm_thread_create((id), (func), (arg));		\
		if (pthread_setname_np(*(id), (name)))			\
			error("cannot name thread %s", (name));		\
	} while (0)
#define libra_thread_join(id)						\
	do {								\
		pthread_join((id), NULL);				\
		(id) = 0;						\
	} while (0)
#endif

/*
 * The text of a job's state reason (squeue's REASON): job_reason_string()
 * in 22.05 (slurm_protocol_defs.h), job_state_reason_string() in
 * src/common/job_state_reason.h in 24.11 and 26.05.  Same strings.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#include "src/common/job_state_reason.h"
#define libra_job_reason_string(reason) job_state_reason_string(reason)
#else
#define libra_job_reason_string(reason) job_reason_string(reason)
#endif

/*
 * Lists and hostlists.  22.05 has pointer typedefs (List, ListIterator,
 * hostlist_t = struct hostlist *); 24.11 and 26.05 have no List or
 * ListIterator but list_t and list_itr_t, and hostlist_t is the struct
 * itself.  The
 * structs are the same, so these names are plain pointers to them on
 * every release.
 */
#if LIBRA_SLURM_SINCE(24, 11)
typedef list_t *libra_list_t;
typedef list_itr_t *libra_list_itr_t;
typedef hostlist_t *libra_hostlist_t;
#else
typedef List libra_list_t;
typedef ListIterator libra_list_itr_t;
typedef hostlist_t libra_hostlist_t;
#endif

/*
 * node_name2bitmap(): a node list to a bitmap, every name required to be
 * a node (EINVAL otherwise, with an error logged).
 * 22.05: node_name2bitmap(names, best_effort, &bitmap); best_effort=false
 * makes an unknown name an error and looks names up without aliases.
 * 24.11 and 26.05: node_name2bitmap(names, test_alias, &bitmap,
 * &invalid_hostlist): the second argument now only says whether to try a
 * NodeHostname alias, and unknown names are an error only when
 * invalid_hostlist is NULL (otherwise they are collected there and the
 * call succeeds).  The shim passes false and NULL: the 22.05 meaning
 * (strict, no aliases).  24.11 and later also accept hostlist functions
 * ("{...}") in the list; a job's own node lists are checked by slurmctld
 * with the same function, so nothing is accepted that Slurm refuses.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#define libra_node_name2bitmap(names, bitmap)				\
	node_name2bitmap((names), false, (bitmap), NULL)
#else
#define libra_node_name2bitmap(names, bitmap)				\
	node_name2bitmap((names), false, (bitmap))
#endif

/*
 * select_nodes(): allocate a pending job now, or fail.
 * 22.05: select_nodes(job_ptr, test_only, &select_node_bitmap, &err_msg,
 * submission, scheduler_type).  24.11 and 26.05: select_nodes(
 * &job_node_select, test_only, submission, scheduler_type), where
 * job_node_select_t carries the job, err_msg and the reasons select_nodes
 * found (rc_*, outputs).  sched/libra passes no bitmap and no err_msg on
 * 22.05 and a job_node_select_t holding only the job (as sched/backfill
 * does) on the others: the same call.
 */
static inline int libra_select_nodes(job_record_t *job_ptr,
				     uint32_t scheduler_type)
{
#if LIBRA_SLURM_SINCE(24, 11)
	job_node_select_t job_node_select = { .job_ptr = job_ptr };

	return select_nodes(&job_node_select, false, false, scheduler_type);
#else
	return select_nodes(job_ptr, false, NULL, NULL, false,
			    scheduler_type);
#endif
}

/*
 * job_complete(): end a job as its batch script ended.  26.05 takes the
 * job's slurm_step_id_t (job id and SLUID) instead of the job id and
 * looks the job up by SLUID when it has one; STEP_ID_FROM_JOB_RECORD()
 * gives the job's own, so the same job is ended.
 */
static inline int libra_job_complete(job_record_t *job_ptr, uid_t uid,
				     bool requeue, bool node_fail,
				     uint32_t job_return_code)
{
#if LIBRA_SLURM_SINCE(26, 5)
	slurm_step_id_t step_id = STEP_ID_FROM_JOB_RECORD(job_ptr);

	return job_complete(&step_id, uid, requeue, node_fail,
			    job_return_code);
#else
	return job_complete(job_ptr->job_id, uid, requeue, node_fail,
			    job_return_code);
#endif
}

/*
 * Release a held job as "scontrol release" does: update_job() with the
 * priority INFINITE, from UID (the one whose right it is: SlurmUser, an
 * operator), no reply sent.  The caller holds the job write lock, as the
 * update RPC's handler does.  26.05 names the job by its slurm_step_id_t
 * (job id and SLUID) in the job descriptor; the others by its job id.
 */
static inline int libra_release_job(job_record_t *job_ptr, uid_t uid)
{
	job_desc_msg_t desc;
	slurm_msg_t msg;
	int rc;

	slurm_init_job_desc_msg(&desc);
#if LIBRA_SLURM_SINCE(26, 5)
	desc.step_id = STEP_ID_FROM_JOB_RECORD(job_ptr);
#else
	desc.job_id = job_ptr->job_id;
#endif
	desc.priority = INFINITE;
	slurm_msg_t_init(&msg);
	msg.data = &desc;
	rc = update_job(&msg, uid, false);
	xfree(desc.alloc_node);
	FREE_NULL_BITMAP(desc.array_bitmap);
	return rc;
}

/*
 * The member of job_desc_msg_t that names the job an update is for:
 * 26.05's slurm_step_id_t step_id, the others' job_id
 * (job_submit/qos's allow-list of updates sets it aside).
 */
#if LIBRA_SLURM_SINCE(26, 5)
#define LIBRA_JOB_DESC_ID step_id
#else
#define LIBRA_JOB_DESC_ID job_id
#endif

/*
 * LIBRA_JOB_DESC_UNPACKED(X): the members of job_desc_msg_t that a
 * release's unpacking fills whatever the client sent, X(member) each:
 * 22.05's select_jobinfo (select_g_select_jobinfo_unpack() allocates one
 * for every message); none in 24.11 and 26.05.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#define LIBRA_JOB_DESC_UNPACKED(X)
#else
#define LIBRA_JOB_DESC_UNPACKED(X) X(select_jobinfo)
#endif

/*
 * job_submit plugins' job_modify().  24.11 and 26.05 give it a char
 * **err_msg, returned to the user (scontrol update) as on submission;
 * 22.05 has none, so a refusal there is only logged.
 * LIBRA_JOB_MODIFY(fn) defines the job_modify() the release's loader
 * (job_submit.c, syms[]) looks up, calling
 *	int fn(job_desc_msg_t *, job_record_t *, uint32_t submit_uid,
 *	       char **err_msg)
 * with err_msg NULL on 22.05.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#define LIBRA_JOB_MODIFY(fn)						\
	extern int job_modify(job_desc_msg_t *job_desc,			\
			      job_record_t *job_ptr, uint32_t submit_uid, \
			      char **err_msg)				\
	{								\
		return fn(job_desc, job_ptr, submit_uid, err_msg);	\
	}
#else
#define LIBRA_JOB_MODIFY(fn)						\
	extern int job_modify(job_desc_msg_t *job_desc,			\
			      job_record_t *job_ptr, uint32_t submit_uid) \
	{								\
		return fn(job_desc, job_ptr, submit_uid, NULL);		\
	}
#endif

/*
 * jobcomp plugins.  The loader (22.05: src/common/slurm_jobcomp.c; 24.11
 * and 26.05: src/interfaces/jobcomp.c) requires every symbol of its
 * syms[]:
 *  22.05  jobcomp_p_set_location(char *location), jobcomp_p_log_record(
 *         job_ptr), jobcomp_p_get_jobs(job_cond);
 *  24.11  jobcomp_p_set_location(void) (the plugin reads JobCompLoc from
 *         slurm_conf itself), jobcomp_p_log_record(job_ptr),
 *         jobcomp_p_get_jobs(job_cond);
 *  26.05  jobcomp_p_set_location(void), jobcomp_p_record_job_end(job_ptr,
 *         event), jobcomp_p_get_jobs(job_cond), and a new
 *         jobcomp_p_record_job_start(job_ptr, event), called when a job
 *         starts (node_scheduler.c, after the accounting start record).
 * The end entry point is called from job_completion_logger() in all
 * three, job write lock held, before jobacct_storage_g_job_complete()
 * sends the job's end to the accounting database (so what it writes into
 * AdminComment is what sacct shows); 22.05 calls it just before the job's
 * allocated-TRES string is set, 24.11 and 26.05 just after (no field
 * jobcomp/libra reads).  26.05 passes event JOBCOMP_EVENT_JOB_FINISH.
 * LIBRA_JOBCOMP_OPS(end_fn) defines them all: the location is ignored
 * (jobcomp/libra writes no file of its own), end_fn(job_ptr) is called
 * for a job's end only, a start is ignored, and no jobs are listed
 * (sacct -c).
 */
#if LIBRA_SLURM_SINCE(26, 5)
#define LIBRA_JOBCOMP_OPS(end_fn)					\
	extern int jobcomp_p_set_location(void)				\
	{								\
		return SLURM_SUCCESS;					\
	}								\
	extern int jobcomp_p_record_job_end(job_record_t *job_ptr,	\
					    uint32_t event)		\
	{								\
		if (event != JOBCOMP_EVENT_JOB_FINISH)			\
			return SLURM_SUCCESS;				\
		return end_fn(job_ptr);					\
	}								\
	extern int jobcomp_p_record_job_start(job_record_t *job_ptr,	\
					      uint32_t event)		\
	{								\
		return SLURM_SUCCESS;					\
	}								\
	extern libra_list_t jobcomp_p_get_jobs(void *job_cond)		\
	{								\
		return NULL;						\
	}
#else
/* 24.11 dropped set_location()'s argument; nothing else differs */
#if LIBRA_SLURM_SINCE(24, 11)
#define LIBRA_JOBCOMP_LOCATION void
#else
#define LIBRA_JOBCOMP_LOCATION char *location
#endif
#define LIBRA_JOBCOMP_OPS(end_fn)					\
	extern int jobcomp_p_set_location(LIBRA_JOBCOMP_LOCATION)	\
	{								\
		return SLURM_SUCCESS;					\
	}								\
	extern int jobcomp_p_log_record(job_record_t *job_ptr)		\
	{								\
		return end_fn(job_ptr);					\
	}								\
	extern libra_list_t jobcomp_p_get_jobs(void *job_cond)		\
	{								\
		return NULL;						\
	}
#endif

/*
 * Licenses (design.md decision 29): Slurm's src/slurmctld/licenses.h, the
 * same path in all three; get_total_license_cnt() (the configured count
 * of one license, under Slurm's license lock) unchanged.  An SLA job
 * refused because the licenses it asks are held: 24.11 and 26.05 have
 * ESLURM_LICENSES_UNAVAILABLE ("Licenses currently unavailable"); 22.05
 * has no such errno, and its only one about licenses,
 * ESLURM_INVALID_LICENSES ("Invalid license specification"), would be
 * false of a valid request: there the capacity errno
 * ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE ("Requested partition
 * configuration not available now"), true of it (decision 29's errnos).
 */
#include "src/slurmctld/licenses.h"
#if LIBRA_SLURM_SINCE(24, 11)
#define LIBRA_ESLURM_LICENSES_HELD ESLURM_LICENSES_UNAVAILABLE
#else
#define LIBRA_ESLURM_LICENSES_HELD ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE
#endif

/*
 * acct_policy_job_runnable_pre_select() and _post_select() take the
 * assoc_mgr's QOS lock for reading in 22.05 and for writing from 24.11
 * (they may add a user's or account's usage record to a QOS); a caller
 * passing assoc_mgr_locked holds what they would take.
 */
#if LIBRA_SLURM_SINCE(24, 11)
#define LIBRA_ACCT_POLICY_QOS_LOCK WRITE_LOCK
#else
#define LIBRA_ACCT_POLICY_QOS_LOCK READ_LOCK
#endif

/*
 * A job's details record: "struct job_details" in 22.05's slurmctld.h,
 * the typedef job_details_t of src/common/job_record.h (no struct tag)
 * from 24.11.  The same fields for what admission sets.
 */
#if LIBRA_SLURM_SINCE(24, 11)
typedef job_details_t libra_job_details_t;
#else
typedef struct job_details libra_job_details_t;
#endif

/*
 * Who may suspend a job (scontrol suspend: job_suspend(), job_suspend2()):
 * operators only in 22.05; operators and the coordinators of the job's
 * account in 24.11; in 26.05 also the job's owner (the access check became
 * _check_access_job_ptr(), the one a cancel makes, although scontrol(1)
 * still says "Only a privileged user or an account coordinator").  A
 * suspend is the provider's only where nobody on the user's side could
 * have made it (design.md decision 30): libra_slurm_suspend_by_provider().
 * assoc_mgr_is_user_acct_coord() takes whether the caller holds the
 * assoc_mgr's locks from 24.11 on; it takes them itself in 22.05.
 */
#define LIBRA_SUSPEND_BY_COORD LIBRA_SLURM_SINCE(24, 11)
#define LIBRA_SUSPEND_BY_OWNER LIBRA_SLURM_SINCE(26, 5)
#include "src/common/assoc_mgr.h"
#if LIBRA_SLURM_SINCE(24, 11)
#define libra_is_acct_coord(uid, acct)					\
	assoc_mgr_is_user_acct_coord(acct_db_conn, (uid), (acct), false)
#else
#define libra_is_acct_coord(uid, acct)					\
	assoc_mgr_is_user_acct_coord(acct_db_conn, (uid), (acct))
#endif

#endif /* _HAVE_SLURMCTLD_H */

#endif /* _LIBRA_COMPAT_H */
