/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra-check - is this Slurm configured for slurm-libra?
 *
 *  Reads slurm.conf (and the files it includes), plugstack.conf, cgroup.conf
 *  and, with
 *  --running, what slurmctld runs ("scontrol show config"), and says, one
 *  line per finding, what is missing or inconsistent and how to fix it.  A
 *  mistake in these files otherwise shows up only as odd behaviour at run
 *  time: no "defer", and srun starts jobs nobody admitted; no
 *  OverSubscribe=FORCE, and admitted jobs wait for each other; no SPANK
 *  line on a node, and its jobs run without their CPU shares.
 *
 *  The rules, their names and their severities are in one table (rules[]);
 *  libra-check(8) lists them.  An ERROR breaks admissions, settlement,
 *  enforcement or power provisioning; a WARNING loses something (records
 *  in sacct) or is likely a mistake.  Exit status: 0 no error, 1 at least
 *  one error, 2 a file could not be read or bad usage.
 *
 *  The libra_* parameters are checked by the policy core's own parser
 *  (libra_params_parse()), the very code slurmctld runs; the hostlists of
 *  libra_node_speed are expanded here as Slurm's hostlist code does
 *  (_hostlist_expand()) and their names looked up among slurm.conf's
 *  NodeName lines.
 *
 *  slurm.conf syntax handled: "#" comments, "\" line continuations, keys
 *  case-insensitive, several key=value pairs per line (PartitionName and
 *  NodeName lines), values in double quotes, "Include FILE" (relative to
 *  the directory of slurm.conf; no glob patterns).
\*****************************************************************************/

#define _GNU_SOURCE	/* strcasestr() */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodemap.h"
#include "params.h"

#ifndef LIBRA_PLUGINDIR
#define LIBRA_PLUGINDIR "/usr/lib/slurm"
#endif

#define LINE_MAX_LEN 65536
#define MAX_INCLUDE_DEPTH 8

/* ------------------------------------------------------------ the rules */

typedef enum { SEV_WARNING, SEV_ERROR } severity_t;

typedef struct rule {
	const char *name;
	severity_t sev;
	const char *what;	/* for --list */
} rule_t;

enum {
	R_SCHED_TYPE, R_SCHED_DEFER, R_SCHED_PARAMS, R_JOB_SUBMIT, R_JOBCOMP,
	R_STORE_COMMENT, R_ACCOUNTING, R_OVERSUBSCRIBE, R_SELECT,
	R_PLUGINS, R_SPANK, R_SPANK_OPTIONAL, R_CGROUP_CONF, R_CGROUP_V2,
	R_POWER, R_POWER_TIMING, R_POWER_WARM, R_TARIFF, R_NODE_SPEED,
	R_DISK_PRICE, R_METRICS, R_RUNNING,
	R_SCHED_MAIN, R_USER_TOP,
	R_GANG, R_PREEMPT, R_PREEMPT_QOS, R_PRIVATE, R_COUNT
};

static const rule_t rules[R_COUNT] = {
	[R_SCHED_TYPE] = { "sched-type", SEV_ERROR,
		"SchedulerType is sched/libra" },
	[R_SCHED_DEFER] = { "sched-defer", SEV_ERROR,
		"with libra_no_sla=best_effort or reject, SchedulerParameters has sched_interval=-1 and defer" },
	[R_SCHED_MAIN] = { "sched-main", SEV_WARNING,
		"with libra_no_sla=slurm (the default), slurmctld's main scheduler is not switched off (no sched_interval=-1)" },
	[R_SCHED_PARAMS] = { "sched-params", SEV_ERROR,
		"the libra_* SchedulerParameters are valid" },
	[R_USER_TOP] = { "user-top", SEV_ERROR,
		"SchedulerParameters has no enable_user_top (an owner's scontrol top would lower an admitted job's priority)" },
	[R_JOB_SUBMIT] = { "job-submit", SEV_ERROR,
		"JobSubmitPlugins has qos" },
	[R_JOBCOMP] = { "jobcomp", SEV_ERROR,
		"JobCompType is jobcomp/libra" },
	[R_STORE_COMMENT] = { "store-comment", SEV_WARNING,
		"AccountingStoreFlags has job_comment" },
	[R_ACCOUNTING] = { "accounting", SEV_WARNING,
		"AccountingStorageType is accounting_storage/slurmdbd" },
	[R_OVERSUBSCRIBE] = { "oversubscribe", SEV_ERROR,
		"every partition has OverSubscribe=YES:N (libra_no_sla=slurm) or FORCE:N (best_effort, reject), N >= 2" },
	[R_SELECT] = { "select", SEV_ERROR,
		"SelectType gives CPUs, not whole nodes" },
	[R_PLUGINS] = { "plugins", SEV_ERROR,
		"PluginDir holds the slurmctld plugins and their library" },
	[R_SPANK] = { "spank", SEV_ERROR,
		"plugstack.conf loads an existing libra_spank.so" },
	[R_SPANK_OPTIONAL] = { "spank-optional", SEV_WARNING,
		"libra_spank.so is required, not optional" },
	[R_CGROUP_CONF] = { "cgroup-conf", SEV_ERROR,
		"cgroup.conf exists where Slurm's cgroup plugins need it" },
	[R_CGROUP_V2] = { "cgroup-v2", SEV_WARNING,
		"not cgroup/v2 with proctrack/cgroup (untested beside libra_spank)" },
	[R_POWER] = { "power", SEV_ERROR,
		"libra_power has Slurm's power saving to act through" },
	[R_POWER_TIMING] = { "power-timing", SEV_WARNING,
		"Slurm's power-saving times fit libra_power's" },
	[R_POWER_WARM] = { "power-warm", SEV_WARNING,
		"libra_power_warm acts: a plan that powers nodes down, and nodes left to power down" },
	[R_DISK_PRICE] = { "disk-price", SEV_WARNING,
		"libra_price_disk has nodes with a TmpDisk to price" },
	[R_METRICS] = { "metrics-file", SEV_WARNING,
		"SlurmUser can write the directory of libra_metrics_file" },
	[R_TARIFF] = { "tariff", SEV_ERROR,
		"libra_tariff parses and SlurmUser can read its file" },
	[R_NODE_SPEED] = { "node-speed", SEV_ERROR,
		"libra_node_speed and libra_node_price parse and their hostlists name only nodes of slurm.conf" },
	[R_RUNNING] = { "running", SEV_WARNING,
		"slurmctld runs what slurm.conf says" },
	[R_GANG] = { "gang", SEV_ERROR,
		"PreemptMode has no GANG (gang scheduling would suspend admitted jobs in turns)" },
	[R_PREEMPT] = { "preempt", SEV_WARNING,
		"with PreemptType=preempt/partition_prio, a partition whose jobs can be preempted takes no SLA job (its jobs without an SLA are preempted for SLA jobs of a higher tier)" },
	[R_PRIVATE] = { "private", SEV_WARNING,
		"PrivateData has jobs (every user's SLA, budget, price and settlement are in the jobs' Comment and AdminComment)" },
	[R_PREEMPT_QOS] = { "preempt-qos", SEV_WARNING,
		"with PreemptType=preempt/qos and PreemptMode not OFF, the QOS of SLA jobs must be in no QOS's Preempt list (not visible in slurm.conf)" },
};

static int nerrors, nwarnings;
static bool quiet;

/* One finding: "libra-check: ERROR [rule] where: what; fix: how". */
__attribute__((format(printf, 3, 5)))
static void _finding(int rule, const char *where, const char *fmt,
		     const char *fix, ...)
{
	va_list ap;
	bool err = rules[rule].sev == SEV_ERROR;

	if (err)
		nerrors++;
	else
		nwarnings++;
	if (quiet && !err)
		return;
	printf("libra-check: %s [%s] %s: ", err ? "ERROR" : "WARNING",
	       rules[rule].name, where);
	va_start(ap, fix);
	vprintf(fmt, ap);
	va_end(ap);
	printf("; fix: %s\n", fix);
}

/* ------------------------------------------------------- slurm.conf */

