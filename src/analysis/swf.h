/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  swf.h - reader for the Standard Workload Format of the Parallel
 *  Workloads Archive (gzip or plain).
 *
 *  Each job is one line of 18 whitespace-separated fields; header comments
 *  start with ';' and may carry "MaxProcs: N" or "MaxNodes: N".  Missing
 *  values are -1.  Lines that do not have 18 numeric fields are errors that
 *  name the file and line.
\*****************************************************************************/

#ifndef LIBRA_SWF_H
#define LIBRA_SWF_H

#include <stddef.h>

typedef struct libra_swf_job {
	long id;		/* 1: job number */
	double submit;		/* 2: submit time [s] */
	double wait;		/* 3 */
	double run;		/* 4: run time [s] */
	int procs;		/* 5: allocated processors */
	double avg_cpu;		/* 6 */
	double used_mem;	/* 7 */
	int req_procs;		/* 8 */
	double req_time;	/* 9: requested time (user estimate) [s] */
	double req_mem;		/* 10 */
	int status;		/* 11 */
	int user, group, app, queue, partition;	/* 12-16 */
	long preceding;		/* 17 */
	double think;		/* 18 */
} libra_swf_job_t;

typedef struct libra_swf {
	libra_swf_job_t *jobs;
	size_t njobs;
	int max_procs;		/* from the header, 0 if absent */
	int max_nodes;
} libra_swf_t;

/* Read a whole trace.  Returns 0, or -1 with a message naming file:line. */
extern int libra_swf_read(const char *path, libra_swf_t *swf, char *err,
			  size_t errlen);
extern void libra_swf_free(libra_swf_t *swf);

#endif /* LIBRA_SWF_H */
