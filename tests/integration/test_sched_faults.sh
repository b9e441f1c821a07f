#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_sched_faults: SIGKILL of a slurmd and of slurmctld in the middle of a
# workload.
#
#  - slurmd on n2 is killed while jobs run there and restarted: the jobs
#    (their slurmstepd outlive slurmd) finish, each with one settled record;
#  - slurmctld is killed (SIGKILL) mid-run and restarted: it rebuilds the
#    ledger from the job records alone: a job that would exceed a node's
#    remaining capacity is still refused afterwards, every job ends with
#    exactly one complete record, nothing is charged twice;
#  - a node that goes DOWN: a job on it that may not be requeued is
#    recorded as an SLA violation (NODE_FAIL, no charge, penalty rate x
#    runtime); one that may is requeued, admitted again on the other node
#    and meets its deadline, its record counting the requeue; the failed
#    node's capacity is released;
#  - a batch launch that failed (slurmd's requeue, held): an admitted job
#    is released and meets its deadline, one without an SLA stays held as
#    on stock Slurm.

. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2
libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.8 libra_price_base=3600
export LIBRA_PLUGSTACK='required libra_spank.so pin=yes interval=1 top_weight=65536'
# Slurm holds a requeued batch job back for the job credential's lifetime
# (cred_expire, 120 s by default); 10 s keeps the requeue case short.  A
# node set DOWN stays down until resumed (ReturnToService=0), as a failed
# node would.
export LIBRA_EXTRA_CONF="AuthInfo=socket=$LIBRA_CLUSTER_DIR/munge/munged.socket,cred_expire=10
ReturnToService=0"
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"

# The jobs the faults hit must still run when the test checks the ledger
# after the restarts, however long the restarts take on a busy machine:
# each waits at a gate (gate_wait) until the test releases it, then burns
# a second.  Their SLAs are what the capacity check needs (share 0.2 each)
# with deadlines far beyond how long the faults take; the deadline only
# has to outlast the setup.  Should a job still have ended before the
# check (or its deadline come near), the test says so and starts again on
# a fresh cluster with deadlines twice as long, up to 3 times.
#
# faults_setup DEADLINE GATE: a fresh cluster; n1 gets three jobs and n2
# two, each of share 0.2 (DEADLINE/5 s of CPU by DEADLINE s) waiting at
# GATE; SIGKILL of slurmd on n2, then of slurmctld, each restarted.  Sets
# jobs (their ids).  Returns 1 (and says why) when a job no longer runs
# afterwards, or its deadline is less than a minute away.
jobs=()
faults_setup() {
	local dl=$1 gate=$2 re=$(($1 / 5)) i j t0 left
	cluster_start
	jobs=()
	for i in 1 2 3; do
		libra_sbatch_admitted "n1 job $i" -J "a$i" -w n1 -n 1 \
			--comment="runtime=${re}s,deadline=${dl}s,budget=100000" --wrap "$(gate_wait "$gate" "$burn 1")"
		jobs+=("$SB_JOBID")
	done
	for i in 1 2; do
		libra_sbatch_admitted "n2 job $i" -J "b$i" -w n2 -n 1 \
			--comment="runtime=${re}s,deadline=${dl}s,budget=100000" --wrap "$(gate_wait "$gate" "$burn 1")"
		jobs+=("$SB_JOBID")
	done
	for j in "${jobs[@]}"; do
		wait_until 120 "job $j to run" job_in_state "$j" RUNNING
	done

	note "SIGKILL slurmd on n2, restart it 3 s later"
	t0=$SECONDS
	"$LIBRA_CLUSTER" kill slurmd:n2 >/dev/null
	sleep 3
	"$LIBRA_CLUSTER" restart slurmd:n2 >/dev/null || fail "slurmd n2 did not restart"
	note "slurmd on n2 back $((SECONDS - t0)) s after the SIGKILL"

	note "SIGKILL slurmctld, restart it 2 s later"
	t0=$SECONDS
	"$LIBRA_CLUSTER" kill slurmctld >/dev/null
	sleep 2
	"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
	note "slurmctld back $((SECONDS - t0)) s after the SIGKILL"

	for j in "${jobs[@]}"; do
		if ! job_in_state "$j" RUNNING; then
			note "job $j is $(job_state "$j") after the restarts, not RUNNING: the capacity check would mean nothing"
			return 1
		fi
		left=$(json_get "$(job_record "$j")" sla.deadline)
		left=$((${left%.*} - $(date +%s)))
		if [ "$left" -lt 60 ]; then
			note "job $j's deadline is $left s away after the restarts: too close for the checks"
			return 1
		fi
	done
}
deadline=600
for attempt in 1 2 3; do
	gate=$LIBRA_WORK/go-$attempt
	faults_setup "$deadline" "$gate" && break
	[ "$attempt" -lt 3 ] || fail "3 attempts, and the jobs never outlived the restarts (deadlines up to $deadline s)"
	deadline=$((deadline * 2))
	note "setting up again on a fresh cluster (attempt $((attempt + 1)) of 3), deadlines $deadline s"
