#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_sched_launch: slurmctld killed (SIGKILL) around the launch of a job
# sched/libra started (DURABILITY in sched_libra(8)).  sched/libra writes
# the job state with the job running before it launches it; the restarted
# slurmctld finds it running with no batch step record (launch_job() makes
# it), and its node's registration tells whether the launch got there.
#
#  - killed between that write and the launch (LIBRA_TEST_LAUNCH_DELAY
#    holds the launch back so that the test can kill in between): the job
#    is launched after the restart;
#  - killed just after the launch, before any later write: the job keeps
#    running (its node lists it), not started a second time;
#  - the same, the job ending while slurmctld is down: its end is taken
#    (sched/libra gave it back its batch step record), it is not launched
#    again;
#  - killed just after the launch, the job state written last one packed
#    before the start (slurmctld's state save thread and sched/libra both
#    write it, and no lock orders the two writes: LIBRA_TEST_STALE_STATE
#    keeps a copy of the state written before the start, which the test
#    puts in place while slurmctld is down): the restarted slurmctld has
#    the job pending, and the journal of starts has it running on n1
#    again, not started a second time;
#  - the same for an interactive job (srun): its step goes on, and srun
#    ends as the job does;
#  - the same for a job that ran and ended before the kill: taken as
#    running, then ended as the journal of ended jobs says, not run again;
#  - a node left completing a job (its epilog held back, as by a slurmd
#    killed in a job's end): a job submitted as the node begins completing
#    is admitted there and starts once it is done; once the node has been
#    completing longer than MessageTimeout (10 s), admission leaves it out
#    and the refusal says why, and the job admitted there waits for it
#    with a reason that says so (no other node to place it on; design.md
#    decision 29).
#
# Either way the job runs once, ends COMPLETED with one accounting row and
# one settled record, and its node is not drained ("Duplicate jobid").
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1
libra_cluster_env 'libra_policy=libra+$'
# held back long enough to kill slurmctld in between, on a busy machine too
export LIBRA_TEST_LAUNCH_DELAY=30
# an epilog that the seventh case holds back (written once the cluster is
# up: its start makes the work directory anew)
export LIBRA_EXTRA_CONF="Epilog=$LIBRA_WORK/epilog"
# the job state as written before each start, and each launch logged
export LIBRA_TEST_STALE_STATE=1
cluster_start
# the epilog: held back while epilog-hold is there, until epilog-go is
# (at most 5 minutes)
epilog_hold=$LIBRA_WORK/epilog-hold epilog_go=$LIBRA_WORK/epilog-go
cat >"$LIBRA_WORK/epilog" <<EOF
#!/bin/sh
n=0
while [ -e $epilog_hold ] && [ ! -e $epilog_go ] && [ \$n -lt 300 ]; do sleep 1; n=\$((n + 1)); done
exit 0
EOF
chmod 755 "$LIBRA_WORK/epilog"
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
runs=$LIBRA_WORK/runs
log=$LIBRA_CLUSTER_DIR/log/slurmctld.log

# job_script GATE: a job that notes that it runs, then waits at GATE.
# shellcheck disable=SC2016 # $SLURM_JOB_ID expands in the job
job_script() { printf 'echo "$SLURM_JOB_ID" >>%q; %s' "$runs" "$(gate_wait "$1" "$burn 1")"; }

kill_restart() {
	local t0=$SECONDS
	"$LIBRA_CLUSTER" kill slurmctld >/dev/null
	"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
	note "slurmctld back $((SECONDS - t0)) s after the SIGKILL"
}

# check_once JOBID GATE: the job runs; let go at GATE, it ends
# (check_ended).
check_once() {
	wait_until 120 "job $1 to run" job_in_state "$1" RUNNING
	wait_until 120 "job $1 to note that it runs" grep -qx "$1" "$runs"
	gate_open "$2"
	check_ended "$1"
}

# check_ended JOBID: the job ran once and ended COMPLETED, with one row and
# one settled record in accounting.
check_ended() {
	local j=$1
	wait_until 120 "job $j to end" job_ended "$j"
	assert_eq COMPLETED "$(job_state "$j")" "state of job $j"
	assert_eq 1 "$(grep -cx "$j" "$runs")" "runs of job $j"
	wait_until 120 "job $j's settled record in accounting" sacct_record_final "$j"
	assert_eq "1" "$(sacct -n -X -D -P -j "$j" -o JobID | grep -c .)" "accounting rows of job $j"
	assert_eq COMPLETED "$(sacct_field "$j" State)" "sacct State of job $j"
}

# --- killed between the state write and the launch ----------------------------
gate1=$LIBRA_WORK/go-1
libra_sbatch_admitted "job held before its launch" -J held -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script "$gate1")"
j1=$SB_JOBID
wait_until 60 "sched/libra to hold job $j1's launch back" \
	grep -qF "sched/libra: LIBRA_TEST_LAUNCH_DELAY: launching" "$log"
