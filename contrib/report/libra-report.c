/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra-report - Job QoS Satisfaction, Cluster Profitability, revenue and
 *  penalties per account over a time window, from accounting (sacct) and
 *  job_submit/qos's refusal log, like sreport does for usage.
 *
 *  The per-job figures are the records the plugins wrote (src/core/
 *  record.h, decoded by the core's own decoder) and the ratios are folded
 *  by the metrics code (src/analysis/metrics.h), so that they mean
 *  exactly what the simulator's mean.  Every column is defined in
 *  libra-report.1.
\*****************************************************************************/

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "number.h"
#include "record.h"
#include "report.h"

#define REFUSAL_LOG "libra_refusals.jsonl"
#define SACCT_FORMAT \
	"JobID,Account,User,State,Submit,Start,End,AdminComment%65535"

/* ------------------------------------------------------------ options */

typedef enum { OUT_TABLE, OUT_PARSABLE, OUT_JSON } out_mode_t;

static struct {
	const char *start_arg, *end_arg;
	bool has_start, has_end;
	time_t start, end, now;
	char **accounts;
	int naccounts;
	out_mode_t mode;
	bool trailing_bar;	/* -p */
	bool noheader;
	bool per_job;
	const char *sacct_file;
	const char *refusals;
	bool no_refusals;
	bool no_squeue;
	int decimals;
	int verbose;
	const char *power;	/* --power FILE: the power report */
	const char *tariff_arg;
	libra_tariff_t tariff;
	bool has_offset;	/* --tz-offset */
	bool objectives;	/* --objectives: the thesis' objectives */
	double risk;		/* --risk PERIOD: its length [s]; 0 none */
	const char *sim_csv;	/* --sim-csv FILE: libra-sim's jobs */
} opt = { .decimals = 2 };

static void _usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options]\n"
"  -S, --starttime TIME   start of the window (default: 00:00 today; with\n"
"                         --sacct-file: no limit); any time sacct -S takes\n"
"  -E, --endtime TIME     end of the window (default: now; with\n"
"                         --sacct-file: no limit)\n"
"  -A, --accounts LIST    only these accounts (comma-separated)\n"
"  -P, --parsable         output fields separated by '|'\n"
"  -p                     the same, with a trailing '|' (as sreport -p)\n"
"  -n, --noheader         no title and no column header\n"
"      --json             machine-readable output (JSON)\n"
"      --per-job          one line per job and refusal instead of totals\n"
"                         (with --json: a \"jobs\" array as well)\n"
"      --sacct-file FILE  read saved sacct output (-P or --json; - = stdin)\n"
"                         instead of running sacct\n"
"      --refusals FILE    the refusal log (default: <StateSaveLocation>/\n"
"                         " REFUSAL_LOG ", from scontrol show config)\n"
"      --no-refusals      do not read a refusal log\n"
"      --no-squeue        do not ask slurmctld (squeue --json) for the\n"
"                         records of jobs not yet in accounting\n"
"      --decimals N       decimals of money in the table (default 2)\n"
"      --objectives       the thesis' provider objectives instead: wait,\n"
"                         response time, slowdown, SLA, reliability and\n"
"                         profitability (chapter 6)\n"
"      --risk PERIOD      with them, the risk analysis of chapter 6 over\n"
"                         periods of this length (N[smhdw], hour, day,\n"
"                         week): performance and volatility\n"
"      --sim-csv FILE     read libra-sim's --jobs-csv output instead of\n"
"                         accounting: one row per policy\n"
"      --power FILE       instead: powered node-hours, energy cost, power-ups\n"
"                         and power-downs per node from sched/libra's power\n"
"                         log (<StateSaveLocation>/libra_power; - = stdin)\n"
"      --tariff SPEC      with --power: HH:MM=RATE;... or an absolute file\n"
"                         path, as libra_tariff (default: 1 per node-hour)\n"
"      --tz-offset SECS   with --power: the tariff's clock, UTC + SECS\n"
"                         (default: the local time zone's offset)\n"
"  -v, --verbose          say what is run and read (twice: more)\n"
"  -V, --version          print the version\n"
"  -h, --help             this help\n"
"See libra-report(1) for the columns and their formulas.\n");
}

/* The one way messages go out: "libra-report: " + what + the message +
 * tail. */
static void _vsay(const char *what, const char *tail, const char *fmt,
		  va_list ap)
{
	fprintf(stderr, PROG ": %s", what);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

static void _die_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void _die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_vsay("", "\nTry '" PROG " --help'.\n", fmt, ap);
	va_end(ap);
	exit(2);
}

static void _die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void _die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_vsay("error: ", "\n", fmt, ap);
	va_end(ap);
	exit(1);
}

static void _note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void _note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_vsay("", "\n", fmt, ap);
	va_end(ap);
}

static void _accounts(const char *list)
{
	char *copy = rpt_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!*tok)
			continue;
		opt.accounts = rpt_xrealloc(opt.accounts,
			(opt.naccounts + 1) * sizeof(*opt.accounts));
		opt.accounts[opt.naccounts++] = rpt_xstrdup(tok);
	}
	free(copy);
	if (!opt.naccounts)
		_die_usage("--accounts: no account named in '%s'", list);
}

/* -P, --parsable, --parsable2 */
static void _set_parsable(const char *arg)
{
	opt.mode = OUT_PARSABLE;
}

/* -p: sreport -p, the same with a trailing '|' */
static void _set_parsable_bar(const char *arg)
{
	opt.mode = OUT_PARSABLE;
	opt.trailing_bar = true;
}

static void _set_json(const char *arg)
{
	opt.mode = OUT_JSON;
}

static void _set_decimals(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 0 || v > 12)
		_die_usage("--decimals: '%s' is not a number from 0 to 12",
			   arg);
	opt.decimals = (int) v;
}

/* --risk: a period of N seconds, N with a unit (s m h d w), or hour,
 * day, week. */
static void _set_risk(const char *arg)
{
	static const struct { const char *name; double secs; } units[] = {
		{ "hour", 3600 }, { "day", 86400 }, { "week", 604800 },
		{ "s", 1 }, { "m", 60 }, { "h", 3600 }, { "d", 86400 },
		{ "w", 604800 }, { "", 1 },
	};
	char *end;
	double v;

	for (size_t i = 0; i < 3; i++)
		if (!strcmp(arg, units[i].name)) {
			opt.risk = units[i].secs;
			opt.objectives = true;
			return;
		}
	errno = 0;
	v = strtod(arg, &end);
	for (size_t i = 3; i < sizeof(units) / sizeof(units[0]); i++)
		if (end != arg && !errno && !strcmp(end, units[i].name) &&
		    v > 0.0 && isfinite(v * units[i].secs)) {
			opt.risk = v * units[i].secs;
			opt.objectives = true;
			return;
		}
	_die_usage("--risk: '%s' is not a period (N[smhdw], hour, day, "
		   "week)", arg);
}

/* Parsed when met, as --decimals and --tz-offset are, so that a bad
 * tariff is named before a bad option after it (-S and -E are parsed
 * after all the options: _set_window()). */
static void _set_tariff(const char *arg)
{
	char err[512];

	opt.tariff_arg = arg;
	if (libra_tariff_parse(&opt.tariff, arg, err, sizeof(err)))
		_die_usage("--tariff: %s", err);
}

static void _set_tz_offset(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < -86400 || v > 86400)
		_die_usage("--tz-offset: '%s' is not a number of seconds "
			   "from -86400 to 86400", arg);
	opt.tariff.offset = v;
	opt.has_offset = true;
}

static void _more_verbose(const char *arg)
{
	opt.verbose++;
}

static void _print_version(const char *arg)
{
	printf("%s %s\n", PROG, PACKAGE_VERSION);
	exit(0);
}

static void _print_help(const char *arg)
{
	_usage(stdout);
	exit(0);
}

/* Keys of the options that have no short form (above any letter). */
enum { O_JSON = 256, O_PER_JOB, O_SACCT_FILE, O_REFUSALS, O_NO_REFUSALS,
       O_NO_SQUEUE, O_DECIMALS, O_POWER, O_TARIFF, O_TZ_OFFSET,
       O_OBJECTIVES, O_RISK, O_SIM_CSV };

