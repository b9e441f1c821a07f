#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# What an admitted job carries (job_submit_qos(8), doc/design.md): its record (JSON in
# AdminComment) has the SLA as the user wrote it and the quoted price and
# placement; the time limit reaches the deadline (hard), the penalty cap
# (soft with a cap) or the partition's limit (soft); the job runs where it
# was placed; after it ends, sacct has the record with "final" (deadline
# met, no delay, no penalty, charge = quoted price).  "sbatch --test-only"
# gives the quote and creates no job (and holds no capacity), and the SPANK
# options give the same SLA as the equivalent --comment.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
cluster_start

# py CODE ARGS...: run python3 on CODE with ARGS in sys.argv[1:].
py() {
	local code=$1
	shift
	"$LIBRA_PYTHON" -c "$code" "$@"
}

# admitted_price OUTPUT: the price of "libra: admitted: price P (...)".
admitted_price() { sed -n 's/.*libra: admitted: price \([0-9.]*\) .*/\1/p' <<<"$1" | awk 'NR == 1'; }

# record_fields JSON: "runtime|D|budget|penalty|penalty_cap|type" of the SLA,
# D = deadline - submit; a field the record does not have is "-".
record_fields() {
	py '
import json, math, sys
s = json.loads(sys.argv[1])["sla"]
f = lambda k: json.dumps(s[k]) if k in s else "-"
print("|".join([f("runtime"), "%d" % math.ceil(s["deadline"] - s["submit"] - 1e-6), f("budget"),
                f("penalty"), f("penalty_cap"), s["type"]]))' "$1"
}

