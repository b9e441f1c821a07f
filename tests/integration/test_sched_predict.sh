#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Runtime predictions on the cluster (doc/design.md decision 23):
# with libra_predict=ratio, a user whose first jobs over-estimate by 4x
# (declared 40 s, burn 10 s) has later jobs admitted on the predicted run
# time, where the declared runtime would be refused, and they meet their
# deadlines; the history is StateSaveLocation/libra_history and survives a
# restart of slurmctld.
#
# The history starts with 3000 jobs of a user and group of their own (ids
# 4242420), 138 KiB: the first job end finds it past its compaction bound
# (64 KiB, nothing compacted yet) and jobcomp/libra compacts it to that
# key's last 32 jobs plus the new line, which it logs.
#
# One node of one CPU, libra_predict_min=3.  Another user's filler holds
# 0.4 of the CPU (it waits at a gate, so it uses none).  A job declaring 40 s by 60 s needs
# 0.67 beside it: refused without a prediction.  Predicted from the three
# finished jobs (their wall time, about 10 s, over 40 s declared), paced at
# 0.8: about 13 s of work, 0.22 of the CPU: admitted.  A machine three
# times slower than an idle one still fits (work up to 36 s).  The other
# user, without a history, is refused for the same job.  Last, a job that
# declares twice its deadline is admitted on its prediction.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1
libra_cluster_env libra_capacity=1 libra_predict=ratio libra_predict_min=3
libra_add_user
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
history=$LIBRA_CLUSTER_DIR/state/libra_history
compacted="libra_history compacted to the last 32 jobs of each key: 33 of 3001 line(s) kept"
awk 'BEGIN { for (i = 0; i < 3000; i++)
	printf "4242420 4242420 5.000000 60.000000 %d.000000\n", 1700000000 + i }' >"$history"

# Parts 1 to 3 (the compatibility suite, LIBRA_PREDICT_QUICK=1, runs part 4
# alone: its history seeded with the three jobs part 1 would run, as
# jobcomp/libra writes them, and read by a restarted slurmctld).
parts_1_to_3() {
# --- 1. three jobs that declare 4x what they use --------------------------------
for i in 1 2 3; do
	libra_sbatch_admitted "over-estimate $i" -n 1 --comment="runtime=40s,deadline=2m" --wrap "$burn 10"
	[[ $SB_OUT != *"runtime predicted"* ]] ||
		fail "over-estimate $i: predicted before the user had a history: $SB_OUT"
	wait_until 180 "job $SB_JOBID to end" job_ended "$SB_JOBID"
done
wait_until 60 "the history compacted (slurmctld's log)" \
	bash -c "grep -qF '$compacted' '$LIBRA_CLUSTER_DIR/log/slurmctld.log'"
wait_until 60 "three finished jobs in $history, after the other user's last 32" \
	bash -c "[ \$(wc -l <'$history') -eq 35 ]"
assert_eq 32 "$(grep -c '^4242420 ' "$history")" "the other user's lines kept"
note "history: $(grep -v '^4242420 ' "$history" | tr '\n' ';')"

# --- 2. the history survives a restart ---------------------------------------------
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"

# --- 3. later jobs: admitted on the prediction, and on time ------------------------
# another user, with no history (and another group), gets the declared
# runtimes: the filler's 0.4, and a refusal for the job of 0.67 beside it
gate=$LIBRA_WORK/go-filler
SB_USER=$LIBRA_USER
libra_sbatch_admitted "filler (0.4)" -n 1 --comment="runtime=48s,deadline=2m" --wrap "$(gate_wait "$gate")"
filler=$SB_JOBID
[[ $SB_OUT != *"runtime predicted"* ]] || fail "the filler's user has no history, yet: $SB_OUT"
libra_sbatch_refused "a user without a history" "libra: rejected: not enough free CPU share to meet the deadline" \
	-n 1 --comment="runtime=40s,deadline=60s" --wrap "$burn 10"
SB_USER=
[[ $SB_OUT != *"runtime predicted"* ]] || fail "a user without a history: predicted: $SB_OUT"
later=()
for i in 1 2; do
	libra_sbatch -n 1 --comment="runtime=40s,deadline=60s" --wrap "$burn 10"
	[ -n "$SB_JOBID" ] || fail "predicted $i: refused beside the filler: $SB_OUT"
	assert_contains "$SB_OUT" "(runtime predicted " "predicted $i: sbatch's message"
	assert_contains "$SB_OUT" "declared 40s)" "predicted $i: the declared runtime named"
	note "predicted $i: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
	msg=$("$LIBRA_PYTHON" - "$(job_record "$SB_JOBID")" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); a = r["admit"]; bad = []
if a.get("declared") != 40:
    bad.append("admit.declared %r, not 40" % a.get("declared"))
if not 0 < a.get("predicted", 0) <= 40:
    bad.append("admit.predicted %r" % a.get("predicted"))
elif abs(r["sla"]["runtime"] - min(40, a["predicted"] / 0.8)) > 1e-6:
    bad.append("sla.runtime %r is not the prediction paced at 0.8" % r["sla"]["runtime"])
print("; ".join(bad))
PY
)
	assert_eq "" "$msg" "predicted $i: its record"
	pred40=$(json_get "$(job_record "$SB_JOBID")" admit.predicted)
	later+=("$SB_JOBID")
	wait_until 180 "job $SB_JOBID to end" job_ended "$SB_JOBID"