/*
 * Every option, once, in --help's order: getopt_long()'s long options and
 * short option string are built from this table, and what getopt_long()
 * returns is looked up in it.  An option stores its value (arg), sets a
 * flag (flag) or calls its handler (set), in the order the options are
 * given on the command line.  Entries that share a key are one option
 * under two names; they must also share has_arg, or getopt_long() would
 * take an abbreviation of both (--pars) as ambiguous.
 */
static const struct opt_def {
	int key;		/* the short option's letter, or an O_ key */
	const char *name;	/* the long option, NULL if none (-p) */
	int has_arg;		/* no_argument or required_argument */
	const char **arg;
	bool *flag;
	void (*set)(const char *arg);
} opt_defs[] = {
	{ 'S', "starttime", required_argument, .arg = &opt.start_arg },
	{ 'E', "endtime", required_argument, .arg = &opt.end_arg },
	{ 'A', "accounts", required_argument, .set = _accounts },
	{ 'P', "parsable", no_argument, .set = _set_parsable },
	{ 'P', "parsable2", no_argument, .set = _set_parsable },
	{ 'p', NULL, no_argument, .set = _set_parsable_bar },
	{ 'n', "noheader", no_argument, .flag = &opt.noheader },
	{ O_JSON, "json", no_argument, .set = _set_json },
	{ O_PER_JOB, "per-job", no_argument, .flag = &opt.per_job },
	{ O_SACCT_FILE, "sacct-file", required_argument,
	  .arg = &opt.sacct_file },
	{ O_REFUSALS, "refusals", required_argument, .arg = &opt.refusals },
	{ O_NO_REFUSALS, "no-refusals", no_argument,
	  .flag = &opt.no_refusals },
	{ O_NO_SQUEUE, "no-squeue", no_argument, .flag = &opt.no_squeue },
	{ O_DECIMALS, "decimals", required_argument, .set = _set_decimals },
	{ O_OBJECTIVES, "objectives", no_argument, .flag = &opt.objectives },
	{ O_RISK, "risk", required_argument, .set = _set_risk },
	{ O_SIM_CSV, "sim-csv", required_argument, .arg = &opt.sim_csv },
	{ O_POWER, "power", required_argument, .arg = &opt.power },
	{ O_TARIFF, "tariff", required_argument, .set = _set_tariff },
	{ O_TZ_OFFSET, "tz-offset", required_argument,
	  .set = _set_tz_offset },
	{ 'v', "verbose", no_argument, .set = _more_verbose },
	{ 'V', "version", no_argument, .set = _print_version },
	{ 'h', "help", no_argument, .set = _print_help },
};

#define NOPT_DEFS (sizeof(opt_defs) / sizeof(opt_defs[0]))

/* getopt_long()'s arguments from opt_defs: the long options (ended by
 * a zeroed entry) and the short ones, after a ':' so that a missing value
 * is told from an unknown option. */
static void _getopt_tables(struct option *lo, char *shortopts)
{
	int nlo = 0, ns = 0;

	shortopts[ns++] = ':';
	for (size_t i = 0; i < NOPT_DEFS; i++) {
		const struct opt_def *d = &opt_defs[i];

		if (d->name)
			lo[nlo++] = (struct option) {
				d->name, d->has_arg, NULL, d->key };
		if (d->key > 255 || memchr(shortopts, d->key, ns))
			continue;
		shortopts[ns++] = (char) d->key;
		if (d->has_arg == required_argument)
			shortopts[ns++] = ':';
	}
	lo[nlo] = (struct option) { 0 };
	shortopts[ns] = '\0';
}

static const struct opt_def *_opt_def(int key)
{
	for (size_t i = 0; i < NOPT_DEFS; i++)
		if (opt_defs[i].key == key)
			return &opt_defs[i];
	return NULL;
}

/* getopt_long() returned ':' (opterr is 0): the option at argv[optind - 1]
 * lacks its value. */
static void _die_no_value(char **argv) __attribute__((noreturn));

static void _die_no_value(char **argv)
{
	if (!strncmp(argv[optind - 1], "--", 2))
		_die_usage("option %s needs a value", argv[optind - 1]);
	_die_usage("option -%c needs a value", optopt);
}

/* getopt_long() returned '?': an unknown (or ambiguous) option, or a value
 * given to a long option that takes none (optopt is then its key). */
static void _die_unknown(char **argv) __attribute__((noreturn));

static void _die_unknown(char **argv)
{
	if (!strncmp(argv[optind - 1], "--", 2) && optopt)
		_die_usage("option %s takes no value", argv[optind - 1]);
	if (!strncmp(argv[optind - 1], "--", 2))
		_die_usage("unknown option %s", argv[optind - 1]);
	_die_usage("unknown option -%c", optopt);
}

/* Options that exclude or need each other. */
static void _check_options(void)
{
	if (opt.refusals && opt.no_refusals)
		_die_usage("--refusals and --no-refusals exclude each other");
	if (opt.power) {
		const char *other = opt.sacct_file ? "--sacct-file" :
				    opt.refusals ? "--refusals" :
				    opt.no_refusals ? "--no-refusals" :
				    opt.no_squeue ? "--no-squeue" :
				    opt.naccounts ? "--accounts" :
				    opt.per_job ? "--per-job" : NULL;

		if (!other)
			other = opt.objectives ? "--objectives or --risk" :
				opt.sim_csv ? "--sim-csv" : NULL;
		if (other)
			_die_usage("--power reports nodes, not jobs: it does "
				   "not take %s", other);
	} else if (opt.sim_csv) {
		const char *other = opt.sacct_file ? "--sacct-file" :
				    opt.refusals ? "--refusals" :
				    opt.no_refusals ? "--no-refusals" :
				    opt.no_squeue ? "--no-squeue" :
				    opt.naccounts ? "--accounts" :
				    opt.per_job ? "--per-job" :
				    opt.start_arg ? "--starttime" :
				    opt.end_arg ? "--endtime" : NULL;

		if (other)
			_die_usage("--sim-csv reads a simulation (its rows, "
				   "refusals too, per policy): it does not "
				   "take %s", other);
	}
	if (!opt.power && (opt.tariff_arg || opt.has_offset)) {
		_die_usage("%s needs --power", opt.tariff_arg ? "--tariff" :
			   "--tz-offset");
	}
}

/* The window from -S and -E.  Without -S: sacct's own default, 00:00
 * today, when sacct is run; no limit for a saved file; --power starts at
 * its log's first line (_power_report()). */
static void _set_window(void)
{
	char err[512];

	opt.now = time(NULL);
	if (opt.start_arg) {
		if (rpt_parse_time(opt.start_arg, opt.now, &opt.start, err,
				   sizeof(err)))
			_die_usage("--starttime: %s", err);
		opt.has_start = true;
	} else if (!opt.sacct_file && !opt.power && !opt.sim_csv) {
		struct tm tm;

		localtime_r(&opt.now, &tm);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		opt.start = mktime(&tm);
		opt.has_start = true;
	}
	if (opt.end_arg) {
		if (rpt_parse_time(opt.end_arg, opt.now, &opt.end, err,
				   sizeof(err)))
			_die_usage("--endtime: %s", err);
		opt.has_end = true;
	}
	if (opt.has_start && opt.has_end && opt.end <= opt.start) {
		char a[32], b[32];

		_die_usage("the window ends (%s) before it starts (%s)",
			   rpt_format_time(opt.end, b, sizeof(b)),
			   rpt_format_time(opt.start, a, sizeof(a)));
	}
}

/* The command line into opt; a mistake in it exits with status 2. */
static void _parse(int argc, char **argv)
{
	struct option lo[NOPT_DEFS + 1];
	char shortopts[2 * NOPT_DEFS + 2];
	const struct opt_def *d;
	int c;

	_getopt_tables(lo, shortopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if (c == ':')
			_die_no_value(argv);
		if (!(d = _opt_def(c)))
			_die_unknown(argv);
		if (d->arg)
			*d->arg = optarg;
		else if (d->flag)
			*d->flag = true;
		else
			d->set(optarg);
	}
	if (optind < argc)
		_die_usage("unexpected argument '%s'", argv[optind]);
	_check_options();
	_set_window();
}