typedef struct pair {
	char *key, *val;
} pair_t;

/* One logical line of key=value pairs, with where it was read. */
typedef struct conf_line {
	char where[256];
	int npairs;
	pair_t *pairs;
} conf_line_t;

typedef struct conf {
	int nlines, cap;
	conf_line_t *lines;
} conf_t;

static void *_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "libra-check: out of memory\n");
		exit(2);
	}
	return q;
}

static char *_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(_xrealloc(NULL, n), s, n);
}

/* Split a line into key=value pairs (a value may be "quoted"); a word with
 * no "=" (e.g. "Include file") becomes a pair with an empty key whose value
 * is the word. */
static void _split(char *s, conf_line_t *cl)
{
	while (*s) {
		char *key, *val, *end;

		while (isspace((unsigned char) *s))
			s++;
		if (!*s)
			break;
		key = s;
		while (*s && *s != '=' && !isspace((unsigned char) *s))
			s++;
		if (*s != '=') {
			end = s;
			if (*s)
				s++;
			*end = '\0';
			val = key;
			key = "";
		} else {
			*s++ = '\0';
			if (*s == '"') {
				val = ++s;
				while (*s && *s != '"')
					s++;
			} else {
				val = s;
				while (*s && !isspace((unsigned char) *s))
					s++;
			}
			if (*s)
				*s++ = '\0';
		}
		cl->pairs = _xrealloc(cl->pairs, (size_t) (cl->npairs + 1) *
				      sizeof(*cl->pairs));
		cl->pairs[cl->npairs].key = _xstrdup(key);
		cl->pairs[cl->npairs].val = _xstrdup(val);
		cl->npairs++;
	}
}

static int _read_conf(conf_t *c, const char *path, const char *dir,
		      int depth);

static int _add_line(conf_t *c, char *text, const char *path, int lineno,
		     const char *dir, int depth)
{
	conf_line_t cl;

	memset(&cl, 0, sizeof(cl));
	snprintf(cl.where, sizeof(cl.where), "%s:%d", path, lineno);
	_split(text, &cl);
	if (!cl.npairs) {
		free(cl.pairs);
		return 0;
	}
	/* "Include FILE" (one word, then the file) */
	if (cl.npairs == 2 && !cl.pairs[0].key[0] && !cl.pairs[1].key[0] &&
	    !strcasecmp(cl.pairs[0].val, "include")) {
		char inc[4096];
		const char *f = cl.pairs[1].val;
		int rc;

		if (f[0] == '/')
			snprintf(inc, sizeof(inc), "%s", f);
		else
			snprintf(inc, sizeof(inc), "%s/%s", dir, f);
		rc = _read_conf(c, inc, dir, depth + 1);
		for (int i = 0; i < cl.npairs; i++) {
			free(cl.pairs[i].key);
			free(cl.pairs[i].val);
		}
		free(cl.pairs);
		return rc;
	}
	if (c->nlines == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->lines = _xrealloc(c->lines, (size_t) c->cap *
				     sizeof(*c->lines));
	}
	c->lines[c->nlines++] = cl;
	return 0;
}

static int _read_conf(conf_t *c, const char *path, const char *dir,
		      int depth)
{
	FILE *f;
	char *buf = _xrealloc(NULL, LINE_MAX_LEN), *line = NULL;
	size_t len = 0;
	int lineno = 0, first = 0, rc = 0;

	if (depth > MAX_INCLUDE_DEPTH) {
		fprintf(stderr, "libra-check: %s: Include nested more than %d deep\n",
			path, MAX_INCLUDE_DEPTH);
		free(buf);
		return -1;
	}
	if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "libra-check: cannot read %s: %s\n", path,
			strerror(errno));
		free(buf);
		return -1;
	}
	buf[0] = '\0';
	while (getline(&line, &len, f) >= 0) {
		char *hash = strchr(line, '#');
		size_t n;
		bool more;

		lineno++;
		if (!buf[0])
			first = lineno;
		if (hash)
			*hash = '\0';
		n = strlen(line);
		while (n && isspace((unsigned char) line[n - 1]))
			line[--n] = '\0';
		more = n && line[n - 1] == '\\';
		if (more)
			line[--n] = '\0';
		if (strlen(buf) + n + 2 >= LINE_MAX_LEN) {
			fprintf(stderr, "libra-check: %s:%d: line too long\n",
				path, lineno);
			rc = -1;
			break;
		}
		/* a continued line goes on right after the "\", as in
		 * Slurm's own parser */
		strcat(buf, line);
		if (more)
			continue;
		if ((rc = _add_line(c, buf, path, first, dir, depth)))
			break;
		buf[0] = '\0';
	}
	if (!rc && buf[0])
		rc = _add_line(c, buf, path, first, dir, depth);
	free(line);
	free(buf);
	fclose(f);
	return rc;
}

static void _free_conf(conf_t *c)
{
	for (int i = 0; i < c->nlines; i++) {
		for (int k = 0; k < c->lines[i].npairs; k++) {
			free(c->lines[i].pairs[k].key);
			free(c->lines[i].pairs[k].val);
		}
		free(c->lines[i].pairs);
	}
	free(c->lines);
	c->lines = NULL;
	c->nlines = c->cap = 0;
}

/* The value of a global key (the last one given wins, as in Slurm), and
 * where; NULL if not given. */
static const char *_get(const conf_t *c, const char *key,
			const char **where)
{
	const char *v = NULL;

	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];

		/* PartitionName/NodeName/... lines hold their own keys */
		if (!strcasecmp(cl->pairs[0].key, "PartitionName") ||
		    !strcasecmp(cl->pairs[0].key, "NodeName") ||
		    !strcasecmp(cl->pairs[0].key, "NodeSet") ||
		    !strcasecmp(cl->pairs[0].key, "DownNodes") ||
		    !strcasecmp(cl->pairs[0].key, "FrontendName"))
			continue;
		for (int k = 0; k < cl->npairs; k++) {
			if (!strcasecmp(cl->pairs[k].key, key)) {
				v = cl->pairs[k].val;
				if (where)
					*where = cl->where;
			}
		}
	}
	return v;
}

static const char *_line_get(const conf_line_t *cl, const char *key)
{
	for (int k = 0; k < cl->npairs; k++)
		if (!strcasecmp(cl->pairs[k].key, key))
			return cl->pairs[k].val;
	return NULL;
}

/* Is item one of the comma-separated items of list (case-insensitive)? */
static bool _has_item(const char *list, const char *item)
{
	size_t n = strlen(item);

	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t) (comma - list) : strlen(list);

		if (len == n && !strncasecmp(list, item, n))
			return true;
		list = comma ? comma + 1 : NULL;
	}
	return false;
}

/* ------------------------------------------------------------ hostlists */

/* The most names in one range of a hostlist (Slurm's MAX_RANGE: more is
 * an error there), and in a whole hostlist (libra-check's own bound). */
#define HOSTLIST_RANGE_MAX (64 * 1024)
#define HOSTLIST_MAX (1 << 20)

typedef struct names {
	int n, cap;
	char **v;
} names_t;

static int _names_add(names_t *ns, const char *name, size_t len)
{
	if (ns->n >= HOSTLIST_MAX)
		return -2;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		ns->v = _xrealloc(ns->v, (size_t) ns->cap * sizeof(*ns->v));
	}
	ns->v[ns->n] = _xrealloc(NULL, len + 1);
	memcpy(ns->v[ns->n], name, len);
	ns->v[ns->n++][len] = '\0';
	return 0;
}

