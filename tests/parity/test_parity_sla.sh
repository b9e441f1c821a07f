#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both and wait_until
# test_parity_sla: an SLA job is admitted only where select_nodes() would
# start it (design.md decision 29), run on the stock and the
# plugin cluster at once with the same submission (stock takes the
# --comment as a plain comment; README.md):
#  (r) a reservation on n1-n3 starting 60 s from now, inside the job's
#      window: the job runs on n4; with -w n1 stock holds it and libra
#      refuses it, naming the reservation; with --reservation=maint (its
#      start after the job's) libra refuses it, giving the reservation's
#      time and offering the booking at its start, which it then admits;
#  (c) -C feat where only n2 has the feature: the job runs on n2;
#  (p) -p pa,pb with pa (n1) held by a job: the job runs in pb; -N 4
#      there, which neither takes, is refused with both reasons;
#  (x) --exclusive while a job (an SLA job on libra) runs on one node: the
#      job runs elsewhere, at once.
# Each SLA job ends COMPLETED (never UNSTARTED) and starts within
# libra_interval + slack of its submission.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
parity_init
parity_start

SLA="runtime=5s,deadline=10m,budget=1000"

# _run_sla WHAT SBATCH-ARGS...: submit the SLA job (sleep 1); put its
# admission line, when it ran, its node, partition and end state.
_run_sla() {
	local what=$1 j t0=$SECONDS
	shift
	psub "$what" --comment="$SLA" "$@" --wrap 'sleep 1'
	j=$SB_JOBID
	parity_put "${what}_msg" "$(printf '%s' "$SB_OUT" | grep -o 'libra: [a-z]*' | head -n 1)"
	wait_until 60 "$what to start" job_started "$j"
	parity_put "${what}_wait" $((SECONDS - t0))
	wait_until 120 "$what to end" job_ended "$j"
	wait_until 60 "accounting of $what" eval \
		"sacct -n -X -P -j $j -o State | grep -qv '^PENDING\$\|^RUNNING\$'"
	parity_put "${what}_node" "$(sacct -n -X -P -j "$j" -o NodeList | head -n 1)"
	# slurmctld's record: a job started and ended within a second can
	# reach sacct without its partition for a moment (seen on libra)
	parity_put "${what}_part" "$(job_field "$j" Partition)"
	parity_put "${what}_state" "$(sacct -n -X -P -j "$j" -o State | head -n 1)"
}

# (r) reservation on n1-n3 inside the window
scen_resv() {
	scontrol create reservation ReservationName=maint StartTime=now+60 \
		Duration=10 Nodes=n1,n2,n3 Users=root Flags=maint >/dev/null ||
		fail "cannot create the reservation"
	_run_sla r -n 1 --time=2
	# only n1 allowed: stock holds the job for the reservation, libra
	# refuses it and names the reservation
	libra_sbatch -J rw -w n1 --comment="$SLA" --time=2 --wrap true
	parity_put r_w_rc "$SB_RC"
	parity_put r_w_msg "$(printf '%s' "$SB_OUT" | grep 'libra: ' | head -n 1)"
	[ -z "$SB_JOBID" ] || parity_put r_w_reason "$(job_reason "$SB_JOBID")"
	# in the reservation, which begins after the job's window does:
	# stock holds it until then, libra refuses it saying so
	libra_sbatch -J rr --reservation=maint --comment="$SLA" --time=2 --wrap true
	parity_put r_in_rc "$SB_RC"
	parity_put r_in_msg "$(printf '%s' "$SB_OUT" | grep 'libra: ' | head -n 1)"
	if [ -n "$SB_JOBID" ]; then
		# a reservation is deleted only once no job names it
		scancel "$SB_JOBID"
		wait_until 60 "the job in the reservation to end" job_ended "$SB_JOBID"
	fi
	# the booking libra's refusal offers: admitted, to begin then
	local begin
	begin=$(printf '%s' "$SB_OUT" | sed -n 's/.*submit it with --begin=\([^ ]*\) .*/\1/p')
	if [ -n "$begin" ]; then
		libra_sbatch -J rb --reservation=maint --begin="$begin" --comment="$SLA" --time=2 --wrap true
		parity_put r_book_msg "$(printf '%s' "$SB_OUT" | grep 'libra: ' | head -n 1)"
		if [ -n "$SB_JOBID" ]; then
			scancel "$SB_JOBID"
			wait_until 60 "the booked job to end" job_ended "$SB_JOBID"
		fi
	fi
	scontrol delete ReservationName=maint || fail "cannot delete the reservation"
}

# (c) -C feat, only n2 has it
scen_feature() {
	scontrol update NodeName=n2 AvailableFeatures=feat ActiveFeatures=feat ||
		fail "cannot give n2 the feature"
	_run_sla c -n 1 --time=2 -C feat
}

# (p) -p pa,pb with pa full
scen_parts() {
	local h
	scontrol create PartitionName=pa Nodes=n1 State=UP >/dev/null ||
		fail "cannot create partition pa"
	scontrol create PartitionName=pb Nodes=n2,n3,n4 State=UP >/dev/null ||
		fail "cannot create partition pb"
	psub "pa's holder" -p pa -J hold --time=2 --wrap "$(gate_wait "$LIBRA_WORK/pa")"
	h=$SB_JOBID
	wait_until 60 "pa's holder to run" job_in_state "$h" RUNNING
	_run_sla p -n 1 --time=2 -p pa,pb
	# four nodes: neither partition has them; libra's refusal gives
	# both partitions' reasons
	libra_sbatch -J p4 -N 4 -p pa,pb --comment="$SLA" --time=2 --wrap true
	parity_put p4_rc "$SB_RC"
	parity_put p4_msg "$(printf '%s' "$SB_OUT" | grep 'libra: ' | head -n 1)"
	if [ -n "$SB_JOBID" ]; then
		# stock 24.11 and later keep it pending (22.05 refuses it); a
		# partition is deleted only once no job names it
		scancel "$SB_JOBID"
		wait_until 60 "the four-node job to end" job_ended "$SB_JOBID"
	fi
	gate_open "$LIBRA_WORK/pa"
	wait_until 60 "pa's holder to end" job_ended "$h"
	scontrol delete PartitionName=pa || fail "cannot delete partition pa"
	scontrol delete PartitionName=pb || fail "cannot delete partition pb"
}

