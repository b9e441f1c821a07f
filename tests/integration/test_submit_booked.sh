#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Advance reservations (job_submit_qos(8), "Advance reservations";
# doc/design.md decision 21): a job submitted with
# --begin=now+LEAD and an SLA is admitted at once against the capacity
# committed in its own window, priced for it, and started at its begin
# time, when it meets its deadline; meanwhile
#  - a job that would overlap it and break it is refused,
#  - a job that overlaps it and fits beside it is admitted,
#  - a job that ends before it begins is admitted with the CPU it needs,
#    which counting the booking from now would have refused,
#  - a second booking that would overlap it and break it is refused, with
#    the next free slot offered, where it is then admitted;
# a restarted slurmctld still holds R's window (the ledger is rebuilt from
# the job records); a relative deadline counts from the begin; --begin with
# quote=hold and
# --begin too far ahead are refused with the reason.
#
# One node of one CPU.  The booking R is 60 s of work by 120 s after its
# begin: share 0.5 on [begin, begin + 120 s).  The jobs run a few seconds
# (their work is nominal): what is tested is who is admitted, when the
# booking starts, and that each admitted job meets its deadline.
#
# LIBRA_BOOK_LEAD (seconds, default 90, the least) sets how far ahead R
# is booked (10 minutes: LIBRA_BOOK_LEAD=600).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1
LEAD=${LIBRA_BOOK_LEAD:-90}
[[ $LEAD =~ ^[0-9]+$ ]] && [ "$LEAD" -ge 90 ] ||
	fail "LIBRA_BOOK_LEAD must be a number of seconds, at least 90, not '$LEAD'"
libra_cluster_env libra_capacity=1
cluster_start

# --- 1. the booking ----------------------------------------------------------
libra_sbatch_admitted "booking R" -n 1 --begin="now+$LEAD" \
	--comment="runtime=60s,deadline=120s,budget=100" --wrap 'sleep 3'
r=$SB_JOBID
assert_contains "$SB_OUT" "(1 CPU x 1m, deadline 2m, libra+\$) on n1 (booked to begin at " \
	"booking R: sbatch's message"
note "booking R: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
rec=$(job_record "$r")
begin=$(json_get "$rec" admit.begin)
[ -n "$begin" ] || fail "booking R: no admit.begin in its record: $rec"
msg=$("$LIBRA_PYTHON" - "$rec" "$(scontrol show job "$r" | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); s = r["sla"]; a = r["admit"]; bad = []
if abs(s["deadline"] - a["begin"] - 120) > 1e-6:
    bad.append("deadline %.1f s after the begin, not 120 s" % (s["deadline"] - a["begin"]))
if abs(s["submit"] - a["begin"]) > 1e-6:
    bad.append("the SLA's submit %.1f is not the begin %.1f" % (s["submit"], a["begin"]))
if not a["begin"] > a["time"]:
    bad.append("begin %.1f not after the admission %.1f" % (a["begin"], a["time"]))
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "booking R: its record"
assert_eq PENDING "$(job_state "$r")" "booking R before its begin"
assert_eq BeginTime "$(squeue -h -j "$r" -o %r)" "booking R's reason before its begin"

# The ledger is a cache of the job records: a restarted slurmctld books R
# again from its record (B, next, is refused by R alone).
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"

# --- 2. admissions before the begin -------------------------------------------
# seconds from now to a point T seconds after R's begin
to_begin() { "$LIBRA_PYTHON" -c "import time; print(int($begin + $1 - time.time()))"; }

# B: share 0.6 until 60 s after R's begin: 0.5 + 0.6 > 1 there (nothing
# else is on n1 yet)
d=$(to_begin 60)
libra_sbatch_refused "B, overlapping R, would break it" \
	"libra: rejected: not enough free CPU share to meet the deadline" \
	-n 1 --comment="runtime=$((d * 6 / 10))s,deadline=${d}s" --wrap 'sleep 3'
assert_contains "$SB_OUT" "; next free slot: --begin=" "B: the refusal offers a later slot"
note "B: $(sed -n 's/.*\(libra: rejected: .*\)/\1/p' <<<"$SB_OUT")"

# C: share 0.4 until 30 s after R's begin: 0.5 + 0.4 fits
d=$(to_begin 30)
libra_sbatch_admitted "C, overlapping R, fits beside it" -n 1 \
	--comment="runtime=$((d * 4 / 10))s,deadline=${d}s" --wrap 'sleep 3'
c=$SB_JOBID

# A: share 0.5 until 15 s before R's begin: 0.4 + 0.5 fits; R counted
# from now would make it 1.4
d=$(to_begin -15)
[ "$d" -ge 20 ] || fail "this machine took too long to get here: R begins in $((d + 15)) s"
libra_sbatch_admitted "A, ending before R begins" -n 1 \
	--comment="runtime=$((d / 2))s,deadline=${d}s" --wrap 'sleep 3'
a=$SB_JOBID

# D: a second booking 15 s after R's begin, share 0.2: 0.5 + 0.4 + 0.2 > 1
libra_sbatch_refused "booking D, overlapping R, would break it" \
	"libra: rejected: not enough free CPU share to meet the deadline" \
	-n 1 --begin="now+$(to_begin 15)" --comment="runtime=12s,deadline=60s" --wrap 'sleep 3'
assert_contains "$SB_OUT" "(booked to begin at " "booking D: the refusal names its begin"
note "D: $(sed -n 's/.*\(libra: rejected: .*\)/\1/p' <<<"$SB_OUT")"
# ... and offers the next free slot: when C's share falls, 30 s after R's
# begin; D booked there is admitted
[[ $SB_OUT =~ next\ free\ slot:\ --begin=([0-9T:-]+)\ at ]] ||
	fail "booking D: no next free slot offered: $SB_OUT"
slot=${BASH_REMATCH[1]}
libra_sbatch_admitted "booking D at its next free slot" -n 1 --begin="$slot" \
	--comment="runtime=12s,deadline=60s" --wrap 'sleep 3'
dj=$SB_JOBID
msg=$("$LIBRA_PYTHON" - "$(job_record "$dj")" "$begin" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); rb = float(sys.argv[2])
late = r["admit"]["begin"] - rb
print("" if abs(late - 30) <= 1 else "begins %.1f s after R's, not 30 s (when C's share falls)" % late)
PY
)
assert_eq "" "$msg" "booking D at its next free slot"


