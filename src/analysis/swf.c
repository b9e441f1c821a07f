/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  swf.c - reader for the Standard Workload Format (gzip or plain).
 *
 *  The Parallel Workloads Archive's format (Feitelson et al.): one job per
 *  line, 18 whitespace-separated numeric fields, -1 for "unknown"; header
 *  lines start with ';' and some carry "Key: value" pairs, of which we keep
 *  MaxProcs and MaxNodes (the leading integer: "MaxNodes: 338 (batch
 *  partition; 512 total)" is 338).
 *
 *  zlib's gzopen()/gzgets() read gzip and plain files alike, so the caller
 *  never needs to know which it has.  The reader is strict: a data line
 *  with other than 18 fields, a field that is not a finite number, a line
 *  too long for the buffer, or a damaged gzip stream is an error naming
 *  file:line, and nothing is returned (the output is left empty).  Blank
 *  lines and lines of only whitespace are ignored.
 *
 *  Integer fields (processors, status, user, ...) are read as numbers and
 *  rounded: some archive logs write them as "32.00".
\*****************************************************************************/

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "swf.h"

#define SWF_FIELDS	18
#define SWF_LINE_MAX	4096

/* Largest value an int field may take (processors, ids, status). */
#define SWF_INT_MAX	2147483647.0

static int _grow(libra_swf_t *swf, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : 4096;
	libra_swf_job_t *n;

	if (ncap > ((size_t) -1) / sizeof(*n))
		return -1;
	n = realloc(swf->jobs, ncap * sizeof(*n));
	if (!n)
		return -1;
	swf->jobs = n;
	*cap = ncap;
	return 0;
}

/* "; MaxProcs: 338 ..." -> 338 in *val; leaves *val alone otherwise. */
static void _parse_header(const char *line, const char *key, int *val)
{
	const char *p = line + 1;	/* skip ';' */
	size_t klen = strlen(key);
	long v;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, key, klen) != 0 || p[klen] != ':')
		return;
	p += klen + 1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (end == p || errno || v <= 0 || v > SWF_INT_MAX)
		return;
	*val = (int) v;
}

static int _to_int(double v)
{
	if (v > SWF_INT_MAX)
		return (int) SWF_INT_MAX;
	if (v < -SWF_INT_MAX)
		return (int) -SWF_INT_MAX;
	return (int) lround(v);
}

static long _to_long(double v)
{
	if (v > 9.0e18)
		return 9000000000000000000L;
	if (v < -9.0e18)
		return -9000000000000000000L;
	return lround(v);
}

/* Parse one data line into j; returns the number of fields on error
 * (!= SWF_FIELDS), -1 for a bad number (field index in *bad). */
static int _parse_job(char *line, libra_swf_job_t *j, int *bad)
{
	double f[SWF_FIELDS];
	int n = 0;
	char *p = line, *end;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (n == SWF_FIELDS)
			return n + 1;
		f[n] = strtod(p, &end);
		if (end == p || !isfinite(f[n]) ||
		    (*end && *end != ' ' && *end != '\t' && *end != '\r' &&
		     *end != '\n')) {
			*bad = n + 1;
			return -1;
		}
		n++;
		p = end;
	}
	if (n != SWF_FIELDS)
		return n;

	j->id = _to_long(f[0]);
	j->submit = f[1];
	j->wait = f[2];
	j->run = f[3];
	j->procs = _to_int(f[4]);
	j->avg_cpu = f[5];
	j->used_mem = f[6];
	j->req_procs = _to_int(f[7]);
	j->req_time = f[8];
	j->req_mem = f[9];
	j->status = _to_int(f[10]);
	j->user = _to_int(f[11]);
	j->group = _to_int(f[12]);
	j->app = _to_int(f[13]);
	j->queue = _to_int(f[14]);
	j->partition = _to_int(f[15]);
	j->preceding = _to_long(f[16]);
	j->think = f[17];
	return SWF_FIELDS;
}

/* zlib prefixes its messages with the path; we print the path ourselves. */
static const char *_zmsg(const char *path, const char *msg)
{
	size_t n = strlen(path);

	if (!msg || !*msg)
		return "read error";
	if (strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

static int _blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
			return 0;
	return 1;
}

extern int libra_swf_read(const char *path, libra_swf_t *swf, char *err,
			  size_t errlen)
{
	char line[SWF_LINE_MAX];
	libra_swf_t out = { 0 };
	size_t cap = 0;
	unsigned long lineno = 0;
	gzFile gz;
	int zerr;
	const char *zmsg;

	memset(swf, 0, sizeof(*swf));
	if (!path || !*path) {
		snprintf(err, errlen, "no trace file given");
		return -1;
	}
	errno = 0;
	gz = gzopen(path, "rb");
	if (!gz) {
		snprintf(err, errlen, "%s: %s", path,
			 errno ? strerror(errno) : "cannot open");
		return -1;
	}
	gzbuffer(gz, 256 * 1024);

	while (gzgets(gz, line, sizeof(line))) {
		size_t len = strlen(line);
		char *p = line;
		int bad = 0, n;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' &&
		    !gzeof(gz)) {
			snprintf(err, errlen, "%s:%lu: line longer than %d bytes",
				 path, lineno, SWF_LINE_MAX - 2);
			goto fail;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ';') {
			_parse_header(p, "MaxProcs", &out.max_procs);
			_parse_header(p, "MaxNodes", &out.max_nodes);
			continue;
		}
		if (_blank(p))
			continue;
		if (line[len - 1] != '\n') {
			/* The last line: a damaged stream ends mid-line, and
			 * zlib reports it on the next read. */
			(void) gzgetc(gz);
			zmsg = gzerror(gz, &zerr);
			if (zerr != Z_OK && zerr != Z_STREAM_END) {
				snprintf(err, errlen, "%s:%lu: %s", path,
					 lineno, zerr == Z_ERRNO ?
					 strerror(errno) : _zmsg(path, zmsg));
				goto fail;
			}
		}
		if (out.njobs == cap && _grow(&out, &cap)) {
			snprintf(err, errlen, "%s:%lu: out of memory", path,
				 lineno);
			goto fail;
		}
		n = _parse_job(p, &out.jobs[out.njobs], &bad);
		if (n < 0) {
			snprintf(err, errlen,
				 "%s:%lu: field %d is not a number", path,
				 lineno, bad);
			goto fail;
		}
		if (n != SWF_FIELDS) {
			snprintf(err, errlen,
				 "%s:%lu: expected %d fields, found %s%d",
				 path, lineno, SWF_FIELDS,
				 n > SWF_FIELDS ? "more than " : "",
				 n > SWF_FIELDS ? SWF_FIELDS : n);
			goto fail;
		}
		out.njobs++;
	}
	zmsg = gzerror(gz, &zerr);
	if (zerr != Z_OK && zerr != Z_STREAM_END) {
		snprintf(err, errlen, "%s:%lu: %s", path, lineno + 1,
			 zerr == Z_ERRNO ? strerror(errno) :
			 _zmsg(path, zmsg));
		goto fail;
	}
	gzclose(gz);
	*swf = out;
	return 0;

fail:
	gzclose(gz);
	free(out.jobs);
	return -1;
}

extern void libra_swf_free(libra_swf_t *swf)
{
	if (!swf)
		return;
	free(swf->jobs);
	memset(swf, 0, sizeof(*swf));
}