/* ------------------------------------------------------------ live cluster */

/* Forward a command's stderr, line by line, as warnings. */
static void _forward(const char *cmd, const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int) (nl - p) : (int) strlen(p);

		if (n)
			fprintf(stderr, PROG ": %s: %.*s\n", cmd, n, p);
		p = nl ? nl + 1 : NULL;
	}
}

static void _verbose_cmd(char *const argv[])
{
	if (!opt.verbose)
		return;
	fprintf(stderr, PROG ": running");
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

/* Run a command; on failure return NULL and leave its stderr in *why. */
static char *_capture(char *const argv[], char **why)
{
	char *out = NULL, *errout = NULL;
	int status;

	*why = NULL;
	_verbose_cmd(argv);
	if (rpt_run(argv, &out, NULL, &errout, &status)) {
		*why = rpt_xasprintf("cannot run %s: %s", argv[0],
				     strerror(errno));
		return NULL;
	}
	if (status) {
		size_t n = strlen(errout);

		while (n && errout[n - 1] == '\n')
			errout[--n] = '\0';
		*why = rpt_xasprintf("%s exited with status %d%s%s", argv[0],
				     status, n ? ":\n" : " (no message)",
				     errout);
		free(out);
		free(errout);
		return NULL;
	}
	_forward(argv[0], errout);
	free(errout);
	return out;
}

static char *_sacct(void)
{
	char start[32], end[32], *why, *out;
	char *argv[20];
	int n = 0;

	rpt_format_time(opt.start, start, sizeof(start));
	argv[n++] = "sacct";
	argv[n++] = "-X";
	argv[n++] = "-a";
	argv[n++] = "-P";
	argv[n++] = "-n";
	argv[n++] = "--noconvert";
	argv[n++] = "-o";
	argv[n++] = SACCT_FORMAT;
	argv[n++] = "-S";
	argv[n++] = start;
	argv[n++] = "-E";
	if (opt.has_end)
		argv[n++] = rpt_format_time(opt.end, end, sizeof(end));
	else
		argv[n++] = "now";
	if (opt.naccounts) {
		static char *list;

		free(list);
		list = NULL;
		for (int i = 0; i < opt.naccounts; i++) {
			char *t = rpt_xasprintf("%s%s%s", list ? list : "",
						list ? "," : "",
						opt.accounts[i]);

			free(list);
			list = t;
		}
		argv[n++] = "-A";
		argv[n++] = list;
	}
	argv[n] = NULL;
	if (!(out = _capture(argv, &why)))
		_die("sacct failed: %s", why);
	return out;
}

/* Jobs slurmctld knows whose record accounting does not have yet: the
 * AdminComment reaches the database only when the job ends. */
static void _merge_squeue(rpt_jobs_t *jobs)
{
	char *argv[] = { "squeue", "--json", "-a", NULL };
	char *why, *out = _capture(argv, &why), err[512];
	rpt_jobs_t live = { 0 };
	long filled = 0, added = 0;

	if (!out) {
		_note("warning: squeue failed, so running and pending jobs "
		      "are counted from accounting alone (their records are "
		      "not there yet): %s", why);
		free(why);
		return;
	}
	if (rpt_read_squeue_json(out, &live, err, sizeof(err))) {
		_note("warning: %s; running and pending jobs are counted "
		      "from accounting alone", err);
		free(out);
		return;
	}
	free(out);
	for (size_t i = 0; i < live.n; i++) {
		rpt_job_t *l = &live.v[i], *j = rpt_jobs_find(jobs, l->id);

		if (!l->admin_comment || !*l->admin_comment)
			continue;
		if (j && j->admin_comment && *j->admin_comment)
			continue;	/* accounting has it */
		if (j) {
			free(j->admin_comment);
			free(j->state);
			j->admin_comment = l->admin_comment;
			j->state = l->state;
			l->admin_comment = l->state = NULL;
			free(j->where);
			j->where = rpt_xasprintf("sacct+squeue");
			j->from_squeue = true;
			filled++;
		} else {
			rpt_job_t *k = rpt_jobs_add(jobs);

			*k = *l;
			memset(l, 0, sizeof(*l));
			added++;
		}
	}
	rpt_jobs_free(&live);
	if (opt.verbose)
		_note("squeue: %ld records taken for jobs accounting lists "
		      "without one, %ld jobs accounting does not list yet",
		      filled, added);
}

static char *_state_save_location(char **why)
{
	char *argv[] = { "scontrol", "show", "config", NULL };
	char *out = _capture(argv, why), *line, *save = NULL, *loc = NULL;

	if (!out)
		return NULL;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq;

		if (strncmp(line, "StateSaveLocation", 17) ||
		    !(eq = strchr(line, '=')))
			continue;
		eq++;
		while (*eq == ' ')
			eq++;
		loc = rpt_xstrndup(eq, strcspn(eq, " \t\r"));
		break;
	}
	free(out);
	if (!loc)
		*why = rpt_xstrdup("scontrol show config has no "
				   "StateSaveLocation");
	return loc;
}

/* Refusals carry the account the user named; "" means the user's default
 * account, which slurmctld picks after job_submit ran.  Look it up. */
static void _resolve_accounts(rpt_jobs_t *refusals)
{
	char *argv[] = { "sacctmgr", "-n", "-P", "show", "user",
			 "format=User,DefaultAccount", NULL };
	char *out = NULL, *why, *line, *save = NULL;
	size_t i;

	for (i = 0; i < refusals->n; i++)
		if (!*refusals->v[i].account)
			break;
	if (i == refusals->n)
		return;
	if (!(out = _capture(argv, &why))) {
		_note("warning: cannot look up default accounts (%s); "
		      "refusals that named no account are shown as (none)",
		      why);
		free(why);
		return;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|');

		if (!bar || !bar[1])
			continue;
		*bar = '\0';
		for (i = 0; i < refusals->n; i++) {
			rpt_job_t *r = &refusals->v[i];

			if (!*r->account && !strcmp(r->user, line)) {
				free(r->account);
				r->account = rpt_xstrdup(bar + 1);
			}
		}
	}
	free(out);
}

static char *refusal_path;	/* the default log's path, once read */

static void _refusals(rpt_jobs_t *refusals, const char **source)
{
	char *path = NULL, *why = NULL;
	long bad = 0;

	*source = NULL;
	if (opt.no_refusals)
		return;
	if (opt.refusals) {
		if (rpt_read_refusals(opt.refusals, refusals, &bad,
				      opt.verbose))
			_die("cannot read the refusal log %s: %s",
			     opt.refusals, strerror(errno));
		*source = opt.refusals;
	} else if (opt.sacct_file) {
		_note("note: no --refusals FILE given: refused submissions "
		      "are not counted");
		return;
	} else {
		char *loc = _state_save_location(&why);

		if (!loc) {
			_note("note: cannot find StateSaveLocation (%s): "
			      "refused submissions are not counted; give "
			      "--refusals FILE", why);
			free(why);
			return;
		}
		path = rpt_xasprintf("%s/%s", loc, REFUSAL_LOG);
		free(loc);
		if (opt.verbose)
			_note("reading refusals from %s", path);
		if (rpt_read_refusals(path, refusals, &bad, opt.verbose)) {
			if (errno == ENOENT)
				_note("note: no refusal log at %s: no refused "
				      "submissions to count", path);
			else
				_note("note: cannot read the refusal log %s "
				      "(%s): refused submissions are not "
				      "counted; run as root or SlurmUser, or "
				      "give --refusals FILE", path,
				      strerror(errno));
			free(path);
			return;
		}
		*source = refusal_path = path;
	}
	if (!opt.sacct_file)
		_resolve_accounts(refusals);
	if (bad)
		_note("warning: %ld line%s of the refusal log could not be "
		      "read (see above) and %s not counted", bad,
		      bad == 1 ? "" : "s", bad == 1 ? "is" : "are");
}

/* ------------------------------------------------------------ folding */