grep -qF "sched/libra: started JobId=$j1 " "$log" || fail "slurmctld's log does not show job $j1 started"
[ ! -s "$runs" ] || fail "job $j1 ran before its launch: $(cat "$runs")"
# the restarted slurmctld launches at once
export LIBRA_TEST_LAUNCH_DELAY=0
note "SIGKILL slurmctld while job $j1's launch is held back"
kill_restart
wait_until 60 "sched/libra to launch job $j1 after the restart" grep -qF \
	"sched/libra: JobId=$j1: n1 does not list it: launching it" "$log"
check_once "$j1" "$gate1"

# --- killed just after the launch ---------------------------------------------
# Nothing writes the job state between sched/libra's write before the launch
# and slurmctld's own, at most 5 s after a change: a kill as soon as the job
# runs comes before it on any machine that starts a job in less.  Should
# slurmctld's write still come first, the restarted slurmctld knows the job
# with its batch step, as any other: the test says so, and checks the rest.
gate2=$LIBRA_WORK/go-2
libra_sbatch_admitted "job killed after its launch" -J launched -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script "$gate2")"
j2=$SB_JOBID
t0=$(date +%s.%N)
wait_until 60 "job $j2 to note that it runs" grep -qx "$j2" "$runs"
note "job $j2 runs, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s after its submission; SIGKILL slurmctld"
kill_restart
# orphaned_on_restart JOBID: the restarted slurmctld knew the job without
# its batch step (sched/libra says so first thing after the start).
orphaned_on_restart() {
	grep -qF "sched/libra: JobId=$1 was started before slurmctld was restarted, and may not have been launched" "$log"
}
if orphaned_on_restart "$j2"; then
	wait_until 60 "sched/libra to find job $j2 on its node after the restart" grep -qF \
		"sched/libra: JobId=$j2: n1 lists it: it runs" "$log"
else
	note "slurmctld's own state write came before the kill: job $j2 was known with its batch step (this case not exercised)"
fi
check_once "$j2" "$gate2"
# launch_job()'s batch step record, made again after the restart
assert_eq 1 "$(sacct -n -P -j "$j2" -o JobID | grep -cx "$j2.batch")" "batch step rows of job $j2"

# --- killed just after the launch, the job ending while slurmctld is down ------
# Its end reaches the restarted slurmctld (slurmstepd tries again every
# 24 s or so), which
# takes it only for a job with a batch step record: sched/libra makes one
# for every job started but maybe not launched, first thing after the start.
gate3=$LIBRA_WORK/go-3
libra_sbatch_admitted "job ending while slurmctld is down" -J ended -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script "$gate3")"
j3=$SB_JOBID
wait_until 60 "job $j3 to note that it runs" grep -qx "$j3" "$runs"
note "job $j3 runs; SIGKILL slurmctld, let the job end, then restart slurmctld"
"$LIBRA_CLUSTER" kill slurmctld >/dev/null
gate_open "$gate3"
wait_until 120 "job $j3 to end on n1 (slurmstepd trying to tell slurmctld)" \
	grep -qF "[$j3.batch] Retrying job complete RPC" "$LIBRA_CLUSTER_DIR/log/slurmd-n1.log"
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
orphaned_on_restart "$j3" ||
	note "slurmctld's own state write came before the kill: job $j3 was known with its batch step (this case not exercised)"
check_ended "$j3"

# kill_stale_restart: SIGKILL slurmctld, put the job state written before
# the last start in place (LIBRA_TEST_STALE_STATE), restart slurmctld.
state=$LIBRA_CLUSTER_DIR/state
kill_stale_restart() {
	"$LIBRA_CLUSTER" kill slurmctld >/dev/null
	[ -s "$state/job_state.libra-test" ] || fail "no copy of the job state written before the last start"
	cp "$state/job_state.libra-test" "$state/job_state"
	"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
}

# --- killed just after the launch, the state written last packed before it ----
gate4=$LIBRA_WORK/go-4
libra_sbatch_admitted "job whose start a stale job state loses" -J stale -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script "$gate4")"
j4=$SB_JOBID
wait_until 60 "sched/libra to launch job $j4" grep -qF \
	"sched/libra: LIBRA_TEST_STALE_STATE: launched JobId=$j4" "$log"
note "job $j4 launched; SIGKILL slurmctld, put the job state of before its start in place"
kill_stale_restart
wait_until 60 "sched/libra to take job $j4 as running again" grep -qF \
	"sched/libra: JobId=$j4 was started on n1 before slurmctld was restarted, and the job state written last has it pending: running there again" "$log"
check_once "$j4" "$gate4"