static void _names_free(names_t *ns)
{
	for (int i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

/*
 * One name of a hostlist, s[0..len): "prefix[ranges]suffix", the suffix
 * perhaps with brackets of its own (rack[1-2]n[1-4]: the groups multiply).
 * Ranges are "A" or "A-B", ',' between them, each number written as wide
 * as its A (n[01-10]: n01 ... n10; n[1-10]: n1 ... n10), at most
 * HOSTLIST_RANGE_MAX names each, as in Slurm's hostlist.c ("A-" is A
 * there too).  -1: not a hostlist Slurm expands; -2: more than
 * HOSTLIST_MAX names.
 */
static int _expand_name(const char *s, size_t len, names_t *ns)
{
	const char *open = memchr(s, '[', len), *close, *r;
	size_t plen;

	if (!open)
		return !len || memchr(s, ']', len) ? -1 :
		       _names_add(ns, s, len);
	plen = (size_t) (open - s);
	close = memchr(open, ']', len - plen);
	if (!close || memchr(s, ']', plen) || close == open + 1)
		return -1;
	for (r = open + 1; r < close;) {
		unsigned long lo, hi;
		const char *end = r;
		int width;

		while (end < close && isdigit((unsigned char) *end))
			end++;
		width = (int) (end - r);
		if (!width || width > 9)
			return -1;
		lo = hi = strtoul(r, NULL, 10);
		if (end < close && *end == '-') {
			const char *h = ++end;

			while (end < close && isdigit((unsigned char) *end))
				end++;
			if (end - h > 9)
				return -1;
			if (end > h)
				hi = strtoul(h, NULL, 10);
		}
		if (end < close && (*end != ',' || end + 1 == close))
			return -1;	/* not a digit, '-' or ',' */
		if (hi < lo || hi - lo >= HOSTLIST_RANGE_MAX)
			return -1;
		for (unsigned long k = lo; k <= hi; k++) {
			size_t rest = len - (size_t) (close + 1 - s);
			char *name = _xrealloc(NULL, plen + 16 + rest);
			int n = snprintf(name, plen + 16, "%.*s%0*lu",
					 (int) plen, s, width, k);
			int rc;

			memcpy(name + n, close + 1, rest);
			rc = _expand_name(name, (size_t) n + rest, ns);
			free(name);
			if (rc)
				return rc;
		}
		r = end + (end < close);
	}
	return 0;
}

/*
 * Add the names of a hostlist (Slurm's syntax: names, ',' between them
 * outside brackets) to ns: 0, or -1 when it is not one Slurm expands (a
 * range backwards or of more than HOSTLIST_RANGE_MAX names, a bracket not
 * closed, not numbers in brackets), -2 when it names more than
 * HOSTLIST_MAX.  Slurm's multi-dimensional boxes (n[000x111]) are not
 * read.
 */
static int _hostlist_expand(const char *hl, names_t *ns)
{
	int rc;

	while (*hl) {
		const char *c = hl;
		int depth = 0;

		for (; *c && (*c != ',' || depth); c++) {
			if (*c == '[' && ++depth > 1)
				return -1;
			if (*c == ']' && --depth < 0)
				return -1;
		}
		if (depth)
			return -1;
		if ((rc = _expand_name(hl, (size_t) (c - hl), ns)))
			return rc;
		hl = *c ? c + 1 : c;
		if (*c && !*hl)
			return -1;	/* a ',' last */
	}
	return 0;
}

static int _cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The nodes slurm.conf's NodeName lines name (not DEFAULT), sorted; a
 * NodeName that is not a hostlist is slurmctld's to refuse, not this
 * rule's. */
static void _conf_nodes(const conf_t *c, names_t *ns)
{
	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];

		if (strcasecmp(cl->pairs[0].key, "NodeName") ||
		    !strcasecmp(cl->pairs[0].val, "DEFAULT"))
			continue;
		(void) _hostlist_expand(cl->pairs[0].val, ns);
	}
	if (ns->n)
		qsort(ns->v, (size_t) ns->n, sizeof(*ns->v), _cmp_name);
}

/* ------------------------------------------------------------ checks */

/* libra_no_sla as SchedulerParameters set it (_check_scheduler()); the
 * partitions' rule follows it (design.md decision 27). */
static libra_nosla_t no_sla_mode = LIBRA_NOSLA_SLURM;

/* The maps of a number per node (decision 43), their fixes, and whether
 * one that does not parse was reported by _check_scheduler() (when it is
 * the first bad key; else by _check_node_map()). */
static struct {
	const char *key, *fix;
	bool reported;
} node_maps[] = {
	{ "libra_node_speed", "write libra_node_speed=HOSTLIST:SPEED;HOSTLIST:SPEED;... (speeds in (0, 64], e.g. n[1-16]:0.5;gpu[1-4]:1.5; sched_libra(8))", false },
	{ "libra_node_price", "write libra_node_price=HOSTLIST:FACTOR;HOSTLIST:FACTOR;... (factors in (0, 1000], e.g. gpu[1-4]:2; sched_libra(8))", false },
};
#define NODE_MAPS (sizeof(node_maps) / sizeof(node_maps[0]))

/* The node map err names ("libra_node_speed: ..."), or NULL. */
static int _node_map_of(const char *err)
{
	for (size_t i = 0; i < NODE_MAPS; i++) {
		size_t n = strlen(node_maps[i].key);

		if (!strncmp(err, node_maps[i].key, n) && err[n] == ':')
			return (int) i;
	}
	return -1;
}

static void _check_scheduler(const conf_t *c, const char *file)
{
	const char *where = file, *v = _get(c, "SchedulerType", &where);
	const char *pw = file, *params = _get(c, "SchedulerParameters", &pw);
	libra_params_t p;
	char err[512];

	if (!v || strcasecmp(v, "sched/libra"))
		_finding(R_SCHED_TYPE, where,
			 "SchedulerType is %s, so nothing keeps the admissions' promises (jobs are started by %s)",
			 "set SchedulerType=sched/libra and restart slurmctld",
			 v ? v : "not set (sched/backfill)",
			 v ? v : "sched/backfill");
	libra_params_default(&p);
	if (params && libra_params_parse(&p, params, err, sizeof(err))) {
		/* the tariff's parser names it "libra_tariff: ...", the
		 * node maps' "libra_node_speed: ..." */
		int m = _node_map_of(err);

		if (!strncmp(err, "libra_tariff:", 13))
			_finding(R_TARIFF, pw, "SchedulerParameters: %s",
				 "write libra_tariff=HH:MM=RATE;HH:MM=RATE;... (times ascending, rates >= 0) or the absolute path of a file of 'HH:MM RATE' lines on the controller (sched_libra(8))",
				 err);
		else if (m >= 0) {
			_finding(R_NODE_SPEED, pw, "SchedulerParameters: %s",
				 node_maps[m].fix, err);
			node_maps[m].reported = true;
		} else
			_finding(R_SCHED_PARAMS, pw, "SchedulerParameters: %s",
				 "correct the value (sched_libra(8) lists every libra_* key and its range)",
				 err);
	}
	no_sla_mode = p.no_sla;
	if (p.no_sla == LIBRA_NOSLA_SLURM) {
		if (params && _has_item(params, "sched_interval=-1"))
			_finding(R_SCHED_MAIN, pw,
				 "SchedulerParameters has sched_interval=-1: slurmctld's main scheduler is off, so jobs without an SLA start only in backfill cycles, not as under stock Slurm",
				 "remove sched_interval=-1 (with libra_no_sla=slurm, Slurm's own schedulers start the jobs without an SLA)");
	} else if (!params || !_has_item(params, "sched_interval=-1") ||
		   !_has_item(params, "defer")) {
		_finding(R_SCHED_DEFER, pw,
			 "SchedulerParameters lacks %s: with libra_no_sla=%s sched/libra starts every job, slurmctld's own scheduler would start jobs nobody admitted, and sched/libra refuses to load",
			 "add sched_interval=-1,defer to SchedulerParameters, or leave jobs without an SLA to Slurm (libra_no_sla=slurm)",
			 !params || !_has_item(params, "sched_interval=-1") ?
			 "sched_interval=-1" : "defer",
			 libra_nosla_name(p.no_sla));
	}
	/* design.md decision 38: an admitted job's TOP_PRIORITY is kept from
	 * its owner, but "scontrol top" never reaches job_submit: with
	 * enable_user_top it lets the owner lower his other pending jobs of
	 * the same partition, account and QOS, an admitted one among them
	 * (job_mgr.c's _set_top()).  Slurm searches the whole string for it
	 * (xstrcasestr()), and so does this check. */
	if (params && strcasestr(params, "enable_user_top"))
		_finding(R_USER_TOP, pw,
			 "SchedulerParameters has enable_user_top: a job's owner may run scontrol top, which lowers his other pending jobs of the same partition, account and QOS, an admitted job's TOP_PRIORITY among them; srun, salloc and backfill jobs may then take its CPUs, its start slips past the plan, and the provider pays a penalty for a delay the owner caused",
			 "remove enable_user_top from SchedulerParameters (operators can still run scontrol top)");
}

