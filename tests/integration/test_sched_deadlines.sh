#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_sched_deadlines: what sched/libra does at deadlines, and how fast it
# starts admitted jobs.
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
# burning NAME NODE SLA SECONDS: an admitted job named NAME on NODE that
# burns SECONDS of CPU; sets SB_JOBID
burning() {
	libra_sbatch_admitted "$1" -J "$1" -w "$2" -n 1 --comment="$3" --wrap "$burn $4"
}
burning hard n1 "runtime=5s,deadline=15s,budget=100" 25
hard=$SB_JOBID
burning soft n2 "runtime=5s,deadline=15s,budget=100,type=soft,penalty=3600" 25
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

# --- an operator's suspend (design.md decision 30) --------------------------
# The deadline stays; the suspended job's share stays held in the ledger;
# Slurm's resume pushes the end time by the time suspended and sched/libra
# sets it back; a hard job still suspended at its deadline is ended there,
# settled SUSPENDED (the provider's breach: as NODE_FAIL, penalty PR x RE),
# a capped soft one at its end limit.
# A job without an SLA is suspended and resumed as under stock Slurm.
end_epoch() { date -d "$(job_field "$1" EndTime)" +%s; }
burning susp n1 "runtime=10s,deadline=80s,budget=100" 10	# suspended, resumed
susp=$SB_JOBID
burning suspdl n2 "runtime=5s,deadline=20s,budget=100,penalty=3600" 25	# through its deadline
suspdl=$SB_JOBID
# soft, capped: its end limit is the deadline + cap / rate, 3 s later
burning suspsoft n2 "runtime=5s,deadline=20s,budget=100,type=soft,penalty=3600,penalty_cap=3" 25
suspsoft=$SB_JOBID
in_state() { [ "$(squeue -h -t "$1" -j "$2" -o %i | wc -l)" = "$3" ]; }
wait_until 60 "jobs $susp, $suspdl and $suspsoft to run" in_state R "$susp,$suspdl,$suspsoft" 3
scontrol suspend "$susp,$suspdl,$suspsoft" || fail "scontrol suspend $susp,$suspdl,$suspsoft failed"
wait_until 30 "jobs $susp, $suspdl and $suspsoft suspended" in_state S "$susp,$suspdl,$suspsoft" 3
susp_end=$(end_epoch "$susp")
# its share (10/80) stays held while suspended: 50 s of 70 more does not fit
libra_sbatch_refused "n1 while $susp is suspended" "libra: rejected: not enough free CPU share" \
	-J probe -w n1 -n 1 --comment="runtime=50s,deadline=70s,budget=1000" --wrap true
sleep 5	# suspended long enough for Slurm's resume to push the end time
scontrol resume "$susp" || fail "scontrol resume $susp failed"
wait_until 30 "job $susp to run again" job_in_state "$susp" RUNNING
ends_at() { [ "$(end_epoch "$1")" = "$2" ]; }
wait_until 30 "job $susp's end time back at its deadline's ($susp_end)" ends_at "$susp" "$susp_end"
[ "$(ctld_log_count "JobId=$susp was suspended for")" -ge 1 ] ||
	fail "slurmctld's log does not say that job $susp's end time was set back"
wait_until 120 "job $suspdl ended at its deadline while suspended" job_ended "$suspdl"
wait_until 120 "job $susp to end" job_ended "$susp"
wait_until 120 "the resumed job's settled record" settled "$susp"
wait_until 120 "the job suspended through its deadline's settled record" settled "$suspdl"
wait_until 120 "the soft job suspended through its end limit's settled record" settled "$suspsoft"
check "$susp" "
assert f['how'] == 'COMPLETED' and f['met'], f
assert f['penalty'] == 0 and abs(f['charge'] - a['price']) < 1e-9, f
"
# Who suspended them, Slurm does not say; from 26.05 a job's owner may
# suspend it too, so there the suspend is not taken for the provider's:
# both jobs are settled as their own overruns (DEADLINE: the price, no
# penalty), not SUSPENDED (design.md decision 30).
release=$(scontrol --version | awk '{ print $2 }')
case $release in
2[0-5].*) owner_suspends=no ;;
*) owner_suspends=yes ;;
esac
note "Slurm $release: a job's owner may suspend it: $owner_suspends"
if [ "$owner_suspends" = no ]; then
	check "$suspdl" "
assert f['how'] == 'SUSPENDED', f
assert not f['met'], f
assert abs(f['end'] - s['deadline']) <= 2, (f['end'], s['deadline'])
assert abs(f['penalty'] - 5.0) < 1e-6 and abs(f['charge'] + 5.0) < 1e-6, f
"
	check "$suspsoft" "
assert f['how'] == 'SUSPENDED' and not f['met'], f
assert abs(f['end'] - (s['deadline'] + 3)) <= 2, (f['end'], s['deadline'])
assert abs(f['penalty'] - 3.0) < 1e-6 and abs(f['charge'] + 3.0) < 1e-6, f
"
	how="an operator's suspend"
else
	check "$suspdl" "
assert f['how'] == 'DEADLINE' and not f['met'], f
assert abs(f['end'] - s['deadline']) <= 2, (f['end'], s['deadline'])
assert f['penalty'] == 0 and abs(f['charge'] - a['price']) < 1e-9, f
"
	check "$suspsoft" "
assert f['how'] == 'DEADLINE' and not f['met'], f
assert abs(f['end'] - (s['deadline'] + 3)) <= 2, (f['end'], s['deadline'])
assert f['penalty'] == 0, f
"
	how="a suspend its owner may have made"
fi
[ "$(ctld_log_count "JobId=$suspsoft is still suspended at its end limit")" -ge 1 ] ||
	fail "slurmctld's log does not say that job $suspsoft was ended suspended at its end limit"
[ "$(ctld_log_count "JobId=$suspdl reached its hard deadline after $how")" -ge 1 ] ||
	fail "slurmctld's log does not say that job $suspdl reached its hard deadline after $how"
# the share is free again once the job ended
libra_sbatch_admitted "n1 after $susp ended" -J probe -w n1 -n 1 \
	--comment="runtime=50s,deadline=70s,budget=1000" --wrap true
wait_until 60 "the probe job $SB_JOBID to end" job_ended "$SB_JOBID"
# without an SLA: Slurm's suspend and resume, and the job completes
libra_sbatch -J nosla -w n1 -n 1 --wrap "$burn 6"
nosla=$SB_JOBID
[ -n "$nosla" ] || fail "a job without an SLA was not accepted: $SB_OUT"
wait_until 60 "job $nosla to run" job_in_state "$nosla" RUNNING
scontrol suspend "$nosla" || fail "scontrol suspend $nosla failed"
wait_until 30 "job $nosla suspended" job_in_state "$nosla" SUSPENDED
sleep 2
scontrol resume "$nosla" || fail "scontrol resume $nosla failed"
wait_until 120 "job $nosla to end" job_ended "$nosla"
wait_until 60 "job $nosla COMPLETED in sacct" sacct_in_state "$nosla" COMPLETED
note "suspend: $susp $(sacct -n -X -P -j "$susp" -o State,Elapsed,Suspended); $suspdl $(sacct -n -X -P -j "$suspdl" -o State,Elapsed,Suspended); $nosla $(sacct -n -X -P -j "$nosla" -o State,Elapsed,Suspended)"

cluster_stop
assert_nothing_left
pass