typedef struct {
	char *account;
	long submitted, admitted, best_effort, refused, finished, met, missed;
	long unsettled, other, unreadable;
	double revenue, penalties, net;
	libra_metrics_t m;
	/* --objectives: response time over the finished admitted jobs */
	double response_sum;
	long responded;
	/* --risk: the figures of each period (doc/design.md decision 47) */
	libra_metrics_t *per;
	long nper;
} stats_t;

/* --risk: the start of the first period (the window's, else the first
 * submission's) */
static double risk_origin;

static stats_t *stats;
static int nstats;
static stats_t total;

static const char *_acct_name(const char *a)
{
	return a && *a ? a : "(none)";
}

static stats_t *_stats_for(const char *account)
{
	const char *name = _acct_name(account);

	for (int i = 0; i < nstats; i++)
		if (!strcasecmp(stats[i].account, name))
			return &stats[i];
	stats = rpt_xrealloc(stats, (nstats + 1) * sizeof(*stats));
	memset(&stats[nstats], 0, sizeof(*stats));
	stats[nstats].account = rpt_xstrdup(name);
	libra_metrics_init(&stats[nstats].m);
	return &stats[nstats++];
}

static double _budget(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_BUDGET) ? sla->budget : 0.0;
}

/* When the job was submitted: the admission time in its record (the
 * moment job_submit/qos saw it), else accounting's Submit. */
static double _when(const rpt_job_t *j)
{
	if (j->kind == KIND_SLA || j->kind == KIND_BEST_EFFORT)
		return j->rec.admitted;
	return j->submit;
}

/* The result the simulator would fold for this job (metrics.h). */
static bool _result(const rpt_job_t *j, libra_job_result_t *r)
{
	memset(r, 0, sizeof(*r));
	if (j->kind == KIND_REFUSED) {
		r->accepted = false;
		r->budget = j->refusal.has_budget ? j->refusal.budget : 0.0;
		r->submit = j->refusal.time;
		return true;
	}
	if (j->kind != KIND_SLA || !j->rec.settled)
		return false;
	r->accepted = true;
	r->deadline_met = j->rec.final.deadline_met;
	r->budget = _budget(&j->rec.sla);
	r->charge = j->rec.final.charge;
	r->submit = j->rec.sla.submit;
	r->start = j->rec.started;
	r->end = j->rec.final.end;
	r->runtime = j->rec.sla.runtime;
	return true;
}

/* Fold a decided result into the objectives: metrics.h's figures, the
 * response time, and with --risk the figures of its period. */
static void _fold_result(stats_t *s, const libra_job_result_t *r,
			 double when)
{
	long p;

	libra_metrics_add(&s->m, r);
	if (r->accepted) {
		s->response_sum += r->end - r->submit;
		s->responded++;
	}
	if (!opt.risk)
		return;
	p = (long) floor((when - risk_origin) / opt.risk);
	if (p < 0)
		p = 0;
	if (p >= s->nper) {
		s->per = rpt_xrealloc(s->per, (p + 1) * sizeof(*s->per));
		for (long i = s->nper; i <= p; i++)
			libra_metrics_init(&s->per[i]);
		s->nper = p + 1;
	}
	libra_metrics_add(&s->per[p], r);
}

/* Is this job QoS-met?  Asked of the metrics code itself, so that the
 * per-job flag can never disagree with the totals. */
static bool _qos_met(const libra_job_result_t *r)
{
	libra_metrics_t m;

	libra_metrics_init(&m);
	libra_metrics_add(&m, r);
	return m.qos_met == 1;
}

static void _fold(stats_t *s, const rpt_job_t *j)
{
	libra_job_result_t r;
	bool settled = (j->kind == KIND_SLA || j->kind == KIND_BEST_EFFORT) &&
		       j->rec.settled;

	switch (j->kind) {
	case KIND_SLA:
		s->admitted++;
		if (settled) {
			s->finished++;
			if (j->rec.final.deadline_met)
				s->met++;
			else
				s->missed++;
		} else {
			s->unsettled++;
		}
		break;
	case KIND_BEST_EFFORT:
		s->best_effort++;
		break;
	case KIND_REFUSED:
		s->refused++;
		break;
	case KIND_OTHER:
		s->other++;
		break;
	case KIND_UNREADABLE:
		s->unreadable++;
		break;
	}
	if (settled) {
		s->revenue += j->rec.final.charge + j->rec.final.penalty;
		s->penalties += j->rec.final.penalty;
		s->net += j->rec.final.charge;
	}
	if (_result(j, &r))
		_fold_result(s, &r, _when(j));
	s->submitted = s->admitted + s->refused;
}

/* --sim-csv: one row of libra-sim's, refused or admitted and finished. */
static void _fold_sim(stats_t *s, const rpt_sim_row_t *row)
{
	const libra_job_result_t *r = &row->r;

	if (r->accepted) {
		s->admitted++;
		s->finished++;
		if (r->deadline_met)
			s->met++;
		else
			s->missed++;
		s->revenue += r->charge;
		s->net += r->charge;
	} else {
		s->refused++;
	}
	_fold_result(s, r, r->submit);
	s->submitted = s->admitted + s->refused;
}

static bool _account_wanted(const char *account)
{
	if (!opt.naccounts)
		return true;
	for (int i = 0; i < opt.naccounts; i++)
		if (!strcasecmp(opt.accounts[i], account ? account : ""))
			return true;
	return false;
}

static bool _in_window(double t)
{
	if (t <= 0.0)
		return true;		/* unknown: keep */
	if (opt.has_start && t < (double) opt.start)
		return false;
	if (opt.has_end && t >= (double) opt.end)
		return false;
	return true;
}

/* ------------------------------------------------------------ output */

typedef struct {
	const char *title;
	char **cells;		/* nrows */
} column_t;

typedef struct {
	column_t *cols;
	int ncols, nrows;
} table_t;

static void _table_init(table_t *t, const char *const *titles, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = rpt_xmalloc(ncols * sizeof(*t->cols));
	t->ncols = ncols;
	for (int c = 0; c < ncols; c++)
		t->cols[c].title = titles[c];
}

/* Add a row of ncols cells (strings, copied). */
static void _table_row(table_t *t, char **cells)
{
	for (int c = 0; c < t->ncols; c++) {
		t->cols[c].cells = rpt_xrealloc(t->cols[c].cells,
			(t->nrows + 1) * sizeof(char *));
		t->cols[c].cells[t->nrows] = rpt_xstrdup(cells[c]);
	}
	t->nrows++;
}

static void _table_print(const table_t *t)
{
	int *w = rpt_xmalloc(t->ncols * sizeof(int));

	if (opt.mode == OUT_PARSABLE) {
		const char *tail = opt.trailing_bar ? "|" : "";

		if (!opt.noheader) {
			for (int c = 0; c < t->ncols; c++)
				printf("%s%s", c ? "|" : "", t->cols[c].title);
			printf("%s\n", tail);
		}
		for (int r = 0; r < t->nrows; r++) {
			for (int c = 0; c < t->ncols; c++)
				printf("%s%s", c ? "|" : "",
				       t->cols[c].cells[r]);
			printf("%s\n", tail);
		}
		free(w);
		return;
	}
	for (int c = 0; c < t->ncols; c++) {
		w[c] = (int) strlen(t->cols[c].title);
		for (int r = 0; r < t->nrows; r++)
			if ((int) strlen(t->cols[c].cells[r]) > w[c])
				w[c] = (int) strlen(t->cols[c].cells[r]);
	}
	if (!opt.noheader) {
		for (int c = 0; c < t->ncols; c++)
			printf("%*s ", w[c], t->cols[c].title);
		printf("\n");
		for (int c = 0; c < t->ncols; c++) {
			for (int k = 0; k < w[c]; k++)
				putchar('-');
			putchar(' ');
		}
		printf("\n");
	}
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			printf("%*s ", w[c], t->cols[c].cells[r]);
		printf("\n");
	}
	free(w);
}

static void _table_free(table_t *t)
{
	for (int c = 0; c < t->ncols; c++) {
		for (int r = 0; r < t->nrows; r++)
			free(t->cols[c].cells[r]);
		free(t->cols[c].cells);
	}
	free(t->cols);
}

