#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both, on and wait_until
# test_parity_limits: what keeps a job without an SLA from starting, the
# same on a stock cluster (sched/backfill) and on the plugin cluster
# (sched/libra, libra_no_sla=slurm), run on both at once (README.md):
#  (d) Licenses=lic:1, two jobs -L lic:1: never two holders, both complete;
#  (e) partition batch DOWN: a new job does not start, with the same
#      pending reason; it starts once the partition is UP again;
#  (f) an association limit MaxJobs=1: the user's second job pends with
#      the same reason, and runs once the first has ended; (k) then a
#      job with an SLA as well: stock holds it (AssocMaxJobsLimit),
#      libra refuses it naming that limit (design.md decision 29); (l) then
#      GrpTRES=cpu=1 instead, one CPU in use: the same for an SLA job;
#      (m) then GrpTRES=mem=150 (MB; the nodes track memory here), 100 MB
#      in use: the same for an SLA job asking --mem=100;
#  (j) (d) with an SLA (design.md decision 29): stock holds the second job
#      for the license; libra refuses it naming the license (never admitted to
#      wait), and admits it again once the first has ended;
#  (h) a long queue (PARITY_QUEUE_JOBS, default 5000) of pending jobs of
#      higher priority that cannot start, then one that can: it starts
#      within one libra_interval plus a slack, and none of the queue does.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# Nodes that track memory, for (m): 1 CPU and 1000 MB each (DefMemPerCPU
# 100, libra-cluster's default with a node spec).
PARITY_NODE_SPEC=n1:1:1000,n2:1:1000,n3:1:1000,n4:1:1000
parity_init
parity_add_user
parity_start

QUEUE_JOBS=${PARITY_QUEUE_JOBS:-5000}
SLA="runtime=5s,deadline=10m,budget=1000"	# (j), (k)
SUBMIT=$LIBRA_BUILD/tests/reliability/libra_submit
if [ ! -x "$SUBMIT" ]; then
	make -C "$LIBRA_BUILD/tests/reliability" libra_submit >/dev/null 2>&1 ||
		fail "$SUBMIT is missing and could not be built (make -C tests/reliability libra_submit)"
fi

# _window T0 JOBID: PARITY_INTERVAL + 2 s have passed since T0 ($SECONDS)
# (a sched/libra pass and a main scheduler run at least), or the job
# started meanwhile.  A check that something does NOT happen needs a
# window; this is the only one the suite has.
_window() { elapsed_since "$1" $((PARITY_INTERVAL + 2)) || job_started "$2"; }

