/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  fuzz_params.c - fuzz target: the SchedulerParameters parser (params.h).
 *
 *  Feeds the input to libra_params_parse() on top of the defaults.  On error
 *  the parameters must be untouched (a bad "scontrol reconfigure" keeps the
 *  running values) and the message terminated.  On success every value is
 *  in its documented range, and libra_params_format()'s output parses back
 *  to the same values.
\*****************************************************************************/

#include <math.h>

#include "fuzz.h"
#include "params.h"

static int _close(double a, double b)
{
	return fabs(a - b) <= 1e-13 * fmax(fabs(a), fabs(b)) || a == b;
}

static void _check(const libra_params_t *p, const char *text)
{
	FUZZ_ASSERT((unsigned) p->policy < LIBRA_POLICY_COUNT, "policy: %s",
		    text);
	FUZZ_ASSERT(isfinite(p->alpha) && p->alpha >= 0 &&
		    isfinite(p->beta) && p->beta >= 0 &&
		    isfinite(p->gamma) && p->gamma >= 0 &&
		    isfinite(p->delta) && p->delta >= 0,
		    "weights: %s", text);
	FUZZ_ASSERT(isfinite(p->price_base) && p->price_base > 0 &&
		    isfinite(p->peak_price) && p->peak_price >= 0,
		    "prices: %s", text);
	FUZZ_ASSERT(p->peak_start >= 0 && p->peak_start <= 23 &&
		    p->peak_end >= 0 && p->peak_end <= 23, "peak hours: %s",
		    text);
	FUZZ_ASSERT(p->capacity > 0 && p->capacity <= 1, "capacity: %s",
		    text);
	FUZZ_ASSERT(p->share_min > 0 && p->share_min <= 1, "share_min: %s",
		    text);
	FUZZ_ASSERT(isfinite(p->risk_sigma) && p->risk_sigma >= 0 &&
		    isfinite(p->risk_mu) && p->risk_mu >= 1, "risk: %s", text);
	FUZZ_ASSERT(p->beta_min > 0 && p->beta_min <= p->beta_max &&
		    isfinite(p->beta_max), "beta bounds: %s", text);
	FUZZ_ASSERT(isfinite(p->interval) && p->interval > 0 &&
		    isfinite(p->weight_interval) && p->weight_interval > 0,
		    "intervals: %s", text);
	FUZZ_ASSERT(isfinite(p->tolerance) && p->tolerance >= 0,
		    "tolerance: %s", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	libra_params_t p, before, q;
	char *text, err[256], buf[4096], small[8];
	libra_policy_t pol;

	if (size > 8192)
		return 0;
	text = fuzz_text(data, size);
	libra_params_default(&p);
	before = p;
	err[0] = '\0';
	if (libra_params_parse(&p, text, err, sizeof(err)) != 0) {
		fuzz_check_err(err, sizeof(err));
		FUZZ_ASSERT(err[0] != '\0', "no message for \"%s\"", text);
		FUZZ_ASSERT(!memcmp(&p, &before, sizeof(p)),
			    "refused \"%s\" changed the parameters", text);
	} else {
		_check(&p, text);
		libra_params_format(&p, buf, sizeof(buf));
		fuzz_check_err(buf, sizeof(buf));
		libra_params_default(&q);
		FUZZ_ASSERT(libra_params_parse(&q, buf, err, sizeof(err)) == 0,
			    "format output \"%s\" refused: %s", buf, err);
		FUZZ_ASSERT(q.policy == p.policy && q.resfree == p.resfree &&
			    q.charge == p.charge && q.no_sla == p.no_sla &&
			    q.enforce == p.enforce &&
			    q.peak_start == p.peak_start &&
			    q.peak_end == p.peak_end &&
			    _close(q.alpha, p.alpha) &&
			    _close(q.beta, p.beta) &&
			    _close(q.price_base, p.price_base) &&
			    _close(q.gamma, p.gamma) &&
			    _close(q.delta, p.delta) &&
			    _close(q.peak_price, p.peak_price) &&
			    _close(q.capacity, p.capacity) &&
			    _close(q.share_min, p.share_min) &&
			    _close(q.risk_sigma, p.risk_sigma) &&
			    _close(q.risk_mu, p.risk_mu) &&
			    _close(q.beta_min, p.beta_min) &&
			    _close(q.beta_max, p.beta_max) &&
			    _close(q.interval, p.interval) &&
			    _close(q.weight_interval, p.weight_interval) &&
			    _close(q.tolerance, p.tolerance),
			    "format/parse round trip differs for \"%s\": %s",
			    text, buf);
		libra_params_format(&p, small, sizeof(small));
		fuzz_check_err(small, sizeof(small));
	}
	memset(small, 'x', sizeof(small));
	libra_params_default(&p);
	if (libra_params_parse(&p, text, small, sizeof(small)) != 0)
		fuzz_check_err(small, sizeof(small));
	if (libra_policy_from_name(text, &pol))
		FUZZ_ASSERT(!strcmp(libra_policy_name(pol), text),
			    "policy name round trip: %s", text);
	free(text);
	return 0;
}
