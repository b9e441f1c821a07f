/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  input.c - what libra-report reads: sacct's parsable and JSON output,
 *  squeue's JSON output and job_submit/qos's refusal log (see report.h).
\*****************************************************************************/

#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"

/* ------------------------------------------------------------ util */

extern void *rpt_xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

extern void *rpt_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return q;
}

extern char *rpt_xstrdup(const char *s)
{
	return rpt_xstrndup(s ? s : "", strlen(s ? s : ""));
}

extern char *rpt_xstrndup(const char *s, size_t n)
{
	char *p = rpt_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

extern char *rpt_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return s;
}

static void _err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void _err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

extern const char *rpt_kind_name(rpt_kind_t k)
{
	switch (k) {
	case KIND_SLA:		return "sla";
	case KIND_BEST_EFFORT:	return "best-effort";
	case KIND_OTHER:	return "other";
	case KIND_UNREADABLE:	return "unreadable";
	case KIND_REFUSED:	return "refused";
	}
	return "?";
}

/* ------------------------------------------------------------ jobs */

extern rpt_job_t *rpt_jobs_add(rpt_jobs_t *jobs)
{
	if (jobs->n == jobs->cap) {
		jobs->cap = jobs->cap ? 2 * jobs->cap : 64;
		jobs->v = rpt_xrealloc(jobs->v, jobs->cap * sizeof(*jobs->v));
	}
	memset(&jobs->v[jobs->n], 0, sizeof(jobs->v[0]));
	return &jobs->v[jobs->n++];
}

static size_t _hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char) *s++) * 1099511628211ull;
	return (size_t) h;
}

/* Put row i into the index (a row whose id is already there: kept). */
static void _index_row(rpt_jobs_t *jobs, size_t i)
{
	size_t m = jobs->hcap - 1, k = _hash(jobs->v[i].id) & m;

	while (jobs->hash[k]) {
		if (!strcmp(jobs->v[jobs->hash[k] - 1].id, jobs->v[i].id))
			return;
		k = (k + 1) & m;
	}
	jobs->hash[k] = i + 1;
}

/* Rows get their id after rpt_jobs_add(); index them when asked. */
extern rpt_job_t *rpt_jobs_find(rpt_jobs_t *jobs, const char *id)
{
	size_t m, k;

	if (2 * jobs->n >= jobs->hcap) {
		free(jobs->hash);
		jobs->hcap = 1024;
		while (jobs->hcap <= 2 * jobs->n)
			jobs->hcap *= 2;
		jobs->hash = rpt_xmalloc(jobs->hcap * sizeof(*jobs->hash));
		jobs->indexed = 0;
	}
	for (; jobs->indexed < jobs->n; jobs->indexed++)
		if (jobs->v[jobs->indexed].id)
			_index_row(jobs, jobs->indexed);
	m = jobs->hcap - 1;
	for (k = _hash(id) & m; jobs->hash[k]; k = (k + 1) & m)
		if (!strcmp(jobs->v[jobs->hash[k] - 1].id, id))
			return &jobs->v[jobs->hash[k] - 1];
	return NULL;
}

static void _job_clear(rpt_job_t *j)
{
	free(j->id);
	free(j->account);
	free(j->user);
	free(j->state);
	free(j->admin_comment);
	free(j->where);
	libra_record_free(&j->rec);
	memset(j, 0, sizeof(*j));
}

extern void rpt_jobs_free(rpt_jobs_t *jobs)
{
	for (size_t i = 0; i < jobs->n; i++)
		_job_clear(&jobs->v[i]);
	free(jobs->v);
	free(jobs->hash);
	memset(jobs, 0, sizeof(*jobs));
}

/* Does the AdminComment claim to be a Libra record? */
static bool _is_record(const char *s)
{
	while (s && isspace((unsigned char) *s))
		s++;
	return s && *s == '{' && strstr(s, "\"libra\"");
}

extern void rpt_classify(rpt_job_t *j)
{
	libra_record_free(&j->rec);
	j->err[0] = '\0';
	if (!j->admin_comment || !_is_record(j->admin_comment)) {
		j->kind = KIND_OTHER;
		return;
	}
	if (libra_record_from_json(j->admin_comment, &j->rec, j->err,
				   sizeof(j->err))) {
		j->kind = KIND_UNREADABLE;
		if (strstr(j->err, "truncated"))
			strncat(j->err, " (cut short: AdminComment%65535 in "
				"sacct's -o, and -P)",
				sizeof(j->err) - strlen(j->err) - 1);
		return;
	}
	j->kind = j->rec.best_effort ? KIND_BEST_EFFORT : KIND_SLA;
}

