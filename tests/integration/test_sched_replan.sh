#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_sched_replan: live re-planning (doc/design.md decision 34).  One
# node of one CPU, libra_predict=ratio, enforcement on.
# root's history says its jobs declaring 60 s run 15 s, so a job of root
# declaring 60 s by 5 minutes is admitted on 15 s predicted (work 18.75 s,
# paced at 0.8: a share of 0.06).  It burns 30 s.  Beside it runs a job of
# another user (no history) of 100 s declared by 11 minutes (a share of
# 0.15) that burns 60 s, so the first job gets under a third of the CPU.  When
# the first job has done its 15 s, its node reports it (slurmstepd's SPANK
# plugin, an AdminComment update job_submit/qos takes as a report);
# slurmctld re-plans it with the core's libra_replan(), the simulator's
# own: no history runs longer, so its declared 60 s, paced to 0.8 of the
# time left.  Its share rises above the other job's and it meets its
# deadline; without the re-planning it would have fallen to share_min
# (0.01, a fifteenth of the other job's) at 18.75 s.  Three clusters on
# one CPU (the compatibility suite beside make check) took 200 s of a
# 4-minute deadline; 5 minutes leave room.  The record keeps the re-planning
# (admit.replanned, done, replans, plan, plan_end; the SLA and the
# prediction stay as admitted), so a restarted slurmctld commits the job
# as it was re-planned, and sacct shows it.  libra-replay decides every
# admission and the re-planning again from sacct and the history file.  A
# user's own progress report is refused.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
export LIBRA_NODES=1
libra_cluster_env libra_capacity=1 libra_predict=ratio libra_predict_min=3 \
	libra_predict_pace=0.8 libra_predict_risk=0.05
export LIBRA_PLUGSTACK="required libra_spank.so pin=yes interval=1 top_weight=65536 enforce=yes"
libra_add_user
cluster_start
history=$LIBRA_CLUSTER_DIR/state/libra_history
now=$(date +%s)
for i in 1 2 3; do
	printf '0 0 15.000000 60.000000 %d.000000\n' $((now - 100 + i)) >>"$history"
done
# the predictor is filled from the file when slurmctld starts
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"

libra_sbatch_admitted "predicted job" -J pred -w n1 -n 1 \
	--comment="runtime=60s,deadline=5m" --wrap "$burn 30"
pred=$SB_JOBID
assert_contains "$SB_OUT" "(runtime predicted 15s from 3 finished jobs; declared 1m)" "predicted job: sbatch's message"
note "predicted job: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
SB_USER=$LIBRA_USER
libra_sbatch_admitted "the other job" -J other -w n1 -n 1 \
	--comment="runtime=100s,deadline=11m" --wrap "$burn 60"
other=$SB_JOBID
SB_USER=
[[ $SB_OUT != *"runtime predicted"* ]] || fail "the other user has no history: $SB_OUT"

# a user cannot report progress
wait_until 60 "job $pred to run" job_in_state "$pred" RUNNING
out=$(runuser -u "$LIBRA_USER" -- scontrol update jobid="$pred" admincomment="libra-progress:done=100" 2>&1) &&
	fail "a user's progress report was taken: $out"
note "a user's report: $out"

wait_until 300 "job $pred re-planned (slurmctld's log)" \
	bash -c "grep -q 'JobId=$pred re-planned (1): ' '$LIBRA_CLUSTER_DIR/log/slurmctld.log'"
note "$(grep -o "JobId=$pred re-planned (1): .*" "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | head -1)"
rec=$(job_record "$pred")
msg=$("$LIBRA_PYTHON" - "$rec" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); a = r["admit"]; s = r["sla"]; bad = []
if a.get("replans") != 1:
    bad.append("admit.replans %r, not 1" % a.get("replans"))
if not 15 - 1e-6 <= a.get("done", 0) < 18.75:
    bad.append("admit.done %r: not at its plan of 15 s" % a.get("done"))
if a.get("plan") != 60:
    bad.append("admit.plan %r, not the declared 60 s" % a.get("plan"))
if a.get("predicted") != 15 or abs(s["runtime"] - 18.75) > 1e-6:
    bad.append("the admission changed: admit.predicted %r, sla.runtime %r"
               % (a.get("predicted"), s["runtime"]))
if not a["replanned"] < a.get("plan_end", 0) < s["deadline"]:
    bad.append("admit.plan_end %r not between the re-planning and the deadline"
               % a.get("plan_end"))
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "the re-planned record"

# the ledger rebuilt from the record commits the job as re-planned
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
for j in "$pred" "$other"; do
	wait_until 400 "job $j to end" job_ended "$j"
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
	assert_eq true "$(json_get "$(sacct_record "$j")" final.met)" "job $j met its deadline (sacct)"
done
assert_eq 1 "$(json_get "$(sacct_record "$pred")" admit.replans)" "sacct: the re-planning"
note "the predicted job ended $("$LIBRA_PYTHON" -c '
import json, sys
r = json.loads(sys.argv[1])
print("%.0f s after its submission, its deadline %.0f s" % (r["final"]["end"] - r["sla"]["submit"], r["sla"]["deadline"] - r["sla"]["submit"]))' "$(sacct_record "$pred")")"

# every decision again, by the core alone: the admissions, and the
# re-planning from the history of jobs ended before it
sacct -n -X -P -a -o JobID,UID,GID,AdminComment%65535 >"$LIBRA_WORK/sacct.txt"
sched_params=$(scontrol show config | sed -n 's/^SchedulerParameters *= *//p')
out=$("$LIBRA_BUILD/contrib/tools/libra-replay" --nodes n1:1 --params "$sched_params" \
	--sacct-file "$LIBRA_WORK/sacct.txt" --history "$history" -v) ||
	fail "libra-replay: decisions differ: $out"
note "libra-replay: $(tr '\n' ';' <<<"$out")"
assert_contains "$out" "re-plannings 1, the same 1, differ 0, unchecked 0" "libra-replay: the re-planning"
expect_done
cluster_stop
assert_nothing_left
pass
