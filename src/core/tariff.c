/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  tariff.c - what one powered node costs, by time of day (tariff.h).
\*****************************************************************************/

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "number.h"
#include "tariff.h"

#define DAY 86400.0

/* "HH:MM" into a second of day; -1 if not that. */
static int _parse_hhmm(const char *s, size_t len)
{
	int h, m;

	if (len != 5 || !isdigit((unsigned char) s[0]) ||
	    !isdigit((unsigned char) s[1]) || s[2] != ':' ||
	    !isdigit((unsigned char) s[3]) || !isdigit((unsigned char) s[4]))
		return -1;
	h = (s[0] - '0') * 10 + (s[1] - '0');
	m = (s[3] - '0') * 10 + (s[4] - '0');
	if (h > 23 || m > 59)
		return -1;
	return h * 3600 + m * 60;
}

/* One "HH:MM" and one rate, the entry named "where" for messages. */
static int _add(libra_tariff_t *t, const char *when, size_t wlen,
		const char *rate, const char *where, char *err,
		size_t errlen)
{
	static const libra_range_t r = { 0, 1e12, false, false };
	char what[96];
	double v;
	int sod = _parse_hhmm(when, wlen);

	if (sod < 0) {
		snprintf(err, errlen,
			 "libra_tariff: %s: '%.*s' is not a time of day HH:MM (00:00-23:59)",
			 where, (int) (wlen > 16 ? 16 : wlen), when);
		return -1;
	}
	if (t->n >= LIBRA_TARIFF_MAX) {
		snprintf(err, errlen,
			 "libra_tariff: %s: more than %d rates in a day",
			 where, LIBRA_TARIFF_MAX);
		return -1;
	}
	if (t->n && sod <= t->sod[t->n - 1]) {
		snprintf(err, errlen,
			 "libra_tariff: %s: %.5s is not after %02d:%02d (times must ascend)",
			 where, when, t->sod[t->n - 1] / 3600,
			 t->sod[t->n - 1] % 3600 / 60);
		return -1;
	}
	snprintf(what, sizeof(what), "libra_tariff: %s: rate", where);
	if (libra_parse_number(what, rate, &r, &v, err, errlen))
		return -1;
	t->sod[t->n] = sod;
	t->rate[t->n] = v;
	t->n++;
	return 0;
}

/* "HH:MM=RATE;..." into *t (which starts empty). */
static int _parse_inline(libra_tariff_t *t, const char *spec, char *err,
			 size_t errlen)
{
	const char *p = spec;

	while (*p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t) (end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		char entry[64], rate[64], where[80];

		if (len == 0 || len >= sizeof(entry)) {
			snprintf(err, errlen,
				 "libra_tariff: entry %d is %s (want HH:MM=RATE;HH:MM=RATE;...)",
				 t->n + 1, len ? "too long" : "empty");
			return -1;
		}
		memcpy(entry, p, len);
		entry[len] = '\0';
		snprintf(where, sizeof(where), "'%s'", entry);
		if (!eq) {
			snprintf(err, errlen,
				 "libra_tariff: %s: want HH:MM=RATE", where);
			return -1;
		}
		snprintf(rate, sizeof(rate), "%.*s",
			 (int) (len - (size_t) (eq - p) - 1), eq + 1);
		if (_add(t, p, (size_t) (eq - p), rate, where, err, errlen))
			return -1;
		p += len;
		if (*p == ';')
			p++;
	}
	return 0;
}

/* A file of "HH:MM RATE" lines into *t. */
static int _parse_file(libra_tariff_t *t, const char *path, char *err,
		       size_t errlen)
{
	FILE *f;
	char line[256];
	int lineno = 0, rc = 0;

	if (strlen(path) >= sizeof(t->path)) {
		snprintf(err, errlen, "libra_tariff: path longer than %zu bytes",
			 sizeof(t->path) - 1);
		return -1;
	}
	if (!(f = fopen(path, "r"))) {
		snprintf(err, errlen, "libra_tariff: cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		char *s = line, *hash, *w, *r, *extra, where[300];

		lineno++;
		snprintf(where, sizeof(where), "%s line %d", path, lineno);
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "libra_tariff: %s: line too long",
				 where);
			rc = -1;
			break;
		}
		if ((hash = strchr(s, '#')))
			*hash = '\0';
		w = strtok(s, " \t\r\n");
		if (!w)
			continue;
		r = strtok(NULL, " \t\r\n");
		extra = strtok(NULL, " \t\r\n");
		if (!r || extra) {
			snprintf(err, errlen,
				 "libra_tariff: %s: want 'HH:MM RATE'", where);
			rc = -1;
			break;
		}
		rc = _add(t, w, strlen(w), r, where, err, errlen);
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "libra_tariff: error reading %s", path);
		rc = -1;
	}
	fclose(f);
	if (!rc && !t->n) {
		snprintf(err, errlen, "libra_tariff: %s lists no rate", path);
		rc = -1;
	}
	if (!rc)
		snprintf(t->path, sizeof(t->path), "%s", path);
	return rc;
}