/* A money or ratio cell: rounded in the table, exact when parsable. */
static char *_cell_num(double v, int decimals, char *buf, size_t len)
{
	if (opt.mode == OUT_PARSABLE)
		/* the shortest text that reads back as v, as the records */
		return (char *) libra_format_number(buf, len, v);
	snprintf(buf, len, "%.*f", decimals, v);
	if (!strncmp(buf, "-0", 2) && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));	/* "-0.00" */
	return buf;
}

static const char *const summary_titles[] = {
	"Account", "Submitted", "Admitted", "Refused", "BestEffort",
	"Finished", "Met", "Missed", "JobQoS", "Profit", "ProfitSl",
	"Revenue", "Penalties", "Net", "Other", "Unreadable"
};
#define NSUMMARY (int) (sizeof(summary_titles) / sizeof(summary_titles[0]))

static void _summary_row(table_t *t, const stats_t *s, const char *name)
{
	char b[NSUMMARY][48], *cells[NSUMMARY];
	int n = 0;

#define INT(v) (snprintf(b[n], sizeof(b[n]), "%ld", (long) (v)), n++)
#define NUM(v, d) (_cell_num((v), (d), b[n], sizeof(b[n])), n++)
	snprintf(b[n++], sizeof(b[0]), "%s", name);
	INT(s->submitted);
	INT(s->admitted);
	INT(s->refused);
	INT(s->best_effort);
	INT(s->finished);
	INT(s->met);
	INT(s->missed);
	NUM(s->m.qos_satisfaction, 4);
	NUM(s->m.profitability, 4);
	NUM(s->m.profitability_slides, 4);
	NUM(s->revenue, opt.decimals);
	NUM(s->penalties, opt.decimals);
	NUM(s->net, opt.decimals);
	INT(s->other);
	INT(s->unreadable);
#undef INT
#undef NUM
	for (int i = 0; i < NSUMMARY; i++)
		cells[i] = b[i];
	_table_row(t, cells);
}

/* ------------------------------------------------------------ objectives */

/* The provider's objectives of thesis chapter 6 (Table 6.1), in the order
 * of contrib/experiments/ch6-risk: wait (lower is better), SLA,
 * reliability, profitability. */
#define NOBJ 4

typedef struct {
	long periods;		/* with a decided submission */
	double mu[NOBJ], sigma[NOBJ];	/* Eq. 6.5, 6.6 */
	double mu_int, sigma_int;	/* Eq. 6.7, 6.8, weights 1/4 */
} risk_t;

static double _response(const stats_t *s)
{
	return s->responded ? s->response_sum / (double) s->responded : 0.0;
}

/* A period's four objectives normalised to [0, 1], 1 the best: the
 * percentages over 0-100, the wait over 0 to wmax inverted, an undefined
 * wait (no job met its deadline) the worst, as ch6-risk counts it. */
static void _normalised(const libra_metrics_t *m, double wmax, double *x)
{
	x[0] = m->sla_met ? libra_normalise(m->mean_wait, 0.0, wmax, true) :
			    0.0;
	x[1] = libra_normalise(m->sla_pct, 0.0, 100.0, false);
	x[2] = libra_normalise(m->reliability_pct, 0.0, 100.0, false);
	x[3] = libra_normalise(m->profit_pct, 0.0, 100.0, false);
}

/* The separate and integrated risk analysis of one row over its periods,
 * each period a scenario (doc/design.md decision 47). */
static void _risk(const stats_t *s, risk_t *k)
{
	static const double w[NOBJ] = { 0.25, 0.25, 0.25, 0.25 };
	double *x = rpt_xmalloc((s->nper + 1) * NOBJ * sizeof(*x));
	double *col = rpt_xmalloc((s->nper + 1) * sizeof(*col));
	double wmax = 0.0;
	long n = 0;

	memset(k, 0, sizeof(*k));
	for (int pass = 0; pass < 2; pass++) {
		for (long p = 0; p < s->nper; p++) {
			libra_metrics_t m = s->per[p];

			if (!m.submitted)
				continue;
			libra_metrics_finish(&m);
			if (!pass && m.sla_met)
				wmax = fmax(wmax, m.mean_wait);
			else if (pass)
				_normalised(&m, wmax, &x[NOBJ * n++]);
		}
	}
	k->periods = n;
	if (!n)
		goto out;
	for (int o = 0; o < NOBJ; o++) {
		for (long i = 0; i < n; i++)
			col[i] = x[NOBJ * i + o];
		libra_risk_separate(col, (int) n, &k->mu[o], &k->sigma[o]);
	}
	libra_risk_integrated(k->mu, k->sigma, w, NOBJ, &k->mu_int,
			      &k->sigma_int);
out:
	free(col);
	free(x);
}

static const char *const objective_titles[] = {
	"Account", "Decided", "Accepted", "SLAMet", "Wait", "Response",
	"Slowdown", "SLA", "Reliability", "ProfitCh6",
	"Periods", "Perf", "Vol", "WaitPerf", "WaitVol", "SLAPerf", "SLAVol",
	"RelPerf", "RelVol", "ProfPerf", "ProfVol"
};
#define NOBJECTIVES (int) (sizeof(objective_titles) / \
			   sizeof(objective_titles[0]))
#define NOBJ_NORISK 10		/* the columns without --risk */

static void _objectives_row(table_t *t, const stats_t *s, const char *name)
{
	char b[NOBJECTIVES][48], *cells[NOBJECTIVES];
	int n = 0;
	risk_t k;

#define INT(v) (snprintf(b[n], sizeof(b[n]), "%ld", (long) (v)), n++)
#define NUM(v, d) (_cell_num((v), (d), b[n], sizeof(b[n])), n++)
	snprintf(b[n++], sizeof(b[0]), "%s", name);
	INT(s->m.submitted);
	INT(s->m.accepted);
	INT(s->m.sla_met);
	NUM(s->m.mean_wait, 0);
	NUM(_response(s), 0);
	NUM(s->m.mean_slowdown, 2);
	NUM(s->m.sla_pct, 2);
	NUM(s->m.reliability_pct, 2);
	NUM(s->m.profit_pct, 2);
	if (opt.risk) {
		_risk(s, &k);
		INT(k.periods);
		NUM(k.mu_int, 4);
		NUM(k.sigma_int, 4);
		for (int o = 0; o < NOBJ; o++) {
			NUM(k.mu[o], 4);
			NUM(k.sigma[o], 4);
		}
	}
#undef INT
#undef NUM
	for (int i = 0; i < NOBJECTIVES; i++)
		cells[i] = b[i];
	_table_row(t, cells);
}

static const char *const job_titles[] = {
	"JobID", "Account", "User", "State", "Kind", "Submit", "How", "Met",
	"Delay", "Budget", "Price", "Penalty", "Charge", "QoS"
};
#define NJOB (int) (sizeof(job_titles) / sizeof(job_titles[0]))

static void _job_row(table_t *t, const rpt_job_t *j)
{
	char b[NJOB][64], *cells[NJOB];
	const libra_record_t *rec = &j->rec;
	bool has_rec = j->kind == KIND_SLA || j->kind == KIND_BEST_EFFORT;
	libra_job_result_t r;

	for (int i = 0; i < NJOB; i++) {
		b[i][0] = '\0';
		cells[i] = b[i];
	}
	snprintf(b[0], sizeof(b[0]), "%s", j->id);
	snprintf(b[1], sizeof(b[1]), "%s", _acct_name(j->account));
	snprintf(b[2], sizeof(b[2]), "%s", j->user ? j->user : "");
	snprintf(b[3], sizeof(b[3]), "%s", j->state ? j->state : "");
	snprintf(b[4], sizeof(b[4]), "%s", rpt_kind_name(j->kind));
	if (_when(j) > 0)
		rpt_format_time((time_t) _when(j), b[5], sizeof(b[5]));
	if (j->kind == KIND_REFUSED) {
		snprintf(b[6], sizeof(b[6]), "%s", j->refusal.verdict);
		if (j->refusal.has_budget)
			_cell_num(j->refusal.budget, opt.decimals, b[9],
				  sizeof(b[9]));
	}
	if (j->kind == KIND_SLA && (rec->sla.set & LIBRA_SLA_BUDGET))
		_cell_num(rec->sla.budget, opt.decimals, b[9], sizeof(b[9]));
	if (has_rec)
		_cell_num(rec->price, opt.decimals, b[10], sizeof(b[10]));
	if (has_rec && rec->settled) {
		snprintf(b[6], sizeof(b[6]), "%s",
			 libra_end_name(rec->final.how));
		if (j->kind == KIND_SLA)
			snprintf(b[7], sizeof(b[7]), "%s",
				 rec->final.deadline_met ? "yes" : "no");
		_cell_num(rec->final.delay, 0, b[8], sizeof(b[8]));
		_cell_num(rec->final.penalty, opt.decimals, b[11],
			  sizeof(b[11]));
		_cell_num(rec->final.charge, opt.decimals, b[12],
			  sizeof(b[12]));
	}
	if (j->kind == KIND_SLA && _result(j, &r))
		snprintf(b[13], sizeof(b[13]), "%s",
			 _qos_met(&r) ? "yes" : "no");
	_table_row(t, cells);
}

