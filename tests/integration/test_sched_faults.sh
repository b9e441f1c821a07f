#!/usr/bin/env bash
# test_sched_faults: SIGKILL of a slurmd and of slurmctld in the middle of a
# workload (issue "sched/libra", done-when 4).
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
#    node's capacity is released.

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
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"

jobs=()
# n1: three jobs of share 0.2 (15 s of CPU in 75 s) -> 0.6 committed;
# together they keep n1 busy for 45 s, past both restarts.
for i in 1 2 3; do
	libra_sbatch_admitted "n1 job $i" -J "a$i" -w n1 -n 1 \
		--comment="runtime=15s,deadline=75s,budget=100" --wrap "$burn 15"
	jobs+=("$SB_JOBID")
done
# n2: two jobs of share 0.2.
for i in 1 2; do
	libra_sbatch_admitted "n2 job $i" -J "b$i" -w n2 -n 1 \
		--comment="runtime=15s,deadline=75s,budget=100" --wrap "$burn 15"
	jobs+=("$SB_JOBID")
done
for j in "${jobs[@]}"; do
	wait_until 10 "job $j to run" job_in_state "$j" RUNNING
done

note "SIGKILL slurmd on n2, restart it 3 s later"
"$LIBRA_CLUSTER" kill slurmd:n2 >/dev/null
sleep 3
"$LIBRA_CLUSTER" restart slurmd:n2 >/dev/null || fail "slurmd n2 did not restart"

note "SIGKILL slurmctld, restart it 2 s later"
"$LIBRA_CLUSTER" kill slurmctld >/dev/null
sleep 2
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"

# The ledger was rebuilt from the records: n1 has 0.6 of 0.8 committed, so
# a job of share 0.25 on n1 is refused; one of share 0.15 is admitted.
for j in "${jobs[@]}"; do
	job_in_state "$j" RUNNING || fail "job $j no longer runs after the restarts: the capacity check below would mean nothing"
done
libra_sbatch_refused "n1 after restart (share 0.25)" "libra: rejected:" -J over -w n1 -n 1 \
	--comment="runtime=5s,deadline=20s,budget=100" --wrap "$burn 5"
libra_sbatch_admitted "n1 after restart (share 0.15)" -J fits -w n1 -n 1 \
	--comment="runtime=3s,deadline=20s,budget=100" --wrap "$burn 3"
jobs+=("$SB_JOBID")

ids=$(IFS=,; echo "${jobs[*]}")
wait_until 90 "all jobs to end" bash -c "[ -z \"\$(squeue -h -j $ids -o %i)\" ]"
settled_all() {
	[ "$(sacct -n -X -P -j "$ids" -o AdminComment%65535 | grep -c '"final"')" -eq "${#jobs[@]}" ]
}
wait_until 60 "accounting to have every settled record" settled_all
sacct -n -X -P -j "$ids" -o JobID,State,AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
seen = {}
for line in sys.stdin:
    jid, state, rec = line.rstrip('\n').split('|', 2)
    seen[jid] = seen.get(jid, 0) + 1
    r = json.loads(rec)
    f = r['final']
    assert rec.count('\"final\"') == 1, (jid, rec)
    assert state == 'COMPLETED' and f['how'] == 'COMPLETED' and f['met'], (jid, state, f)
    assert abs(f['charge'] - r['admit']['price']) < 1e-9, (jid, f)
assert all(n == 1 for n in seen.values()), seen
assert len(seen) == ${#jobs[@]}, seen
" || fail "records after the faults are not complete and single: $(sacct -n -X -P -j "$ids" -o JobID,State,AdminComment%300)"

# --- a node that fails ---------------------------------------------------------
# doomed may not be requeued: its run is an SLA violation.  phoenix may:
# Slurm requeues it, sched/libra admits it again on n1 (its node is down)
# and it still meets its deadline, with one record saying it was requeued.
libra_sbatch_admitted "job on the failing node" -J doomed -w n2 -n 1 --no-requeue \
	--comment="runtime=20s,deadline=60s,budget=100,penalty=36" --wrap "$burn 20"
doomed=$SB_JOBID
libra_sbatch_admitted "requeueable job on the failing node" -J phoenix -n 1 --requeue \
	--comment="runtime=8s,deadline=90s,budget=100" --wrap "$burn 8"
phoenix=$SB_JOBID
wait_until 10 "job $doomed to run" job_in_state "$doomed" RUNNING
wait_until 10 "job $phoenix to run" job_in_state "$phoenix" RUNNING
[ "$(squeue -h -j "$phoenix" -o %N)" = n2 ] || fail "job $phoenix was expected on n2 (best fit), is on $(squeue -h -j "$phoenix" -o %N)"
scontrol update nodename=n2 state=down reason="libra test: node failure" ||
	fail "cannot set n2 down"
wait_until 30 "job $doomed to end" job_ended "$doomed"
wait_until 30 "job $doomed's settled record" bash -c "sacct -n -X -P -j $doomed -o AdminComment%65535 | grep -q '\"final\"'"
sacct -n -X -P -j "$doomed" -o AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
r = json.loads(sys.stdin.readline())
f = r['final']
assert f['how'] == 'NODE_FAIL' and not f['met'], f
assert abs(f['penalty'] - 36 * 20 / 3600.0) < 1e-9 and abs(f['charge'] + f['penalty']) < 1e-9, f
" || fail "job $doomed: not recorded as an SLA violation: $(sacct -n -X -P -j "$doomed" -o State,AdminComment%400)"
wait_until 90 "requeued job $phoenix to end" bash -c "[ -z \"\$(squeue -h -j $phoenix -t PD,R,CG -o %i)\" ] && sacct -n -X -P -j $phoenix -o AdminComment%65535 | grep -q '\"final\"'"
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
wait_until 30 "n2 to be usable again" bash -c "sinfo -h -n n2 -o %t | grep -qxE '(idle|mix|alloc)'"
libra_sbatch_admitted "n2 after the failure (share 0.75)" -J back -w n2 -n 1 \
	--comment="runtime=15s,deadline=20s,budget=100" --wrap "$burn 1"
ctld=$(slurmctld_pid)
assert_slurmctld_up "$ctld"
[ "$(grep -c 'error: .*libra' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | tr -d ' ')" -eq 0 ] ||
	fail "slurmctld logged errors from our plugins: $(grep 'error: .*libra' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | head -5)"

cluster_stop
assert_nothing_left
pass