# --- 3. what a booking cannot be -------------------------------------------------
libra_sbatch_refused "a booking with quote=hold" \
	"libra: rejected: --begin: a booked job is priced and held at once: it needs no quote=hold" \
	--test-only -n 1 --begin=now+1hour --comment="runtime=1m,deadline=2m,quote=hold" --wrap true
libra_sbatch_refused "a booking 40 days ahead" \
	"libra: rejected: --begin: a job with an SLA is booked at most 30 days ahead" \
	-n 1 --begin=now+40days --comment="runtime=1m,deadline=2m" --wrap true

# --- 4. R starts at its begin and every admitted job meets its deadline ---------
for j in "$a" "$c"; do
	wait_until 300 "job $j to end" job_ended "$j"
done
[ "$(job_state "$r")" = PENDING ] ||
	note "booking R is $(job_state "$r") at $(date +%s), $(to_begin 0) s before its begin"
wait_until $((LEAD + 300)) "booking R to end" job_ended "$r"
wait_until 300 "booking D to end" job_ended "$dj"
for j in "$a" "$c" "$r" "$dj"; do
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
	final=$(sacct_record "$j")
	assert_eq true "$(json_get "$final" final.met)" "job $j met its deadline (sacct: $final)"
done
final=$(sacct_record "$r")
msg=$("$LIBRA_PYTHON" - "$final" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); a = r["admit"]; bad = []
late = r["start"] - a["begin"]
if late < -1:
    bad.append("started %.1f s before its begin" % -late)
elif late > 15:
    bad.append("started %.1f s after its begin" % late)
if r["final"]["how"] != "COMPLETED":
    bad.append("ended %s" % r["final"]["how"])
if abs(r["final"]["charge"] - a["price"]) > 1e-9 * max(1.0, a["price"]):
    bad.append("charged %r, not its price %r" % (r["final"]["charge"], a["price"]))
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "booking R: start and settlement"
note "booking R: began $(json_get "$final" admit.begin), started $(json_get "$final" start), price $(json_get "$final" admit.price), charged $(json_get "$final" final.charge)"
expect_done
cluster_stop
assert_nothing_left
pass
