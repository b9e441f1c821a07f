/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  policy.c - the simulated policies' names (--policy, the output's
 *  "policy" field) and the economic model each is compared in.
\*****************************************************************************/

#include <string.h>

#include "sim.h"

static const char *policy_names[SIM_POLICY_COUNT] = {
	[SIM_FCFS_BF] = "fcfs-bf",
	[SIM_SJF_BF] = "sjf-bf",
	[SIM_EDF_BF] = "edf-bf",
	[SIM_LIBRA] = "libra",
	[SIM_LIBRA_PRICE] = "libra+$",
	[SIM_LIBRA_SLA] = "librasla",
	[SIM_LIBRA_RISKD] = "librariskd",
	[SIM_LIBRA_AUTO] = "libra+$auto",
	[SIM_FIRST_REWARD] = "firstreward",
	[SIM_FIXED] = "fixed",
	[SIM_PEAK] = "peak",
	[SIM_ISQOS] = "isqos",
};

extern const char *sim_policy_name(sim_policy_t p)
{
	return p < SIM_POLICY_COUNT ? policy_names[p] : "?";
}

extern bool sim_policy_from_name(const char *name, sim_policy_t *p)
{
	int i;

	for (i = 0; i < SIM_POLICY_COUNT; i++) {
		if (!strcmp(name, policy_names[i])) {
			*p = (sim_policy_t) i;
			return true;
		}
	}
	return false;
}

/* The thesis' economic model of each policy (Table 6.5): LibraSLA and
 * FirstReward are bid-based, the rest are compared in the commodity
 * market. */
extern sim_model_t sim_policy_model(sim_policy_t p)
{
	return (p == SIM_LIBRA_SLA || p == SIM_FIRST_REWARD) ?
	       SIM_MODEL_BID : SIM_MODEL_COMMODITY;
}

extern bool sim_policy_timeshared(sim_policy_t p)
{
	return (p >= SIM_LIBRA && p <= SIM_LIBRA_AUTO) || p == SIM_FIXED ||
	       p == SIM_PEAK;
}

extern const char *sim_model_name(sim_model_t m)
{
	return m == SIM_MODEL_BID ? "bid" : "commodity";
}