static void _banner(const char *jobs_src, const char *refusal_src)
{
	char a[32], b[32], pb[40];
	const char *rule = "-----------------------------------------------"
			   "---------------------------------";

	if (opt.noheader || opt.mode == OUT_JSON)
		return;
	printf("%s\n", rule);
	printf("Libra %s ", opt.per_job ? "Jobs" : "Job QoS and Profitability");
	if (opt.has_start && opt.has_end)
		printf("%s - %s (%lld secs)\n",
		       rpt_format_time(opt.start, a, sizeof(a)),
		       rpt_format_time(opt.end, b, sizeof(b)),
		       (long long) (opt.end - opt.start));
	else if (opt.has_start)
		printf("%s - %s\n", rpt_format_time(opt.start, a, sizeof(a)),
		       opt.sacct_file ? "(no end)" :
		       rpt_format_time(opt.now, b, sizeof(b)));
	else if (opt.has_end)
		printf("(no start) - %s\n",
		       rpt_format_time(opt.end, b, sizeof(b)));
	else
		printf("(all jobs read)\n");
	printf("Jobs from %s; refusals from %s\n", jobs_src,
	       refusal_src ? refusal_src : "(none read)");
	if (opt.objectives && !opt.per_job)
		printf("Wait, Response in seconds; SLA, Reliability, ProfitCh6 "
		       "in percent (thesis Eq. 6.1-6.4)\n");
	else
		printf("Money in the currency of the job records; JobQoS, "
		       "Profit and ProfitSl are fractions\n");
	if (opt.objectives && !opt.per_job && opt.risk)
		printf("Perf, Vol: performance and volatility over periods of "
		       "%s s (Eq. 6.5-6.8)\n",
		       libra_format_number(pb, sizeof(pb), opt.risk));
	if (total.unsettled)
		printf("%ld admitted job%s not finished yet: not in Finished, "
		       "JobQoS, Profit or ProfitSl\n", total.unsettled,
		       total.unsettled == 1 ? "" : "s");
	printf("%s\n", rule);
}

static json_object *_jnum(double v)
{
	char buf[40];

	return json_object_new_double_s(v, libra_format_number(buf, sizeof(buf),
							       v));
}

/* --risk: performance and volatility of each objective and integrated */
static json_object *_json_risk(const stats_t *s)
{
	static const char *const names[NOBJ] = {
		"wait", "sla", "reliability", "profit"
	};
	json_object *o = json_object_new_object(), *p;
	risk_t k;

	_risk(s, &k);
	json_object_object_add(o, "period", _jnum(opt.risk));
	json_object_object_add(o, "periods", json_object_new_int64(k.periods));
	for (int i = 0; i <= NOBJ; i++) {
		p = json_object_new_object();
		json_object_object_add(p, "performance",
				       _jnum(i < NOBJ ? k.mu[i] : k.mu_int));
		json_object_object_add(p, "volatility",
			_jnum(i < NOBJ ? k.sigma[i] : k.sigma_int));
		json_object_object_add(o, i < NOBJ ? names[i] : "integrated",
				       p);
	}
	return o;
}

static json_object *_json_stats(const stats_t *s, const char *name)
{
	json_object *o = json_object_new_object();

#define I(k, v) json_object_object_add(o, k, json_object_new_int64(v))
#define D(k, v) json_object_object_add(o, k, _jnum(v))
	json_object_object_add(o, "account", json_object_new_string(name));
	I("submitted", s->submitted);
	I("admitted", s->admitted);
	I("refused", s->refused);
	I("best_effort", s->best_effort);
	I("finished", s->finished);
	I("unfinished", s->unsettled);
	I("met", s->met);
	I("missed", s->missed);
	I("qos_met", s->m.qos_met);
	I("decided", s->m.submitted);
	D("qos", s->m.qos_satisfaction);
	D("profit", s->m.profitability);
	D("profit_slides", s->m.profitability_slides);
	D("sla_pct", s->m.sla_pct);
	D("reliability_pct", s->m.reliability_pct);
	D("budget_decided", s->m.budget_all);
	D("budget_finished", s->m.budget_accepted);
	D("charge_qos", s->m.charge_qos);
	/* the thesis' other objectives (metrics.h; libra-sim's "wait" and
	 * "slowdown"), over the admitted jobs that met their deadline */
	D("wait", s->m.mean_wait);
	D("slowdown", s->m.mean_slowdown);
	/* the slides' response time (Eq. 10) over the finished admitted
	 * jobs, and the thesis' profitability (Eq. 6.4) */
	D("response", _response(s));
	D("profit_pct", s->m.profit_pct);
	if (opt.risk)
		json_object_object_add(o, "risk", _json_risk(s));
	D("revenue", s->revenue);
	D("penalties", s->penalties);
	D("net", s->net);
	I("other", s->other);
	I("unreadable", s->unreadable);
#undef I
#undef D
	return o;
}

static json_object *_json_job(const rpt_job_t *j)
{
	json_object *o = json_object_new_object();
	const libra_record_t *rec = &j->rec;
	bool has_rec = j->kind == KIND_SLA || j->kind == KIND_BEST_EFFORT;
	libra_job_result_t r;

#define S(k, v) json_object_object_add(o, k, (v) ? \
					json_object_new_string(v) : NULL)
#define D(k, v) json_object_object_add(o, k, _jnum(v))
#define B(k, v) json_object_object_add(o, k, json_object_new_boolean(v))
	S("job_id", j->kind == KIND_REFUSED ? NULL : j->id);
	S("account", _acct_name(j->account));
	S("user", j->user);
	S("state", j->state);
	S("kind", rpt_kind_name(j->kind));
	D("submit", _when(j));
	S("source", j->where);
	if (j->kind == KIND_REFUSED) {
		S("verdict", j->refusal.verdict);
		if (j->refusal.has_budget)
			D("budget", j->refusal.budget);
		S("reason", j->refusal.reason);
	}
	if (j->kind == KIND_UNREADABLE)
		S("error", j->err);
	if (j->kind == KIND_SLA && (rec->sla.set & LIBRA_SLA_BUDGET))
		D("budget", rec->sla.budget);
	if (has_rec)
		D("price", rec->price);
	if (has_rec && rec->settled) {
		S("how", libra_end_name(rec->final.how));
		if (j->kind == KIND_SLA)
			B("met", rec->final.deadline_met);
		D("delay", rec->final.delay);
		D("penalty", rec->final.penalty);
		D("charge", rec->final.charge);
	}
	if (j->kind == KIND_SLA && _result(j, &r))
		B("qos", _qos_met(&r));
#undef S
#undef D
#undef B
	return o;
}

/* Jobs in submission order (then by job id, then as read), so that the
 * sums are the same, to the last bit, whatever order the input had. */
static int _cmp_jobs(const void *a, const void *b)
{
	const rpt_job_t *x = *(rpt_job_t *const *) a;
	const rpt_job_t *y = *(rpt_job_t *const *) b;
	double tx = _when(x), ty = _when(y);
	int c;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if ((x->kind == KIND_REFUSED) != (y->kind == KIND_REFUSED))
		return x->kind == KIND_REFUSED ? 1 : -1;
	if ((c = strverscmp(x->id, y->id)))
		return c;
	return x < y ? -1 : x > y;	/* the order read */
}

