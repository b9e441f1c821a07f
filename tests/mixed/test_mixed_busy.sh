#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both and wait_until
# test_mixed_busy: an SLA job at a busy site (design.md decision 39), on a
# stock cluster and on the plugin cluster at once (../parity/lib.sh: 4
# nodes of 1 CPU each), the same commands on both (stock takes the
# --comment as a plain comment).  Another user's jobs without an SLA run
# on every node until their time limit (-t 1, killed there), and four more
# of theirs wait in the queue.  On libra:
#  - an SLA job whose deadline the first node to free cannot meet is
#    refused with the next free slot: a start when those jobs' time limits
#    end, and the deadline that window needs;
#  - the same job with that deadline is admitted, planned to start then
#    (pinned at the top priority: Slurm's scheduler and backfill keep the
#    node for it), starts when its node frees, ahead of the queue, and
#    meets its deadline.
# Asserted on libra: the refusal names the slot; the resubmission is
# admitted for a start no later than the slot's; it starts no later than
# its planned start plus libra_interval and slack, and before any job of
# the queue on its node; COMPLETED, met.  Stock's start is noted beside.
# shellcheck source=../parity/lib.sh
. "$(dirname "$0")/../parity/lib.sh"
parity_init
libra_find_python
parity_add_user
parity_start

# _subs USER WHAT N SBATCH-ARGS...: N jobs of USER; their ids, comma-joined.
_subs() {
	local user=$1 what=$2 n=$3 ids=() i
	shift 3
	for ((i = 0; i < n; i++)); do
		SB_USER=$user psub "$what" "$@"
		ids+=("$SB_JOBID")
	done
	(IFS=,; echo "${ids[*]}")
}

# _epoch TIME: seconds since the epoch of a time Slurm or the plugins print.
_epoch() { date -d "$1" +%s; }

# _first_start IDS: the earliest start among the jobs (epoch seconds).
_first_start() {
	SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$1" -o Start 2>/dev/null |
		grep -E '^[0-9]+$' | sort -n | head -n 1
}

scen_busy() {
	local fill queued j slot=2m out
	fill=$(_subs "$PARITY_USER" filler 4 -n 1 -t 1 --wrap 'sleep 300')
	wait_until 60 "the other user's 4 jobs to run" bash -c \
		"[ \"\$(squeue -h -t R -j $fill | wc -l)\" = 4 ]"
	queued=$(_subs "$PARITY_USER" queued 4 -n 1 -t 1 --wrap 'sleep 5')
	if [ "$PARITY_SIDE" = libra ]; then
		libra_sbatch -n 1 --comment="runtime=8s,deadline=30s,budget=1000" --wrap 'sleep 1'
		parity_put refused "$SB_OUT"
		[ "$SB_RC" != 0 ] || fail "a 30 s deadline was admitted on a full cluster: $SB_OUT"
		out=$(grep -o 'next free slot after the time limits[^;]*' <<<"$SB_OUT" || :)
		[ -n "$out" ] || fail "the refusal names no next free slot: $SB_OUT"
		slot=$(grep -o 'deadline [0-9dhms]*' <<<"$out" | cut -d' ' -f2)
		parity_put slot_start "$(_epoch "$(grep -o 'a start at [0-9T:-]*' <<<"$out" | cut -d' ' -f4)")"
	fi
	psub b -n 1 --comment="runtime=8s,deadline=$slot,budget=1000" --wrap 'sleep 8'
	j=$SB_JOBID
	parity_put admit "$SB_OUT"
	parity_put planned "$(grep -o 'planned to start at [0-9T:-]*' <<<"$SB_OUT" | cut -d' ' -f5)"
	parity_put reason "$(job_reason "$j")"
	wait_until 180 "job $j to start" job_started "$j"
	parity_put start "$(start_epoch "$j")"
	wait_until 60 "job $j to end" job_ended "$j"
	parity_put state "$(job_state "$j")"
	parity_put fill_end "$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$fill" -o End | sort -n | head -n 1)"
	wait_until 60 "the queued jobs to start" bash -c \
		"[ \"\$(squeue -h -t PD -j $queued | wc -l)\" = 0 ]"
	parity_put queue_start "$(_first_start "$queued")"
	parity_put node "$(job_field "$j" NodeList)"
	parity_put queue_runs "$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$queued" -o NodeList,Start | paste -sd' ' -)"
	if [ "$PARITY_SIDE" = libra ]; then
		wait_until 60 "job $j's settled record in accounting" sacct_record_final "$j"
		parity_put rec "$(sacct_record "$j")"
	fi
	scancel -u "$PARITY_USER"
	wait_until 60 "the other user's jobs to end" no_jobs_active
}

both scen_busy || { parity_stop; expect_done; }
for side in stock libra; do
	fe=$(parity_get "$side" fill_end)
	st=$(parity_get "$side" start)
	note "$side: the other user's jobs reached their limit at +0 s; the SLA job started at $((st - fe)) s, the queue's first at $(($(parity_get "$side" queue_start) - fe)) s, $(parity_get "$side" state)"
done
note "libra refused the 30 s deadline: $(parity_get libra refused | grep -o 'next free slot[^;]*')"
note "libra admitted: $(parity_get libra admit); reason while it waited: $(parity_get libra reason)"
expect_planned_start "the job with the slot's deadline"
planned=$(parity_get libra planned)
if [ -n "$planned" ]; then
	p=$(_epoch "$planned")
	ss=$(parity_get libra slot_start)
	[ "$p" -le "$ss" ] ||
		expect_fail "libra: planned to start at $planned, after the slot it offered ($ss)"
	st=$(parity_get libra start)
	node=$(parity_get libra node)
	for run in $(parity_get libra queue_runs); do
		[ "${run%%|*}" != "$node" ] || [ "${run#*|}" -ge "$st" ] ||
			expect_fail "libra: a queued job started on $node at ${run#*|}, before the admitted job ($st)"
	done
fi
expect_eq COMPLETED "$(parity_get libra state)" "libra: the SLA job's state"
rec=$(parity_get libra rec)
[[ $rec == *'"met":true'* ]] || expect_fail "libra: the SLA job's record does not say met: ${rec:0:300}"
parity_plugin_errors
parity_stop
expect_done
pass
