#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both and wait_until
# test_mixed_preempt: a preemptable tier, as a site configures it (design.md
# decision 41), on a stock cluster and on the plugin cluster at once
# (../parity/lib.sh: 4 nodes of 1 CPU each), the same commands on both
# (stock takes the --comment as a plain comment).  slurm.conf of both:
# PreemptType=preempt/partition_prio, PreemptMode=REQUEUE; partition batch
# (PriorityTier 1, preemptable) and partition high (PriorityTier 10,
# PreemptMode=OFF) on the same nodes.  Another user's jobs without an SLA
# fill every node in batch; then an SLA job in high.  On libra it is
# admitted for a start after the preemption's KillWait (those CPUs counted
# free then), Slurm preempts a batch job (requeued) for it, and it meets
# its deadline; stock preempts for the same job as a plain one.  An SLA
# job in batch itself is refused (it could be preempted).
# Asserted on libra: admitted for a planned start; started within its
# planned start plus libra_interval and the slack, and no later than
# stock's start plus that; COMPLETED, met; one batch job requeued; the
# SLA job in batch refused naming the preemption; libra-check passes the
# configuration with the preempt warning only.
# shellcheck source=../parity/lib.sh
. "$(dirname "$0")/../parity/lib.sh"
PARITY_EXTRA_CONF="$PARITY_EXTRA_CONF
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=high Nodes=n[1-4] PriorityTier=10 PreemptMode=OFF MaxTime=INFINITE State=UP OverSubscribe=YES:8"
parity_init
libra_find_python
parity_add_user
parity_start

LIMIT=$((PARITY_INTERVAL + PARITY_SLACK))
SLA="runtime=5s,deadline=40s,budget=1000"

scen_preempt() {
	local ids=() i j
	for ((i = 0; i < 4; i++)); do
		SB_USER=$PARITY_USER psub filler -p batch -n 1 -t 5 --wrap 'sleep 300'
		ids+=("$SB_JOBID")
	done
	wait_until 60 "the other user's 4 jobs to run" bash -c \
		"[ \"\$(squeue -h -t R -j $(IFS=,; echo "${ids[*]}") | wc -l)\" = 4 ]"
	if [ "$PARITY_SIDE" = libra ]; then
		libra_sbatch -p batch -n 1 --comment="$SLA" --wrap 'sleep 1'
		parity_put in_batch "$SB_RC $SB_OUT"
	fi
	psub p -p high -n 1 --comment="$SLA" --wrap 'sleep 5'
	j=$SB_JOBID
	parity_put admit "$SB_OUT"
	parity_put planned "$(grep -o 'planned to start at [0-9T:-]*' <<<"$SB_OUT" | cut -d' ' -f5)"
	wait_until 120 "job $j to start" job_started "$j"
	parity_put start "$(start_epoch "$j")"
	parity_put wait $(($(parity_get "$PARITY_SIDE" start) - $(epoch_field "$j" Submit)))
	wait_until 60 "job $j to end" job_ended "$j"
	parity_put state "$(job_state "$j")"
	parity_put requeued "$(for i in "${ids[@]}"; do scontrol show job "$i"; done 2>/dev/null | grep -c 'Restarts=[1-9]')"
	if [ "$PARITY_SIDE" = libra ]; then
		wait_until 60 "job $j's settled record in accounting" sacct_record_final "$j"
		parity_put rec "$(sacct_record "$j")"
		parity_put check "$("$LIBRA_BUILD/contrib/check/libra-check" -f "$SLURM_CONF" 2>&1)"
	fi
	scancel -u "$PARITY_USER"
	wait_until 60 "the other user's jobs to end" no_jobs_active
}

both scen_preempt || { parity_stop; expect_done; }
for side in stock libra; do
	note "$side: the job in high waited $(parity_get "$side" wait) s, $(parity_get "$side" state); batch jobs requeued: $(parity_get "$side" requeued)"
done
note "libra: $(parity_get libra admit)"
note "libra, an SLA job in batch: $(parity_get libra in_batch)"
expect_planned_start "the SLA job in high"
wl=$(parity_get libra wait) ws=$(parity_get stock wait)
[ -n "$wl" ] && [ -n "$ws" ] && [ "$wl" -le $((ws + LIMIT)) ] ||
	expect_fail "libra: the SLA job waited ${wl:-?} s for the preemption, stock ${ws:-?} s"
expect_eq COMPLETED "$(parity_get libra state)" "libra: the SLA job's state"
rec=$(parity_get libra rec)
[[ $rec == *'"met":true'* ]] || expect_fail "libra: the SLA job's record does not say met: ${rec:0:300}"
[ "$(parity_get libra requeued)" -ge 1 ] 2>/dev/null ||
	expect_fail "libra: no batch job was requeued for the SLA job"
[[ $(parity_get libra in_batch) == [1-9]*'can be preempted by jobs of partition high'* ]] ||
	expect_fail "libra: an SLA job in the preemptable batch was not refused for it: $(parity_get libra in_batch)"
chk=$(parity_get libra check)
[[ $chk == *'WARNING [preempt]'* ]] && [[ $chk != *ERROR* ]] ||
	expect_fail "libra-check: not the preempt warning alone: ${chk:0:600}"
parity_plugin_errors
parity_stop
expect_done
pass
