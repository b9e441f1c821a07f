/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  record_check - are these job records (or refusal-log lines) well formed?
 *
 *  usage: record_check [--refusals] [--final] [--label-sep C] [FILE]
 *
 *  Reads one item per line (FILE, or standard input).  A line is
 *  "LABEL<sep>JSON" (sep '|' by default, as sacct -P and our own dumps
 *  write it) or just the JSON.  Each JSON text is decoded with the policy
 *  core's own strict decoder (libra_record_from_json(), or
 *  libra_refusal_from_json() with --refusals), encoded again, decoded again
 *  and encoded again: the two encodings must be the same text, so what the
 *  plugins wrote is exactly what they will read back.  Records are also
 *  checked for sense: finite numbers, a deadline after the submission, a
 *  placement for every admitted job with an SLA, and (--final) a
 *  settlement.  Empty JSON fields are counted as "none" and are an error
 *  only with --final.
 *
 *  Prints one line per bad item ("LABEL: why") and a summary
 *  "checked N, good G, bad B, none E"; exit status 0 when none is bad.
\*****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

static int want_final, refusals;

static int _bad(const char *label, const char *why, const char *text)
{
	printf("%s: %s: %.300s\n", label, why, text);
	return 1;
}

static int _check_record(const char *label, const char *text)
{
	libra_record_t r, r2;
	char err[256], *a, *b;
	int bad = 0;

	if (libra_record_from_json(text, &r, err, sizeof(err)))
		return _bad(label, err, text);
	if (!(a = libra_record_to_json(&r))) {
		libra_record_free(&r);
		return _bad(label, "cannot encode it again", text);
	}
	if (libra_record_from_json(a, &r2, err, sizeof(err))) {
		bad = _bad(label, "its re-encoding does not decode", a);
	} else {
		b = libra_record_to_json(&r2);
		if (!b || strcmp(a, b))
			bad = _bad(label, "encode/decode is not stable", a);
		free(b);
		libra_record_free(&r2);
	}
	free(a);
	if (!bad && !r.best_effort) {
		if (!isfinite(r.sla.runtime) || !(r.sla.runtime > 0) ||
		    !isfinite(r.sla.deadline) ||
		    !(r.sla.deadline > r.sla.submit))
			bad = _bad(label, "SLA out of range", text);
		else if (r.nplace < 1)
			bad = _bad(label, "admitted without a placement", text);
		else if (!isfinite(r.price) || r.price < 0)
			bad = _bad(label, "price not a finite non-negative number",
				   text);
	}
	for (int i = 0; !bad && i < r.nplace; i++)
		if (!r.place[i].node[0] || r.place[i].cpus < 1)
			bad = _bad(label, "empty node or no CPU in a placement",
				   text);
	if (!bad && r.settled &&
	    (!isfinite(r.final.charge) || !isfinite(r.final.penalty) ||
	     r.final.penalty < 0 || !isfinite(r.final.delay) ||
	     r.final.delay < 0))
		bad = _bad(label, "settlement out of range", text);
	if (!bad && want_final && !r.settled)
		bad = _bad(label, "not settled (no \"final\")", text);
	libra_record_free(&r);
	return bad;
}

static int _check_refusal(const char *label, const char *text)
{
	libra_refusal_t r, r2;
	char err[256], *a, *b;
	int bad = 0;

	if (libra_refusal_from_json(text, &r, err, sizeof(err)))
		return _bad(label, err, text);
	if (strncmp(r.reason, "libra: rejected:", 16))
		return _bad(label, "reason is not a \"libra: rejected:\" line",
			    text);
	if (!(a = libra_refusal_to_json(&r)))
		return _bad(label, "cannot encode it again", text);
	if (libra_refusal_from_json(a, &r2, err, sizeof(err))) {
		bad = _bad(label, "its re-encoding does not decode", a);
	} else {
		b = libra_refusal_to_json(&r2);
		if (!b || strcmp(a, b))
			bad = _bad(label, "encode/decode is not stable", a);
		free(b);
	}
	free(a);
	return bad;
}

int main(int argc, char **argv)
{
	FILE *in = stdin;
	char *line = NULL, sep = '|', label[64];
	size_t cap = 0;
	ssize_t len;
	long n = 0, nbad = 0, none = 0, lineno = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--final"))
			want_final = 1;
		else if (!strcmp(argv[i], "--refusals"))
			refusals = 1;
		else if (!strcmp(argv[i], "--label-sep") && i + 1 < argc)
			sep = argv[++i][0];
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: record_check [--refusals] [--final] [--label-sep C] [FILE]\n");
			return 2;
		} else if (!(in = fopen(argv[i], "r"))) {
			perror(argv[i]);
			return 2;
		}
	}
	while ((len = getline(&line, &cap, in)) >= 0) {
		char *json = line, *cut;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		snprintf(label, sizeof(label), "line %ld", lineno);
		if (line[0] != '{' && (cut = strchr(line, sep))) {
			*cut = '\0';
			snprintf(label, sizeof(label), "%.60s", line);
			json = cut + 1;
		}
		n++;
		if (!*json) {
			none++;
			if (want_final) {
				nbad++;
				printf("%s: no record\n", label);
			}
			continue;
		}
		nbad += refusals ? _check_refusal(label, json) :
				   _check_record(label, json);
	}
	free(line);
	printf("checked %ld, good %ld, bad %ld, none %ld\n", n, n - nbad - none +
	       (want_final ? none : 0), nbad, none);
	return nbad ? 1 : 0;
}