static void _check_plugins_named(const conf_t *c, const char *file)
{
	const char *w1 = file, *js = _get(c, "JobSubmitPlugins", &w1);
	const char *w2 = file, *jc = _get(c, "JobCompType", &w2);
	const char *w3 = file, *fl = _get(c, "AccountingStoreFlags", &w3);
	const char *w4 = file, *as = _get(c, "AccountingStorageType", &w4);

	if (!js || (!_has_item(js, "qos") && !_has_item(js, "job_submit/qos")))
		_finding(R_JOB_SUBMIT, w1,
			 "JobSubmitPlugins %s%s: no job is admitted or priced, and sched/libra runs every job best effort",
			 "add qos to JobSubmitPlugins",
			 js ? "is " : "is not set", js ? js : "");
	if (!jc || strcasecmp(jc, "jobcomp/libra"))
		_finding(R_JOBCOMP, w2,
			 "JobCompType is %s: ended jobs are not settled (no deadline met, penalty or charge in their records)",
			 "set JobCompType=jobcomp/libra",
			 jc ? jc : "not set (jobcomp/none)");
	if (!fl || !_has_item(fl, "job_comment"))
		_finding(R_STORE_COMMENT, w3,
			 "AccountingStoreFlags lacks job_comment: sacct shows no Comment, so the SLA the user wrote is lost with the job",
			 "add job_comment to AccountingStoreFlags");
	if (!as || strcasecmp(as, "accounting_storage/slurmdbd"))
		_finding(R_ACCOUNTING, w4,
			 "AccountingStorageType is %s: sacct and libra-report have no settled records",
			 "use accounting_storage/slurmdbd",
			 as ? as : "not set (accounting_storage/none)");
}

/*
 * OverSubscribe=YES:N or FORCE:N ("YES" or "FORCE" is "len" characters;
 * without ":N" Slurm's default, 4): N at least 2, else no time-sharing.
 */
static void _check_rows(const conf_line_t *cl, const char *name,
			const char *os, size_t len, const char *fix)
{
	char *end;
	long n = os[len] == ':' ? strtol(os + len + 1, &end, 10) : 4;

	if (os[len] == ':' && (*end || end == os + len + 1))
		n = 0;
	if (n < 2)
		_finding(R_OVERSUBSCRIBE, cl->where,
			 "partition %s has OverSubscribe=%s: at most one job per CPU, no time-sharing",
			 fix, name, os);
}

/*
 * libra_no_sla=slurm: OverSubscribe=YES:N, N >= 2.  Jobs without an SLA
 * then get CPUs of their own, as under OverSubscribe=NO, and admitted
 * jobs, which job_submit/qos submits with --oversubscribe, time-share
 * theirs; FORCE would time-share every job's.
 */
static void _check_yes(const conf_line_t *cl, const char *name,
		       const char *os)
{
	const char *fix = "set OverSubscribe=YES:8 (or another N >= 2) on the partition";

	if (os && !strncasecmp(os, "FORCE", 5)) {
		_finding(R_OVERSUBSCRIBE, cl->where,
			 "partition %s has OverSubscribe=%s: jobs without an SLA would time-share CPUs (even with --exclusive), unlike under stock Slurm",
			 fix, name, os);
		return;
	}
	if (!os || strncasecmp(os, "YES", 3)) {
		_finding(R_OVERSUBSCRIBE, cl->where,
			 "partition %s has OverSubscribe=%s: admitted jobs cannot time-share a CPU and wait for each other past their deadlines",
			 fix, name, os ? os : "NO");
		return;
	}
	_check_rows(cl, name, os, 3, fix);
}

static void _check_partitions(const conf_t *c, const char *file)
{
	const char *global = _get(c, "OverSubscribe", NULL);
	int parts = 0;

	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];
		const char *name = cl->pairs[0].val, *os;

		if (strcasecmp(cl->pairs[0].key, "PartitionName") ||
		    !strcasecmp(name, "DEFAULT"))
			continue;
		parts++;
		if (!(os = _line_get(cl, "OverSubscribe")) &&
		    !(os = _line_get(cl, "Shared")))
			os = global;
		if (no_sla_mode == LIBRA_NOSLA_SLURM) {
			_check_yes(cl, name, os);
			continue;
		}
		if (!os || strncasecmp(os, "FORCE", 5)) {
			_finding(R_OVERSUBSCRIBE, cl->where,
				 "partition %s has OverSubscribe=%s: with libra_no_sla=%s admitted jobs cannot time-share a CPU and wait for each other past their deadlines",
				 "set OverSubscribe=FORCE:8 (or another N >= 2) on the partition",
				 name, os ? os : "NO", libra_nosla_name(no_sla_mode));
			continue;
		}
		_check_rows(cl, name, os, 5,
			    "set OverSubscribe=FORCE:8 (or another N >= 2) on the partition");
	}
	if (!parts)
		_finding(R_OVERSUBSCRIBE, file,
			 "no PartitionName line: no partition to admit jobs to",
			 no_sla_mode == LIBRA_NOSLA_SLURM ?
			 "add a partition with OverSubscribe=YES:8" :
			 "add a partition with OverSubscribe=FORCE:8");
}

static void _check_select(const conf_t *c, const char *file)
{
	const char *w = file, *st = _get(c, "SelectType", &w);
	const char *w2 = file, *sp = _get(c, "SelectTypeParameters", &w2);

	if (st && !strcasecmp(st, "select/linear"))
		_finding(R_SELECT, w,
			 "SelectType=select/linear allocates whole nodes: the CPUs admission counted on are not what jobs get",
			 "use select/cons_tres with SelectTypeParameters=CR_CPU (or CR_CPU_Memory)");
	else if (sp && !strncasecmp(sp, "CR_Socket", 9))
		_finding(R_SELECT, w2,
			 "SelectTypeParameters=%s allocates whole sockets: the CPUs admission counted on are not what jobs get",
			 "use CR_CPU or CR_CPU_Memory (CR_Core is fine on nodes without threads)",
			 sp);
}

static bool _exists_in(const char *dirs, const char *file, char *found,
		       size_t len)
{
	const char *d = dirs;

	while (d && *d) {
		const char *colon = strchr(d, ':');
		int n = colon ? (int) (colon - d) : (int) strlen(d);

		snprintf(found, len, "%.*s/%s", n, d, file);
		if (!access(found, R_OK))
			return true;
		d = colon ? colon + 1 : NULL;
	}
	return false;
}

/* The PluginDir list slurm.conf gives, else the one slurm-libra was built
 * for. */
static const char *_plugin_dirs(const conf_t *c, const char **where)
{
	const char *dirs = _get(c, "PluginDir", where);

	return dirs ? dirs : LIBRA_PLUGINDIR;
}

static void _check_plugin_files(const conf_t *c, const char *file)
{
	static const char *const need[] = {
		"sched_libra.so", "job_submit_qos.so", "jobcomp_libra.so",
		"libslurm_libra.so", NULL
	};
	const char *w = file, *dirs = _plugin_dirs(c, &w);
	char found[4096];

	for (int i = 0; need[i]; i++)
		if (!_exists_in(dirs, need[i], found, sizeof(found)))
			_finding(R_PLUGINS, w,
				 "%s is not in PluginDir (%s): slurmctld cannot load slurm-libra",
				 "install the slurm-libra-ctld package (or make install), or add its directory to PluginDir",
				 need[i], dirs);
}

static void _dirname(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int) (slash - path), path);
}