extern char *rpt_slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 131072;
			buf = rpt_xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;

		if (f != stdin)
			fclose(f);
		free(buf);
		errno = e ? e : EIO;
		return NULL;
	}
	if (f != stdin)
		fclose(f);
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		free(buf);
		errno = EILSEQ;		/* binary, not text */
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}

/* Replace an earlier row of the same job (sacct lists a job once with -X;
 * a file may hold two, e.g. two outputs concatenated). */
static rpt_job_t *_new_row(rpt_jobs_t *jobs, const char *id, int verbose,
			   const char *where)
{
	rpt_job_t *j = rpt_jobs_find(jobs, id);

	if (j) {
		if (verbose)
			fprintf(stderr, PROG ": %s: job %s listed again; "
				"the later row counts (was %s)\n", where, id,
				j->where);
		_job_clear(j);
		return j;
	}
	return rpt_jobs_add(jobs);
}

/* ------------------------------------------------------------ sacct -P */

#define NFIELDS 8
static const char *const sacct_fields[NFIELDS] = {
	"JobID", "Account", "User", "State", "Submit", "Start", "End",
	"AdminComment"
};

/* Split the first NFIELDS-1 '|'; the rest of the line is AdminComment. */
static int _split(char *line, char *f[NFIELDS])
{
	char *p = line;

	for (int i = 0; i < NFIELDS - 1; i++) {
		char *bar = strchr(p, '|');

		if (!bar)
			return i + 1;
		*bar = '\0';
		f[i] = p;
		p = bar + 1;
	}
	f[NFIELDS - 1] = p;
	return NFIELDS;
}

static int _read_parsable(char *text, const char *name, rpt_jobs_t *jobs,
			  int verbose, char *err, size_t errlen)
{
	char *line, *next, *orig;
	rpt_job_t *last = NULL;
	long lineno = 0;

	for (line = text; line; line = next) {
		char *f[NFIELDS] = { 0 }, *where;
		size_t len;
		int nf;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!len)
			continue;
		orig = rpt_xstrdup(line);
		nf = _split(line, f);
		if (nf < NFIELDS) {
			if (last) {
				/* a newline inside an AdminComment */
				char *ac = rpt_xasprintf("%s\n%s",
					last->admin_comment ?
					last->admin_comment : "", orig);

				free(orig);
				free(last->admin_comment);
				last->admin_comment = ac;
				fprintf(stderr, PROG ": %s:%ld: warning: not %d "
					"fields; taken as more of job %s's "
					"AdminComment (a newline in it?)\n",
					name, lineno, NFIELDS, last->id);
				continue;
			}
			free(orig);
			_err(err, errlen, "%s:%ld: expected %d fields separated "
			     "by '|' (sacct -X -P -o JobID,Account,User,State,"
			     "Submit,Start,End,AdminComment%%65535), found %d",
			     name, lineno, NFIELDS, nf);
			return -1;
		}
		free(orig);
		if (!strcasecmp(f[0], "JobID")) {	/* the header line */
			for (int i = 0; i < NFIELDS; i++)
				if (strcasecmp(f[i], sacct_fields[i])) {
					_err(err, errlen, "%s:%ld: column %d is "
					     "'%s', expected '%s' (order: "
					     "JobID|Account|User|State|Submit|"
					     "Start|End|AdminComment)", name,
					     lineno, i + 1, f[i],
					     sacct_fields[i]);
					return -1;
				}
			continue;
		}
		if (!isdigit((unsigned char) f[0][0])) {
			_err(err, errlen, "%s:%ld: '%.40s' is not a job id "
			     "(is this sacct -P output with the fields "
			     "JobID|Account|User|State|Submit|Start|End|"
			     "AdminComment?)", name, lineno, f[0]);
			return -1;
		}
		if (strchr(f[0], '.')) {	/* a step: sacct without -X */
			if (verbose > 1)
				fprintf(stderr, PROG ": %s:%ld: step %s "
					"skipped\n", name, lineno, f[0]);
			last = NULL;
			continue;
		}
		where = rpt_xasprintf("%s:%ld", name, lineno);
		last = _new_row(jobs, f[0], verbose, where);
		last->where = where;
		last->id = rpt_xstrdup(f[0]);
		last->account = rpt_xstrdup(f[1]);
		last->user = rpt_xstrdup(f[2]);
		last->state = rpt_xstrndup(f[3], strcspn(f[3], " "));
		last->admin_comment = rpt_xstrdup(f[7]);
		if (rpt_parse_sacct_time(f[4], &last->submit) ||
		    rpt_parse_sacct_time(f[5], &last->start) ||
		    rpt_parse_sacct_time(f[6], &last->end)) {
			_err(err, errlen, "%s:%ld: job %s: Submit/Start/End "
			     "'%s'/'%s'/'%s' are not times as sacct prints "
			     "them (YYYY-MM-DDTHH:MM:SS; SLURM_TIME_FORMAT "
			     "must be unset or 'standard')", name, lineno,
			     f[0], f[4], f[5], f[6]);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ JSON */

static json_object *_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o && json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, key, &v);
	return v;
}

