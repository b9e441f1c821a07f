/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  when.c - times as sacct reads and prints them (see report.h).
 *
 *  rpt_parse_time() follows Slurm 22.05's parse_time() (src/common/
 *  parse_time.c) with "past" set, as sacct calls it for -S and -E, so that
 *  a window means the same to libra-report as to the sacct it runs: the
 *  parsed time is handed to sacct in one unambiguous form.
\*****************************************************************************/

#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "report.h"

static int _fail(char *err, size_t len, const char *s, size_t pos,
		 const char *why)
{
	if (err && len)
		snprintf(err, len, "invalid time '%s' (at character %zu: %s); "
			 "use YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], HH:MM[:SS], "
			 "today, now-2days, ... (see sacct(1) -S)",
			 s, pos + 1, why);
	return -1;
}

static const struct {
	const char *name;
	long mult;
} units[] = {
	{ "seconds", 1 }, { "second", 1 },
	{ "minutes", 60 }, { "minute", 60 },
	{ "hours", 3600 }, { "hour", 3600 },
	{ "days", 86400 }, { "day", 86400 },
	{ "weeks", 604800 }, { "week", 604800 },
};

/* "[+-]count[unit]" after "now"; *p at the sign. */
static int _delta(const char *s, size_t *p, long *delta)
{
	size_t i = *p + 1;
	long cnt = 0;
	int digits = 0;

	for (; s[i]; i++) {
		size_t u;

		if (isspace((unsigned char) s[i]))
			continue;
		if (isdigit((unsigned char) s[i])) {
			if (cnt > (LONG_MAX - 9) / 10 / 604800)
				return -1;
			cnt = cnt * 10 + (s[i] - '0');
			digits++;
			continue;
		}
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
			size_t n = strlen(units[u].name);

			if (!strncasecmp(s + i, units[u].name, n)) {
				cnt *= units[u].mult;
				i += n;
				break;
			}
		}
		if (u == sizeof(units) / sizeof(units[0]))
			return -1;
		break;
	}
	if (!digits)
		return -1;
	*p = i;
	*delta = cnt;
	return 0;
}

static int _two(const char *s, size_t *p, int *v)
{
	if (!isdigit((unsigned char) s[*p]))
		return -1;
	*v = s[(*p)++] - '0';
	if (isdigit((unsigned char) s[*p]))
		*v = *v * 10 + (s[(*p)++] - '0');
	return 0;
}

/* Exactly two digits, 00 to 59 (minutes, seconds). */
static int _sixty(const char *s, size_t *p, int *v)
{
	if (!isdigit((unsigned char) s[*p]) ||
	    !isdigit((unsigned char) s[*p + 1]))
		return -1;
	*v = (s[*p] - '0') * 10 + (s[*p + 1] - '0');
	*p += 2;
	return *v > 59 ? -1 : 0;
}

/* HH:MM[:SS] [AM|PM] */
static int _clock(const char *s, size_t *p, int *h, int *m, int *sec)
{
	size_t i = *p;

	if (_two(s, &i, h) || *h > 23 || s[i] != ':')
		return -1;
	i++;
	if (_sixty(s, &i, m))
		return -1;
	*sec = 0;
	if (s[i] == ':') {
		i++;
		if (_sixty(s, &i, sec))
			return -1;
	}
	while (isspace((unsigned char) s[i]))
		i++;
	if (!strncasecmp(s + i, "pm", 2)) {
		if (*h > 12)
			return -1;
		if (*h < 12)
			*h += 12;
		i += 2;
	} else if (!strncasecmp(s + i, "am", 2)) {
		if (*h > 12)
			return -1;
		if (*h == 12)
			*h = 0;
		i += 2;
	}
	*p = i;
	return 0;
}

/* YYYY-MM-DD, or MMDD[YY], MM/DD[/YY], MM.DD[.YY]; year -1 if absent */
static int _date(const char *s, size_t *p, int *mon, int *day, int *year)
{
	size_t i = *p;

	if (strlen(s + i) >= 8 && s[i + 4] == '-' && s[i + 7] == '-') {
		int y = 0;

		for (int k = 0; k < 4; k++, i++) {
			if (!isdigit((unsigned char) s[i]))
				return -1;
			y = y * 10 + (s[i] - '0');
		}
		i++;
		if (_two(s, &i, mon) || *mon < 1 || *mon > 12 || s[i] != '-')
			return -1;
		i++;
		if (_two(s, &i, day) || *day < 1 || *day > 31)
			return -1;
		*year = y;
		*p = i;
		return 0;
	}
	if (_two(s, &i, mon) || *mon < 1 || *mon > 12)
		return -1;
	if (s[i] == '.' || s[i] == '/')
		i++;
	if (_two(s, &i, day) || *day < 1 || *day > 31)
		return -1;
	if (s[i] == '.' || s[i] == '/')
		i++;
	*year = -1;
	if (isdigit((unsigned char) s[i])) {
		if (!isdigit((unsigned char) s[i + 1]))
			return -1;
		*year = 2000 + (s[i] - '0') * 10 + (s[i + 1] - '0');
		i += 2;
	}
	*p = i;
	return 0;
}

/* What a -S/-E string has named so far; hour, mon, day and year are -1
 * until named (a date without a year leaves year -1). */
struct when {
	int hour, minute, second;
	int mon, day, year;
};

static void _date_of(struct when *w, const struct tm *tm)
{
	w->mon = tm->tm_mon + 1;
	w->day = tm->tm_mday;
	w->year = tm->tm_year + 1900;
}

