#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_sched_array: a job array under one SLA, admitted, run and settled as
# one bag of tasks (design.md decision 36).  One node of
# 4 CPUs.
#  1. An array of 20 tasks of 60 s, 2 at a time, by 5 minutes: its 10
#     waves cannot fit; refused, with the throttle that would fit offered.
#  2. 20 tasks of 10 s declared, 4 at a time, by 4 minutes, on a budget too
#     small: refused with the budget that would do (the whole array's);
#     submitted again with it, admitted as one job of 4 lanes x 5 waves.
#  3. Its tasks (3 s each) run at most 4 at a time, each with its lane's
#     target (but for one that Slurm's scheduler started and that ended
#     before sched/libra's next pass, as after the restart).  slurmctld is restarted once some have ended: the array's
#     capacity is still held (a job of 4 CPUs x 200 s by 4 minutes, which
#     would fit beside nothing else, is refused), and the tasks go on.
#     All end before the deadline; the array is settled once: one task
#     record, the last to end, carries the array's charge (its price),
#     "met" and the tally of all 20 (the others charge nothing);
#     libra-report counts one admission, met, with that charge.
#  4. The array's capacity is released at its end: that job is admitted.
#  5. libra-replay decides the admissions and refusals again, the array's
#     20 task rows as one admission.
#  6. An array cancelled while one task runs and four wait: settled once,
#     its pending rest counted as the four tasks it holds.  An array asking licenses is refused
#     (not yet: each lane would hold them).
# As a site runs it: libra_no_sla=slurm, slurmctld's own scheduler on (it
# may start the array's tasks too, on the array's node, and sched/libra
# gives them their targets).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1 LIBRA_NODE_CPUS=4
LIBRA_SCHED_DEFAULTS=('libra_policy=libra+$' libra_interval=5 libra_no_sla=slurm)
libra_cluster_env libra_price_base=3600
cluster_start
big=(-n 4 --comment="runtime=200s,deadline=4m,budget=100000" --wrap 'sleep 1')

# --- 1. waves that cannot fit: the throttle offered ---------------------------
libra_sbatch_refused "20 x 60s by 5m, 2 at a time" "libra: rejected: " \
	-n 1 --array=1-20%2 --comment="runtime=60s,deadline=5m,budget=100000" \
	--wrap 'sleep 1'
assert_contains "$SB_OUT" "(a job array of 20 tasks: 10 waves of 60 s, 2 at a time; its price and budget are the whole array's; offer: " \
	"the refusal names the waves and offers a throttle"
note "refused: $(sed -n 's/.*\(libra: rejected: .*\)/\1/p' <<<"$SB_OUT")"

# an array whose lanes would each hold licenses: not yet
libra_sbatch_refused "an array asking licenses" \
	"libra: rejected: a job array under an SLA cannot ask licenses yet" \
	-n 1 --array=1-4 -L lic:1 --comment="runtime=10s,deadline=4m" --wrap 'sleep 1'

# --- 2. a budget too small: the whole array's budget offered -------------------
re_budget='(feasible with|or) budget ([0-9.]*[0-9])'
libra_sbatch_refused "20 x 10s by 4m, budget 0.0001" "libra: rejected: price " \
	-n 1 --array=1-20%4 --comment="runtime=10s,deadline=4m,budget=0.0001" \
	--wrap 'sleep 2'
[[ $SB_OUT =~ $re_budget ]] || fail "no budget offer in: $SB_OUT"
assert_contains "$SB_OUT" "(a job array of 20 tasks: 5 waves of 10 s, 4 at a time; its price and budget are the whole array's)" \
	"the refusal says the budget is the whole array's"
offer=${BASH_REMATCH[2]}
note "budget offered for the array: $offer"
libra_sbatch_admitted "20 x 10s by 4m at the offer" -n 1 --array=1-20%4 \
	--comment="runtime=10s,deadline=4m,budget=$offer" --wrap 'sleep 3'
arr=$SB_JOBID
assert_contains "$SB_OUT" "(array of 20 tasks, 4 at a time in 5 waves: 4 CPUs x 50s" \
	"admitted as one job of 4 lanes x 5 waves"
