#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Admission under a burst: 200 submissions back to back from one sbatch
# loop, then 200 from several sbatch processes at once, against 4 nodes of
# one CPU.  Each job is 2m of CPU by a 10m deadline, a share of 0.2, so
# exactly 5 fit on a node and 20 in all.  Checked for each burst: the
# number admitted is what the capacity allows; the placements recorded in
# the jobs' AdminComment never commit more than a node's CPU (sum of
# cpus * runtime / (deadline - admission) <= 1 + 1e-6 on every node); every
# admitted job runs where it was placed; every other submission got a final
# deadline refusal and made no job; slurmctld stayed up.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
cluster_start
ctld=$(slurmctld_pid)

N=200          # submissions per burst
WORKERS=8      # concurrent sbatch loops in the second burst
RUNTIME=120    # 2m
DEADLINE=600   # 10m
SLA="runtime=2m,deadline=10m"
nodes=$(sinfo -h -N -o %N | sort -u | wc -l)
cpus=$(sinfo -h -N -o %c | awk '{ s += $1 } END { print s }')
# capacity: on each 1-CPU node, floor(1 / share) jobs (tolerance 1e-9)
capacity=$("$LIBRA_PYTHON" -c "import math; print($cpus * math.floor(1 / ($RUNTIME / $DEADLINE) + 1e-9))")
note "$nodes nodes, $cpus CPUs, share $RUNTIME/$DEADLINE: capacity $capacity jobs"

# submit_many COUNT RESULTS: COUNT submissions one after the other; one line
# per submission in RESULTS: "jobid|retried|first line of the output".
# The jobs wait at a gate that never opens (they are cancelled after the
# checks): a slow burst must not see its first jobs end before it is over.
submit_many() {
	local i
	for ((i = 0; i < $1; i++)); do
		libra_sbatch -n 1 --comment="$SLA" --wrap "$(gate_wait "$LIBRA_WORK/never")"
		printf '%s|%s|%s\n' "$SB_JOBID" "$SB_RETRIED" "$(tr '\n' ' ' <<<"$SB_OUT")"
	done >>"$2"
}

# check_burst NAME RESULTS: the checks above, for the submissions in RESULTS.
check_burst() {
	local name=$1 results=$2 admitted refused bad line id out running
	[ "$(wc -l <"$results")" = "$N" ] || fail "$name: $(wc -l <"$results") results for $N submissions"
	admitted=$(awk -F'|' '$1 != ""' "$results" | wc -l)
	refused=$(awk -F'|' '$1 == ""' "$results" | wc -l)
	note "$name: $admitted admitted, $refused refused"
	assert_eq "$capacity" "$admitted" "$name: jobs admitted"
	# every refusal: a deadline refusal, final, no job
	bad=$(awk -F'|' '$1 == "" && ($2 != 0 || $3 !~ /libra: rejected: not enough free CPU share to meet the deadline/)' "$results" | awk 'NR == 1')
	[ -z "$bad" ] || expect_fail "$name: a refusal that is not a final deadline refusal: $bad"
	# every admission said so
	bad=$(awk -F'|' '$1 != "" && $3 !~ /libra: admitted: price /' "$results" | awk 'NR == 1')
	[ -z "$bad" ] || expect_fail "$name: an admission without its message: $bad"
	# the jobs slurmctld has (besides the ended ones of an earlier burst)
	# are exactly the admitted ones
	assert_eq "$(awk -F'|' '$1 != "" { print $1 }' "$results" | sort -n | paste -sd,)" \
		"$(squeue -h -t PD,CF,R,S,CG -o %i | sort -n | paste -sd,)" "$name: the jobs slurmctld has"
	# the placements never commit more than a node has
	out=$(scontrol show -o job | "$LIBRA_PYTHON" -c '
import json, re, sys
cpus, tol = float(sys.argv[1]), 1e-6
load, bad = {}, []
for line in sys.stdin:
    if not re.search(r"JobState=(PENDING|CONFIGURING|RUNNING|SUSPENDED|COMPLETING) ", line):
        continue
    m = re.search(r"AdminComment=(\{\S*)", line)
    jid = re.search(r"JobId=(\d+)", line).group(1)
    if not m:
        bad.append("job %s has no record" % jid); continue
    r = json.loads(m.group(1)); s = r["sla"]; a = r["admit"]
    for p in a["place"]:
        load[p["node"]] = load.get(p["node"], 0.0) + p["cpus"] * s["runtime"] / (s["deadline"] - a["time"])
for node, l in sorted(load.items()):
    if l > cpus + tol: bad.append("%s committed %.9f of %g CPU" % (node, l, cpus))
print("; ".join(bad) if bad else "ok " + " ".join("%s=%.6f" % kv for kv in sorted(load.items())))' 1)
	[[ $out == ok* ]] || fail "$name: placements: $out"
	note "$name: committed share per node: ${out#ok }"
	# every admitted job runs on the node of its admission
	wait_until 300 "the $admitted admitted jobs of $name to run" all_running "$admitted"
	while IFS='|' read -r id _; do
		[ -n "$id" ] || continue
		line=$(json_get "$(job_record "$id")" admit.place.0.node)
		running=$(squeue -h -j "$id" -o %N)
		[ "$line" = "$running" ] || expect_fail "$name: job $id was placed on $line and runs on $running"
	done <"$results"
	assert_slurmctld_up "$ctld"
}

# all_running COUNT: COUNT jobs run, none is pending.
# shellcheck disable=SC2317 # called by wait_until
all_running() {
	[ "$(squeue -h -t R -o %i | wc -l)" = "$1" ] && [ -z "$(squeue -h -t PD -o %i)" ]
}

# clear: cancel every job and wait until they are gone from the ledger
# (ended: jobcomp/libra released them).
clear_jobs() {
	scancel -u root
	wait_until 180 "every job to end" no_jobs_active
}

results=$LIBRA_CLUSTER_DIR/burst
rm -rf "$results"
mkdir -p "$results"

# --- burst 1: one loop, back to back -----------------------------------------
t0=$SECONDS
submit_many "$N" "$results/loop"
note "burst 1: $N submissions from one loop in $((SECONDS - t0)) s"
check_burst "burst 1 (one loop)" "$results/loop"
clear_jobs

# --- burst 2: several sbatch loops at once ------------------------------------
t0=$SECONDS
pids=()
for ((w = 0; w < WORKERS; w++)); do
	count=$((N / WORKERS + (w < N % WORKERS ? 1 : 0)))
	submit_many "$count" "$results/worker-$w" &
	pids+=("$!")
done
for pid in "${pids[@]}"; do
	wait "$pid" || fail "a submitting loop failed"
done
cat "$results"/worker-* >"$results/concurrent"
note "burst 2: $N submissions from $WORKERS concurrent loops in $((SECONDS - t0)) s"
check_burst "burst 2 ($WORKERS concurrent loops)" "$results/concurrent"
clear_jobs

assert_slurmctld_up "$ctld"
expect_done
cluster_stop
assert_nothing_left
pass
