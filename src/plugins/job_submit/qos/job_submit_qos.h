/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  job_submit_qos.h - what the files of job_submit/qos share (the plugin's
 *  private header): the error codes of refusals, an admission's state, and
 *  the functions one file gives the others.  job_submit_qos.c says which
 *  file holds what.
\*****************************************************************************/

#ifndef _JOB_SUBMIT_QOS_H
#define _JOB_SUBMIT_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/slurmctld/slurmctld.h"

#include "admit.h"
#include "bag.h"
#include "libra_slurm.h"

extern const char plugin_type[];

/*
 * The error codes of refusals (design.md decision 29): sbatch
 * prints slurm_strerror() of the code as a second line under the plugin's
 * message, so each is one whose text is true of the refusal, the same on
 * 22.05, 24.11 and 26.05, and one sbatch does not retry (it retries
 * ESLURM_NODES_BUSY and ESLURM_PORTS_BUSY: a refusal is final).
 *   capacity: "Requested partition configuration not available now";
 *   policy:   "Job violates accounting/QOS policy (...)": the budget, the
 *	       site's rules (an SLA required, binding quotes allowed);
 *   invalid:  "Invalid argument": SLA text, options or a quote number that
 *	       do not hold (times: ESLURM_INVALID_TIME_VALUE, "Invalid time
 *	       specified").
 */
#define LIBRA_E_CAPACITY ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE
#define LIBRA_E_POLICY ESLURM_ACCOUNTING_POLICY
#define LIBRA_E_INVALID EINVAL

/* How far ahead a counter-offer may move the deadline. */
#define OFFER_HORIZON (30.0 * 86400.0)

/* One admission's state, shared by libra_qos_admit()'s steps
 * (job_submit_qos_admit.c), its request (libra_qos_admit_request()) and its
 * refusal (libra_qos_admit_refuse()). */
typedef struct {
	job_desc_msg_t *job_desc;
	libra_sla_t *sla;
	const libra_bag_t *bag;	/* a job array's (decision 36), or tasks 0 */
	libra_ledger_t *l;
	libra_params_t *p;
	libra_quote_t *q;
	libra_request_t req;
	libra_slurm_left_out_t left_out;
	part_record_t *part_ptr;	/* the partition placed (or last tried) */
	uint32_t uid;
	libra_refusal_t *ref;
	char **err_msg;
	size_t keep;		/* err_msg's length before this admission */
	double now;
	double begin;		/* > 0: a booking's begin (decision 21) */
	double at;		/* when admission counts the job from */
	double from;		/* what the user's times count from */
	double start;		/* the start the power plan chose */
	bool hold;		/* a binding quote (quote=hold) */
	bool deferred, boot_wait;	/* the power plan's (decision 24) */
	bool *all;		/* the nodes it may use once the jobs that do
				 * not share end there (decision 39) */
	libra_planned_t plan;	/* a planned start there, or the next slot */
	double declared, predicted;	/* the runtimes (_predict()) */
	char begin_txt[192], predict_txt[128];
	char *tried;		/* -p a,b: the other partitions' reasons */
	int k;			/* the partition placed (or last tried) */
} admit_ctx_t;

/* job_submit_qos.c: the Slurm error code of an SLA that does not parse;
 * the time of a decision, to the microsecond; a booking's reservation
 * (decision 42) asked by someone not an operator, refused (err_msg may be
 * NULL). */
extern int libra_qos_sla_errno(libra_sla_err_t err, uint32_t field);
extern double libra_qos_now(void);
extern int libra_qos_booking_resv_refused(job_desc_msg_t *job_desc,
					  uint32_t submit_uid, char **err_msg);

/* job_submit_qos_request.c: the job's k-th partition; its request, read;
 * what admission needs of it in c->k's partition (libra_qos_admit_request());
 * its QOS and association limits (decision 29).  Written into the job once
 * admitted: its time limit, its nodes (libra_no_sla=slurm), its record, and
 * what the record of an admission and of a binding quote taken have in
 * common. */
extern part_record_t *libra_qos_partition(job_desc_msg_t *job_desc, int k,
					  char **name);
extern int libra_qos_read_request(job_desc_msg_t *job_desc, int k,
				  libra_request_t *req,
				  part_record_t **part_ptr,
				  libra_refusal_t *ref, char **err_msg);