note "admitted: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
rec=$(job_record "$arr" | awk 'NR == 1')
price=$(json_get "$rec" admit.price)
deadline=$(json_get "$rec" sla.deadline)
assert_eq '{"tasks": 20, "lanes": 4, "waves": 5, "runtime": 10}' \
	"$(json_get "$rec" bag)" "the array's record: its bag"

# --- 3. run, across a restart, and settled once --------------------------------
ended() { ctld_log_count "jobcomp/libra: JobId=${arr}_"; }
wait_until 120 "4 of the array's tasks to end" bash -c "[ \$(grep -cF 'jobcomp/libra: JobId=${arr}_' '$LIBRA_CLUSTER_DIR/log/slurmctld.log') -ge 4 ]"
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
note "slurmctld restarted after $(ended) of the tasks ended"
libra_sbatch_refused "4 CPUs x 200s by 4m beside the array, after the restart" \
	"libra: rejected: not enough free CPU share to meet the deadline" "${big[@]}"
wait_until 240 "the array's 20 tasks to end" \
	bash -c "[ -z \"\$(squeue -h -r -j $arr -o %i 2>/dev/null)\" ]"
all_final() {
	[ "$(sacct -n -X -P -j "$arr" -o AdminComment%8000 2>/dev/null |
		grep -c '"final":{')" = 20 ]
}
wait_until 120 "the 20 tasks' settled records in accounting" all_final
rows=$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$arr" -o JobID,State,Start,End,AdminComment%8000)
noted=$(grep -E "sched/libra: (started JobId=${arr}_|JobId=${arr}_.* was started by slurmctld's scheduler)" \
	"$LIBRA_CLUSTER_DIR/log/slurmctld.log" | sed -n 's/.*JobId=\([0-9_]*\)(.*/\1/p' | tr '\n' ' ')
msg=$("$LIBRA_PYTHON" - "$arr" "$price" "$deadline" "$rows" "$noted" <<'PY'
import json, sys
arr, price, deadline = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
noted = set(sys.argv[5].split())
bad, rows, untargeted = [], [], []
for line in sys.argv[4].splitlines():
    jid, state, start, end, text = line.rstrip("\n").split("|", 4)
    rows.append((jid, state, start, end, json.loads(text)))
ids = sorted(r[0] for r in rows)
if ids != sorted("%s_%d" % (arr, i) for i in range(1, 21)):
    bad.append("tasks %s" % ids)
charged = [r for r in rows if r[4]["final"]["charge"] > 0]
for jid, state, start, end, rec in rows:
    if state != "COMPLETED":
        bad.append("%s %s" % (jid, state))
    f, b = rec["final"], rec["bag"]
    if not f["met"] or f["end"] > deadline:
        bad.append("%s ended at %r, deadline %r, met %r" % (jid, f["end"], deadline, f["met"]))
    # a task Slurm's scheduler started and that ended before sched/libra's
    # next pass never had a target (the SPANK plugin paces it as the first
    # wave's): only those may lack one
    if "target" not in b and jid not in noted:
        untargeted.append(jid)
    elif not 0 < b.get("target", 0) <= deadline:
        bad.append("%s: target %r" % (jid, b.get("target")))
if len(charged) != 1:
    bad.append("%d task records charged (%s)" % (len(charged), [r[0] for r in charged]))
else:
    f, b = charged[0][4]["final"], charged[0][4]["bag"]
    if abs(f["charge"] - price) > 1e-9 * max(1, price):
        bad.append("charge %r, price %r" % (f["charge"], price))
    if (b.get("ended"), b.get("late"), b.get("failed")) != (20, 0, 0):
        bad.append("the settling record's tally %r" % b)
    last = max(r[4]["final"]["end"] for r in rows)
    if charged[0][4]["final"]["end"] < last:
        bad.append("settled at %r, before the last end %r" % (f["end"], last))
# at most 4 at a time (starts and ends in whole seconds, as sacct has them)
ev = sorted([(int(r[2]), 1) for r in rows] + [(int(r[3]), -1) for r in rows])
run = top = 0
for _, d in ev:
    run += d
    top = max(top, run)
if top > 4:
    bad.append("%d tasks ran at once" % top)
if len(untargeted) > 4:
    bad.append("%d tasks without a target: %s" % (len(untargeted), untargeted))
print("; ".join(bad) or "ok: 20 tasks, at most %d at once, last end %.0f s before the deadline%s" %
      (top, deadline - max(r[4]["final"]["end"] for r in rows),
       "; ended before sched/libra saw them run, without a target: %s" % " ".join(untargeted)
       if untargeted else ""))
PY
)
note "$msg"
[[ $msg == ok:* ]] || fail "the array's task records: $msg"
assert_eq 1 "$(ctld_log_count "was the last of its array's 20 tasks to end: the array's SLA met")" \
	"slurmctld settled the array once"

