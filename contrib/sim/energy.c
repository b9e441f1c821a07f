/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  energy.c - libra-sim's power provisioning (energy.h; --power,
 *  design.md decision 24, after Sung 2006).
 *
 *  A node is ON, BOOTING, STOPPING or OFF.  It is billed, as in Sung's
 *  Eq. 4.1, from the start of its boot to the end of its shutdown: the
 *  tariff's integral (libra_tariff_cost()) over every stretch it is not
 *  OFF, cut at the run's span.  Only ON nodes run work; a node booked for
 *  work while it is OFF, STOPPING or BOOTING must be ON by the booking's
 *  begin, so it boots at the latest at begin - boot (its "wake"), earlier
 *  if the controller's decision point deploys it.
\*****************************************************************************/

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "alloc.h"
#include "energy.h"

#define DAY 86400L

/* ---- the tariff's clock ------------------------------------------------- */

/* "; Key: value" -> value (trimmed) in buf; false when the line is not it */
static bool _header(const char *line, const char *key, char *buf,
		    size_t len)
{
	const char *p = line + 1;
	size_t klen = strlen(key), n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, key, klen) || p[klen] != ':')
		return false;
	p += klen + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, "\r\n");
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

/* The zone's offset east of UTC [s] at Unix time t, if the C library has
 * the zone's rules (a name it does not know would silently be UTC). */
static bool _zone_offset(const char *zone, time_t t, long *off)
{
	const char *dir = getenv("TZDIR");
	char path[512], *old = getenv("TZ"), *save = NULL;
	struct tm tm;
	bool ok;

	if (!*zone || zone[0] == '/' || strstr(zone, ".."))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir :
		 "/usr/share/zoneinfo", zone);
	if (access(path, R_OK))
		return false;
	if (old) {
		save = sim_xmalloc(strlen(old) + 1);
		strcpy(save, old);
	}
	setenv("TZ", zone, 1);
	tzset();
	ok = localtime_r(&t, &tm) != NULL;
	if (ok)
		*off = tm.tm_gmtoff;
	if (save) {
		setenv("TZ", save, 1);
		free(save);
	} else {
		unsetenv("TZ");
	}
	tzset();
	return ok;
}

extern int sim_tariff_offset(const sim_config_t *cfg,
			     const sim_workload_t *w, long *offset,
			     const char **src, char *err, size_t errlen)
{
	char line[1024], v[256], zone[256] = "";
	bool have_start = false, have_tz = false;
	long long start = 0;
	long tz = 0, off;
	gzFile f;

	if (cfg->tariff_start >= 0) {
		*offset = cfg->tariff_start;
		*src = "option";
		return 0;
	}
	if (!cfg->trace) {	/* --synthetic: its first job at 00:00 */
		*offset = 0;
		*src = "synthetic";
		return 0;
	}
	f = gzopen(cfg->trace, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", cfg->trace,
			 errno ? strerror(errno) : "cannot open");
		return -1;
	}
	while (gzgets(f, line, sizeof(line))) {
		const char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ';') {
			if (*p && *p != '\n' && *p != '\r')
				break;	/* the first job: the header is over */
			continue;
		}
		if (_header(p, "UnixStartTime", v, sizeof(v)))
			have_start = sscanf(v, "%lld", &start) == 1;
		else if (_header(p, "TimeZoneString", v, sizeof(v)))
			snprintf(zone, sizeof(zone), "%s", v);
		else if (_header(p, "TimeZone", v, sizeof(v)))
			have_tz = sscanf(v, "%ld", &tz) == 1;
	}
	gzclose(f);
	if (!have_start) {
		*offset = 0;
		*src = "none";
		return 0;
	}
	{
		time_t t = (time_t) (start + (long long) floor(w->t0));

		if (_zone_offset(zone, t, &off)) {
			*src = "TimeZoneString";
		} else if (have_tz) {
			off = tz;
			*src = "TimeZone";
		} else {
			off = 0;
			*src = "UTC";
		}
		*offset = (long) ((((long long) t + off) % DAY + DAY) % DAY);
	}
	return 0;
}

/* ---- node states and the bill ------------------------------------------- */

static void _bill(sim_power_t *pw, sim_pnode_t *nd, double to)
{
	if (to > nd->since) {
		pw->en->cost += libra_tariff_cost(&pw->tariff, nd->since, to);
		pw->en->node_sec += to - nd->since;
	}
}