/*
 * plugstack.conf: "required|optional PATH [args]"; a PATH without "/" is
 * looked up in PluginDir, as SPANK does.
 */
static int _check_plugstack(const char *path, const char *dirs)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, where[4200];
	size_t len = 0;
	int lineno = 0, seen = 0;

	if (!f) {
		snprintf(where, sizeof(where), "%s", path);
		_finding(R_SPANK, where,
			 "cannot read it (%s): no SPANK plugin gives jobs their CPU shares on this node",
			 "create it with: required <PluginDir>/libra_spank.so",
			 strerror(errno));
		return 0;
	}
	while (getline(&line, &len, f) >= 0) {
		char kind[32], plugin[4096], found[4096];
		bool exists;

		lineno++;
		if (sscanf(line, " %31s %4095s", kind, plugin) != 2 ||
		    kind[0] == '#')
			continue;
		if (!strstr(plugin, "libra_spank.so"))
			continue;
		seen++;
		snprintf(where, sizeof(where), "%.4000s:%d", path, lineno);
		if (strchr(plugin, '/'))
			exists = !access(plugin, R_OK);
		else
			exists = _exists_in(dirs, plugin, found, sizeof(found));
		if (!exists)
			_finding(R_SPANK, where,
				 "%s does not exist%s: jobs would run without their CPU shares (or fail to start, as required)",
				 "install the slurm-libra-node package on this node, or correct the path",
				 plugin, strchr(plugin, '/') ? "" :
				 " in PluginDir");
		else if (!strcasecmp(kind, "optional"))
			_finding(R_SPANK_OPTIONAL, where,
				 "libra_spank.so is optional: a node where it fails to load runs jobs without their shares, silently",
				 "say required instead of optional");
	}
	free(line);
	fclose(f);
	if (!seen) {
		snprintf(where, sizeof(where), "%s", path);
		_finding(R_SPANK, where,
			 "no libra_spank.so line: jobs run on this node without their CPU shares, and sbatch has no --runtime/--budget options",
			 "add: required <PluginDir>/libra_spank.so");
	}
	return 0;
}

/*
 * cgroup.conf: Slurm's cgroup plugins need it; and libra_spank moves each
 * job's tasks into a cgroup of its own, which in cgroup v2's one hierarchy
 * takes them out of the cgroup where proctrack/cgroup tracks them (not
 * tried yet: doc/design.md, "Slurm releases").
 */
static void _check_cgroup(const conf_t *c, const char *file, const char *path)
{
	const char *w = file, *pt = _get(c, "ProctrackType", &w);
	const char *tp = _get(c, "TaskPlugin", NULL), *plugin = NULL;
	/* Slurm's default */
	if (!pt)
		pt = "proctrack/cgroup";
	bool uses = !strcasecmp(pt, "proctrack/cgroup") ||
		    (tp && strstr(tp, "cgroup"));
	conf_t cg = { 0 };
	char dir[4096];

	if (access(path, R_OK)) {
		if (uses)
			_finding(R_CGROUP_CONF, path,
				 "cannot read it (%s), but %s uses cgroups: slurmd fails to start steps",
				 "create cgroup.conf beside slurm.conf (CgroupPlugin=autodetect at least)",
				 strerror(errno), !strcasecmp(pt, "proctrack/cgroup") ?
				 "ProctrackType" : "TaskPlugin");
		return;
	}
	_dirname(path, dir, sizeof(dir));
	if (_read_conf(&cg, path, dir, 0))
		return;
	plugin = _get(&cg, "CgroupPlugin", NULL);
	if (plugin && !strcasecmp(plugin, "cgroup/v2") &&
	    !strcasecmp(pt, "proctrack/cgroup"))
		_finding(R_CGROUP_V2, w,
			 "ProctrackType=proctrack/cgroup with CgroupPlugin=cgroup/v2: libra_spank moves each job's tasks into its own cgroup, out of the one Slurm tracks them in; this pair has not been tried",
			 "check that scancel still ends every process of a job, or use proctrack/linuxproc");
	_free_conf(&cg);
}

/*
 * The libra_power* keys (and libra_price_disk) of SchedulerParameters one
 * by one, by the core's parser, so that they are known even when another
 * key is bad (which sched-params reports).
 */
static void _power_params(const char *params, libra_params_t *p)
{
	char *buf = _xstrdup(params ? params : ""), *tok, *save = NULL;
	char err[512];

	libra_params_default(p);
	for (tok = libra_hostlist_next(buf, &save); tok;
	     tok = libra_hostlist_next(NULL, &save)) {
		char *val = strchr(tok, '=');

		if (!val || (strncmp(tok, "libra_power", 11) &&
			     strncmp(tok, "libra_price_disk=", 17)))
			continue;
		*val++ = '\0';
		(void) libra_params_set(p, tok, val, err, sizeof(err));
	}
	free(buf);
}

/* SuspendProgram or ResumeProgram as slurmctld's power saving checks it
 * (power_save.c: absolute, executable, not writable by group or others);
 * else it disables power saving altogether. */
static void _check_power_program(const conf_t *c, const char *file,
				 const char *key, const char *to,
				 const char *heuristic)
{
	const char *w = file, *prog = _get(c, key, &w);
	char fix[256];
	struct stat st;

	snprintf(fix, sizeof(fix), "set %s to the absolute path of the site's script that powers a node %s (slurm.conf(5), Slurm's Power Saving Guide)",
		 key, to);
	if (!prog || !*prog)
		_finding(R_POWER, w,
			 "libra_power=%s, but %s is not set: Slurm's power saving, which sched/libra powers nodes down and up through, does not run",
			 fix, heuristic, key);
	else if (prog[0] != '/')
		_finding(R_POWER, w,
			 "%s=%s is not an absolute path: slurmctld disables power saving",
			 "give the script's absolute path", key, prog);
	else if (access(prog, X_OK) || stat(prog, &st))
		_finding(R_POWER, w,
			 "%s=%s cannot be run (%s): slurmctld disables power saving, and no node is powered %s",
			 "install the script on the controller, executable (chmod 0755)",
			 key, prog, strerror(errno), to);
	else if (st.st_mode & 022)
		_finding(R_POWER, w,
			 "%s=%s is writable by group or others: slurmctld disables power saving",
			 "chmod go-w it", key, prog);
}

/* A SuspendTime that is set (Slurm: NONE, INFINITE and negative numbers
 * are not). */
static bool _suspend_time_set(const char *v, long *secs)
{
	char *end;
	long n;

	if (!v || !strcasecmp(v, "NONE") || !strcasecmp(v, "INFINITE"))
		return false;
	n = strtol(v, &end, 10);
	if (end == v || n < 0)
		return false;
	*secs = n;
	return true;
}

/* A timeout (ResumeTimeout, SuspendTimeout) shorter than what the plan
 * counts on, at one place it is set. */
static void _check_power_timeout(const char *where, const char *key,
				 const char *val, long dflt, double want,
				 const char *pkey, const char *what,
				 const char *why)
{
	long v = val ? strtol(val, NULL, 10) : dflt;
	char fix[256];

	if (v >= want)
		return;
	snprintf(fix, sizeof(fix), "set %s=%.0f or more (or, if the nodes %s faster, lower %s to that time)",
		 key, want, what, pkey);
	_finding(R_POWER_TIMING, where,
		 "%s=%ld%s is shorter than %s=%.0f: %s",
		 fix, key, v, val ? "" : " (Slurm's default)", pkey, want, why);
}

/*
 * libra_power: sched/libra powers nodes down and up through Slurm's own
 * power saving (POWER_DOWN / POWER_UP, then SuspendProgram and
 * ResumeProgram), which slurmctld runs only with both programs valid and
 * a SuspendTime set, globally or on a partition (Slurm 22.05-26.05).
 */
/*
 * libra_price_disk (decision 17): scratch disk is held and priced only on
 * nodes whose TmpDisk slurm.conf gives (Slurm's default is 0: not
 * tracked).
 */