extern int libra_qos_admit_request(admit_ctx_t *c);
extern int libra_qos_limits(job_desc_msg_t *job_desc, part_record_t *part_ptr,
			    const libra_sla_t *sla, const libra_request_t *req,
			    double from, libra_refusal_t *ref, char **err_msg);
extern void libra_qos_set_time_limit(job_desc_msg_t *job_desc,
				     const libra_sla_t *sla, double now,
				     const part_record_t *part_ptr);
extern void libra_qos_pin(job_desc_msg_t *job_desc, const char *nodes);
extern int libra_qos_store(job_desc_msg_t *job_desc, const libra_record_t *rec,
			   char **err_msg);
extern void libra_qos_record_init(libra_record_t *rec, libra_policy_t policy,
				  uint32_t token, const libra_sla_t *sla,
				  double now, double price, double price_mem,
				  double price_gpus);

/* job_submit_qos_admit.c: admit a job with an SLA, or refuse it with the
 * reason (hub lock held); libra_qos_admit_fini() frees what the plugin
 * keeps of admissions whose job has not appeared. */
extern int libra_qos_admit(job_desc_msg_t *job_desc, libra_sla_t *sla,
			   const libra_bag_t *bag, double now, double begin,
			   uint32_t uid, char **err_msg, libra_refusal_t *ref);
extern void libra_qos_admit_fini(void);

/* job_submit_qos_refuse.c: "4 CPUs x 1h, deadline 2h"; money and times for
 * people; a refused booking's note; -p a,b: a partition's refusal, and the
 * others' after the last one's; the refusal of a job placed nowhere, with
 * its errno; the refusal log. */
extern void libra_qos_describe(const libra_sla_t *sla, int cpus, double now,
			       char *buf, size_t len);
extern const char *libra_qos_money(double v, char *buf, size_t len);
extern void libra_qos_clock(double t, char *buf, size_t len);
extern void libra_qos_booked_note(double begin, char **err_msg);
extern void libra_qos_partition_refused(job_desc_msg_t *job_desc, int k,
					const libra_ledger_t *l,
					const libra_sla_t *sla,
					const libra_request_t *req,
					const libra_quote_t *q, double now,
					int rc, const char *rc_msg,
					char **tried);
extern void libra_qos_partition_tried(job_desc_msg_t *job_desc, int k,
				      char **tried, char **err_msg);
extern int libra_qos_admit_refuse(admit_ctx_t *c);
extern void libra_qos_log_refusal(libra_refusal_t *ref,
				  job_desc_msg_t *job_desc, uint32_t submit_uid,
				  const char *msg);

/* job_submit_qos_quote.c: may the user hold one more binding quote; keep
 * one for an accepted admission; the answer to quote=hold; take quote N
 * (decision 20). */
extern int libra_qos_quote_allowed(const libra_params_t *p, uint32_t uid,
				   double now, char **err_msg);
extern uint32_t libra_qos_quote_keep(const job_desc_msg_t *job_desc,
				     const libra_request_t *req,
				     const libra_record_t *rec,
				     const libra_quote_t *q, uint32_t uid,
				     double now, double until);
extern void libra_qos_quote_msg(const libra_params_t *p, double price,
				uint32_t id, double until, const char *what,
				const char *nodes, char **err_msg);
extern int libra_qos_take_quote(job_desc_msg_t *job_desc,
				const libra_sla_t *sla, double now,
				uint32_t uid, char **err_msg,
				libra_refusal_t *ref);
extern int libra_qos_release_quote(const libra_sla_t *sla, double now,
				   uint32_t uid, char **err_msg);

/* job_submit_qos_array.c: a job array's SLA, request, counter-offer and
 * record (decision 36). */
extern int libra_qos_array_sla(const job_desc_msg_t *job_desc, libra_bag_t *bag,
			       libra_sla_t *sla, char **err_msg);
extern int libra_qos_array_request(const job_desc_msg_t *job_desc,
				   const libra_bag_t *bag, libra_request_t *req,
				   char **err_msg);
extern void libra_qos_array_offer(const libra_bag_t *bag,
				  const libra_sla_t *sla,
				  const libra_params_t *p, double from,
				  char **err_msg);
extern void libra_qos_array_record(const libra_bag_t *bag,
				   const libra_sla_t *sla, libra_record_t *rec,
				   char *what, size_t len);

#endif /* _JOB_SUBMIT_QOS_H */