# check_admitted WHAT JOBID OUTPUT CPUS: the record of an admitted job is
# complete and agrees with what sbatch said; prints the record.
check_admitted() {
	local what=$1 id=$2 out=$3 cpus=$4 rec msg
	rec=$(job_record "$id")
	assert_match '^\{"libra":1,' "$rec" "$what: AdminComment of job $id is a libra record"
	assert_eq 'libra+$' "$(json_get "$rec" policy)" "$what: policy in the record"
	msg=$(py '
import json, sys
r = json.loads(sys.argv[1]); cpus = int(sys.argv[3]); quoted = sys.argv[2]
a = r["admit"]; s = r["sla"]; bad = []
if abs(float(quoted) - a["price"]) > 0.005 * max(1.0, a["price"]) + 1e-9: bad.append("price %r is not the quoted %s" % (a["price"], quoted))
if not a["price"] > 0: bad.append("price %r is not positive" % a["price"])
if "budget" in s and a["price"] > s["budget"]: bad.append("price over the budget")
if abs(a["time"] - s["submit"]) > 1: bad.append("admitted at %r, submitted at %r" % (a["time"], s["submit"]))
if sum(p["cpus"] for p in a["place"]) != cpus: bad.append("placed %r for %d CPUs" % (a["place"], cpus))
if len({p["node"] for p in a["place"]}) != len(a["place"]): bad.append("a node twice in %r" % a["place"])
print("; ".join(bad))' "$rec" "$(admitted_price "$out")" "$cpus")
	[ -z "$msg" ] || fail "$what: record of job $id: $msg; record: $rec"
	printf '%s\n' "$rec"
}

# placed_nodes JSON: the nodes of admit.place, sorted, one line.
placed_nodes() { py 'import json, sys; print(",".join(sorted(p["node"] for p in json.loads(sys.argv[1])["admit"]["place"])))' "$1"; }

# deadline_minutes JSON [EXTRA-SECONDS]: the time limit a hard job gets,
# whole minutes from admission to its deadline (+ EXTRA), rounded up.
deadline_minutes() {
	py 'import json, math, sys; r = json.loads(sys.argv[1]); print(math.ceil((r["sla"]["deadline"] + float(sys.argv[2]) - r["admit"]["time"]) / 60))' "$1" "${2:-0}"
}

# --- 1. sbatch --test-only: a quote, no job, no capacity taken -------------
libra_sbatch --test-only -n 1 --comment="runtime=1m,deadline=5m,budget=0.001" --wrap 'sleep 1'
assert_match 'libra: rejected: price [0-9.]+ exceeds budget' "$SB_OUT" "sbatch --test-only over budget"
assert_contains "$SB_OUT" "feasible with budget" "sbatch --test-only over budget: the counter-offer"
no_jobs_exist || fail "sbatch --test-only created a job: $(squeue -h -t all 2>&1)"
libra_sbatch --test-only -n 4 --comment="runtime=9m,deadline=10m,budget=100" --wrap 'sleep 1'
assert_eq 0 "$SB_RC" "sbatch --test-only exit status ($SB_OUT)"
assert_contains "$SB_OUT" "libra: admitted: price " "sbatch --test-only prints the quote"
assert_contains "$SB_OUT" "(4 CPUs x 9m, deadline 10m, libra+\$) on n[1-4]" "the quote of sbatch --test-only"
assert_eq "" "$SB_JOBID" "job id from sbatch --test-only"
no_jobs_exist || fail "sbatch --test-only created a job: $(squeue -h -t all 2>&1)"
# The quote above was for 0.9 of every CPU.  job_submit cannot tell a
# quote from a submission whose job is about to be created, so a quote
# holds the capacity it quoted for the 3 s a job needs to appear
# (sched_libra(8)); after that a real job that needs half a CPU is admitted.
sleep 4
libra_sbatch -n 1 --comment="runtime=5m,deadline=10m" --wrap 'sleep 1'
if [ -n "$SB_JOBID" ]; then
	scancel "$SB_JOBID"
	wait_until 120 "job $SB_JOBID to end" job_ended "$SB_JOBID"
else
	expect_fail "a job submitted 4 s after an 'sbatch --test-only' quote was refused: the quote held the capacity it quoted for longer than 3 s: $SB_OUT"
fi

# --- 2. admitted jobs and their records ------------------------------------
# A: hard deadline, every money field.
libra_sbatch_admitted "job A" -n 1 --comment="runtime=1m,deadline=5m,budget=10,penalty=2.5" --wrap 'sleep 3'
idA=$SB_JOBID
assert_contains "$SB_OUT" "(1 CPU x 1m, deadline 5m, libra+\$) on n" "job A: sbatch's message"
recA=$(check_admitted "job A" "$idA" "$SB_OUT" 1)
assert_eq "60|300|10|2.5|-|hard" "$(record_fields "$recA")" "job A: runtime|D|budget|penalty|cap|type in the record"
assert_eq '["runtime", "deadline", "budget", "penalty"]' "$(json_get "$recA" sla.given)" "job A: sla.given"
assert_eq "runtime=1m,deadline=5m,budget=10,penalty=2.5" "$(job_field "$idA" Comment)" "job A: Comment"
limitA=$(job_field "$idA" TimeLimit)
assert_eq "$(slurm_minutes "$(deadline_minutes "$recA")")" "$limitA" "job A: time limit (to the hard deadline)"
[[ $SB_OUT == *" on $(placed_nodes "$recA")"* ]] || fail "job A: sbatch said '$SB_OUT', the record places it on $(placed_nodes "$recA")"

# B: two CPUs (two 1-CPU nodes).
libra_sbatch_admitted "job B" -n 2 --comment="runtime=2m,deadline=30m,budget=50" --wrap 'sleep 3'
idB=$SB_JOBID
recB=$(check_admitted "job B" "$idB" "$SB_OUT" 2)
assert_eq "120|1800|50|-|-|hard" "$(record_fields "$recB")" "job B: runtime|D|budget|penalty|cap|type"
assert_eq "$(slurm_minutes "$(deadline_minutes "$recB")")" "$(job_field "$idB" TimeLimit)" "job B: time limit"

# T: runtime from --time, deadline from the comment; the plugin replaces
# the 2-minute limit by one that reaches the deadline.
libra_sbatch_admitted "job T" -n 1 --time=2 --comment="deadline=10m" --wrap 'sleep 3'
idT=$SB_JOBID
recT=$(check_admitted "job T" "$idT" "$SB_OUT" 1)
assert_eq "120|600|-|-|-|hard" "$(record_fields "$recT")" "job T: runtime from --time"
assert_eq "00:10:00" "$(job_field "$idT" TimeLimit)" "job T: time limit"

# P: soft deadline with a penalty cap: may run until the cap is reached,
# 10 / 60 per hour = 10 minutes past the deadline.
libra_sbatch_admitted "job P" -n 1 --comment="runtime=1m,deadline=10m,type=soft,penalty=60,penalty_cap=10" --wrap 'sleep 3'
idP=$SB_JOBID
assert_contains "$SB_OUT" "(1 CPU x 1m, deadline 10m soft, libra+\$)" "job P: sbatch's message"
recP=$(check_admitted "job P" "$idP" "$SB_OUT" 1)
assert_eq "60|600|-|60|10|soft" "$(record_fields "$recP")" "job P: runtime|D|budget|penalty|cap|type"
assert_eq "$(slurm_minutes "$(deadline_minutes "$recP" 600)")" "$(job_field "$idP" TimeLimit)" "job P: time limit (deadline + cap / penalty rate)"

# S and C: the SPANK options and Slurm's --deadline, and the same SLA as
# --comment.  Soft without a cap: the partition's limit (INFINITE here).
libra_sbatch_admitted "job S (options)" -n 1 --budget 5 --runtime 1m --deadline-type soft --penalty 0.5 \
	--deadline=now+10minutes --wrap 'sleep 3'
idS=$SB_JOBID
recS=$(check_admitted "job S" "$idS" "$SB_OUT" 1)
libra_sbatch_admitted "job C (comment)" -n 1 --comment="runtime=1m,deadline=10m,budget=5,type=soft,penalty=0.5" --wrap 'sleep 3'
idC=$SB_JOBID
recC=$(check_admitted "job C" "$idC" "$SB_OUT" 1)
fS=$(record_fields "$recS")
fC=$(record_fields "$recC")
# --deadline=now+10minutes is resolved by sbatch, a second may pass
fS=${fS/|601|/|600|}
fS=${fS/|599|/|600|}
assert_eq "60|600|5|0.5|-|soft" "$fC" "job C: runtime|D|budget|penalty|cap|type"
assert_eq "$fC" "$fS" "job S (sbatch options) against job C (--comment): runtime|D|budget|penalty|cap|type"
msg=$(py '
import json, sys
s, c = (json.loads(a)["sla"] for a in sys.argv[1:3])
print("" if sorted(s) == sorted(c) else "fields %s against %s" % (sorted(s), sorted(c)))' "$recS" "$recC")
assert_eq "" "$msg" "job S against job C: the fields of the SLA"
assert_eq UNLIMITED "$(job_field "$idS" TimeLimit)" "job S: time limit (soft, no cap)"
assert_eq UNLIMITED "$(job_field "$idC" TimeLimit)" "job C: time limit (soft, no cap)"

# E: no SLA at all: best effort at the base price.
libra_sbatch -n 1 --wrap 'sleep 3'
[ -n "$SB_JOBID" ] || fail "a job without an SLA was refused: $SB_OUT"
idE=$SB_JOBID
recE=$(job_record "$idE")
assert_eq true "$(json_get "$recE" best_effort)" "job E: best_effort in its record ($recE)"

# --- 3. they run where they were placed, and end ---------------------------
all=("$idA" "$idB" "$idT" "$idP" "$idS" "$idC" "$idE")
declare -A rec=([$idA]=$recA [$idB]=$recB [$idT]=$recT [$idP]=$recP [$idS]=$recS [$idC]=$recC)
for id in "${all[@]}"; do
	wait_until 180 "job $id to end" job_ended "$id"
	assert_eq COMPLETED "$(job_state "$id")" "state of job $id"
	[ -n "${rec[$id]:-}" ] || continue
	want=$(placed_nodes "${rec[$id]}")
	# where slurmctld ran it (sacct's NodeList of a short job can lag)
	got=$(job_field "$id" NodeList)
	got=$(scontrol show hostnames "$got" | sort | paste -sd,)
	assert_eq "$want" "$got" "job $id ran on the nodes of its admission"
done

# --- 4. accounting: the record with its settlement -------------------------
for id in "${all[@]}"; do
	wait_until 120 "job $id's settled record in sacct" sacct_record_final "$id"
	final=$(sacct_record "$id")
	if [ "$id" = "$idE" ]; then
		msg=$(py '
import json, sys
r = json.loads(sys.argv[1]); f = r["final"]; bad = []
if f["how"] != "COMPLETED" or f["met"] is not True: bad.append("how %s met %s" % (f["how"], f["met"]))
if not 0 <= f["charge"] <= r["admit"]["rate"] * 60: bad.append("charge %r for a few seconds of one CPU" % f["charge"])
print("; ".join(bad))' "$final")
		assert_eq "" "$msg" "job E (best effort): final in sacct ($final)"
		continue
	fi
	msg=$(py '
import json, sys
r = json.loads(sys.argv[1]); before = json.loads(sys.argv[2]); f = r["final"]; bad = []
for k in ("policy", "sla", "admit"):
    if r[k] != before[k]: bad.append("%s differs from the one at admission: %r" % (k, r[k]))
if f["how"] != "COMPLETED": bad.append("how %r" % f["how"])
if f["met"] is not True: bad.append("met %r" % f["met"])
if f["delay"] != 0 or f["penalty"] != 0: bad.append("delay %r penalty %r" % (f["delay"], f["penalty"]))
if f["charge"] != r["admit"]["price"]: bad.append("charge %r is not the price %r" % (f["charge"], r["admit"]["price"]))
if not r["admit"]["time"] <= r.get("start", 0) <= f["end"] <= r["sla"]["deadline"]:
    bad.append("admit %r, start %r, end %r, deadline %r out of order" % (r["admit"]["time"], r.get("start"), f["end"], r["sla"]["deadline"]))
print("; ".join(bad))' "$final" "${rec[$id]}")
	assert_eq "" "$msg" "job $id: record in sacct ($final)"
done
assert_eq "runtime=1m,deadline=5m,budget=10,penalty=2.5" "$(sacct_field "$idA" Comment)" "job A: Comment in sacct"
# (read at admission: slurmctld forgets an ended job after MinJobAge, which
# a slow machine can pass before this line)
assert_eq "$limitA" "$(sacct_field "$idA" Timelimit)" "job A: time limit in sacct"

expect_done
cluster_stop
assert_nothing_left
pass