static void _check_disk_price(const conf_t *c, const char *where,
			      const libra_params_t *p)
{
	if (!(p->price_disk > 0.0))
		return;
	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];
		const char *v;

		if (!strcasecmp(cl->pairs[0].key, "NodeName") &&
		    (v = _line_get(cl, "TmpDisk")) && strtoul(v, NULL, 10) > 0)
			return;
	}
	_finding(R_DISK_PRICE, where,
		 "libra_price_disk=%g, but no NodeName line sets TmpDisk: scratch disk (--tmp) is neither held nor priced on any node",
		 "set TmpDisk=MB on the NodeName lines (what TmpFS holds on each node), or remove libra_price_disk",
		 p->price_disk);
}

/*
 * libra_power_warm (decision 24): a pool needs a plan that powers nodes
 * down (h1, h2, h3, h5), and one of every node of slurm.conf (or more)
 * leaves none to power down.
 */
static void _check_power_warm(const conf_t *c, const char *where,
			      const libra_params_t *p)
{
	names_t nodes = { 0 };

	if (!(p->power_warm > 0.0))
		return;
	if (p->power == LIBRA_POWER_NONE || p->power == LIBRA_POWER_STATIC) {
		_finding(R_POWER_WARM, where,
			 "libra_power_warm=%.0f with libra_power=%s: the pool acts only where the plan powers nodes down, so it changes nothing",
			 "set libra_power=h1, h2, h3 or h5 (sched_libra(8), POWER PROVISIONING), or remove libra_power_warm",
			 p->power_warm, libra_power_name(p->power));
		return;
	}
	_conf_nodes(c, &nodes);
	if (nodes.n && p->power_warm >= nodes.n)
		_finding(R_POWER_WARM, where,
			 "libra_power_warm=%.0f keeps every one of the %d nodes of slurm.conf powered: libra_power=%s powers none down",
			 "set libra_power_warm below the node count (a few nodes, as many as jobs arriving at once need), or libra_power=static",
			 p->power_warm, nodes.n, libra_power_name(p->power));
	_names_free(&nodes);
}

static void _check_power(const conf_t *c, const char *file)
{
	static const char *const why_resume =
		"Slurm marks a node DOWN that has not booted within ResumeTimeout, and sched/libra plans for boots that long";
	static const char *const why_suspend =
		"Slurm takes a node for powered down after SuspendTimeout and may resume it while it still shuts down";
	const char *pw = file, *params = _get(c, "SchedulerParameters", &pw);
	const char *ws = file, *st = _get(c, "SuspendTime", &ws);
	const char *wr = file, *rt = _get(c, "ResumeTimeout", &wr);
	const char *wt = file, *tt = _get(c, "SuspendTimeout", &wt);
	const char *name;
	bool enabled, global_rt = false, global_tt = false;
	long secs = 0, shortest = -1;
	const char *shortest_at = NULL;
	int parts = 0;
	libra_params_t p;

	_power_params(params, &p);
	_check_power_warm(c, pw, &p);
	_check_disk_price(c, pw, &p);
	if (p.power == LIBRA_POWER_NONE)
		return;
	name = libra_power_name(p.power);
	_check_power_program(c, file, "SuspendProgram", "off", name);
	_check_power_program(c, file, "ResumeProgram", "on", name);

	enabled = _suspend_time_set(st, &secs);
	if (enabled) {
		shortest = secs;
		shortest_at = ws;
	}
	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];
		const char *v;
		bool real;

		if (strcasecmp(cl->pairs[0].key, "PartitionName"))
			continue;
		real = strcasecmp(cl->pairs[0].val, "DEFAULT");
		parts += real;
		if (_suspend_time_set(_line_get(cl, "SuspendTime"), &secs)) {
			enabled = true;
			if (shortest < 0 || secs < shortest) {
				shortest = secs;
				shortest_at = cl->where;
			}
		}
		if ((v = _line_get(cl, "ResumeTimeout")))
			_check_power_timeout(cl->where, "ResumeTimeout", v, 60,
					     p.power_boot, "libra_power_boot",
					     "boot", why_resume);
		else if (real)
			global_rt = true;
		if ((v = _line_get(cl, "SuspendTimeout")))
			_check_power_timeout(cl->where, "SuspendTimeout", v, 30,
					     p.power_shutdown,
					     "libra_power_shutdown",
					     "shut down", why_suspend);
		else if (real)
			global_tt = true;
	}
	if (!enabled)
		_finding(R_POWER, ws,
			 "libra_power=%s, but SuspendTime is %s: slurmctld runs no power saving without it, and nodes are never powered down",
			 "set SuspendTime=31536000 (a year: large, so that Slurm's own idle timer never acts before sched/libra's plan)",
			 name, st ? st : "not set (INFINITE)");
	else if (shortest < 86400)
		_finding(R_POWER_TIMING, shortest_at,
			 "SuspendTime=%ld: Slurm's own idle timer powers down nodes idle that long, which sched/libra's plan may keep powered (for work booked on them, or because powering them down and up again costs more)",
			 "set SuspendTime=31536000 (a year), so that only sched/libra's plan powers nodes down",
			 shortest);
	/* the global values hold where a partition does not set its own */
	if (global_rt || !parts)
		_check_power_timeout(wr, "ResumeTimeout", rt, 60, p.power_boot,
				     "libra_power_boot", "boot", why_resume);
	if (global_tt || !parts)
		_check_power_timeout(wt, "SuspendTimeout", tt, 30,
				     p.power_shutdown, "libra_power_shutdown",
				     "shut down", why_suspend);
}

/*
 * Has user the access "want" (R_OK, W_OK, X_OK or'ed) to path?  By its
 * mode bits, of the owner, the group or the others as the user is (root
 * may do anything); true when the user or the file is unknown, which is
 * not these rules' to say.
 */
static bool _access_by(const char *user, const char *path, int want)
{
	struct passwd *pw = getpwnam(user);
	gid_t groups[256];
	int ngroups = 256, shift = 0;
	struct stat st;

	if (!pw || stat(path, &st))
		return true;
	if (pw->pw_uid == 0)
		return true;
	if (st.st_uid == pw->pw_uid) {
		shift = 6;
	} else {
		if (getgrouplist(user, pw->pw_gid, groups, &ngroups) < 0)
			ngroups = 0;
		for (int i = 0; i < ngroups; i++)
			if (groups[i] == st.st_gid)
				shift = 3;
		if (st.st_gid == pw->pw_gid)
			shift = 3;
	}
	/* R_OK, W_OK, X_OK are 4, 2, 1, as r, w, x in each class */
	return (((st.st_mode >> shift) & 7) & want) == want;
}

/* libra_tariff=/path: slurmctld reads it as SlurmUser, at every start and
 * reconfigure.  (A tariff that does not parse is found with the other
 * parameters, in _check_scheduler().) */
static void _check_tariff(const conf_t *c, const char *file)
{
	const char *pw = file, *params = _get(c, "SchedulerParameters", &pw);
	const char *user = _get(c, "SlurmUser", NULL);
	libra_params_t p;
	char err[512];

	libra_params_default(&p);
	if (!params || libra_params_parse(&p, params, err, sizeof(err)) ||
	    !p.tariff.path[0])
		return;
	if (!user)
		user = "root";	/* Slurm's default */
	if (!_access_by(user, p.tariff.path, R_OK))
		_finding(R_TARIFF, pw,
			 "libra_tariff=%s cannot be read by SlurmUser=%s: slurmctld refuses the parameters at its next start or reconfigure",
			 "make the file readable by SlurmUser (chmod 0644, or chown it to SlurmUser)",
			 p.tariff.path, user);
}

/* libra_metrics_file=/dir/file (decision 44): slurmctld writes file.new in
 * dir and renames it, as SlurmUser, after its passes. */
