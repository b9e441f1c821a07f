/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  tariff.h - what one powered node costs, by time of day
 *  (doc/design.md decision 24).
 *
 *  Sung (2006, Eq. 4.1) charges every server in use the instantaneous
 *  cost c_t, the same for all servers, and the figure of merit is
 *  C = integral of c_t x p_t dt.  Sites pay electricity that is cheaper at
 *  night, so c_t here is a daily table: the rate (money per node-hour)
 *  that holds from each listed time of day until the next, the last one
 *  running on to the first of the next day.
 *
 *  Written in SchedulerParameters, whose separator is the comma, as
 *
 *	libra_tariff=00:00=0.6;07:00=1.0;23:00=0.6
 *
 *  or as the absolute path of a file with one "HH:MM RATE" per line
 *  ('#' starts a comment), read again at every "scontrol reconfigure":
 *
 *	libra_tariff=/etc/slurm/libra-tariff
 *
 *  Times are in the tariff's own day: a time t (seconds since the Epoch,
 *  or since a trace's start) is at second (t + offset) mod 86400 of it.
 *  The plugins and libra-replay set offset to the local time zone's UTC
 *  offset (libra_tariff_local_offset()) when they load the parameters (a
 *  change of daylight-saving time counts from the next reconfigure); the
 *  simulator sets it from the trace.
 *
 *  No tariff (n == 0) is a flat rate of 1 per node-hour: costs are then
 *  powered node-hours.
\*****************************************************************************/

#ifndef LIBRA_TARIFF_H
#define LIBRA_TARIFF_H

#include <stddef.h>

#define LIBRA_TARIFF_MAX 48	/* rates in one day (every half hour) */
#define LIBRA_TARIFF_PATH_MAX 256

typedef struct libra_tariff {
	int n;				/* rates listed; 0: flat 1 */
	int sod[LIBRA_TARIFF_MAX];	/* second of day each rate starts,
					 * strictly ascending */
	double rate[LIBRA_TARIFF_MAX];	/* per node-hour, >= 0 */
	long offset;			/* seconds added to a time to get
					 * the tariff's clock */
	char path[LIBRA_TARIFF_PATH_MAX]; /* the file read, or "" */
} libra_tariff_t;

/*
 * Parse spec: "HH:MM=RATE;HH:MM=RATE;..." (times strictly ascending,
 * 00:00-23:59; rates plain decimals >= 0; at least one), "" or "none"
 * (no tariff), or an absolute path of a file as above.  Returns 0, or -1
 * with "libra_tariff: why" in err (naming the entry or the file's line)
 * and *t unchanged.  offset is left as it was.
 */
extern int libra_tariff_parse(libra_tariff_t *t, const char *spec,
			      char *err, size_t errlen);

/* The spec again, in the first form (or the path, for a file). */
extern void libra_tariff_format(const libra_tariff_t *t, char *buf,
				size_t len);

/* The rate per node-hour in force at time t. */
extern double libra_tariff_rate(const libra_tariff_t *t, double when);

/* What one node powered over [from, to) costs: the integral of the rate,
 * per second (0 when to <= from). */
extern double libra_tariff_cost(const libra_tariff_t *t, double from,
				double to);

/* The mean rate over a day, per node-hour. */
extern double libra_tariff_mean(const libra_tariff_t *t);

/* The first time after "when" at which the rate changes (when + 86400 for
 * a flat tariff). */
extern double libra_tariff_next_change(const libra_tariff_t *t,
				       double when);

/* Seconds east of UTC of the local time zone now: the plugins' tariff
 * clock; 0 when the zone cannot be read. */
extern long libra_tariff_local_offset(void);

#endif /* LIBRA_TARIFF_H */
