/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  qos_update.c - the owner's updates of an admitted job that are known to
 *  be harmless: an allow-list, not a deny-list (design.md decision 37).
 *
 *  job_modify() names the changes that would alter an admitted job's SLA
 *  or price, or keep it from starting (_tampered() in
 *  job_submit_qos_modify.c), so that a refusal says what it refused.
 *  Whatever else an owner may change in a release's _update_job()
 *  (ReqSockets, MinTmpDiskNode, Switches, ... on a pending job; EndTime,
 *  TresBind on a running one) could make the job unrunnable or end it,
 *  and a field a later release adds would pass a deny-list unseen.  So
 *  every member of the update's job_desc_msg_t is compared with an update
 *  that asks nothing, and one that differs must be on the list below.
 *
 *  "Asks nothing" is what Slurm's own unpacking makes of an empty update:
 *  slurm_init_job_desc_msg() packed and unpacked as REQUEST_UPDATE_JOB
 *  (pack_msg(), unpack_msg()), since the unpacking leaves the members it
 *  does not carry as zero, not as slurm_init_job_desc_msg()'s NO_VAL.
 *  Made once, at the plugin's init().  Members slurmctld itself fills
 *  before the hook (the job's id, the user, the requesting node, the
 *  array bitmap; job_mgr.c _update_job() and proc_req.c) are set aside.
\*****************************************************************************/

#include <stddef.h>
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/slurm_protocol_pack.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "libra_compat.h"
#include "qos_update.h"

/* An update that asks nothing, as unpacked (NULL until made). */
static job_desc_msg_t *blank;

/*
 * The members an owner may change on an admitted job without touching its
 * SLA, its price or its start (with their scontrol keywords): what it is
 * called, where mail and output go, its nice and its hold (the time held
 * is the owner's, libra_record_owner_stop()), its accounting key, and
 * whether Slurm requeues it after a node failure.
 */
#define HARMLESS(X) \
	X(name)		/* JobName */			\
	X(mail_type)	/* MailType */			\
	X(mail_user)	/* MailUser */			\
	X(nice)		/* Nice (the owner only lowers its priority) */ \
	X(priority)	/* hold, uhold, release */	\
	X(alloc_sid)	/* hold or uhold */		\
	X(std_out)	/* StdOut */			\
	X(std_err)	/* StdErr */			\
	X(std_in)	/* StdIn */			\
	X(work_dir)	/* WorkDir */			\
	X(wckey)	/* WCKey */			\
	X(requeue)	/* Requeue */			\
	/* filled by slurmctld before the hook, not by the user */ \
	X(LIBRA_JOB_DESC_ID)				\
	X(job_id_str)					\
	X(user_id)					\
	X(group_id)					\
	X(alloc_node)					\
	X(array_bitmap)					\
	X(site_factor)					\
	LIBRA_JOB_DESC_UNPACKED(X)

extern void libra_update_init(void)
{
	job_desc_msg_t desc;
	slurm_msg_t msg, back;
	buf_t *buf;

	if (blank)
		return;
	slurm_init_job_desc_msg(&desc);
	slurm_msg_t_init(&msg);
	msg.msg_type = REQUEST_UPDATE_JOB;
	msg.protocol_version = SLURM_PROTOCOL_VERSION;
	msg.data = &desc;
	buf = init_buf(BUF_SIZE);
	if (pack_msg(&msg, buf) != SLURM_SUCCESS) {
		error("job_submit/qos: cannot pack an empty job update; owners' updates of admitted jobs are refused but for the SLA's own checks");
		free_buf(buf);
		return;
	}
	set_buf_offset(buf, 0);
	slurm_msg_t_init(&back);
	back.msg_type = REQUEST_UPDATE_JOB;
	back.protocol_version = SLURM_PROTOCOL_VERSION;
	if (unpack_msg(&back, buf) != SLURM_SUCCESS || !back.data)
		error("job_submit/qos: cannot unpack an empty job update; owners' updates of admitted jobs are refused but for the SLA's own checks");
	else
		blank = back.data;
	free_buf(buf);
}

extern void libra_update_fini(void)
{
	slurm_free_job_desc_msg(blank);
	blank = NULL;
}

extern bool libra_update_unknown(const job_desc_msg_t *d, size_t *off)
{
	job_desc_msg_t probe;
	const unsigned char *a, *b;
	uint64_t flags;

	*off = 0;
	if (!blank)
		return true;
	memcpy(&probe, d, sizeof(probe));
#define SET_ASIDE(f) memcpy(&probe.f, &blank->f, sizeof(probe.f));
	HARMLESS(SET_ASIDE)
#undef SET_ASIDE
	/* ResetAccrueTime: a flag of its own among bitflags */
	flags = probe.bitflags & ~((uint64_t) RESET_ACCRUE_TIME);
	if (flags == (blank->bitflags & ~((uint64_t) RESET_ACCRUE_TIME)))
		probe.bitflags = blank->bitflags;
	a = (const unsigned char *) &probe;
	b = (const unsigned char *) blank;
	for (size_t i = 0; i < sizeof(probe); i++) {
		if (a[i] != b[i]) {
			*off = i;
			return true;
		}
	}
	return false;
}