done
gate_open "$gate"
for j in "${later[@]}" "$filler"; do
	wait_until 180 "job $j to end" job_ended "$j"
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
	assert_eq true "$(json_get "$(sacct_record "$j")" final.met)" "job $j met its deadline (sacct)"
done
}
if [ "${LIBRA_PREDICT_QUICK:-0}" = 1 ]; then
	now=$(date +%s)
	for i in 1 2 3; do
		printf '0 0 10.000000 40.000000 %d.000000\n' "$((now - 60 + i))"
	done >>"$history"
	"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
	pred40=10
	note "quick: parts 1 to 3 left out, the history seeded with three jobs of 10 s declared 40 s"
else
	parts_1_to_3
fi

# --- 4. a job that declares more than its deadline allows ------------------
# Declared D by a deadline of 90 s, D > 90 s: refused without a history, as
# any runtime past the deadline was; with the user's history admitted on
# the prediction, its time limit the deadline's (2 min, not D), and it
# meets the deadline.  D is sized from the last prediction (pred40 for 40 s
# declared: the history's wall times, longer on a busy machine): the
# prediction for D, about D x pred40 / 40, paced at 0.8, within 0.9 of the
# 90 s; at most 3 minutes.
D=$(awk -v p="$pred40" 'BEGIN { d = int(0.9 * 90 * 0.8 * 40 / p); print (d > 180) ? 180 : d }')
note "declared past the deadline: ${D}s declared by 90 s (the last prediction: ${pred40}s for 40 s)"
[ "$D" -gt 100 ] || fail "the history predicts ${pred40}s for 40 s declared: too slow here for a job declaring over 100 s to fit 90 s"
SB_USER=$LIBRA_USER
libra_sbatch_refused "declared past the deadline, no history" \
	"(libra_predict: no history of finished jobs predicts it shorter)" \
	-n 1 --comment="runtime=${D}s,deadline=90s" --wrap "$burn 10"
assert_contains "$SB_OUT" "deadline: 1m30s from submission is not after the runtime estimate " "declared past the deadline, no history: the reason"
SB_USER=
libra_sbatch_admitted "declared past the deadline, predicted" -n 1 --comment="runtime=${D}s,deadline=90s" --wrap "$burn 10"
over=$SB_JOBID
assert_contains "$SB_OUT" "(runtime predicted " "declared past the deadline: the prediction named"
note "declared past the deadline: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
assert_eq 00:02:00 "$(job_field "$over" TimeLimit)" "declared past the deadline: the time limit follows the deadline"
wait_until 180 "job $over to end" job_ended "$over"
wait_until 120 "job $over's settled record in sacct" sacct_record_final "$over"
assert_eq true "$(json_get "$(sacct_record "$over")" final.met)" "declared past the deadline: met (sacct)"
expect_done
cluster_stop
assert_nothing_left
pass
