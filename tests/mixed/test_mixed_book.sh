#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both and wait_until
# test_mixed_book: a booking beside the jobs Slurm's backfill starts
# (design.md decision 42), on a stock cluster and on the plugin cluster at
# once (../parity/lib.sh: 4 nodes of 1 CPU each), the same commands on
# both (stock takes the --comment as a plain comment), bf_interval=5 on
# both:
#  1. a user's SLA job booked to begin BEGIN seconds later (10 s of work
#     within 60 s of its begin), admitted on one node;
#  2. another user's SLA job on that node now, whose window reaches past
#     the begin (time-shared with the booking: on libra it runs in the
#     booking's reservation, its owner added to the reservation's users);
#  3. four jobs without an SLA (5-minute limits) of another user, Slurm's
#     schedulers placing them while the booking waits;
#  4. the booking's owner, one of the reservation's users, asks for it for
#     a job without an SLA, at submission and by an update of a pending
#     job: refused (the reservation lets its jobs past every booking).
# Asserted on libra: the booking's reservation exists from its admission;
# the job that shares its node starts within libra_interval and the slack
# and meets its deadline; no job without an SLA runs on the booked node at
# the begin; the booked job starts within libra_interval and the slack of
# its begin and meets its deadline; the reservation is gone after it.
# Stock, noted: a job without an SLA takes the node, and the booked job
# waits for it.
# shellcheck source=../parity/lib.sh
. "$(dirname "$0")/../parity/lib.sh"
PARITY_LIBRA_PARAMS="$PARITY_LIBRA_PARAMS,bf_interval=5"
PARITY_STOCK_PARAMS=bf_interval=5
parity_init
libra_find_python
parity_add_user
parity_start

LIMIT=$((PARITY_INTERVAL + PARITY_SLACK))
BEGIN=40

# _start_of JOB: its start (epoch seconds) by squeue/scontrol.
_start_of() { date -d "$(job_field "$1" StartTime)" +%s; }

# _record_met WHAT JOB: on libra, whether the job's settled record says
# met ("yes"/"no").
_record_met() {
	[ "$PARITY_SIDE" = libra ] || return 0
	wait_until 60 "job $2's settled record in accounting" sacct_record_final "$2"
	if [[ $(sacct_record "$2") == *'"met":true'* ]]; then
		parity_put "${1}_met" yes
	else
		parity_put "${1}_met" no
	fi
}

# _attacks B: on libra, the booking's owner names its reservation for a
# job without an SLA, at submission and in an update of a pending one.
_attacks() {
	local out p
	[ "$PARITY_SIDE" = libra ] || return 0
	SB_USER=$PARITY_USER libra_sbatch -n 1 --reservation="libra_$1" --wrap 'sleep 1'
	parity_put attack_submit "rc=$SB_RC job=${SB_JOBID:-none}: $SB_OUT"
	SB_USER=$PARITY_USER psub "owner's job" -n 1 -t 5 --wrap 'sleep 300'
	p=$SB_JOBID
	out=$(runuser -u "$PARITY_USER" -- scontrol update jobid="$p" reservation="libra_$1" 2>&1) &&
		out="accepted: $out"
	parity_put attack_update "$out"
	parity_put attack_update_resv "$(job_field "$p" Reservation)"
	scancel "$p"
}