done

# The ledger was rebuilt from the records: n1 has 0.6 of 0.8 committed, so
# a job of share 0.25 on n1 is refused; one of share 0.15 is admitted.
libra_sbatch_refused "n1 after restart (share 0.25)" "libra: rejected:" -J over -w n1 -n 1 \
	--comment="runtime=50s,deadline=200s,budget=1000" --wrap "$burn 1"
libra_sbatch_admitted "n1 after restart (share 0.15)" -J fits -w n1 -n 1 \
	--comment="runtime=30s,deadline=200s,budget=1000" --wrap "$burn 1"
jobs+=("$SB_JOBID")
gate_open "$gate"

assert_ran_once_and_met "the faults" "${jobs[@]}"

# --- a launch that failed ------------------------------------------------------
# slurmd that cannot launch a batch job (a prolog failed, or slurmctld was
# killed before slurmd could confirm the launch: rel_faults seed 9) asks
# slurmctld to requeue it held, with JOB_REQUEUE_HOLD | JOB_LAUNCH_FAILED
# (req.c, _launch_job_fail()).  That very RPC, sent here to two running
# jobs: the one without an SLA stays held ("launch failed requeued held"),
# as on stock Slurm; the admitted one is released by sched/libra, runs
# again on its node and meets its deadline (design.md decision 32).
#
# requeue_launch_failed JOBID: the requeue slurmd sends, through libslurm.
requeue_launch_failed() {
	local lib
	# (awk reads to the end: ldd cut off by SIGPIPE would fail the pipe)
	lib=$(ldd "$(command -v scontrol)" | awk '/libslurm(full)?\.so/ && !l { l = $3 } END { print l }')
	[ -n "$lib" ] || fail "cannot find the libslurm scontrol uses"
	"$LIBRA_PYTHON" - "$1" "$lib" <<'PY' || fail "the launch-failed requeue of job $1 was refused"
import ctypes, sys
# global: the auth plugin it loads needs its symbols
slurm = ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
slurm.slurm_init(None)
JOB_LAUNCH_FAILED, JOB_REQUEUE_HOLD = 1 << 8, 1 << 11	# slurm.h
resp = ctypes.c_void_p()
rc = slurm.slurm_requeue2(sys.argv[1].encode(), JOB_REQUEUE_HOLD | JOB_LAUNCH_FAILED,
                          ctypes.byref(resp))
if rc:
    slurm.slurm_strerror.restype = ctypes.c_char_p
    sys.exit("slurm_requeue2: %s" % slurm.slurm_strerror(slurm.slurm_get_errno()).decode())
PY
}
gate3=$LIBRA_WORK/go-relaunch
libra_sbatch_admitted "job whose launch fails" -J relaunch -n 1 \
	--comment="runtime=5s,deadline=300s,budget=1000" --wrap "$(gate_wait "$gate3" "$burn 1")"
relaunch=$SB_JOBID
plain=$(sbatch --parsable -J plain -n 1 -o "$LIBRA_WORK/plain-%j.out" --wrap "$(gate_wait "$gate3" "$burn 1")") ||
	fail "sbatch of a job without an SLA failed"
libra_at_exit "scancel $plain 2>/dev/null"
wait_until 120 "job $relaunch to run" job_in_state "$relaunch" RUNNING
wait_until 120 "job $plain to run" job_in_state "$plain" RUNNING
requeue_launch_failed "$relaunch"
requeue_launch_failed "$plain"
wait_until 120 "sched/libra to release job $relaunch" grep -q \
	"JobId=$relaunch: its launch failed and Slurm held it; released" "$LIBRA_CLUSTER_DIR/log/slurmctld.log"
wait_until 120 "job $relaunch to run again" job_in_state "$relaunch" RUNNING
# shellcheck disable=SC2317 # called by wait_until
held_launch_failed() {
	[ "$(job_state "$plain")" = PENDING ] &&
		[ "$(job_field "$plain" Priority)" = 0 ] &&
		[ "$(job_field "$plain" Reason)" = launch_failed_requeued_held ]
}
wait_until 60 "job $plain (no SLA) held as stock Slurm holds it" held_launch_failed
note "job $plain (no SLA): $(squeue -h -j "$plain" -o '%T %Q %r'); job $relaunch (admitted): released and running"
gate_open "$gate3"
wait_until 300 "job $relaunch to end with its settled record" bash -c \
	"[ -z \"\$(squeue -h -j $relaunch -o %i)\" ] && sacct -n -X -P -j $relaunch -o AdminComment%65535 | grep -q '\"final\"'"
