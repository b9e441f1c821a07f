#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both and wait_until
# test_mixed_wide: a wide job without an SLA among a stream of SLA jobs
# (design.md decision 40), on a stock cluster and on the plugin cluster at
# once (../parity/lib.sh: 4 nodes of 1 CPU each), the same commands on
# both (stock takes the --comment as a plain comment), bf_interval=5 on
# both.  One SLA job of 6 s (deadline 20 s) every 5 s, 8 in all; after the
# second, another user's job asks all 4 nodes.  Under stock the wide job,
# first in the queue, keeps the later ones back and starts when the
# running ones end; under sched/libra every SLA job comes first (decision
# 38), so without decision 40 the stream kept the wide job waiting until
# it ended.  Asserted: on libra the wide job waits no longer than on
# stock plus one interval and the slack; every admitted SLA job COMPLETED
# by its deadline; a refused one names the wide job's plan.
# shellcheck source=../parity/lib.sh
. "$(dirname "$0")/../parity/lib.sh"
PARITY_LIBRA_PARAMS="$PARITY_LIBRA_PARAMS,bf_interval=5"
PARITY_STOCK_PARAMS=bf_interval=5
parity_init
libra_find_python
parity_add_user
parity_start

LIMIT=$((PARITY_INTERVAL + PARITY_SLACK))
STREAM=8

scen_wide() {
	local i ids=() w refused=0 planned=0
	for ((i = 0; i < STREAM; i++)); do
		libra_sbatch -n 1 --comment="runtime=6s,deadline=20s,budget=1000" --wrap 'sleep 6'
		if [ "$SB_RC" = 0 ] && [ -n "$SB_JOBID" ]; then
			ids+=("$SB_JOBID")
		else
			refused=$((refused + 1))
			[[ $SB_OUT != *"planned by Slurm's backfill for JobId="* ]] ||
				planned=$((planned + 1))
		fi
		if [ "$i" = 1 ]; then
			SB_USER=$PARITY_USER psub wide -N 4 -n 4 -t 1 --wrap 'sleep 3'
			w=$SB_JOBID
		fi
		sleep 5
	done
	parity_put refused "$refused"
	parity_put refused_planned "$planned"
	wait_until 120 "the wide job $w to start" job_started "$w"
	parity_put wait $(($(start_epoch "$w") - $(epoch_field "$w" Submit)))
	wait_until 120 "every job to end" no_jobs_active
	parity_put admitted "${#ids[@]}"
	parity_put states "$(sacct -n -X -P -j "$(IFS=,; echo "${ids[*]}")" -o State | sort | uniq -c | paste -sd' ' -)"
	if [ "$PARITY_SIDE" = libra ]; then
		local j late=0
		for j in "${ids[@]}"; do
			wait_until 60 "job $j's settled record in accounting" sacct_record_final "$j"
			[[ $(sacct_record "$j") == *'"met":true'* ]] || late=$((late + 1))
		done
		parity_put late "$late"
	fi
}

both scen_wide || { parity_stop; expect_done; }
for side in stock libra; do
	note "$side: the wide job waited $(parity_get "$side" wait) s; $(parity_get "$side" admitted) stream jobs run ($(parity_get "$side" states)), $(parity_get "$side" refused) refused ($(parity_get "$side" refused_planned) naming the wide job's plan)"
done
wl=$(parity_get libra wait) ws=$(parity_get stock wait)
[ -n "$wl" ] && [ -n "$ws" ] && [ "$wl" -le $((ws + LIMIT)) ] ||
	expect_fail "libra: the wide job waited ${wl:-?} s, stock ${ws:-?} s: more than $LIMIT s longer"
expect_eq 0 "$(parity_get libra late)" "libra: admitted stream jobs that missed their deadline"
[ "$(parity_get libra refused)" = "$(parity_get libra refused_planned)" ] ||
	note "libra: $(( $(parity_get libra refused) - $(parity_get libra refused_planned) )) refusals named something else than the wide job's plan"
parity_plugin_errors
parity_stop
expect_done
pass