static int _cmp_stats(const void *a, const void *b)
{
	return strcmp(((const stats_t *) a)->account,
		      ((const stats_t *) b)->account);
}

/* ------------------------------------------------------------ power */

static const char *const power_titles[] = {
	"Node", "Hours", "Cost", "PowerUps", "PowerDowns"
};
#define NPOWER (int) (sizeof(power_titles) / sizeof(power_titles[0]))

static void _power_row(table_t *t, const rpt_node_t *n)
{
	char b[NPOWER][64], *cells[NPOWER];

	snprintf(b[0], sizeof(b[0]), "%s", n->name);
	_cell_num(n->hours, 2, b[1], sizeof(b[1]));
	_cell_num(n->cost, opt.decimals, b[2], sizeof(b[2]));
	snprintf(b[3], sizeof(b[3]), "%ld", n->ups);
	snprintf(b[4], sizeof(b[4]), "%ld", n->downs);
	for (int i = 0; i < NPOWER; i++)
		cells[i] = b[i];
	_table_row(t, cells);
}

static json_object *_json_node(const rpt_node_t *n)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "node", json_object_new_string(n->name));
	json_object_object_add(o, "hours", _jnum(n->hours));
	json_object_object_add(o, "cost", _jnum(n->cost));
	json_object_object_add(o, "power_ups", json_object_new_int64(n->ups));
	json_object_object_add(o, "power_downs",
			       json_object_new_int64(n->downs));
	return o;
}

static int _cmp_nodes(const void *a, const void *b)
{
	return strverscmp((*(rpt_node_t *const *) a)->name,
			  (*(rpt_node_t *const *) b)->name);
}

/* "UTC+01:00" for an offset of 3600 s. */
static char *_utc_offset(long off, char *buf, size_t len)
{
	long a = labs(off);

	snprintf(buf, len, "UTC%c%02ld:%02ld", off < 0 ? '-' : '+', a / 3600,
		 a % 3600 / 60);
	if (a % 60)
		snprintf(buf + strlen(buf), len - strlen(buf), ":%02ld",
			 a % 60);
	return buf;
}

/* --power: every node's powered hours, cost and transitions in the
 * window, and their TOTAL. */
static int _power_report(void)
{
	const char *src = strcmp(opt.power, "-") ? opt.power : "(stdin)";
	char err[1024], a[32], b[32], spec[1100];
	rpt_node_t sum = { .name = "TOTAL" }, **shown;
	size_t nshown = 0;
	rpt_power_t pw;
	time_t start, end;

	if (rpt_read_power(opt.power, &pw, opt.verbose, err, sizeof(err)))
		_die("%s", err);
	end = opt.has_end ? opt.end : opt.now;
	start = opt.has_start ? opt.start :
		pw.nlines ? (time_t) floor(pw.first) : end;
	if (end < start)
		_die_usage("the window ends (%s) before it starts (%s)",
			   rpt_format_time(end, b, sizeof(b)),
			   rpt_format_time(start, a, sizeof(a)));
	if (!opt.has_offset) {
		struct tm tm;

		localtime_r(&start, &tm);
		opt.tariff.offset = tm.tm_gmtoff;
	}
	rpt_power_fold(&pw, src, &opt.tariff, (double) start, (double) end);

	shown = rpt_xmalloc((pw.n + 1) * sizeof(*shown));
	for (size_t i = 0; i < pw.n; i++)
		if (pw.v[i]->seen && pw.v[i]->first < (double) end)
			shown[nshown++] = pw.v[i];
	if (nshown > 1)
		qsort(shown, nshown, sizeof(*shown), _cmp_nodes);
	for (size_t i = 0; i < nshown; i++) {
		sum.hours += shown[i]->hours;
		sum.cost += shown[i]->cost;
		sum.ups += shown[i]->ups;
		sum.downs += shown[i]->downs;
	}
	libra_tariff_format(&opt.tariff, spec, sizeof(spec));

	if (opt.mode == OUT_JSON) {
		json_object *root = json_object_new_object(), *o, *arr;

		o = json_object_new_object();
		json_object_object_add(o, "start", json_object_new_int64(start));
		json_object_object_add(o, "end", json_object_new_int64(end));
		json_object_object_add(root, "window", o);
		o = json_object_new_object();
		json_object_object_add(o, "power", json_object_new_string(src));
		json_object_object_add(o, "tariff", json_object_new_string(spec));
		json_object_object_add(o, "tz_offset",
				       json_object_new_int64(opt.tariff.offset));
		json_object_object_add(root, "sources", o);
		arr = json_object_new_array();
		for (size_t i = 0; i < nshown; i++)
			json_object_array_add(arr, _json_node(shown[i]));
		json_object_object_add(root, "nodes", arr);
		json_object_object_add(root, "total", _json_node(&sum));
		printf("%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		const char *rule = "-----------------------------------------"
				   "---------------------------------------";
		table_t t;

		if (!opt.noheader) {
			printf("%s\n", rule);
			printf("Libra Node Power %s - %s (%lld secs)\n",
			       rpt_format_time(start, a, sizeof(a)),
			       rpt_format_time(end, b, sizeof(b)),
			       (long long) (end - start));
			if (opt.tariff.n)
				printf("Transitions from %s; tariff %s (times "
				       "of day in %s)\n", src, spec,
				       _utc_offset(opt.tariff.offset, a,
						   sizeof(a)));
			else
				printf("Transitions from %s; tariff none: 1 "
				       "per node-hour\n", src);
			printf("Hours: node-hours powered, booting to the end "
			       "of stopping; Cost: the tariff over them\n");
			printf("%s\n", rule);
		}
		_table_init(&t, power_titles, NPOWER);
		for (size_t i = 0; i < nshown; i++)
			_power_row(&t, shown[i]);
		_power_row(&t, &sum);
		_table_print(&t);
		_table_free(&t);
	}
	if (fflush(stdout) || ferror(stdout))
		_die("cannot write the report: %s", strerror(errno));
	free(shown);
	rpt_power_free(&pw);
	return 0;
}

/* ------------------------------------------------------------ main */

/* The jobs: from --sacct-file, or from the sacct run here (and squeue for
 * the records accounting does not have yet).  Returns where they came from,
 * as the report names it. */
static const char *_read_jobs(rpt_jobs_t *jobs)
{
	const char *jobs_src;
	char *text, err[1024];

	if (opt.sacct_file) {
		jobs_src = strcmp(opt.sacct_file, "-") ? opt.sacct_file :
			   "(stdin)";
		if (!(text = rpt_slurp(opt.sacct_file, NULL)))
			_die("cannot read %s: %s", jobs_src,
			     errno == EILSEQ ? "binary data, not sacct output" :
			     strerror(errno));
		if (rpt_read_sacct(text, jobs_src, jobs, opt.verbose, err,
				   sizeof(err)))
			_die("%s", err);
		free(text);
		return jobs_src;
	}
	text = _sacct();
	if (rpt_read_sacct(text, "sacct", jobs, opt.verbose, err, sizeof(err)))
		_die("cannot understand sacct's output: %s", err);
	free(text);
	if (!opt.no_squeue)
		_merge_squeue(jobs);
	return "sacct";
}

/* The jobs and refusals of the wanted accounts submitted in the window,
 * into shown (room for them all), jobs first; returns how many.  A job's
 * unreadable record is warned about here, where it is counted. */
static size_t _pick_jobs(rpt_jobs_t *jobs, rpt_jobs_t *refusals,
			 rpt_job_t **shown)
{
	size_t nshown = 0;
	long early = 0;

	for (size_t i = 0; i < jobs->n; i++) {
		rpt_job_t *j = &jobs->v[i];

		rpt_classify(j);
		if (!_account_wanted(j->account))
			continue;
		if (!_in_window(_when(j))) {
			early++;
			continue;
		}
		if (j->kind == KIND_UNREADABLE)
			_note("warning: job %s (%s): unreadable record: %s; "
			      "counted as Unreadable", j->id, j->where,
			      j->err);
		shown[nshown++] = j;
	}
	for (size_t i = 0; i < refusals->n; i++) {
		rpt_job_t *r = &refusals->v[i];

		if (!_account_wanted(r->account) || !_in_window(r->submit))
			continue;
		shown[nshown++] = r;
	}
	if (opt.verbose && early)
		_note("%ld job%s outside the window (by submission time) "
		      "left out", early, early == 1 ? "" : "s");
	return nshown;
}

/* The array's part of a task's JobID ("8" of "8_3"), its length. */
static size_t _array_part(const rpt_job_t *j)
{
	return strcspn(j->id, "_");
}

/* Does row j stand for its bag better than row k: settled by the bag's
 * last task to end, the one whose record settles the whole? */
static bool _bag_better(const rpt_job_t *j, const rpt_job_t *k)
{
	bool jl = libra_record_settles_job(&j->rec);
	bool kl = libra_record_settles_job(&k->rec);

	return jl && !kl;
}

/*
 * A job array admitted as one bag (decision 36) is one submission, priced,
 * settled and counted once: of its tasks' rows one stands for it, under
 * the array's JobID (the row settled by the last task to end, which holds
 * the bag's outcome and charge; while the bag runs, any of them, not yet
 * settled).  Returns the rows kept, in order.
 */
static size_t _one_per_bag(rpt_job_t **shown, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		rpt_job_t *j = shown[i];
		size_t len = _array_part(j), k;

		if (j->kind != KIND_SLA || j->rec.bag.tasks <= 0) {
			shown[kept++] = j;
			continue;
		}
		for (k = 0; k < kept; k++)
			if (shown[k]->kind == KIND_SLA &&
			    shown[k]->rec.bag.tasks > 0 &&
			    _array_part(shown[k]) == len &&
			    !strncmp(shown[k]->id, j->id, len))
				break;
		j->id[len] = '\0';	/* the array's JobID */
		if (k == kept)
			shown[kept++] = j;
		else if (_bag_better(j, shown[k]))
			shown[k] = j;
	}
	return kept;
}

