/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  share.c - deadline shares and CPU weights (see share.h for the clamps).
\*****************************************************************************/

#include <math.h>

#include "share.h"

extern double libra_share_remaining(double work, double time_left,
				    double share_min)
{
	return libra_share_clamp(work, time_left, share_min);
}

extern double libra_share_paced(double runtime, double cpu_done, double now,
				double deadline, double lead, double share_min)
{
	double work = runtime - cpu_done, time_left = deadline - now;

	if (!(lead > 0.0))
		lead = 0.0;
	if (work > 0.0 && time_left > 0.0 && time_left <= lead)
		return 1.0;	/* its last interval: all it can use */
	return libra_share_remaining(work, time_left - lead, share_min);
}

extern double libra_share_committed(double runtime, double from,
				    double target, double lead,
				    double share_min)
{
	if (!(from > 0.0))
		return 0.0;
	return libra_share_paced(runtime, 0.0, from, target, lead, share_min);
}

extern double libra_share_enforced(double runtime, double cpu_done,
				   double now, double begin, double target,
				   double deadline, double lead,
				   double share_min)
{
	if (begin > 0.0 && now < begin)
		return share_min;	/* before its share counts */
	return libra_share_paced(runtime, cpu_done, now,
				 now < target ? target : deadline, lead,
				 share_min);
}

extern double libra_share(double runtime, double cpu_done, double now,
			  double deadline, double share_min)
{
	return libra_share_paced(runtime, cpu_done, now, deadline, 0.0,
				 share_min);
}

static unsigned _scale(double share, double lo, double hi)
{
	double w;

	if (!isfinite(share) || share < 0.0)
		share = 0.0;
	w = round(share * LIBRA_WEIGHT_SCALE);
	if (w < lo)
		w = lo;
	if (w > hi)
		w = hi;
	return (unsigned) w;
}

extern unsigned libra_weight_v2(double share)
{
	return _scale(share, 1.0, 10000.0);
}

extern unsigned libra_weight_v1(double share)
{
	return _scale(share, 2.0, 262144.0);
}