/* A number, or newer Slurm's {"set":true,"infinite":false,"number":N};
 * anything else (null, unset) is *ok = false. */
static double _num(json_object *v, bool *ok)
{
	json_object *set;

	*ok = false;
	if (!v)
		return 0.0;
	if (json_object_is_type(v, json_type_object)) {
		set = _get(v, "set");
		if (set && !json_object_get_boolean(set))
			return 0.0;
		v = _get(v, "number");
		if (!v)
			return 0.0;
	}
	if (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)) {
		*ok = true;
		return json_object_get_double(v);
	}
	return 0.0;
}

static double _num0(json_object *v)
{
	bool ok;
	double x = _num(v, &ok);

	return ok ? x : 0.0;
}

static const char *_str(json_object *v)
{
	if (v && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

/* state.current: "COMPLETED" (22.05) or ["COMPLETED"] (23.02 on). */
static char *_state(json_object *v)
{
	if (v && json_object_is_type(v, json_type_array)) {
		char *s = NULL;

		for (size_t i = 0; i < json_object_array_length(v); i++) {
			const char *e = _str(json_object_array_get_idx(v, i));
			char *t;

			if (!e)
				continue;
			t = s ? rpt_xasprintf("%s,%s", s, e) : rpt_xstrdup(e);
			free(s);
			s = t;
		}
		return s ? s : rpt_xstrdup("");
	}
	return rpt_xstrdup(_str(v) ? _str(v) : "");
}

/* sacct --json gives a pending array's tasks as a hex bitmap ("0x6"):
 * write them as sacct -P does ("1-2"). */
static char *_bitmap_ranges(const char *hex)
{
	size_t n = strlen(hex), cap = 64, len = 0;
	char *out = rpt_xmalloc(cap);
	long bit = 0, run_start = -1;

	if (n < 3 || strncasecmp(hex, "0x", 2))
		return rpt_xstrdup(hex);
	/* from the last hex digit (bits 0-3) to the first */
	for (size_t i = n; i > 2 || run_start >= 0; ) {
		int v = 0;

		if (i > 2) {
			char c = hex[--i];

			v = isdigit((unsigned char) c) ? c - '0' :
			    (tolower((unsigned char) c) - 'a' + 10);
			if (v < 0 || v > 15) {
				free(out);
				return rpt_xstrdup(hex);
			}
		}
		for (int b = 0; b < 4; b++, bit++) {
			bool on = (v >> b) & 1;

			if (on && run_start < 0)
				run_start = bit;
			if (!on && run_start >= 0) {
				char tmp[48];
				int k = run_start == bit - 1 ?
					snprintf(tmp, sizeof(tmp), "%s%ld",
						 len ? "," : "", run_start) :
					snprintf(tmp, sizeof(tmp), "%s%ld-%ld",
						 len ? "," : "", run_start,
						 bit - 1);

				if (len + k + 1 > cap)
					out = rpt_xrealloc(out, cap = 2 * cap + k);
				memcpy(out + len, tmp, k + 1);
				len += k;
				run_start = -1;
			}
		}
		if (i <= 2 && run_start < 0)
			break;
	}
	return out;
}

#define NO_VAL_U32 4294967294.0

/* The JobID as sacct -P prints it. */
static char *_job_id(double job_id, double arr_job, json_object *arr_task,
		     const char *arr_tasks, double het_job,
		     json_object *het_off)
{
	bool ok;
	double t = _num(arr_task, &ok);

	if (arr_job > 0 && ok && t < NO_VAL_U32)
		return rpt_xasprintf("%.0f_%.0f", arr_job, t);
	if (arr_job > 0 && arr_tasks && *arr_tasks) {
		char *r = _bitmap_ranges(arr_tasks);
		char *s = rpt_xasprintf("%.0f_[%s]", arr_job, r);

		free(r);
		return s;
	}
	t = _num(het_off, &ok);
	if (het_job > 0 && ok && t < NO_VAL_U32)
		return rpt_xasprintf("%.0f+%.0f", het_job, t);
	return rpt_xasprintf("%.0f", job_id);
}

static json_object *_parse_json(const char *text, const char *name,
				char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(128);
	size_t len = strlen(text);
	json_object *o;

	if (!tok) {
		_err(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int) len);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);
		size_t at = json_tokener_get_parse_end(tok), line = 1;

		for (size_t i = 0; i < at && i < len; i++)
			line += text[i] == '\n';
		_err(err, errlen, "%s:%zu: not valid JSON: %s", name, line,
		     e == json_tokener_continue ? "unexpected end of input" :
		     json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	return o;
}

/* The "errors" array of Slurm's JSON output, as one string. */
static char *_json_errors(json_object *root)
{
	json_object *errs = _get(root, "errors");
	char *s = NULL;

	if (!errs || !json_object_is_type(errs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(errs); i++) {
		json_object *e = json_object_array_get_idx(errs, i);
		const char *d = _str(_get(e, "description"));
		const char *f = _str(_get(e, "error"));
		char *t = rpt_xasprintf("%s%s%s", s ? s : "", s ? "; " : "",
					d ? d : f ? f :
					json_object_to_json_string(e));

		free(s);
		s = t;
	}
	return s;
}

static int _read_sacct_json(const char *text, const char *name,
			    rpt_jobs_t *jobs, int verbose, char *err,
			    size_t errlen)
{
	json_object *root = _parse_json(text, name, err, errlen), *arr;
	char *errors;

	if (!root)
		return -1;
	arr = _get(root, "jobs");
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		_err(err, errlen, "%s: no \"jobs\" array: not the output of "
		     "sacct --json", name);
		json_object_put(root);
		return -1;
	}
	if ((errors = _json_errors(root))) {
		fprintf(stderr, PROG ": %s: sacct reported: %s\n", name,
			errors);
		free(errors);
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		json_object *arrj = _get(o, "array"), *het = _get(o, "het");
		json_object *tm = _get(o, "time"), *cm = _get(o, "comment");
		char *id, *where = rpt_xasprintf("%s: jobs[%zu]", name, i);
		const char *ac;
		rpt_job_t *j;
		bool ok;
		double jid = _num(_get(o, "job_id"), &ok);

		if (!ok) {
			_err(err, errlen, "%s: no job_id: not the output of "
			     "sacct --json", where);
			free(where);
			json_object_put(root);
			return -1;
		}
		id = _job_id(jid, _num0(_get(arrj, "job_id")),
			     _get(arrj, "task_id"), _str(_get(arrj, "task")),
			     _num0(_get(het, "job_id")),
			     _get(het, "job_offset"));
		j = _new_row(jobs, id, verbose, where);
		j->id = id;
		j->where = where;
		j->account = rpt_xstrdup(_str(_get(o, "account")));
		j->user = rpt_xstrdup(_str(_get(o, "user")));
		j->state = _state(_get(_get(o, "state"), "current"));
		j->submit = _num0(_get(tm, "submission"));
		j->start = _num0(_get(tm, "start"));
		j->end = _num0(_get(tm, "end"));
		ac = _str(_get(cm, "administrator"));
		j->admin_comment = rpt_xstrdup(ac);
	}
	json_object_put(root);
	return 0;
}

extern int rpt_read_sacct(const char *text, const char *name,
			  rpt_jobs_t *jobs, int verbose, char *err,
			  size_t errlen)
{
	const char *p = text;
	char *copy;
	int rc;

	while (isspace((unsigned char) *p))
		p++;
	if (*p == '{')
		return _read_sacct_json(text, name, jobs, verbose, err,
					errlen);
	copy = rpt_xstrdup(text);
	rc = _read_parsable(copy, name, jobs, verbose, err, errlen);
	free(copy);
	return rc;
}

extern int rpt_read_squeue_json(const char *text, rpt_jobs_t *jobs,
				char *err, size_t errlen)
{
	json_object *root = _parse_json(text, "squeue --json", err, errlen);
	json_object *arr;

	if (!root)
		return -1;
	arr = _get(root, "jobs");
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		char *errors = _json_errors(root);

		_err(err, errlen, "squeue --json: no \"jobs\" array%s%s",
		     errors ? ": " : "", errors ? errors : "");
		free(errors);
		json_object_put(root);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		rpt_job_t *j = rpt_jobs_add(jobs);
		const char *user = _str(_get(o, "user_name"));

		j->id = _job_id(_num0(_get(o, "job_id")),
				_num0(_get(o, "array_job_id")),
				_get(o, "array_task_id"),
				_str(_get(o, "array_task_string")),
				_num0(_get(o, "het_job_id")),
				_get(o, "het_job_offset"));
		j->where = rpt_xstrdup("squeue");
		j->from_squeue = true;
		j->account = rpt_xstrdup(_str(_get(o, "account")));
		if (!user) {
			double uid = _num0(_get(o, "user_id"));

			j->user = rpt_xasprintf("%.0f", uid);
		} else {
			j->user = rpt_xstrdup(user);
		}
		j->state = _state(_get(o, "job_state"));
		j->submit = _num0(_get(o, "submit_time"));
		j->start = _num0(_get(o, "start_time"));
		j->end = _num0(_get(o, "end_time"));
		j->admin_comment = rpt_xstrdup(_str(_get(o,
							 "admin_comment")));
	}
	json_object_put(root);
	return 0;
}

/* ------------------------------------------------------------ refusals */

extern int rpt_read_refusals(const char *path, rpt_jobs_t *refusals,
			     long *bad, int verbose)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;

	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) >= 0) {
		libra_refusal_t r;
		char err[256];
		rpt_job_t *j;
		struct passwd *pw;

		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n)
			continue;
		if (strlen(line) != (size_t) n) {
			fprintf(stderr, PROG ": %s:%ld: a NUL byte: line "
				"skipped\n", path, lineno);
			(*bad)++;
			continue;
		}
		if (libra_refusal_from_json(line, &r, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s:%ld: %s: line skipped\n",
				path, lineno, err);
			(*bad)++;
			continue;
		}
		j = rpt_jobs_add(refusals);
		j->kind = KIND_REFUSED;
		j->refusal = r;
		j->id = rpt_xstrdup("-");
		j->account = rpt_xstrdup(r.account);
		pw = getpwuid(r.uid);
		j->user = pw ? rpt_xstrdup(pw->pw_name) :
			       rpt_xasprintf("%u", r.uid);
		j->state = rpt_xstrdup("REFUSED");
		j->submit = r.time;
		j->where = rpt_xasprintf("%s:%ld", path, lineno);
		if (verbose > 1)
			fprintf(stderr, PROG ": %s: refusal (%s) of %s\n",
				j->where, r.verdict, j->user);
	}
	free(line);
	if (ferror(f)) {
		int e = errno;

		if (f != stdin)
			fclose(f);
		errno = e ? e : EIO;
		return -1;
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

/* ------------------------------------------------------------ libra-sim */

/* The columns of libra-sim's --jobs-csv that the report reads; begin is
 * there only with --reserve-frac. */
enum { SC_ID, SC_SUBMIT, SC_RUNTIME, SC_BUDGET, SC_ACCEPTED, SC_START,
       SC_END, SC_CHARGE, SC_MET, SC_POLICY, SC_BEGIN, NSIM_COLS };

static const char *const sim_cols[NSIM_COLS] = {
	"id", "submit", "runtime", "budget", "accepted", "start", "end",
	"charge", "deadline_met", "policy", "begin"
};

/* Split a CSV line (libra-sim quotes nothing) in place; at most max. */
static int _csv_split(char *line, char **f, int max)
{
	int n = 0;

	for (;;) {
		char *c = strchr(line, ',');

		if (n == max)
			return max + 1;
		f[n++] = line;
		if (!c)
			return n;
		*c = '\0';
		line = c + 1;
	}
}

static bool _csv_num(const char *s, bool empty_ok, double *v)
{
	char *end;

	if (!*s) {
		*v = 0.0;
		return empty_ok;
	}
	errno = 0;
	*v = strtod(s, &end);
	return !*end && !errno && isfinite(*v);
}

/* One row of the CSV into a result, as libra-sim's sim_result() made it
 * (contrib/sim/outcome.c): a reservation waits from its begin. */
static int _sim_row(char **f, const int *col, rpt_sim_row_t *row,
		    const char **bad)
{
	libra_job_result_t *r = &row->r;
	double acc, met, begin = 0.0;

	*bad = NULL;
	memset(r, 0, sizeof(*r));
	if (!_csv_num(f[col[SC_ACCEPTED]], false, &acc) ||
	    (acc != 0.0 && acc != 1.0))
		*bad = "accepted";
	else if (!_csv_num(f[col[SC_SUBMIT]], false, &r->submit))
		*bad = "submit";
	else if (!_csv_num(f[col[SC_RUNTIME]], false, &r->runtime))
		*bad = "runtime";
	else if (!_csv_num(f[col[SC_BUDGET]], false, &r->budget))
		*bad = "budget";
	else if (!_csv_num(f[col[SC_START]], !acc, &r->start))
		*bad = "start";
	else if (!_csv_num(f[col[SC_END]], !acc, &r->end))
		*bad = "end";
	else if (!_csv_num(f[col[SC_CHARGE]], false, &r->charge))
		*bad = "charge";
	else if (!_csv_num(f[col[SC_MET]], false, &met) ||
		 (met != 0.0 && met != 1.0))
		*bad = "deadline_met";
	else if (col[SC_BEGIN] >= 0 &&
		 !_csv_num(f[col[SC_BEGIN]], true, &begin))
		*bad = "begin";
	else if (!*f[col[SC_POLICY]])
		*bad = "policy";
	if (*bad)
		return -1;
	r->accepted = acc == 1.0;
	r->deadline_met = r->accepted && met == 1.0;
	if (!r->accepted)
		r->charge = 0.0;
	if (begin > 0.0)
		r->submit = begin;
	row->id = rpt_xstrdup(f[col[SC_ID]]);
	row->policy = rpt_xstrdup(f[col[SC_POLICY]]);
	return 0;
}

/* The header: where each wanted column is (begin may be missing). */
static int _sim_header(char *line, int *col, int *ncols, char *err,
		       size_t errlen, const char *name)
{
	char *f[64];
	int n = _csv_split(line, f, 64);

	*ncols = n;
	for (int c = 0; c < NSIM_COLS; c++) {
		col[c] = -1;
		for (int i = 0; i < n && i < 64; i++)
			if (!strcmp(f[i], sim_cols[c]))
				col[c] = i;
		if (col[c] < 0 && c != SC_BEGIN) {
			_err(err, errlen, "%s:1: not libra-sim --jobs-csv "
			     "output: no column '%s'", name, sim_cols[c]);
			return -1;
		}
	}
	return 0;
}

extern int rpt_read_sim_csv(const char *path, rpt_sim_rows_t *rows,
			    char *err, size_t errlen)
{
	const char *name = strcmp(path, "-") ? path : "(stdin)";
	char *text = rpt_slurp(path, NULL), *line, *save = NULL;
	int col[NSIM_COLS], ncols = 0;
	long lineno = 0;

	memset(rows, 0, sizeof(*rows));
	if (!text) {
		_err(err, errlen, "cannot read %s: %s", name, strerror(errno));
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[64];
		const char *bad;
		rpt_sim_row_t row;

		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (lineno == 1) {
			if (_sim_header(line, col, &ncols, err, errlen, name))
				goto fail;
			continue;
		}
		if (_csv_split(line, f, 64) != ncols) {
			_err(err, errlen, "%s:%ld: %d columns expected", name,
			     lineno, ncols);
			goto fail;
		}
		if (_sim_row(f, col, &row, &bad)) {
			_err(err, errlen, "%s:%ld: bad %s", name, lineno, bad);
			goto fail;
		}
		if (rows->n == rows->cap) {
			rows->cap = rows->cap ? 2 * rows->cap : 256;
			rows->v = rpt_xrealloc(rows->v,
					       rows->cap * sizeof(*rows->v));
		}
		rows->v[rows->n++] = row;
	}
	if (!lineno) {
		_err(err, errlen, "%s: empty, not libra-sim --jobs-csv output",
		     name);
		goto fail;
	}
	free(text);
	return 0;
fail:
	free(text);
	rpt_sim_rows_free(rows);
	return -1;
}

extern void rpt_sim_rows_free(rpt_sim_rows_t *rows)
{
	for (size_t i = 0; i < rows->n; i++) {
		free(rows->v[i].id);
		free(rows->v[i].policy);
	}
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
