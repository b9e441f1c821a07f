/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  report.h - libra-report's pieces: time windows, input readers, the
 *  command runner.  See libra-report.1 for what the tool does.
\*****************************************************************************/

#ifndef LIBRA_REPORT_H
#define LIBRA_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "metrics.h"
#include "power.h"
#include "record.h"
#include "tariff.h"

#define PROG "libra-report"

/* ------------------------------------------------------------ when.c */

/*
 * Parse a time as sacct -S/-E does (Slurm's parse_time() with "past" set):
 *   YYYY-MM-DD[THH:MM[:SS]]   MMDD[YY]   MM/DD[/YY]   MM.DD[.YY]
 *   MM/DD[/YY]-HH:MM[:SS]     HH:MM[:SS] [AM|PM] (today)
 *   today  tomorrow  midnight  noon  fika (15:00)  teatime (16:00)
 *   now[{+|-}count[seconds|minutes|hours|days|weeks]]  (default seconds)
 *   uts<seconds since the epoch>
 * A date without a year is this year, or last year when its month is after
 * the current month.  Local time.  Returns 0, or -1 with a message.
 */
extern int rpt_parse_time(const char *s, time_t now, time_t *out,
			  char *err, size_t errlen);

/* "YYYY-MM-DDTHH:MM:SS", local time, into buf (at least 20 bytes). */
extern char *rpt_format_time(time_t t, char *buf, size_t len);

/* Parse a time as sacct -P prints it (YYYY-MM-DDTHH:MM:SS, local, or
 * seconds since the epoch).  "Unknown", "None" and "" give 0.  Returns 0,
 * or -1 when the text is none of these. */
extern int rpt_parse_sacct_time(const char *s, double *out);

/* ------------------------------------------------------------ input.c */

typedef enum {
	KIND_SLA = 0,		/* a record with an SLA: admitted */
	KIND_BEST_EFFORT,	/* a record without an SLA */
	KIND_OTHER,		/* no record: the plugins did not see it */
	KIND_UNREADABLE,	/* looks like a record, does not decode */
	KIND_REFUSED,		/* a line of the refusal log */
} rpt_kind_t;

extern const char *rpt_kind_name(rpt_kind_t k);

/* One job (or, with KIND_REFUSED, one refused submission). */
typedef struct rpt_job {
	char *id;		/* sacct's JobID: "12", "8_1", "20+0" */
	char *account;
	char *user;
	char *state;		/* sacct's State, first word */
	double submit, start, end;	/* sacct's times; 0 unknown */
	char *admin_comment;	/* raw; NULL or "" when none */
	char *where;		/* "file:line" or "sacct" / "squeue" */
	bool from_squeue;	/* record taken from slurmctld (squeue) */
	/* filled in by rpt_classify() */
	rpt_kind_t kind;
	libra_record_t rec;
	char err[256];
	/* KIND_REFUSED */
	libra_refusal_t refusal;
} rpt_job_t;

typedef struct {
	rpt_job_t *v;
	size_t n, cap;
	/* index by id for rpt_jobs_find(): open addressing, row + 1 */
	size_t *hash, hcap, indexed;
} rpt_jobs_t;

extern rpt_job_t *rpt_jobs_add(rpt_jobs_t *jobs);
extern rpt_job_t *rpt_jobs_find(rpt_jobs_t *jobs, const char *id);
extern void rpt_jobs_free(rpt_jobs_t *jobs);

/* Decode the job's AdminComment, set kind/rec/err. */
extern void rpt_classify(rpt_job_t *j);

/* Whole contents of a file ("-" = stdin) into a malloc'd NUL-terminated
 * buffer.  Returns NULL with errno set. */
extern char *rpt_slurp(const char *path, size_t *len);

/*
 * sacct output, parsable (-P, the 8 fields of libra-report's own sacct
 * command, with or without the header line) or JSON (sacct --json).
 * name is used in messages ("file:line").  Returns 0, or -1 with a message.
 * Warnings (skipped step lines, duplicates) go to stderr when verbose.
 */