/* The accounts and total of the last fold: finished and sorted. */
static void _finish_stats(void)
{
	for (int i = 0; i < nstats; i++)
		libra_metrics_finish(&stats[i].m);
	libra_metrics_finish(&total.m);
	if (nstats > 1)
		qsort(stats, nstats, sizeof(*stats), _cmp_stats);
}

/* --sim-csv: libra-sim's rows, each policy a row of the report, with the
 * periods of --risk from the first submission. */
static const char *_fold_sim_csv(void)
{
	char err[1024];
	rpt_sim_rows_t rows;

	if (rpt_read_sim_csv(opt.sim_csv, &rows, err, sizeof(err)))
		_die("%s", err);
	risk_origin = rows.n ? rows.v[0].r.submit : 0.0;
	for (size_t i = 1; i < rows.n; i++)
		risk_origin = fmin(risk_origin, rows.v[i].r.submit);
	libra_metrics_init(&total.m);
	for (size_t i = 0; i < rows.n; i++) {
		_fold_sim(_stats_for(rows.v[i].policy), &rows.v[i]);
		_fold_sim(&total, &rows.v[i]);
	}
	_finish_stats();
	rpt_sim_rows_free(&rows);
	return strcmp(opt.sim_csv, "-") ? opt.sim_csv : "(stdin)";
}

/* Sort the jobs (the order --per-job prints them in, so that its lines
 * add up as the totals do), fold each into its account's figures and the
 * total, and sort the accounts. */
static void _fold_jobs(rpt_job_t **shown, size_t nshown)
{
	if (nshown > 1)
		qsort(shown, nshown, sizeof(*shown), _cmp_jobs);
	risk_origin = opt.has_start ? (double) opt.start : 0.0;
	for (size_t i = 0; i < nshown && !opt.has_start; i++)
		if (_when(shown[i]) > 0.0) {
			risk_origin = _when(shown[i]);	/* the earliest */
			break;
		}
	libra_metrics_init(&total.m);
	for (size_t i = 0; i < nshown; i++) {
		_fold(_stats_for(shown[i]->account), shown[i]);
		_fold(&total, shown[i]);
	}
	/* requested accounts with nothing to show still get a line */
	for (int i = 0; i < opt.naccounts; i++)
		_stats_for(opt.accounts[i]);
	_finish_stats();
}

/* --json */
static void _print_json(const char *jobs_src, const char *refusal_src,
			rpt_job_t **shown, size_t nshown)
{
	json_object *root = json_object_new_object(), *w, *a, *src;

	w = json_object_new_object();
	json_object_object_add(w, "start", opt.has_start ?
		json_object_new_int64(opt.start) : NULL);
	json_object_object_add(w, "end", opt.has_end ?
		json_object_new_int64(opt.end) : NULL);
	json_object_object_add(root, "window", w);
	src = json_object_new_object();
	json_object_object_add(src, "jobs", json_object_new_string(jobs_src));
	json_object_object_add(src, "refusals", refusal_src ?
		json_object_new_string(refusal_src) : NULL);
	json_object_object_add(root, "sources", src);
	a = json_object_new_array();
	for (int i = 0; i < nstats; i++)
		json_object_array_add(a, _json_stats(&stats[i],
						     stats[i].account));
	json_object_object_add(root, "accounts", a);
	json_object_object_add(root, "total", _json_stats(&total, "TOTAL"));
	if (opt.per_job) {
		json_object *jj = json_object_new_array();

		for (size_t i = 0; i < nshown; i++)
			json_object_array_add(jj, _json_job(shown[i]));
		json_object_object_add(root, "jobs", jj);
	}
	printf("%s\n", json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

/* The table (or -P/-p): the totals per account, or --per-job's lines. */
static void _print_table(const char *jobs_src, const char *refusal_src,
			 rpt_job_t **shown, size_t nshown)
{
	table_t t;

	_banner(jobs_src, refusal_src);
	if (opt.per_job) {
		_table_init(&t, job_titles, NJOB);
		for (size_t i = 0; i < nshown; i++)
			_job_row(&t, shown[i]);
	} else if (opt.objectives) {
		_table_init(&t, objective_titles,
			    opt.risk ? NOBJECTIVES : NOBJ_NORISK);
		for (int i = 0; i < nstats; i++)
			_objectives_row(&t, &stats[i], stats[i].account);
		_objectives_row(&t, &total, "TOTAL");
	} else {
		_table_init(&t, summary_titles, NSUMMARY);
		for (int i = 0; i < nstats; i++)
			_summary_row(&t, &stats[i], stats[i].account);
		_summary_row(&t, &total, "TOTAL");
	}
	_table_print(&t);
	_table_free(&t);
}

int main(int argc, char **argv)
{
	rpt_jobs_t jobs = { 0 }, refusals = { 0 };
	const char *jobs_src, *refusal_src = NULL;
	rpt_job_t **shown;
	size_t nshown;

	/* glibc re-reads /etc/localtime at every mktime() unless TZ is set */
	if (!getenv("TZ") && !access("/etc/localtime", R_OK))
		setenv("TZ", ":/etc/localtime", 0);
	_parse(argc, argv);
	if (opt.power)
		return _power_report();
	/* sacct -P prints times in this format unless told otherwise */
	setenv("SLURM_TIME_FORMAT", "standard", 1);

	if (opt.sim_csv) {
		jobs_src = refusal_src = _fold_sim_csv();
		shown = NULL;
		nshown = 0;
	} else {
		jobs_src = _read_jobs(&jobs);
		_refusals(&refusals, &refusal_src);
		shown = rpt_xmalloc((jobs.n + refusals.n) * sizeof(*shown));
		nshown = _one_per_bag(shown,
				      _pick_jobs(&jobs, &refusals, shown));
		_fold_jobs(shown, nshown);
	}
	if (opt.mode == OUT_JSON)
		_print_json(jobs_src, refusal_src, shown, nshown);
	else
		_print_table(jobs_src, refusal_src, shown, nshown);
	if (fflush(stdout) || ferror(stdout))
		_die("cannot write the report: %s", strerror(errno));

	free(shown);
	free(refusal_path);
	rpt_jobs_free(&jobs);
	rpt_jobs_free(&refusals);
	for (int i = 0; i < nstats; i++) {
		free(stats[i].account);
		free(stats[i].per);
	}
	free(total.per);
	free(stats);
	return 0;
}