extern void sim_power_init(sim_power_t *pw, const sim_config_t *cfg, int n,
			   long offset, sim_energy_t *en)
{
	memset(pw, 0, sizeof(*pw));
	pw->pc.heuristic = cfg->power;
	pw->pc.interval = cfg->power_interval;
	pw->pc.boot = cfg->boot;
	pw->pc.shutdown = cfg->shutdown;
	pw->tariff = cfg->tariff;
	pw->tariff.offset = offset;
	pw->slurm = cfg->power_slurm;
	pw->suspend = cfg->suspend_time;
	pw->n = n;
	pw->en = en;
	pw->node = sim_xcalloc((size_t) n, sizeof(*pw->node));
	pw->warm = cfg->power_warm;
	pw->view = sim_xcalloc((size_t) n, sizeof(*pw->view));
	pw->act = sim_xcalloc((size_t) n, sizeof(*pw->act));
	for (int k = 0; k < n; k++) {
		pw->node[k].state = LIBRA_NODE_ON;
		pw->node[k].wake = INFINITY;
		pw->node[k].idle_since = 0.0;
	}
	pw->next_dp = INFINITY;
	if (!pw->slurm && cfg->power != LIBRA_POWER_STATIC) {
		double iv = pw->pc.interval;

		/* the first multiple of the interval on the tariff's clock
		 * after the start (the nodes are on for the first jobs) */
		pw->next_dp = fmod(iv - fmod((double) offset, iv), iv);
		if (!(pw->next_dp > 0.0))
			pw->next_dp = iv;
	}
	en->offset = offset;
}

extern void sim_power_free(sim_power_t *pw)
{
	free(pw->node);
	free(pw->view);
	free(pw->act);
	pw->node = NULL;
	pw->view = NULL;
	pw->act = NULL;
}

extern bool sim_power_ready(const sim_power_t *pw, int node, double now,
			    double at)
{
	const sim_pnode_t *nd = &pw->node[node];

	switch (nd->state) {
	case LIBRA_NODE_ON:
		return true;
	case LIBRA_NODE_BOOTING:
		return nd->until <= at;
	case LIBRA_NODE_OFF:
		return now + pw->pc.boot <= at;
	case LIBRA_NODE_STOPPING:
	default:
		return nd->until + pw->pc.boot <= at;
	}
}

extern void sim_power_up(sim_power_t *pw, int node, double now)
{
	sim_pnode_t *nd = &pw->node[node];

	if (nd->state != LIBRA_NODE_OFF)
		return;
	nd->state = LIBRA_NODE_BOOTING;
	nd->since = now;
	nd->until = now + pw->pc.boot;
	nd->wake = INFINITY;
	nd->idle_points = 0;
	pw->en->ups++;
}

extern void sim_power_down(sim_power_t *pw, int node, double now)
{
	sim_pnode_t *nd = &pw->node[node];

	if (nd->state != LIBRA_NODE_ON)
		return;
	nd->state = LIBRA_NODE_STOPPING;
	nd->until = now + pw->pc.shutdown;
	pw->en->downs++;
}

extern void sim_power_book(sim_power_t *pw, int node, double now,
			   double begin)
{
	sim_pnode_t *nd = &pw->node[node];

	if (nd->state == LIBRA_NODE_ON || nd->state == LIBRA_NODE_BOOTING)
		return;
	if (begin - pw->pc.boot < nd->wake)
		nd->wake = begin - pw->pc.boot;
	if (nd->state == LIBRA_NODE_OFF && nd->wake <= now)
		sim_power_up(pw, node, now);
}

extern double sim_power_next(const sim_power_t *pw)
{
	double t = pw->next_dp;

	for (int k = 0; k < pw->n; k++) {
		const sim_pnode_t *nd = &pw->node[k];

		switch (nd->state) {
		case LIBRA_NODE_BOOTING:
		case LIBRA_NODE_STOPPING:
			t = fmin(t, nd->until);
			break;
		case LIBRA_NODE_OFF:
			t = fmin(t, nd->wake);
			break;
		case LIBRA_NODE_ON:
		default:
			if (pw->slurm)
				t = fmin(t, nd->idle_since + pw->suspend);
			break;
		}
	}
	return t;
}

extern void sim_power_transitions(sim_power_t *pw, double now)
{
	for (int k = 0; k < pw->n; k++) {
		sim_pnode_t *nd = &pw->node[k];

		if (nd->state == LIBRA_NODE_BOOTING && nd->until <= now) {
			nd->state = LIBRA_NODE_ON;
			nd->idle_since = now;	/* the glue says if not */
		} else if (nd->state == LIBRA_NODE_STOPPING &&
			   nd->until <= now) {
			_bill(pw, nd, nd->until);
			nd->state = LIBRA_NODE_OFF;
		}
		if (nd->state == LIBRA_NODE_OFF && nd->wake <= now)
			sim_power_up(pw, k, now);
	}
}

extern void sim_power_finish(sim_power_t *pw, double end)
{
	for (int k = 0; k < pw->n; k++)
		if (pw->node[k].state != LIBRA_NODE_OFF)
			_bill(pw, &pw->node[k], end);
	pw->en->span = end;
}

extern void sim_energy_static(const sim_config_t *cfg, int nodes, long offset,
			      double end, sim_energy_t *en)
{
	libra_tariff_t t = cfg->tariff;
	double one;

	t.offset = offset;
	one = end > 0.0 ? libra_tariff_cost(&t, 0.0, end) : 0.0;
	memset(en, 0, sizeof(*en));
	en->power = libra_power_name(LIBRA_POWER_STATIC);
	en->offset = offset;
	en->span = end;
	/* the same sum as the per-node bill of the time-shared engine */
	for (int k = 0; k < nodes; k++) {
		en->cost += one;
		en->node_sec += end;
	}
}