static void _check_metrics_file(const conf_t *c, const char *file)
{
	const char *pw = file, *params = _get(c, "SchedulerParameters", &pw);
	const char *user = _get(c, "SlurmUser", NULL);
	libra_params_t p;
	char err[512], dir[LIBRA_PATH_LEN], *slash;
	struct stat st;

	libra_params_default(&p);
	if (!params || libra_params_parse(&p, params, err, sizeof(err)) ||
	    !p.metrics_file[0])
		return;
	if (!user)
		user = "root";	/* Slurm's default */
	snprintf(dir, sizeof(dir), "%s", p.metrics_file);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';	/* "/file": the root directory */
	else
		*slash = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		_finding(R_METRICS, pw,
			 "libra_metrics_file=%s: its directory %s does not exist: sched/libra logs that it cannot write the metrics",
			 "create the directory (node_exporter's --collector.textfile.directory), writable by SlurmUser",
			 p.metrics_file, dir);
	else if (!_access_by(user, dir, W_OK | X_OK))
		_finding(R_METRICS, pw,
			 "libra_metrics_file=%s: SlurmUser=%s cannot write its directory %s (the file is written there as %s.new and renamed)",
			 "let SlurmUser write the directory (chown, chgrp with g+w, or a directory of its own that node_exporter reads)",
			 p.metrics_file, user, dir, p.metrics_file);
}

/* The value of "key" in SchedulerParameters (malloc()ed), or NULL: items
 * split as the core splits them (libra_hostlist_next()). */
static char *_node_map_spec(const char *params, const char *key)
{
	char *buf, *item, *save = NULL, *v = NULL;
	size_t n = strlen(key);

	if (!params)
		return NULL;
	buf = _xrealloc(NULL, strlen(params) + 1);
	strcpy(buf, params);
	for (item = libra_hostlist_next(buf, &save); item && !v;
	     item = libra_hostlist_next(NULL, &save)) {
		while (*item == ' ')
			item++;
		if (!strncmp(item, key, n) && item[n] == '=')
			v = strcpy(_xrealloc(NULL, strlen(item + n + 1) + 1),
				   item + n + 1);
	}
	free(buf);
	return v;
}

/*
 * libra_node_speed (design.md decision 43): slurmctld expands each
 * hostlist with Slurm's own code, and logs an error for one it cannot
 * expand (its nodes stay at speed 1) or that names a node it does not
 * have (its known nodes are set).  Nodes made with "scontrol create"
 * (MaxNodeCount set) are not in slurm.conf: names are then not looked up.
 * The value is checked by the core's parser (libra_params_set()); its
 * entries, "HOSTLIST:SPEED" with ';' between them, are then read here.
 */
static void _check_node_map(const conf_t *c, const char *file, size_t m)
{
	const char *pw = file, *params = _get(c, "SchedulerParameters", &pw);
	const char *key = node_maps[m].key;
	char *spec = _node_map_spec(params, key), *entry, *save = NULL;
	bool dynamic = _get(c, "MaxNodeCount", NULL) != NULL;
	names_t known = { 0 };
	libra_params_t p;
	char err[512];

	if (!spec)
		return;
	libra_params_default(&p);
	if (libra_params_set(&p, key, spec, err, sizeof(err))) {
		if (!node_maps[m].reported)
			_finding(R_NODE_SPEED, pw, "SchedulerParameters: %s",
				 node_maps[m].fix, err);
		free(spec);
		return;
	}
	_conf_nodes(c, &known);
	for (entry = strtok_r(spec, ";", &save); entry;
	     entry = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(entry, ':'), some[256] = "";
		names_t ns = { 0 };
		int unknown = 0, rc;
		size_t used = 0;

		if (!colon)
			continue;	/* "none" */
		*colon = '\0';
		if ((rc = _hostlist_expand(entry, &ns)) == -2) {
			_finding(R_NODE_SPEED, pw,
				 "%s: '%s' names more than %d nodes, more than libra-check expands (and than any cluster has)",
				 "name only nodes of slurm.conf's NodeName lines",
				 key, entry, HOSTLIST_MAX);
			_names_free(&ns);
			continue;
		}
		if (rc) {
			_finding(R_NODE_SPEED, pw,
				 "%s: '%s' is not a hostlist Slurm expands: slurmctld logs an error and leaves its nodes at 1",
				 "write names, and numeric ranges in brackets, lowest first (n[1-4,7], n[01-16], rack[1-2]n[1-8])",
				 key, entry);
			_names_free(&ns);
			continue;
		}
		for (int i = 0; !dynamic && i < ns.n; i++) {
			if (known.n && bsearch(&ns.v[i], known.v,
					       (size_t) known.n,
					       sizeof(*known.v), _cmp_name))
				continue;
			if (unknown++ < 4 && used < sizeof(some))
				used += (size_t) snprintf(some + used,
							  sizeof(some) - used,
							  "%s%s",
							  used ? ", " : "",
							  ns.v[i]);
		}
		if (unknown)
			_finding(R_NODE_SPEED, pw,
				 "%s: '%s' names %d node%s slurm.conf does not have (%s%s): slurmctld logs an error, and only the nodes it has get the value",
				 "name only nodes of slurm.conf's NodeName lines, as they are written there (n01 is not n1), or add the missing nodes",
				 key, entry, unknown, unknown == 1 ? "" : "s",
				 some, unknown > 4 ? ", ..." : "");
		_names_free(&ns);
	}
	free(spec);
	_names_free(&known);
}

/*
 * Does a PreemptMode value stop jobs (CANCEL, REQUEUE, SUSPEND; old
 * releases' CHECKPOINT)?  OFF, GANG, WITHIN and PRIORITY alone do not.
 */
static bool _preempt_stops(const char *mode)
{
	static const char *const stops[] = {
		"CANCEL", "REQUEUE", "SUSPEND", "CHECKPOINT", NULL
	};

	for (int i = 0; mode && stops[i]; i++)
		if (_has_item(mode, stops[i]))
			return true;
	return false;
}

/* A partition's PriorityTier (Slurm: PriorityTier, else the older
 * Priority, else 1). */
static long _priority_tier(const conf_line_t *cl, const conf_line_t *dflt)
{
	const char *v = _line_get(cl, "PriorityTier");

	if (!v)
		v = _line_get(cl, "Priority");
	if (!v && dflt && !(v = _line_get(dflt, "PriorityTier")))
		v = _line_get(dflt, "Priority");
	return v ? strtol(v, NULL, 10) : 1;
}

/*
 * Preemption and gang scheduling (design.md decision 30): an admitted
 * job that Slurm preempts is cancelled, requeued or suspended while its
 * deadline runs, and sched/libra has no say in it: Slurm's preempt
 * plugins consult partitions (partition_prio: PriorityTier and the
 * preemptee partition's PreemptMode) or QOS (preempt/qos: Preempt lists),
 * and no per-job flag a plugin could set.  So SLA jobs run only where the
 * site's configuration leaves them unpreemptable (job_submit/qos refuses
 * them elsewhere); a preemptable tier below is for jobs without an SLA,
 * which Slurm preempts for admitted jobs above (decision 41): a warning
 * that says so.  Gang scheduling (PreemptMode=GANG,
 * global only) time-slices jobs that share CPUs, which admitted jobs do
 * (OverSubscribe=YES:N, --oversubscribe): it would suspend them in turns.
 */