extern int libra_tariff_parse(libra_tariff_t *t, const char *spec,
			      char *err, size_t errlen)
{
	libra_tariff_t n;

	memset(&n, 0, sizeof(n));
	n.offset = t->offset;
	if (!spec || !*spec || !strcmp(spec, "none")) {
		*t = n;
		return 0;
	}
	if (spec[0] == '/') {
		if (_parse_file(&n, spec, err, errlen))
			return -1;
	} else if (_parse_inline(&n, spec, err, errlen)) {
		return -1;
	}
	*t = n;
	return 0;
}

extern void libra_tariff_format(const libra_tariff_t *t, char *buf,
				size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (t->path[0]) {
		snprintf(buf, len, "%s", t->path);
		return;
	}
	if (!t->n) {
		snprintf(buf, len, "none");
		return;
	}
	for (int i = 0; i < t->n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%02d:%02d=%g",
				 i ? ";" : "", t->sod[i] / 3600,
				 t->sod[i] % 3600 / 60, t->rate[i]);
		if (w < 0)
			break;
		used += (size_t) w;
	}
}

/* Second of the tariff's day at time "when". */
static double _sod(const libra_tariff_t *t, double when)
{
	double s = fmod(when + (double) t->offset, DAY);

	return s < 0 ? s + DAY : s;
}

/* Index of the rate in force at second of day s. */
static int _index(const libra_tariff_t *t, double s)
{
	int i = t->n - 1;	/* before the first listed time: the last */

	for (int k = 0; k < t->n; k++) {
		if (t->sod[k] <= s)
			i = k;
		else
			break;
	}
	return i;
}

extern double libra_tariff_rate(const libra_tariff_t *t, double when)
{
	if (!t->n)
		return 1.0;
	return t->rate[_index(t, _sod(t, when))];
}

extern double libra_tariff_next_change(const libra_tariff_t *t,
				       double when)
{
	double at = when;

	if (!t->n)
		return when + DAY;
	/* boundary by boundary, past listed times that keep the rate */
	for (int i = 0; i < t->n; i++) {
		double s = _sod(t, at), best = DAY;

		for (int k = 0; k < t->n; k++) {
			double d = t->sod[k] - s;

			if (d <= 0)
				d += DAY;
			if (d < best)
				best = d;
		}
		at += best;
		if (libra_tariff_rate(t, at) != libra_tariff_rate(t, when))
			return at;
	}
	return when + DAY;	/* one rate all day */
}

/* Cost of one whole day, per node. */
static double _day_cost(const libra_tariff_t *t)
{
	double c = 0;

	if (!t->n)
		return DAY / 3600.0;
	for (int k = 0; k < t->n; k++) {
		int next = (k + 1 < t->n) ? t->sod[k + 1] : (int) DAY + t->sod[0];
		c += t->rate[k] * (next - t->sod[k]) / 3600.0;
	}
	return c;
}

extern double libra_tariff_cost(const libra_tariff_t *t, double from,
				double to)
{
	double c = 0, days;

	if (!(to > from))
		return 0;
	if (!t->n)
		return (to - from) / 3600.0;
	/* whole days at once, then piece by piece */
	days = floor((to - from) / DAY);
	if (days >= 1) {
		c += days * _day_cost(t);
		from += days * DAY;
	}
	while (from < to) {
		double next = libra_tariff_next_change(t, from);
		double end = next < to ? next : to;

		c += libra_tariff_rate(t, from) * (end - from) / 3600.0;
		from = end;
	}
	return c;
}

extern double libra_tariff_mean(const libra_tariff_t *t)
{
	return _day_cost(t) / 24.0;
}

extern long libra_tariff_local_offset(void)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm))
		return 0;
	return tm.tm_gmtoff;
}