scen_book() {
	local b x t0 node ids=() i begin started
	t0=$(date +%s)
	begin=$((t0 + BEGIN))
	SB_USER=$PARITY_USER psub b --begin="now+$BEGIN" -n 1 --comment="runtime=10s,deadline=60s,budget=1000" --wrap 'sleep 10'
	b=$SB_JOBID
	parity_put b_admit "$(printf '%s' "$SB_OUT" | grep -o 'libra: [a-z]*' | head -n 1)"
	node=$(job_field "$b" ReqNodeList)
	[ -n "$node" ] && [ "$node" != "(null)" ] || node=n1
	parity_put node "$node"
	if [ "$PARITY_SIDE" = libra ]; then
		wait_until_ok 30 bash -c "scontrol show reservation libra_$b 2>/dev/null | grep -q 'Nodes=$node '" ||
			note "no reservation libra_$b on $node after 30 s"
		parity_put resv "$(scontrol -o show reservation "libra_$b" 2>/dev/null)"
	fi
	# 2. an SLA job sharing the booked node across its begin
	psub x -n 1 -w "$node" --comment="runtime=8s,deadline=100s,budget=1000" --wrap 'sleep 8'
	x=$SB_JOBID
	parity_put x_admit "$(printf '%s' "$SB_OUT" | grep -o 'libra: [a-z]*' | head -n 1)"
	wait_until_ok 60 job_started "$x" || note "job $x did not start in 60 s"
	! job_started "$x" ||
		parity_put x_wait $(($(_start_of "$x") - $(date -d "$(job_field "$x" SubmitTime)" +%s)))
	parity_put x_node "$(job_field "$x" NodeList)"
	parity_put x_resv "$(job_field "$x" Reservation)"
	[ "$PARITY_SIDE" = stock ] ||
		parity_put users "$(scontrol show reservation "libra_$b" 2>/dev/null | grep -o 'Users=[^ ]*')"
	# 3. another user's jobs without an SLA
	for ((i = 0; i < 4; i++)); do
		psub "filler $i" -n 1 -t 5 --wrap 'sleep 300'
		ids+=("$SB_JOBID")
	done
	_attacks "$b"
	wait_until_ok 60 job_ended "$x" || note "job $x did not end in 60 s"
	parity_put x_state "$(job_state "$x")"
	# at the begin, plus a pass and the slack
	wait_until $((begin - $(date +%s) + LIMIT + 60)) "the begin of job $b" \
		bash -c "[ \$(date +%s) -ge $((begin + LIMIT)) ]"
	started=no
	! job_started "$b" || started=yes
	parity_put b_started "$started"
	parity_put fill_on_node "$(squeue -h -t R -u root -w "$node" -o %i 2>/dev/null | paste -sd, -)"
	if [ "$started" = yes ]; then
		parity_put b_late $(($(_start_of "$b") - begin))
		wait_until 60 "job $b to end" job_ended "$b"
		parity_put b_state "$(job_state "$b")"
	fi
	! job_ended "$x" || _record_met x "$x"
	[ "$started" = no ] || _record_met b "$b"
	scancel "${ids[@]}" "$b" "$x" 2>/dev/null || :
	wait_until 60 "the jobs to end" no_jobs_active
	if [ "$PARITY_SIDE" = libra ]; then
		wait_until $((2 * LIMIT + 10)) "reservation libra_$b to be deleted" \
			bash -c "! scontrol show reservation libra_$b >/dev/null 2>&1"
	fi
}

both scen_book || fail "the scenario failed on a cluster"
for side in stock libra; do
	note "$side: booked on $(parity_get "$side" node) ('$(parity_get "$side" b_admit)'); sharing job '$(parity_get "$side" x_admit)' started $(parity_get "$side" x_wait) s after submission on $(parity_get "$side" x_node), $(parity_get "$side" x_state); at the begin other jobs on the booked node: '$(parity_get "$side" fill_on_node)'; booked job started: $(parity_get "$side" b_started) ($(parity_get "$side" b_late) s after its begin), $(parity_get "$side" b_state)"
done
note "libra: $(parity_get libra resv)"
note "libra: --reservation at submission: $(parity_get libra attack_submit)"
note "libra: reservation by an update: $(parity_get libra attack_update)"

[ "$(parity_get libra b_admit)" = "libra: admitted" ] || expect_fail "libra: the booking was not admitted"
[[ $(parity_get libra resv) == *'Flags='*FLEX*OVERLAP* ]] ||
	expect_fail "libra: the booking's reservation is not FLEX and OVERLAP: $(parity_get libra resv)"
[ "$(parity_get libra x_admit)" = "libra: admitted" ] || expect_fail "libra: the sharing job was not admitted"
note "libra: the sharing job's reservation: $(parity_get libra x_resv); $(parity_get libra users)"
[[ $(parity_get libra x_resv) == libra_* ]] || expect_fail "libra: the sharing job is not in the booking's reservation"
xw=$(parity_get libra x_wait)
[ -n "$xw" ] && [ "$xw" -le "$LIMIT" ] ||
	expect_fail "libra: the job sharing the booked node started ${xw:-never} s after its submission, not within $LIMIT s"
expect_eq COMPLETED "$(parity_get libra x_state)" "libra: the sharing job's state"
expect_eq yes "$(parity_get libra x_met)" "libra: the sharing job met its deadline"
[[ $(parity_get libra attack_submit) == *'rc=1 job=none'*'libra: rejected: --reservation'* ]] ||
	expect_fail "libra: the owner's --reservation=libra_ was not refused: $(parity_get libra attack_submit)"
[[ $(parity_get libra attack_update) != accepted* ]] && [[ $(parity_get libra attack_update_resv) != libra_* ]] ||
	expect_fail "libra: the owner's update to the booking's reservation was not refused: $(parity_get libra attack_update) (reservation now '$(parity_get libra attack_update_resv)')"
expect_eq "" "$(parity_get libra fill_on_node)" "libra: jobs without an SLA on the booked node at its begin"
expect_eq yes "$(parity_get libra b_started)" "libra: the booked job started by its begin plus $LIMIT s"
bl=$(parity_get libra b_late)
[ -z "$bl" ] || [ "$bl" -le "$LIMIT" ] ||
	expect_fail "libra: the booked job started $bl s after its begin, not within $LIMIT s"
expect_eq COMPLETED "$(parity_get libra b_state)" "libra: the booked job's state"
expect_eq yes "$(parity_get libra b_met)" "libra: the booked job met its deadline"
parity_stop
expect_done
pass