static void _check_preempt(const conf_t *c, const char *file)
{
	const char *wt = file, *type = _get(c, "PreemptType", &wt);
	const char *wm = file, *mode = _get(c, "PreemptMode", &wm);
	const conf_line_t *dflt = NULL;
	long top = 0;
	int nparts = 0;

	if (_has_item(mode, "GANG"))
		_finding(R_GANG, wm,
			 "PreemptMode=%s: Slurm's gang scheduler time-slices jobs that share CPUs, as admitted jobs do, suspending them in turns while their deadlines run",
			 "remove GANG from PreemptMode (sched/libra time-shares admitted jobs by their CPU shares instead)",
			 mode);
	/* preemption is off unless a plugin is named and the mode stops jobs
	 * (Slurm: PreemptMode=OFF, the default, disables it) */
	if (!type || !strcasecmp(type, "preempt/none") ||
	    !_preempt_stops(mode))
		return;
	if (!strcasecmp(type, "preempt/qos")) {
		_finding(R_PREEMPT_QOS, wt,
			 "PreemptType=preempt/qos with PreemptMode=%s: a job whose QOS another QOS lists in Preempt is preempted however its SLA stands, and libra-check cannot read the QOS (slurmdbd)",
			 "make sure no QOS lists the QOS that SLA jobs run in (sacctmgr show qos format=name,preempt,preemptmode), or set PreemptType=preempt/none",
			 mode);
		return;
	}
	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];

		if (strcasecmp(cl->pairs[0].key, "PartitionName"))
			continue;
		if (!strcasecmp(cl->pairs[0].val, "DEFAULT")) {
			dflt = cl;
			continue;
		}
		if (!nparts++ || _priority_tier(cl, dflt) > top)
			top = _priority_tier(cl, dflt);
	}
	dflt = NULL;
	for (int i = 0; i < c->nlines; i++) {
		const conf_line_t *cl = &c->lines[i];
		const char *pm;

		if (strcasecmp(cl->pairs[0].key, "PartitionName"))
			continue;
		if (!strcasecmp(cl->pairs[0].val, "DEFAULT")) {
			dflt = cl;
			continue;
		}
		if (!(pm = _line_get(cl, "PreemptMode")) &&
		    !(dflt && (pm = _line_get(dflt, "PreemptMode"))))
			pm = mode;
		if (!_preempt_stops(pm) || _priority_tier(cl, dflt) >= top)
			continue;
		_finding(R_PREEMPT, cl->where,
			 "partition %s (PriorityTier %ld) can be preempted by a partition of PriorityTier %ld (%s, PreemptMode=%s): job_submit/qos refuses SLA jobs there (an admitted job would be stopped while its deadline runs); its jobs without an SLA are preempted for SLA jobs of a higher tier, whose admission counts their CPUs free after GraceTime and KillWait (design.md decision 41)",
			 "nothing, if SLA jobs are to run in a higher tier; else set PreemptMode=OFF on the partition (its jobs are then never preempted), or PreemptType=preempt/none",
			 cl->pairs[0].val, _priority_tier(cl, dflt), top,
			 type, pm);
	}
}

/* --running: what slurmctld runs, against the file. */
/*
 * Each job's SLA (its Comment), its price, budget and settlement (its
 * AdminComment, the record) are visible to every user unless PrivateData
 * hides other users' jobs (design.md decision 37); slurmdbd.conf has a
 * PrivateData of its own, for sacct, which this check cannot see.
 */
static void _check_private(const conf_t *c, const char *file)
{
	const char *w = file, *v = _get(c, "PrivateData", &w);

	if (v && _has_item(v, "jobs"))
		return;
	_finding(R_PRIVATE, w,
		 "PrivateData%s%s has no jobs: every user sees every other user's SLA (Comment), budget, price and settlement (AdminComment) in squeue, scontrol and sacct",
		 "add jobs to PrivateData in slurm.conf, and to PrivateData in slurmdbd.conf for sacct",
		 v ? "=" : "", v ? v : "");
}

static void _check_running(const conf_t *c, const char *file)
{
	static const char *const keys[] = {
		"SchedulerType", "SchedulerParameters", "JobSubmitPlugins",
		"JobCompType", NULL
	};
	FILE *p = popen("scontrol show config 2>&1", "r");
	char *line = NULL, running[4][1024] = { "", "", "", "" };
	size_t len = 0;
	bool any = false;
	int rc;

	if (!p) {
		_finding(R_RUNNING, "scontrol", "cannot run scontrol: %s",
			 "check that Slurm's client commands are installed",
			 strerror(errno));
		return;
	}
	while (getline(&line, &len, p) >= 0) {
		for (int k = 0; keys[k]; k++) {
			size_t n = strlen(keys[k]);
			char *v;

			if (strncmp(line, keys[k], n) || line[n] != ' ')
				continue;
			if (!(v = strchr(line, '=')))
				continue;
			v++;
			while (*v == ' ')
				v++;
			v[strcspn(v, "\n")] = '\0';
			snprintf(running[k], sizeof(running[k]), "%s", v);
			any = true;
		}
	}
	free(line);
	rc = pclose(p);
	if (rc || !any) {
		_finding(R_RUNNING, "scontrol show config",
			 "slurmctld did not answer (exit status %d)",
			 "start slurmctld, or run without --running", rc);
		return;
	}
	for (int k = 0; keys[k]; k++) {
		const char *want = _get(c, keys[k], NULL);

		if (!want)
			want = "(null)";
		if (!strcmp(running[k], "(null)") && !strcmp(want, "(null)"))
			continue;
		if (strcasecmp(running[k], want))
			_finding(R_RUNNING, "scontrol show config",
				 "slurmctld runs %s=%s, %s says %s",
				 "restart slurmctld (SchedulerType) or run scontrol reconfigure",
				 keys[k], running[k], file, want);
	}
}

/* -------------------------------------------------------------- main */

static void _usage(FILE *to)
{
	fprintf(to,
		"usage: libra-check [-f SLURM_CONF] [-p PLUGSTACK_CONF] [--running] [--quiet] [--list]\n"
		"  -f, --conf FILE       slurm.conf (default: $SLURM_CONF, else /etc/slurm/slurm.conf)\n"
		"  -p, --plugstack FILE  plugstack.conf (default: PlugStackConfig, else beside slurm.conf)\n"
		"  -g, --cgroup FILE     cgroup.conf (default: beside slurm.conf)\n"
		"  -r, --running         also compare with what slurmctld runs (scontrol show config)\n"
		"  -q, --quiet           print errors only\n"
		"  -l, --list            list the rules and exit\n"
		"Exit status: 0 no error, 1 errors found, 2 unreadable file or bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'f' },
		{ "plugstack", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "running", no_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *file = getenv("SLURM_CONF"), *plugstack = NULL;
	const char *cgroup = NULL;
	char dir[4096], ps[4200], cgp[4200];
	bool running = false;
	conf_t c = { 0 };
	int o;

	if (!file || !*file)
		file = "/etc/slurm/slurm.conf";
	while ((o = getopt_long(argc, argv, "f:p:g:rqlh", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			file = optarg;
			break;
		case 'p':
			plugstack = optarg;
			break;
		case 'g':
			cgroup = optarg;
			break;
		case 'r':
			running = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'l':
			for (int i = 0; i < R_COUNT; i++)
				printf("%-15s %-7s %s\n", rules[i].name,
				       rules[i].sev == SEV_ERROR ? "ERROR" :
				       "WARNING", rules[i].what);
			return 0;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "libra-check: unexpected argument '%s'\n",
			argv[optind]);
		_usage(stderr);
		return 2;
	}
	_dirname(file, dir, sizeof(dir));
	if (_read_conf(&c, file, dir, 0))
		return 2;
	if (!plugstack) {
		const char *v = _get(&c, "PlugStackConfig", NULL);

		if (v)
			plugstack = v;
		else {
			snprintf(ps, sizeof(ps), "%s/plugstack.conf", dir);
			plugstack = ps;
		}
	}

	_check_scheduler(&c, file);
	_check_plugins_named(&c, file);
	_check_partitions(&c, file);
	_check_select(&c, file);
	_check_plugin_files(&c, file);
	_check_plugstack(plugstack, _plugin_dirs(&c, NULL));
	if (!cgroup) {
		snprintf(cgp, sizeof(cgp), "%s/cgroup.conf", dir);
		cgroup = cgp;
	}
	_check_cgroup(&c, file, cgroup);
	_check_power(&c, file);
	_check_tariff(&c, file);
	_check_metrics_file(&c, file);
	for (size_t m = 0; m < NODE_MAPS; m++)
		_check_node_map(&c, file, m);
	_check_preempt(&c, file);
	_check_private(&c, file);
	if (running)
		_check_running(&c, file);

	printf("libra-check: %s: %d error%s, %d warning%s\n",
	       nerrors ? "FAILED" : "OK", nerrors, nerrors == 1 ? "" : "s",
	       nwarnings, nwarnings == 1 ? "" : "s");
	_free_conf(&c);
	return nerrors ? 1 : 0;
}