# (x) --exclusive beside a running job
scen_exclusive() {
	local h node
	psub "x's holder" -J xhold --comment="runtime=60s,deadline=10m,budget=1000" \
		--time=2 --wrap "$(gate_wait "$LIBRA_WORK/x")"
	h=$SB_JOBID
	wait_until 60 "x's holder to run" job_in_state "$h" RUNNING
	node=$(job_field "$h" NodeList)
	parity_put x_holder "$node"
	_run_sla x -n 1 --time=2 --exclusive
	gate_open "$LIBRA_WORK/x"
	wait_until 60 "x's holder to end" job_ended "$h"
}

g() { parity_get "$@"; }
reset() { both parity_reset || fail "the clusters could not be emptied for the next scenario"; }

# sla_alike L [NODE]: the SLA job completed on both (on NODE when given)
# and started in time; libra admitted it.
sla_alike() {
	local l=$1 node=${2:-} side
	for side in stock libra; do
		expect_eq COMPLETED "$(g $side "${l}_state")" "($l) end state of the SLA job on $side"
		[ -z "$node" ] || expect_eq "$node" "$(g $side "${l}_node")" "($l) node of the SLA job on $side"
	done
	expect_eq "libra: admitted" "$(g libra "${l}_msg")" "($l) admission of the SLA job on libra"
	[ "$(g libra "${l}_wait")" -le $((PARITY_INTERVAL + PARITY_SLACK + 2)) ] ||
		expect_fail "($l) the SLA job started $(g libra "${l}_wait") s after its submission on libra (stock: $(g stock "${l}_wait") s)"
}

if parity_want r && both scen_resv; then
	note "parity (r): reservation on n1-n3 from now+60 s: the job ran on $(g stock r_node) on stock, $(g libra r_node) on libra ($(g libra r_msg)), started after $(g stock r_wait) s / $(g libra r_wait) s"
	sla_alike r n4
	note "parity (r): -w n1 inside the reservation: stock held it ($(g stock r_w_reason)); libra: $(g libra r_w_msg)"
	expect_eq 0 "$(g stock r_w_rc)" "(r) sbatch -w n1 on stock"
	[ "$(g libra r_w_rc)" != 0 ] || expect_fail "(r) sbatch -w n1 was accepted on libra"
	[[ "$(g libra r_w_msg)" == *"reservation maint"* ]] ||
		expect_fail "(r) the refusal of -w n1 on libra does not name reservation maint: $(g libra r_w_msg)"
	note "parity (r): --reservation=maint, which begins after the job's start: libra: $(g libra r_in_msg)"
	expect_eq 0 "$(g stock r_in_rc)" "(r) sbatch --reservation=maint on stock"
	[[ "$(g libra r_in_msg)" == *"--reservation=maint runs from"* ]] ||
		expect_fail "(r) the refusal of --reservation=maint on libra does not give the reservation's time: $(g libra r_in_msg)"
	[[ "$(g libra r_in_msg)" == *"; to book it there, submit it with --begin="* ]] ||
		expect_fail "(r) the refusal of --reservation=maint on libra does not offer the booking at its start: $(g libra r_in_msg)"
	note "parity (r): the booking offered: libra: $(g libra r_book_msg)"
	[[ "$(g libra r_book_msg)" == *"libra: admitted"* ]] ||
		expect_fail "(r) the booking the refusal offered was not admitted on libra: $(g libra r_book_msg)"
fi
reset

if parity_want c && both scen_feature; then
	note "parity (c): -C feat (n2 only): ran on $(g stock c_node) on stock, $(g libra c_node) on libra"
	sla_alike c n2
fi
reset

if parity_want p && both scen_parts; then
	note "parity (p): -p pa,pb with pa held: ran in $(g stock p_part) on $(g stock p_node) on stock, in $(g libra p_part) on $(g libra p_node) on libra"
	sla_alike p
	parity_same p_part "(p) partition of the SLA job"
	note "parity (p): -N 4 -p pa,pb: stock sbatch exit $(g stock p4_rc); libra: $(g libra p4_msg)"
	[ "$(g libra p4_rc)" != 0 ] || expect_fail "(p) sbatch -N 4 -p pa,pb was accepted on libra"
	[[ "$(g libra p4_msg)" == *"[in partition pb; the job's other partitions refused it too: pa: "* ]] ||
		expect_fail "(p) libra's refusal of -N 4 -p pa,pb does not give pa's reason: $(g libra p4_msg)"
	expect_eq pb "$(g libra p_part)" "(p) partition of the SLA job on libra"
fi
reset

if parity_want x && both scen_exclusive; then
	note "parity (x): --exclusive beside a job on $(g stock x_holder) / $(g libra x_holder): ran on $(g stock x_node) on stock, $(g libra x_node) on libra"
	sla_alike x
	for side in stock libra; do
		[ "$(g $side x_node)" != "$(g $side x_holder)" ] ||
			expect_fail "(x) the exclusive job ran on the holder's node $(g $side x_holder) on $side"
	done
fi

parity_plugin_errors
parity_stop
expect_done
pass