/* "uts" and seconds since the epoch (Slurm's own spelling of them) */
static int _uts(const char *s, time_t *out, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s + 3, &end, 10);
	if (errno || end == s + 3 || *end || v < 1000000)
		return _fail(err, errlen, s, 3,
			     "uts needs seconds since the epoch");
	*out = (time_t) v;
	return 0;
}

/* "now" and an optional "[+-]count[unit]"; *p just after "now".  Names
 * the date and the time of day. */
static int _now(const char *s, size_t *p, time_t now, struct when *w,
		char *err, size_t errlen)
{
	long delta = 0;
	time_t later;
	struct tm tl;

	while (isblank((unsigned char) s[*p]))
		(*p)++;
	if (s[*p] == '+' || s[*p] == '-') {
		bool minus = s[*p] == '-';

		if (_delta(s, p, &delta))
			return _fail(err, errlen, s, *p,
				     "expected a count and a unit (seconds, minutes, hours, days, weeks)");
		if (minus)
			delta = -delta;
	} else if (s[*p]) {
		return _fail(err, errlen, s, *p, "expected + or - after now");
	}
	later = now + delta;
	localtime_r(&later, &tl);
	_date_of(w, &tl);
	w->hour = tl.tm_hour;
	w->minute = tl.tm_min;
	w->second = tl.tm_sec;
	return 0;
}

/* Times of day by name, as parse_time() knows them */
static const struct {
	const char *name;
	int hour;
} named_hours[] = {
	{ "midnight", 0 }, { "noon", 12 }, { "fika", 15 }, { "teatime", 16 },
};

/* The word at *p (a date, a time of day or one of their names), into *w;
 * *p past it.  tn is now in local time. */
static int _word(const char *s, size_t *p, time_t now, const struct tm *tn,
		 struct when *w, char *err, size_t errlen)
{
	const char *c = s + *p;

	if (!strncasecmp(c, "today", 5)) {
		_date_of(w, tn);
		*p += 5;
		return 0;
	}
	if (!strncasecmp(c, "tomorrow", 8)) {
		time_t later = now + 86400;
		struct tm tl;

		localtime_r(&later, &tl);
		_date_of(w, &tl);
		*p += 8;
		return 0;
	}
	for (size_t k = 0; k < sizeof(named_hours) / sizeof(named_hours[0]);
	     k++) {
		size_t n = strlen(named_hours[k].name);

		if (!strncasecmp(c, named_hours[k].name, n)) {
			w->hour = named_hours[k].hour;
			w->minute = w->second = 0;
			*p += n;
			return 0;
		}
	}
	if (!strncasecmp(c, "now", 3)) {
		*p += 3;
		return _now(s, p, now, w, err, errlen);
	}
	if (!isdigit((unsigned char) *c))
		return _fail(err, errlen, s, *p, "unexpected character");
	/* H:MM or HH:MM is a time of day, any other digits a date */
	if (c[1] == ':' || (c[1] && c[2] == ':')) {
		if (_clock(s, p, &w->hour, &w->minute, &w->second))
			return _fail(err, errlen, s, *p, "bad time of day");
	} else if (_date(s, p, &w->mon, &w->day, &w->year)) {
		return _fail(err, errlen, s, *p, "bad date");
	}
	return 0;
}

/* The instant *w names: a date alone is its 00:00, a time alone is
 * today's, a date without a year is the latest such date not ahead of
 * now (tn, in local time). */
static int _instant(const char *s, struct when *w, const struct tm *tn,
		    time_t *out, char *err, size_t errlen)
{
	struct tm tm;
	time_t t;

	if (w->hour == -1 && w->mon == -1)
		return _fail(err, errlen, s, 0, "no date or time");
	if (w->hour == -1)
		w->hour = w->minute = w->second = 0;
	else if (w->mon == -1)
		_date_of(w, tn);
	if (w->year == -1)
		w->year = tn->tm_year + 1900 -
			  (w->mon - 1 > tn->tm_mon ? 1 : 0);

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = w->year - 1900;
	tm.tm_mon = w->mon - 1;
	tm.tm_mday = w->day;
	tm.tm_hour = w->hour;
	tm.tm_min = w->minute;
	tm.tm_sec = w->second;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t) -1)
		return _fail(err, errlen, s, 0, "not a representable time");
	*out = t;
	return 0;
}

extern int rpt_parse_time(const char *s, time_t now, time_t *out,
			  char *err, size_t errlen)
{
	struct when w = { .hour = -1, .mon = -1, .day = -1, .year = -1 };
	struct tm tn;
	size_t p = 0;

	if (!s || !*s)
		return _fail(err, errlen, s ? s : "", 0, "empty");
	if (!strncasecmp(s, "uts", 3))
		return _uts(s, out, err, errlen);
	localtime_r(&now, &tn);
	while (s[p]) {
		char c = s[p];

		/* separators: "2027-01-15T08:00", "01/15 8:00am" */
		if (isblank((unsigned char) c) || c == '-' || c == 'T') {
			p++;
			continue;
		}
		if (_word(s, &p, now, &tn, &w, err, errlen))
			return -1;
	}
	return _instant(s, &w, &tn, out, err, errlen);
}

extern char *rpt_format_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long) t);
	return buf;
}

extern int rpt_parse_sacct_time(const char *s, double *out)
{
	struct tm tm;
	const char *end;
	time_t t;

	*out = 0.0;
	if (!s || !*s || !strcmp(s, "Unknown") || !strcmp(s, "None"))
		return 0;
	if (isdigit((unsigned char) s[0]) && !strchr(s, '-')) {
		char *e;
		double v;

		errno = 0;
		v = strtod(s, &e);
		if (errno || *e || v < 0)
			return -1;
		*out = v;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t) -1)
		return -1;
	*out = (double) t;
	return 0;
}
