#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both and wait_until
# test_mixed_owner: an admitted job its owner kept pending (a hold, a
# dependency) while another user's jobs without an SLA took its node
# (design.md decision 38), on a stock cluster and on the plugin cluster at
# once (../parity/lib.sh: 4 nodes of 1 CPU each), the same commands on
# both (stock takes the --comment as a plain comment):
#  (h) the SLA job is submitted held; another user's three jobs take n1-n3
#      (its admitted node among them); its owner releases it: on libra it
#      is admitted again on the free node and starts at once;
#  (d) the SLA job depends on its owner's 8-second job (on n1, so it is
#      admitted on n2); another user's three jobs take n2-n4; the
#      dependency ends: on libra it is admitted again on n1 and starts.
# Asserted: on libra the SLA job starts within libra_interval plus the
# slack of its release (of the end of its dependency), no later than on
# stock plus that, on a node no other job holds, and meets its deadline
# (none UNSTARTED).
# shellcheck source=../parity/lib.sh
. "$(dirname "$0")/../parity/lib.sh"
parity_init
libra_find_python
parity_add_user
parity_start

SLA="runtime=2s,deadline=120s,budget=1000"
LIMIT=$((PARITY_INTERVAL + PARITY_SLACK))

# fill N...: the other user's jobs without an SLA, one on each of N
# nodes, until they run; puts their ids and nodes.
fill() {
	local what=$1 n=$2 ids=() i
	for ((i = 0; i < n; i++)); do
		SB_USER=$PARITY_USER psub "$what filler" -n 1 -t 2 --wrap 'sleep 60'
		ids+=("$SB_JOBID")
	done
	wait_until 60 "the other user's $n jobs to run" bash -c \
		"[ \"\$(squeue -h -t R -j $(IFS=,; echo "${ids[*]}") | wc -l)\" = $n ]"
	FILLERS=$(IFS=,; echo "${ids[*]}")
	parity_put "${what}_fill_nodes" "$(squeue -h -j "$FILLERS" -o %N | sort | paste -sd, -)"
}

# _put_record WHAT JOB: on libra, the job's settled record in accounting.
_put_record() {
	[ "$PARITY_SIDE" = libra ] || return 0
	wait_until 60 "job $2's settled record in accounting" sacct_record_final "$2"
	parity_put "${1}_rec" "$(sacct_record "$2")"
}

# _start_of JOB: its start (epoch seconds).
_start_of() { date -d "$(job_field "$1" StartTime)" +%s; }

# (h) held, others take its node, released
scen_hold() {
	local j t0
	psub h --hold -n 1 --comment="$SLA" --wrap 'sleep 1'
	j=$SB_JOBID
	parity_put h_admit "$(printf '%s' "$SB_OUT" | grep -o 'libra: [a-z]*' | head -n 1)"
	parity_put h_admitted_on "$(job_field "$j" ReqNodeList)"
	fill h 3
	t0=$(date +%s)
	scontrol release "$j" || fail "cannot release job $j"
	wait_until 120 "job $j to start after its release" job_started "$j"
	parity_put h_wait $(($(_start_of "$j") - t0))
	parity_put h_node "$(job_field "$j" NodeList)"
	wait_until 120 "job $j to end" job_ended "$j"
	parity_put h_state "$(job_state "$j")"
	_put_record h "$j"
	local -a ids
	IFS=, read -ra ids <<<"$FILLERS"
	scancel "${ids[@]}"
	wait_until 60 "the fillers to end" no_jobs_active
}

# (d) a dependency on its owner's job on n1; others take its node; the
# dependency ends
scen_dep() {
	local j d t0
	psub d0 -n 1 -w n1 --wrap 'sleep 8'
	d=$SB_JOBID
	wait_until 60 "job $d to run" job_started "$d"
	psub d --dependency=afterok:"$d" -n 1 --comment="$SLA" --wrap 'sleep 1'
	j=$SB_JOBID
	parity_put d_admit "$(printf '%s' "$SB_OUT" | grep -o 'libra: [a-z]*' | head -n 1)"
	parity_put d_admitted_on "$(job_field "$j" ReqNodeList)"
	fill d 3
	wait_until 60 "job $d to end" job_ended "$d"
	t0=$(date -d "$(job_field "$d" EndTime)" +%s)
	wait_until 120 "job $j to start after its dependency" job_started "$j"
	parity_put d_wait $(($(_start_of "$j") - t0))
	parity_put d_node "$(job_field "$j" NodeList)"
	wait_until 120 "job $j to end" job_ended "$j"
	parity_put d_state "$(job_state "$j")"
	_put_record d "$j"
	local -a ids
	IFS=, read -ra ids <<<"$FILLERS"
	scancel "${ids[@]}"
	wait_until 60 "the fillers to end" no_jobs_active
}

for s in hold dep; do
	both "scen_$s" || continue
	k=${s:0:1}
	for side in stock libra; do
		note "($k) $side: admission '$(parity_get "$side" "${k}_admit")' on '$(parity_get "$side" "${k}_admitted_on")'; other jobs on $(parity_get "$side" "${k}_fill_nodes"); started $(parity_get "$side" "${k}_wait") s later on $(parity_get "$side" "${k}_node"), $(parity_get "$side" "${k}_state")"
	done
	[ "$(parity_get libra "${k}_admit")" = "libra: admitted" ] ||
		expect_fail "($k) libra: the SLA job was not admitted"
	adm=$(parity_get libra "${k}_admitted_on")
	[[ ",$(parity_get libra "${k}_fill_nodes")," == *",$adm,"* ]] ||
		note "($k) libra: the other jobs did not take the admitted node $adm this time"
	wl=$(parity_get libra "${k}_wait") ws=$(parity_get stock "${k}_wait")
	[ -n "$wl" ] && [ "$wl" -le "$LIMIT" ] ||
		expect_fail "($k) libra: the SLA job started ${wl:-never} s after it could, not within $LIMIT s"
	[ -n "$wl" ] && [ -n "$ws" ] && [ "$wl" -le $((ws + LIMIT)) ] ||
		expect_fail "($k) libra started it ${wl:-never} s after it could, stock ${ws:-never} s"
	[[ ",$(parity_get libra "${k}_fill_nodes")," != *",$(parity_get libra "${k}_node"),"* ]] ||
		expect_fail "($k) libra: the SLA job ran on a node another job held"
	expect_eq COMPLETED "$(parity_get libra "${k}_state")" "($k) libra: the SLA job's state"
	rec=$(parity_get libra "${k}_rec")
	[[ $rec == *'"met":true'* ]] || expect_fail "($k) libra: the SLA job's record does not say met: ${rec:0:300}"
done
parity_stop
expect_done
pass