rep=$("$LIBRA_BUILD/contrib/report/libra-report" -S now-1hours --per-job -P 2>&1) ||
	fail "libra-report failed: $rep"
note "libra-report --per-job: $(grep "^$arr|" <<<"$rep" || :)"
assert_eq 1 "$(grep -c "^$arr|" <<<"$rep" || :)" "libra-report: one line for the array"
rep=$("$LIBRA_BUILD/contrib/report/libra-report" -S now-1hours --json 2>&1) ||
	fail "libra-report --json failed: $rep"
msg=$("$LIBRA_PYTHON" - "$rep" "$price" <<'PY'
import json, sys
t = json.loads(sys.argv[1])["total"]
want = {"admitted": 1, "met": 1}
bad = ["%s %r, not %r" % (k, t.get(k), v) for k, v in want.items() if t.get(k) != v]
if abs(t.get("net", 0) - float(sys.argv[2])) > 1e-6:
    bad.append("net %r, not the price %s" % (t.get("net"), sys.argv[2]))
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "libra-report's totals: the array once"

# --- 4. the array's capacity released -----------------------------------------
libra_sbatch_admitted "4 CPUs x 200s by 4m after the array" "${big[@]}"
big_id=$SB_JOBID

# --- 5. every decision again, by the core alone --------------------------------
# the array's 20 rows one admission, released by its last task's row; the
# refusals with an SLA (the budget's, the one after the restart) refused
# again, the second beside the array's entry
sacct -n -X -P -a -o JobID,UID,GID,AdminComment%65535 >"$LIBRA_WORK/sacct.txt"
sched_params=$(scontrol show config | sed -n 's/^SchedulerParameters *= *//p')
out=$("$LIBRA_BUILD/contrib/tools/libra-replay" --nodes n1:4 --params "$sched_params" \
	--sacct-file "$LIBRA_WORK/sacct.txt" \
	--refusals "$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl") ||
	fail "libra-replay: decisions differ: $out"
note "libra-replay: $(tr '\n' ';' <<<"$out")"
# the array and two refusals; the last job too once accounting has it
assert_match '^decisions ([34]), agree \1 \(ambiguous 0\), differ 0' "$out" \
	"libra-replay: the array once, its two refusals (and the last job)"

# --- 6. an array cancelled with tasks still pending ----------------------------
# the pending rest ends at once, counted as the 4 tasks it holds
wait_until 120 "the 4-CPU job to end" bash -c "[ -z \"\$(squeue -h -j $big_id -o %i)\" ]"
libra_sbatch_admitted "5 x 30s by 4m, 1 at a time" -n 1 --array=1-5%1 \
	--comment="runtime=30s,deadline=4m,budget=100000" --wrap 'sleep 30'
arr2=$SB_JOBID
wait_until 120 "a task of array $arr2 to run" \
	bash -c "[ -n \"\$(squeue -h -r -t R -j $arr2 -o %i 2>/dev/null)\" ]"
scancel "$arr2" || fail "scancel $arr2 failed"
last2="was the last of its array's 5 tasks to end: the array's SLA missed"
# shellcheck disable=SC2317 # called through wait_until
settled2() { [ "$(ctld_log_count "$last2")" -ge 1 ]; }
wait_until 120 "array $arr2 settled" settled2
line=$(grep -F "$last2" "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | tail -n 1)
note "cancelled: ${line#*: }"
assert_contains "$line" "JobId=${arr2}_" "the settling line names a task of array $arr2"
assert_contains "$line" "5 not completed)" "the cancelled array's tally: all 5 tasks not completed"
expect_done
cluster_stop
assert_nothing_left
pass