extern int rpt_read_sacct(const char *text, const char *name,
			  rpt_jobs_t *jobs, int verbose, char *err,
			  size_t errlen);

/* squeue --json: the jobs slurmctld knows now, with their AdminComment. */
extern int rpt_read_squeue_json(const char *text, rpt_jobs_t *jobs,
				char *err, size_t errlen);

/*
 * The refusal log (JSON lines).  A line that does not decode is reported on
 * stderr as "file:line: message" and counted in *bad.  Returns 0, or -1
 * when the file cannot be read (errno set; ENOENT: no such file).
 */
extern int rpt_read_refusals(const char *path, rpt_jobs_t *refusals,
			     long *bad, int verbose);

/* libra-sim's --jobs-csv: one row per job and policy, the result that
 * libra-sim folded for it (contrib/sim/outcome.c, sim_result()). */
typedef struct rpt_sim_row {
	char *id;
	char *policy;
	libra_job_result_t r;
} rpt_sim_row_t;

typedef struct {
	rpt_sim_row_t *v;
	size_t n, cap;
} rpt_sim_rows_t;

/* Read FILE ("-" = stdin); a row that does not read is an error
 * "file:line: bad COLUMN".  Returns 0, or -1 with a message. */
extern int rpt_read_sim_csv(const char *path, rpt_sim_rows_t *rows,
			    char *err, size_t errlen);
extern void rpt_sim_rows_free(rpt_sim_rows_t *rows);

/* ------------------------------------------------------------ power.c */

/* One node of sched/libra's power log, and what the window billed. */
typedef struct rpt_node {
	char *name;
	bool seen;		/* folded a line of it */
	double first;		/* its first line's time */
	libra_node_power_t state;	/* as of "since" */
	double since;
	double powered_since;	/* start of the powered interval */
	double hours;		/* powered (not off) in the window [h] */
	double cost;		/* the tariff over those hours */
	long ups, downs;	/* power-ups and power-downs in the window */
} rpt_node_t;

typedef struct rpt_power_line {
	double when;
	rpt_node_t *node;
	libra_node_power_t state;
	long lineno;
} rpt_power_line_t;

typedef struct {
	rpt_node_t **v;		/* in the order first read */
	size_t n, cap;
	void *index;		/* tsearch() tree of v by name */
	rpt_power_line_t *lines;	/* as read */
	size_t nlines, linecap;
	double first;		/* the earliest time of a line */
	long torn;		/* a cut last line skipped (0 or 1) */
} rpt_power_t;

/*
 * The power log ("EPOCH NODE STATE" lines; "-" = stdin).  A malformed
 * last line (cut short by a crash) is skipped with a warning on stderr;
 * any other malformed line is an error "file:line: why".  Returns 0, or
 * -1 with a message.
 */
extern int rpt_read_power(const char *path, rpt_power_t *pw, int verbose,
			  char *err, size_t errlen);

/* Bill every node's powered time within [start, end) under the tariff
 * (the last state runs to end) and count the transitions in it; name is
 * the file, for warnings. */
extern void rpt_power_fold(rpt_power_t *pw, const char *name,
			   const libra_tariff_t *t, double start, double end);

extern void rpt_power_free(rpt_power_t *pw);

/* ------------------------------------------------------------ run.c */

/*
 * Run argv[0] (searched in PATH) with argv, stdin from /dev/null, and
 * collect stdout and stderr (malloc'd, NUL-terminated).  *status is the
 * exit status, or 128 + signal, or 127 when the program cannot be run.
 * Returns 0, or -1 with errno when the pipes or fork fail.
 */
extern int rpt_run(char *const argv[], char **out, size_t *outlen,
		   char **errout, int *status);

/* ------------------------------------------------------------ util */

extern void *rpt_xmalloc(size_t n);
extern void *rpt_xrealloc(void *p, size_t n);
extern char *rpt_xstrdup(const char *s);
extern char *rpt_xstrndup(const char *s, size_t n);
extern char *rpt_xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#endif /* LIBRA_REPORT_H */