# ---------------------------------------------------------------------------
# (d) one license, two jobs that want it
# ---------------------------------------------------------------------------
LIC_MAX=0
# _lic_sample JOBID...: how many of the jobs run now (the most seen kept).
_lic_sample() {
	local j n=0
	for j in "$@"; do
		[ "$(job_state "$j")" != RUNNING ] || n=$((n + 1))
	done
	[ "$n" -le "$LIC_MAX" ] || LIC_MAX=$n
}
# _lic_until COND JOBID...: sample, then test COND (a command) on the jobs.
_lic_sample_started() { _lic_sample "$@" && job_started "$2"; }
_lic_sample_ended() {
	_lic_sample "$@"
	job_ended "$1" && job_ended "$2"
}
scen_license() {
	local a b first second t0=$SECONDS rows
	LIC_MAX=0
	psub "license job 1" -J lic1 -L lic:1 --time=1 --wrap "$(gate_wait "$LIBRA_WORK/lic1")"
	a=$SB_JOBID
	psub "license job 2" -J lic2 -L lic:1 --time=1 --wrap "$(gate_wait "$LIBRA_WORK/lic2")"
	b=$SB_JOBID
	wait_until 60 "a license job to run" eval "job_started $a || job_started $b"
	if job_started "$a"; then
		first=$a second=$b
		parity_put d_first lic1
	else
		first=$b second=$a
		parity_put d_first lic2
	fi
	wait_until 60 "the second license job to have a reason" job_has_reason "$second"
	wait_until 60 "a window for the second license job" _window "$t0" "$second"
	_lic_sample "$a" "$b"
	parity_put d_reason "$(job_reason "$second")"
	parity_put d_state "$(job_state "$second")"
	gate_open "$LIBRA_WORK/$(job_field "$first" JobName)"
	wait_until 120 "the second license job to run" _lic_sample_started "$first" "$second"
	gate_open "$LIBRA_WORK/$(job_field "$second" JobName)"
	wait_until 120 "both license jobs to end" _lic_sample_ended "$a" "$b"
	wait_until 120 "accounting of both license jobs" eval \
		"[ \"\$(sacct -n -X -P -j $a,$b -o State | grep -c COMPLETED)\" = 2 ]"
	rows=$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$first,$second" -o Start,End)
	parity_put d_max "$LIC_MAX"
	# The second may start in the second the first ended, not before.
	parity_put d_gap "$(awk -F'|' 'NR == 1 { e = $2 } NR == 2 { print $1 - e }' <<<"$rows")"
	note "(d) done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------
# (e) partition DOWN
# ---------------------------------------------------------------------------
scen_down() {
	local j t0=$SECONDS
	scontrol update PartitionName=batch State=DOWN || fail "cannot set the partition DOWN"
	psub "job for a DOWN partition" -J down --time=1 --wrap true
	j=$SB_JOBID
	wait_until 60 "the job to have a reason" job_has_reason "$j"
	wait_until 60 "a window for the job" _window "$t0" "$j"
	parity_put e_state "$(job_state "$j")"
	parity_put e_reason "$(job_reason "$j")"
	scontrol update PartitionName=batch State=UP || fail "cannot set the partition UP"
	t0=$SECONDS
	wait_until 60 "the job to start once the partition is UP" job_started "$j"
	parity_put e_up_wait $((SECONDS - t0))
	note "(e) done"
}

# ---------------------------------------------------------------------------
# (f) association limit MaxJobs=1
# ---------------------------------------------------------------------------
_assoc_maxjobs() {
	scontrol show assoc_mgr users="$PARITY_USER" flags=assoc 2>/dev/null |
		grep -q "MaxJobs=$1("
}
# _assoc_limit TEXT: the user's association shows the limit TEXT (e.g.
# GrpTRES=cpu=1) in slurmctld's assoc_mgr.
_assoc_limit() {
	scontrol show assoc_mgr users="$PARITY_USER" flags=assoc 2>/dev/null |
		grep -q "$1("
}
# _sla_limited KEY NAME [SBATCH_ARG...]: a job with an SLA of the limited
# user, named NAME;
# its sbatch exit and output (KEY_rc, KEY_out) and, when it was made (stock),
# its state and reason after a window (KEY_state, KEY_reason); then it is
# cancelled and gone, so that the scenario goes on as before.
_sla_limited() {
	local t0=$SECONDS
	SB_USER=$PARITY_USER libra_sbatch -J "$2" --comment="$SLA" "${@:3}" --wrap true
	parity_put "$1_rc" "$SB_RC"
	parity_put "$1_out" "$(tr '\n' ' ' <<<"$SB_OUT")"
	[ -n "$SB_JOBID" ] || return 0
	wait_until 60 "the SLA job $2 to have a reason" job_has_reason "$SB_JOBID"
	wait_until 60 "a window for the SLA job $2" _window "$t0" "$SB_JOBID"
	parity_put "$1_state" "$(job_state "$SB_JOBID")"
	parity_put "$1_reason" "$(job_reason "$SB_JOBID")"
	scancel "$SB_JOBID" || fail "cannot cancel job $SB_JOBID"
	wait_until 60 "the SLA job $2 to end" job_ended "$SB_JOBID"
}
scen_maxjobs() {
	local a b t0
	sacctmgr -i modify user "$PARITY_USER" set MaxJobs=1 >/dev/null ||
		fail "sacctmgr modify user $PARITY_USER set MaxJobs=1 failed"
	wait_until 60 "slurmctld to have MaxJobs=1 for $PARITY_USER" _assoc_maxjobs 1
	t0=$SECONDS
	SB_USER=$PARITY_USER psub "limited job 1" -J max1 --time=1 --wrap "$(gate_wait "$LIBRA_WORK/max1")"
	a=$SB_JOBID
	SB_USER=$PARITY_USER psub "limited job 2" -J max2 --time=1 --wrap "$(gate_wait "$LIBRA_WORK/max2")"
	b=$SB_JOBID
	wait_until 60 "the first limited job to run" job_in_state "$a" RUNNING
	wait_until 60 "the second limited job to have a reason" job_has_reason "$b"
	wait_until 60 "a window for the second limited job" _window "$t0" "$b"
	parity_put f_state "$(job_state "$b")"
	parity_put f_reason "$(job_reason "$b")"
	# (k) the same limit for a job with an SLA (stock: cancelled once
	# its reason is seen, so that (f) goes on as before)
	_sla_limited k max3
	gate_open "$LIBRA_WORK/max1"
	t0=$SECONDS
	wait_until 120 "the second limited job to run" job_started "$b"
	parity_put f_next_wait $((SECONDS - t0))
	gate_open "$LIBRA_WORK/max2"
	wait_until 120 "the limited jobs to end" eval "job_ended $a && job_ended $b"
	# (l) GrpTRES=cpu=1 instead: one CPU in use, an SLA job for another
	sacctmgr -i modify user "$PARITY_USER" set MaxJobs=-1 GrpTRES=cpu=1 >/dev/null ||
		fail "sacctmgr modify user $PARITY_USER set MaxJobs=-1 GrpTRES=cpu=1 failed"
	wait_until 60 "slurmctld to have GrpTRES=cpu=1 and no MaxJobs for $PARITY_USER" \
		eval '_assoc_limit GrpTRES=cpu=1 && ! _assoc_maxjobs 1'
	SB_USER=$PARITY_USER psub "CPU-limited job" -J grp1 --time=1 --wrap "$(gate_wait "$LIBRA_WORK/grp1")"
	a=$SB_JOBID
	wait_until 60 "the CPU-limited job to run" job_in_state "$a" RUNNING
	_sla_limited l grp2
	gate_open "$LIBRA_WORK/grp1"
	wait_until 120 "the CPU-limited job to end" job_ended "$a"
	sacctmgr -i modify user "$PARITY_USER" set GrpTRES=cpu=-1 >/dev/null ||
		fail "sacctmgr modify user $PARITY_USER set GrpTRES=cpu=-1 failed"
	wait_until 60 "slurmctld to drop GrpTRES for $PARITY_USER" eval '! _assoc_limit GrpTRES=cpu=1'
	# (m) GrpTRES=mem=150 instead: 100 MB in use, an SLA job asking 100 MB
	sacctmgr -i modify user "$PARITY_USER" set GrpTRES=mem=150 >/dev/null ||
		fail "sacctmgr modify user $PARITY_USER set GrpTRES=mem=150 failed"
	wait_until 60 "slurmctld to have GrpTRES mem=150 for $PARITY_USER" _assoc_limit mem=150
	SB_USER=$PARITY_USER psub "memory-limited job" -J mem1 --mem=100 --time=1 --wrap "$(gate_wait "$LIBRA_WORK/mem1")"
	a=$SB_JOBID
	wait_until 60 "the memory-limited job to run" job_in_state "$a" RUNNING
	_sla_limited m mem2 --mem=100
	gate_open "$LIBRA_WORK/mem1"
	wait_until 120 "the memory-limited job to end" job_ended "$a"
	sacctmgr -i modify user "$PARITY_USER" set GrpTRES=mem=-1 >/dev/null ||
		fail "sacctmgr modify user $PARITY_USER set GrpTRES=mem=-1 failed"
	wait_until 60 "slurmctld to drop GrpTRES mem for $PARITY_USER" eval '! _assoc_limit mem=150'
	note "(f) done"
}

# ---------------------------------------------------------------------------
# (j) one license, two jobs with an SLA that want it (design.md decision 29)
# ---------------------------------------------------------------------------
scen_sla_license() {
	local a b t0=$SECONDS
	psub "SLA license job 1" -J slic1 -L lic:1 --comment="$SLA" --wrap "$(gate_wait "$LIBRA_WORK/slic1")"
	a=$SB_JOBID
	wait_until 60 "the first SLA license job to run" job_in_state "$a" RUNNING
	libra_sbatch -J slic2 -L lic:1 --comment="$SLA" --wrap "$(gate_wait "$LIBRA_WORK/slic2")"
	b=$SB_JOBID
	parity_put j_rc "$SB_RC"
	parity_put j_out "$(tr '\n' ' ' <<<"$SB_OUT")"
	if [ -n "$b" ]; then
		wait_until 60 "the second SLA license job to have a reason" job_has_reason "$b"
		parity_put j_state "$(job_state "$b")"
		parity_put j_reason "$(job_reason "$b")"
	fi
	gate_open "$LIBRA_WORK/slic1"
	wait_until 60 "the first SLA license job to end" job_ended "$a"
	if [ -z "$b" ]; then
		psub "SLA license job 2 again" -J slic2 -L lic:1 --comment="$SLA" --wrap "$(gate_wait "$LIBRA_WORK/slic2")"
		b=$SB_JOBID
		parity_put j_again "$(tr '\n' ' ' <<<"$SB_OUT")"
	fi
	wait_until 60 "the second SLA license job to run" job_started "$b"
	gate_open "$LIBRA_WORK/slic2"
	wait_until 60 "the second SLA license job to end" job_ended "$b"
	wait_until 60 "accounting of both SLA license jobs" eval \
		"[ \"\$(sacct -n -X -P -j $a,$b -o State | grep -c COMPLETED)\" = 2 ]"
	parity_put j_gap "$(($(epoch_field "$b" Start) - $(epoch_field "$a" End)))"
	note "(j) done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------
# (h) a long queue that cannot start, ahead of one job that can
# ---------------------------------------------------------------------------
# _queue_ready N: N pending jobs of priority 20000.
_queue_ready() { [ "$(squeue -h -t PD -o %Q | grep -cx 20000)" = "$1" ]; }
scen_queue() {
	local blk ids x t0=$SECONDS t1 ms times
	psub "queue blocker" -J qblk --wrap "$(gate_wait "$LIBRA_WORK/qblk")"
	blk=$SB_JOBID
	wait_until 120 "the queue's blocker to run" job_in_state "$blk" RUNNING
	# The queue: QUEUE_JOBS jobs through the Slurm API (sbatch would take
	# over a minute here) while the partition is DOWN, then in one
	# scontrol update each made to wait for the blocker (afterok) at
	# priority 20000, above anything sbatch gives (10000 - nice), and the
	# partition UP again: pending, ahead of every other job, unable to
	# start while the blocker runs.  (Held jobs would not be ahead, at
	# priority 0, and Slurm sets no priority on a held job.)
	scontrol update PartitionName=batch State=DOWN || fail "cannot set the partition DOWN"
	"$SUBMIT" -n "$QUEUE_JOBS" -w 2 -q -D "$LIBRA_WORK" -x true >"$PARITY_TMP/$PARITY_SIDE.submit" ||
		fail "libra_submit: $(cat "$PARITY_TMP/$PARITY_SIDE.submit")"
	ids=$(squeue -h -t PD -o %i | paste -sd, -)
	[ "$(tr ',' '\n' <<<"$ids" | grep -c .)" = "$QUEUE_JOBS" ] ||
		fail "expected $QUEUE_JOBS pending jobs, squeue has $(tr ',' '\n' <<<"$ids" | grep -c .)"
	scontrol update JobId="$ids" Dependency="afterok:$blk" Priority=20000 ||
		fail "scontrol update of the queue failed"
	wait_until 120 "the queue of $QUEUE_JOBS jobs at priority 20000" _queue_ready "$QUEUE_JOBS"
	scontrol update PartitionName=batch State=UP || fail "cannot set the partition UP"
	parity_put h_setup $((SECONDS - t0))
	t1=$(date +%s%N)
	psub "startable job" -J startable --time=1 --wrap "$(gate_wait "$LIBRA_WORK/startable")"
	x=$SB_JOBID
	wait_until 120 "the startable job to start" job_started "$x"
	ms=$((($(date +%s%N) - t1) / 1000000))
	times=$(SLURM_TIME_FORMAT=%s squeue -h -t all -j "$x" -o '%V %S')
	parity_put h_wait "$(awk '{ print $2 - $1 }' <<<"$times")"
	parity_put h_wait_ms "$ms"
	parity_put h_running "$(squeue -h -t R -o %j | sort | paste -sd' ' -)"
	parity_put h_pending "$(squeue -h -t PD -o %i | grep -c .)"
	gate_open "$LIBRA_WORK/startable"
	note "(h) done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------
# The scenarios, each on both clusters at once; the checks compare.
# ---------------------------------------------------------------------------
g() { parity_get "$@"; }
reset() { both parity_reset || fail "the clusters could not be emptied for the next scenario"; }

# held_alike LETTER WHAT WAIT_KEY WAIT_TEXT: scenario LETTER held a job
# (WHAT) on both clusters: PENDING on stock, the same state and reason on
# libra, and once let go it started on libra no later than on stock plus
# one interval and the slack (WAIT_KEY: seconds from the release).
held_alike() {
	local l=$1 what=$2 key=$3 text=$4
	expect_eq PENDING "$(g stock "${l}_state")" "($l) state of $what on stock"
	parity_same "${l}_state" "($l) state of $what"
	parity_same "${l}_reason" "($l) reason of $what"
	[ "$(g libra "$key")" -le $(($(g stock "$key") + PARITY_INTERVAL + PARITY_SLACK)) ] ||
		expect_fail "($l) $text $(g libra "$key") s on libra, $(g stock "$key") s on stock"
}

# sla_refused_alike LETTER WHAT REASON: scenario LETTER's SLA job (WHAT)
# was held on stock with REASON, and refused by libra naming it
# (design.md decision 29).
sla_refused_alike() {
	local l=$1
	note "parity ($l): $2: stock exit $(g stock "${l}_rc"), $(g stock "${l}_state") '$(g stock "${l}_reason")'; libra exit $(g libra "${l}_rc"): $(g libra "${l}_out")"
	expect_eq 0 "$(g stock "${l}_rc")" "($l) stock accepts the SLA job"
	expect_eq PENDING "$(g stock "${l}_state")" "($l) state of the SLA job on stock"
	expect_eq "$3" "$(g stock "${l}_reason")" "($l) reason of the SLA job on stock"
	[ "$(g libra "${l}_rc")" != 0 ] ||
		expect_fail "($l) libra admitted the SLA job to be held: $(g libra "${l}_out")"
	expect_contains "$(g libra "${l}_out")" "libra: rejected: limits: Slurm would hold the job with reason $3" "($l) libra's refusal"
}

if parity_want d && both scen_license; then
	note "parity (d): license jobs: at most $(g stock d_max) holder(s) at once on stock, $(g libra d_max) on libra; the second waited with reason '$(g stock d_reason)' on stock, '$(g libra d_reason)' on libra; from the first's end to the second's start $(g stock d_gap) s on stock, $(g libra d_gap) s on libra"
	for side in stock libra; do
		expect_eq 1 "$(g $side d_max)" "(d) license holders running at once on $side"
		expect_eq PENDING "$(g $side d_state)" "(d) state of the second license job on $side"
		[ "$(g $side d_gap)" -ge 0 ] ||
			expect_fail "(d) the second license job started $(g $side d_gap) s after the first ended on $side"
	done
	parity_same d_reason "(d) reason of the second license job"
fi
reset

if parity_want e && both scen_down; then
	note "parity (e): job in a DOWN partition: $(g stock e_state) '$(g stock e_reason)' on stock, $(g libra e_state) '$(g libra e_reason)' on libra; started $(g stock e_up_wait) s / $(g libra e_up_wait) s after State=UP"
	held_alike e "the job in the DOWN partition" e_up_wait "after State=UP the job started in"
fi
reset

if parity_want f && both scen_maxjobs; then
	note "parity (f): MaxJobs=1: the second job $(g stock f_state) '$(g stock f_reason)' on stock, $(g libra f_state) '$(g libra f_reason)' on libra; it started $(g stock f_next_wait) s / $(g libra f_next_wait) s after the first's gate opened"
	held_alike f "the second job" f_next_wait "after the first's gate opened the second job started in"
	sla_refused_alike k "MaxJobs=1, an SLA job as well" AssocMaxJobsLimit
	sla_refused_alike l "GrpTRES=cpu=1 and one CPU in use, an SLA job" AssocGrpCpuLimit
	sla_refused_alike m "GrpTRES=mem=150 and 100 MB in use, an SLA job asking 100 MB" AssocGrpMemLimit
fi
reset

if parity_want j && both scen_sla_license; then
	note "parity (j): SLA license jobs: the second was accepted (exit $(g stock j_rc)) and held '$(g stock j_reason)' on stock; on libra exit $(g libra j_rc): $(g libra j_out); again after the first ended: $(g libra j_again); from the first's end to the second's start $(g stock j_gap) s on stock, $(g libra j_gap) s on libra"
	expect_eq 0 "$(g stock j_rc)" "(j) stock accepts the second SLA license job"
	expect_eq PENDING "$(g stock j_state)" "(j) state of the second SLA license job on stock"
	expect_eq Licenses "$(g stock j_reason)" "(j) reason of the second SLA license job on stock"
	[ "$(g libra j_rc)" != 0 ] ||
		expect_fail "(j) libra admitted the second SLA license job to wait: $(g libra j_out)"
	expect_contains "$(g libra j_out)" "libra: rejected: licenses: lic: 1 asked, 0 free until" "(j) libra's refusal"
	expect_contains "$(g libra j_again)" "libra: admitted: price " "(j) libra's admission once the license is free"
	for side in stock libra; do
		[ "$(g $side j_gap)" -ge 0 ] ||
			expect_fail "(j) the second SLA license job started $(g $side j_gap) s after the first ended on $side"
	done
fi
reset

if parity_want h && both scen_queue; then
	note "parity (h): $QUEUE_JOBS pending jobs ahead (set up in $(g stock h_setup) s / $(g libra h_setup) s): the startable job started $(g stock h_wait) s after its submission on stock ($(g stock h_wait_ms) ms from sbatch to seen started), $(g libra h_wait) s on libra ($(g libra h_wait_ms) ms)"
	for side in stock libra; do
		expect_eq "qblk startable" "$(g $side h_running)" "(h) the jobs running on $side"
		expect_eq "$QUEUE_JOBS" "$(g $side h_pending)" "(h) jobs of the queue still pending on $side"
	done
	[ "$(g libra h_wait)" -le $((PARITY_INTERVAL + PARITY_SLACK)) ] ||
		expect_fail "(h) the startable job waited $(g libra h_wait) s on libra, more than $PARITY_INTERVAL + $PARITY_SLACK s (stock: $(g stock h_wait) s)"
fi

parity_plugin_errors
parity_stop
expect_done
pass
