#!/usr/bin/env bash
# test_sched_deadlines: what sched/libra does at deadlines, and how fast it
# starts admitted jobs (issue "sched/libra", done-when 2 and 3).
#
#  - latency: on an idle cluster, the median time from submission to
#    start of an admitted job is under 1 s: sched/libra's part, from
#    slurmctld's creating the job to its starting it (slurmctld's log, 9
#    jobs).  The time from sbatch's start to squeue showing RUNNING (polled
#    every 20 ms) is printed too; it adds the clients' own start-up and
#    RPCs, seconds on a busy machine, which are not the scheduler's;
#  - a job that overruns its estimate with a hard deadline is ended at its
#    deadline (within 2 s) with the reason recorded (how DEADLINE, the
#    state description in slurmctld's log);
#  - with a soft deadline it runs to its end, late, and its penalty equals
#    its rate x its delay, and its charge the price minus the penalty;
#  - slurmctld's scheduler thread is named sched_libra (ps -L, top -H).

. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2
libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.8 libra_price_base=3600
export LIBRA_PLUGSTACK='required libra_spank.so pin=yes interval=1 top_weight=65536'
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"

# the scheduler's thread is named, as sched/backfill's "bckfl" is
assert_eq 1 "$(cat /proc/"$(slurmctld_pid)"/task/*/comm 2>/dev/null | grep -cx sched_libra)" \
	"slurmctld threads named sched_libra"

now_ms() { date +%s%3N; }

# --- latency ----------------------------------------------------------------
lat=() ids=()
for i in $(seq 1 9); do
	t0=$(now_ms)
	libra_sbatch_admitted "latency job $i" -J "lat$i" -n 1 \
		--comment="runtime=1s,deadline=10m,budget=100" --wrap "$burn 1"
	until job_in_state "$SB_JOBID" RUNNING || job_ended "$SB_JOBID"; do
		[ $(($(now_ms) - t0)) -lt 20000 ] || fail "job $SB_JOBID not running 20 s after submission"
		sleep 0.02
	done
	lat+=($(($(now_ms) - t0)))
	ids+=("$SB_JOBID")
	wait_until 120 "latency job $SB_JOBID to end" job_ended "$SB_JOBID"
done
median_of() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
note "sbatch-to-RUNNING latencies as a user sees them (ms): ${lat[*]}; median $(median_of "${lat[@]}") ms"
# job created -> started, from slurmctld's log (ms)
sched_lat=$("$LIBRA_PYTHON" - "$LIBRA_CLUSTER_DIR/log/slurmctld.log" "${ids[@]}" <<'EOF'
import datetime, re, sys
created, started = {}, {}
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"_slurm_rpc_submit_batch_job: JobId=(\d+) ", line)
    n = re.search(r"libra: started JobId=(\d+) ", line)
    for got, d in ((m, created), (n, started)):
        if got and got.group(1) not in d:
            d[got.group(1)] = datetime.datetime.strptime(line[1:24], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
print(" ".join(str(round(1000 * (started[j] - created[j]))) if j in started and j in created else "missing" for j in sys.argv[2:]))
EOF
)
[[ $sched_lat != *missing* ]] || fail "slurmctld's log lacks a latency job's creation or start: $sched_lat"
# shellcheck disable=SC2086 # a list of numbers
median=$(median_of $sched_lat)
note "created-to-started latencies in slurmctld (ms): $sched_lat; median $median ms"
[ "$median" -lt 1000 ] || fail "median latency from job creation to start $median ms, not under 1 s"

# --- overruns ---------------------------------------------------------------
# Both declare 5 s of CPU and a 15 s deadline but burn 25 s; each alone on
# its node (-w), so each runs at a whole CPU (on a busy machine, less: the
# soft one then ends later still, and the waits below allow for it).
libra_sbatch_admitted "hard overrun" -J hard -w n1 -n 1 \
	--comment="runtime=5s,deadline=15s,budget=100" --wrap "$burn 25"
hard=$SB_JOBID
libra_sbatch_admitted "soft overrun" -J soft -w n2 -n 1 \
	--comment="runtime=5s,deadline=15s,budget=100,type=soft,penalty=3600" --wrap "$burn 25"
soft=$SB_JOBID

wait_until 300 "both overrunning jobs to end" bash -c "[ -z \"\$(squeue -h -j $hard,$soft -o %i)\" ]"
settled() { sacct -n -X -P -j "$1" -o AdminComment%65535 | grep -q '"final"'; }
wait_until 120 "the hard job's settled record" settled "$hard"
wait_until 120 "the soft job's settled record" settled "$soft"

check() { # JOBID python-assertions
	sacct -n -X -P -j "$1" -o AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
r = json.loads(sys.stdin.readline())
s, a, f = r['sla'], r['admit'], r['final']
$2
" || fail "job $1: record check failed: $(sacct -n -X -P -j "$1" -o AdminComment%65535)"
}
check "$hard" "
assert f['how'] == 'DEADLINE', f
assert not f['met'], f
assert abs(f['end'] - s['deadline']) <= 2, (f['end'], s['deadline'])
assert f['penalty'] == 0 and abs(f['charge'] - a['price']) < 1e-9, f
"
[ "$(ctld_log_count "JobId=$hard reached its hard deadline")" -ge 1 ] ||
	fail "slurmctld's log does not say that job $hard reached its hard deadline"
check "$soft" "
assert f['how'] == 'COMPLETED', f
assert not f['met'], f
delay = f['end'] - s['deadline']
assert abs(f['delay'] - delay) <= 1e-6 and f['delay'] >= 5, f
assert abs(f['penalty'] - s['penalty'] * f['delay'] / 3600.0) <= 1e-6, f
assert abs(f['charge'] - (a['price'] - f['penalty'])) <= 1e-6, f
"
note "hard: $(sacct -n -X -P -j "$hard" -o State,Elapsed); soft: $(sacct -n -X -P -j "$soft" -o State,Elapsed)"

cluster_stop
assert_nothing_left
pass