sacct -n -X -P -j "$relaunch" -o State,AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
state, rec = sys.stdin.readline().rstrip('\n').split('|', 1)
r = json.loads(rec)
f = r['final']
assert state == 'COMPLETED' and f['how'] == 'COMPLETED' and f['met'], (state, f)
assert abs(f['charge'] - r['admit']['price']) < 1e-9, f
" || fail "job $relaunch after its failed launch: $(sacct -n -X -D -P -j "$relaunch" -o State,AdminComment%500)"
[ "$(job_state "$plain")" = PENDING ] || fail "job $plain (no SLA) left its hold: $(job_state "$plain")"
scancel "$plain"

# --- a node that fails ---------------------------------------------------------
# doomed may not be requeued: its run is an SLA violation.  phoenix may:
# Slurm requeues it, sched/libra admits it again on n1 (its node is down)
# and it still meets its deadline, with one record saying it was requeued.
# Both wait at a gate, so that both still run on n2 when it fails; the
# gate opens once phoenix has left n2, for its second run.
gate2=$LIBRA_WORK/go-requeued
libra_sbatch_admitted "job on the failing node" -J doomed -w n2 -n 1 --no-requeue \
	--comment="runtime=20s,deadline=300s,budget=1000,penalty=36" --wrap "$(gate_wait "$gate2" "$burn 1")"
doomed=$SB_JOBID
libra_sbatch_admitted "requeueable job on the failing node" -J phoenix -n 1 --requeue \
	--comment="runtime=8s,deadline=300s,budget=1000" --wrap "$(gate_wait "$gate2" "$burn 1")"
phoenix=$SB_JOBID
wait_until 120 "job $doomed to run" job_in_state "$doomed" RUNNING
wait_until 120 "job $phoenix to run" job_in_state "$phoenix" RUNNING
[ "$(squeue -h -j "$phoenix" -o %N)" = n2 ] || fail "job $phoenix was expected on n2 (best fit), is on $(squeue -h -j "$phoenix" -o %N)"
scontrol update nodename=n2 state=down reason="libra test: node failure" ||
	fail "cannot set n2 down"
wait_until 120 "job $doomed to end" job_ended "$doomed"
# shellcheck disable=SC2317 # called by wait_until
left_n2() { [ "$(squeue -h -j "$phoenix" -o %T:%N)" != RUNNING:n2 ]; }
wait_until 120 "job $phoenix to leave n2" left_n2
gate_open "$gate2"
wait_until 120 "job $doomed's settled record" bash -c "sacct -n -X -P -j $doomed -o AdminComment%65535 | grep -q '\"final\"'"
sacct -n -X -P -j "$doomed" -o AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
r = json.loads(sys.stdin.readline())
f = r['final']
assert f['how'] == 'NODE_FAIL' and not f['met'], f
assert abs(f['penalty'] - 36 * 20 / 3600.0) < 1e-9 and abs(f['charge'] + f['penalty']) < 1e-9, f
" || fail "job $doomed: not recorded as an SLA violation: $(sacct -n -X -P -j "$doomed" -o State,AdminComment%400)"
wait_until 300 "requeued job $phoenix to end" bash -c "[ -z \"\$(squeue -h -j $phoenix -t PD,R,CG -o %i)\" ] && sacct -n -X -P -j $phoenix -o AdminComment%65535 | grep -q '\"final\"'"
sacct -n -X -P -j "$phoenix" -o State,NodeList,AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
state, nodes, rec = sys.stdin.readline().rstrip('\n').split('|', 2)
r = json.loads(rec)
f = r['final']
assert state == 'COMPLETED' and nodes == 'n1', (state, nodes)
assert r.get('requeues') == 1, r
assert f['how'] == 'COMPLETED' and f['met'], f
assert [p['node'] for p in r['admit']['place']] == ['n1'], r['admit']
" || fail "requeued job $phoenix: $(sacct -n -X -P -j "$phoenix" -o State,NodeList,AdminComment%500)"
grep -q "JobId=$phoenix: its admitted nodes failed; admitted again on n1" "$LIBRA_CLUSTER_DIR/log/slurmctld.log" ||
	fail "slurmctld's log does not show job $phoenix admitted again on n1"
scontrol update nodename=n2 state=resume >/dev/null 2>&1 || :
# its capacity is back: a job of share 0.75 fits n2 again (once it is up)
wait_until 120 "n2 to be usable again" bash -c "sinfo -h -n n2 -o %t | grep -qxE '(idle|mix|alloc)'"
libra_sbatch_admitted "n2 after the failure (share 0.75)" -J back -w n2 -n 1 \
	--comment="runtime=15s,deadline=20s,budget=100" --wrap "$burn 1"
ctld=$(slurmctld_pid)
assert_slurmctld_up "$ctld"
[ "$(grep -c 'error: .*libra' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | tr -d ' ')" -eq 0 ] ||
	fail "slurmctld logged errors from our plugins: $(grep 'error: .*libra' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | head -5)"

cluster_stop
assert_nothing_left
pass