# --- the same for an interactive job ------------------------------------------
gate5=$LIBRA_WORK/go-5
# shellcheck disable=SC2016 # $SLURM_JOB_ID expands in the job
srun -D "$LIBRA_WORK" -J interactive -n 1 --comment="runtime=10s,deadline=600s,budget=1000" \
	bash -c "$(job_script "$gate5")" >"$LIBRA_WORK/srun-5.out" 2>&1 &
srun_pid=$!
libra_at_exit "kill $srun_pid 2>/dev/null"
# shellcheck disable=SC2317 # called by wait_until
runs_at_least() { [ "$(grep -c . "$runs")" -ge "$1" ]; }
wait_until 60 "the interactive job to note that it runs" runs_at_least 5
j5=$(tail -n 1 "$runs")
note "interactive job $j5 runs; SIGKILL slurmctld, put the job state of before its start in place"
kill_stale_restart
wait_until 60 "sched/libra to take job $j5 as running again" grep -qF \
	"sched/libra: JobId=$j5 was started on n1 before slurmctld was restarted, and the job state written last has it pending: running there again" "$log"
assert_eq RUNNING "$(job_state "$j5")" "state of job $j5 after the restart"
gate_open "$gate5"
srun_rc=0
wait "$srun_pid" || srun_rc=$?
assert_eq 0 "$srun_rc" "srun's exit status ($(tr '\n' ' ' <"$LIBRA_WORK/srun-5.out"))"
check_ended "$j5"

# --- the same for a job that ended before the kill ---------------------------
libra_sbatch_admitted "job that ends before the kill" -J ended-stale -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script /dev/null)"
j6=$SB_JOBID
wait_until 120 "job $j6 to end" job_ended "$j6"
# the history of finished jobs (runtime predictions) has its line once
history_lines() {
	[ -f "$state/libra_history" ] || { echo 0 && return; }
	grep -c . "$state/libra_history" || true
}
hist6=$(history_lines)
note "job $j6 ended; SIGKILL slurmctld, put the job state of before its start in place"
kill_stale_restart
wait_until 60 "sched/libra to end job $j6 as it ended" grep -qF \
	"libra: JobId=$j6 ended (COMPLETED) before slurmctld was restarted and came back running" "$log"
check_ended "$j6"
assert_eq "$hist6" "$(history_lines)" "lines in libra_history once job $j6 was ended again"

# --- a node left completing a job ------------------------------------------------
touch "$epilog_hold"
libra_sbatch_admitted "job whose epilog is held back" -J completing -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap true
j7=$SB_JOBID
wait_until 120 "job $j7 to be completing (its epilog held back)" job_in_state "$j7" COMPLETING
t7=$SECONDS
libra_sbatch_admitted "job submitted as n1 begins completing" -J after-end -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script /dev/null)"
j8=$SB_JOBID
# shellcheck disable=SC2317 # called by wait_until
completing_long() { [ $((SECONDS - t7)) -gt 12 ]; }
wait_until 60 "n1 to be completing job $j7 for over MessageTimeout" completing_long
assert_eq COMPLETING "$(job_state "$j7")" "state of job $j7"
libra_sbatch_refused "job submitted while n1 is stuck completing" \
	"1 of the nodes it may use have been completing a job for longer than MessageTimeout" \
	-J stuck -n 1 --comment="runtime=10s,deadline=600s,budget=1000" --wrap true
assert_eq PENDING "$(job_state "$j8")" "state of job $j8 while n1 completes job $j7"
# its start fails at each pass; sched/libra finds n1 stuck and, with no
# other node, leaves it waiting for n1 with the reason
# shellcheck disable=SC2317 # called by wait_until
stuck_reason() { squeue -h -j "$j8" -o %r | grep -qF "are completing one"; }
wait_until 60 "job $j8's reason to name its node stuck completing" stuck_reason
gate_open "$epilog_go"
rm -f "$epilog_hold"
check_ended "$j8"
# accounting's word: slurmctld forgets job 7 MinJobAge (30 s) after it
# completed, which a busy machine reaches while job 8 is checked
wait_until 120 "job $j7 COMPLETED in accounting" sacct_in_state "$j7" COMPLETED
libra_sbatch_admitted "job submitted once n1 is done" -J after-done -n 1 \
	--comment="runtime=10s,deadline=600s,budget=1000" --wrap "$(job_script /dev/null)"
check_ended "$SB_JOBID"

# none was started twice: no node drained
if grep -F "Duplicate jobid" "$LIBRA_CLUSTER_DIR"/log/slurm*.log; then
	fail "a job was launched twice (Duplicate jobid)"
fi
assert_match '^(idle|mix|alloc)$' "$(sinfo -h -n n1 -o %t)" "state of n1"
[ -z "$(ctld_plugin_errors)" ] || fail "slurmctld logged errors from our plugins: $(ctld_plugin_errors | head -5)"

cluster_stop
assert_nothing_left
pass
