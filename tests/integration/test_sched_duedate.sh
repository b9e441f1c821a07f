#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Due dates and mark-up tiers (ISQoS's z-curve; doc/design.md decision 18):
#  1. a job that finishes between its due date and its deadline is charged
#     the reduced price in sacct: the price less price x (end - due) /
#     (deadline - due), no cap and no rate given;
#  2. on a node whose free share cannot finish a job by its due date, a job
#     without a tier is refused naming the due date, with a counter-offer
#     that names both dates; the same job in the premium tier is admitted
#     for a completion after its due date (before the break-even point),
#     and its record carries that target.
# The jobs wait at gates the test opens, so how fast this machine starts
# and ends them does not matter: only that the job of 1 ends after its due
# date and well before its deadline, which the test checks and, on a
# machine so slow that it did not, sets up again with a longer window.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
cluster_start

# --- 1. the z-curve in sacct -------------------------------------------------
zcurve_once() { # DUE WINDOW: 0 checked, 1 set up again, else failed
	local due=$1 window=$2 gate=$LIBRA_WORK/go-z-$1 id rec final
	libra_sbatch_admitted "z-curve job (due ${due}s)" -n 1 \
		--comment="runtime=5s,due=${due}s,deadline=$((due + window))s,tier=standard" \
		--wrap "$(gate_wait "$gate")"
	id=$SB_JOBID
	[[ $SB_OUT != *"due date cannot be met"* ]] ||
		fail "z-curve job: admitted by its due date on an idle node, yet: $SB_OUT"
	rec=$(job_record "$id")
	assert_eq standard "$(json_get "$rec" sla.tier)" "z-curve job: its tier in the record"
	# let it end after its due date: the gate opens 5 s past it
	local due_at
	due_at=$(json_get "$rec" sla.duedate)
	wait_until $((due + 120)) "the z-curve job's due date to pass" \
		"$LIBRA_PYTHON" -c "import sys, time; sys.exit(time.time() < $due_at + 5)"
	gate_open "$gate"
	wait_until 300 "job $id to end" job_ended "$id"
	wait_until 120 "job $id's settled record in sacct" sacct_record_final "$id"
	final=$(sacct_record "$id")
	"$LIBRA_PYTHON" - "$final" <<'PY' && return 0
import json, sys
r = json.loads(sys.argv[1]); s = r["sla"]; f = r["final"]
due, td, price = s["duedate"], s["deadline"], r["admit"]["price"]
if not due < f["end"] < td - 1:
    sys.exit(1)
PY
	note "z-curve job $id ended at $(json_get "$final" final.end), not between its due date and deadline: again with a longer window"
	return 1
}
window=60
for attempt in 1 2 3; do
	zcurve_once 20 "$window" && break
	[ "$attempt" -lt 3 ] || fail "the z-curve job never ended between its due date and deadline"
	window=$((window * 3))
done
id=$SB_JOBID
final=$(sacct_record "$id")
msg=$("$LIBRA_PYTHON" - "$final" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); s = r["sla"]; f = r["final"]; bad = []
due, td, price = s["duedate"], s["deadline"], r["admit"]["price"]
want = price - price * (f["end"] - due) / (td - due)
if f["how"] != "COMPLETED" or f["met"] is not True:
    bad.append("how %s met %s" % (f["how"], f["met"]))
if abs(f["charge"] - want) > 1e-6 * max(1.0, price):
    bad.append("charge %r, want %r (price %r, ended %.1f s after the due date of a %.0f s window)"
               % (f["charge"], want, price, f["end"] - due, td - due))
if not 0 < f["charge"] < price:
    bad.append("charge %r not below the price %r" % (f["charge"], price))
if abs(f["penalty"] - (price - f["charge"])) > 1e-6 * max(1.0, price):
    bad.append("penalty %r is not price - charge" % f["penalty"])
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "z-curve job $id: settlement in sacct ($final)"
note "z-curve job $id: price $(json_get "$final" admit.price), charged $(json_get "$final" final.charge)"

# --- 2. a due date the free share cannot meet -------------------------------
# A filler holds 0.9 of n1's CPU (9 minutes of work by 10 minutes); a job of
# 10 s would need 0.5 for a due date 20 s away, has 0.1: it can finish at
# the earliest 100 s from now.
gate=$LIBRA_WORK/go-fill
libra_sbatch_admitted "filler" -w n1 -n 1 --comment="runtime=9m,deadline=10m" \
	--wrap "$(gate_wait "$gate")"
filler=$SB_JOBID
# No tier, no mark-up: the break-even point is the due date itself.
libra_sbatch_refused "a due date n1 cannot meet" \
	"libra: rejected: the due date cannot be met; the earliest completion, in " \
	-w n1 -n 1 --comment="runtime=10s,due=20s,deadline=10m" --wrap true
assert_contains "$SB_OUT" "due date 20s, deadline 10m" "the refusal names both dates"
assert_contains "$SB_OUT" "; cheapest feasible: due date " "the counter-offer names a due date"
# Premium (40%): the break-even point is 0.4/1.4 of the way from the due
# date (80 s) to the deadline (600 s), at 228 s; 100 s is before it.
libra_sbatch_admitted "premium tier past its due date" -w n1 -n 1 \
	--comment="runtime=10s,due=80s,deadline=10m,tier=premium" --wrap "$(gate_wait "$gate")"
premium=$SB_JOBID
assert_contains "$SB_OUT" "the due date cannot be met: planned to finish in " "the admission says when"
msg=$("$LIBRA_PYTHON" - "$(job_record "$premium")" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); s = r["sla"]; bad = []
t = s.get("target")
if t is None:
    bad.append("no sla.target")
elif not s["duedate"] < t < s["duedate"] + 0.4 / 1.4 * (s["deadline"] - s["duedate"]):
    bad.append("target %.1f s after the due date, not before the break-even point" % (t - s["duedate"]))
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "premium job $premium: its record's target"
gate_open "$gate"
for j in "$filler" "$premium"; do
	wait_until 600 "job $j to end" job_ended "$j"
done
expect_done
cluster_stop
assert_nothing_left
pass
