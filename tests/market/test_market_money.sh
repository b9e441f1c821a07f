#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_market_money: the money is safe (design.md decision 37) against
# what an ordinary user can do with sbatch, scontrol and scancel, on a
# cluster with the site's settlement (the defaults: libra_penalty_cap=1,
# libra_settle_paper=no) and libra_penalty_rate_max=1e6.  Two unprivileged
# users, A (the attacker) and B (anyone else):
#  1. A job that does its work and cancels itself pays for the time it ran,
#     as if at full speed (price x elapsed / RE), not the papers' used part
#     of its window (price x elapsed / window, a 30th here).
#  2. A job held from its submission and cancelled pending pays the part of
#     its window it held.
#  3. A hard job with a penalty of 1e6 per hour, held by its owner, is
#     refused the update that would make it unrunnable (ReqSockets=64: not
#     on the allow-list) and, held to its deadline, is not the provider's
#     broken promise there: WITHDRAWN, no penalty, the window it held paid
#     for.
#  4. A soft job that runs five times its estimate, started when planned,
#     pays no penalty for its own overrun (the papers' rules would take
#     rate x delay); what penalty there is counts only its late start.
#  5. A job requeued by its owner: the time it ran before and waited to run
#     again is the owner's, not the provider's delay.
#  6. Every admitted job's record carries the site's cap (penalty_max =
#     its price), and no settlement pays a penalty beyond it.
#  7. The site's bounds on terms, refused with the key and the parameter
#     named: a penalty rate over libra_penalty_rate_max, a runtime under
#     libra_runtime_min, a deadline past libra_window_max; "quote=0" and
#     "quote=-1" are refused as quote numbers (not run without an SLA);
#     budget=1e-400 is too small, not too large; --tmp beyond every
#     node's TmpDisk is refused, naming it.
#  9. A loop of quotes without jobs (sbatch --test-only) is bounded once
#     one of them has waited a quarter of a second for a job that never
#     came: at most libra_quote_max at once; B, right after, is admitted.
#  8. The charges of A's jobs add up to at least the price of the work that
#     ran (each started job: price x min(1, elapsed / RE)) less the
#     penalties for the provider's own late starts; B is admitted beside
#     A's held jobs.
. "$(dirname "$0")/../integration/lib.sh"
libra_test_init
export LIBRA_NODES=4
libra_cluster_env libra_settle_paper=no libra_penalty_cap=1 libra_price_base=3600 \
	libra_penalty_rate_max=1e6
export LIBRA_PLUGSTACK='required libra_spank.so interval=1'
# a requeued job starts again after the credential's life (Slurm's
# default 2 minutes): 10 s here
export LIBRA_CRED_EXPIRE=10
libra_add_user a
A=$LIBRA_USER
libra_add_user b
B=$LIBRA_USER
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
as() { # USER COMMAND...: a client command as USER
	local u=$1
	shift
	runuser -u "$u" -- "$@"
}

# --- 7. the site's bounds on terms (no job is made) -------------------------
SB_USER=$A
libra_sbatch_refused "penalty over the site's rate" "libra_penalty_rate_max" -n 1 \
	--comment="runtime=10s,deadline=10m,budget=100,penalty=1e7" --wrap true
assert_contains "$SB_OUT" "penalty:" "the refusal names the key"
libra_sbatch_refused "runtime under the site's least" "libra_runtime_min" -n 1 \
	--comment="runtime=0.5s,deadline=10m,budget=100" --wrap true
libra_sbatch_refused "deadline past the site's window" "libra_window_max" -n 1 \
	--comment="runtime=10s,deadline=40d,budget=100" --wrap true
libra_sbatch_refused "quote=0" "quote: '0' is not hold, a quote number" -n 1 \
	--comment="quote=0" --wrap true
libra_sbatch_refused "quote=-1" "quote: '-1' is not hold, a quote number" -n 1 \
	--comment="quote=-1" --wrap true
libra_sbatch_refused "budget=1e-400" "budget: '1e-400' is too small" -n 1 \
	--comment="runtime=10s,deadline=10m,budget=1e-400" --wrap true
# scratch disk no node has: refused at admission, not "admitted" and then
# refused by Slurm
libra_sbatch_refused "--tmp beyond every node" "less scratch disk (TmpDisk) than the 999999 MB it asks" \
	-n 1 --tmp=999999 --comment="runtime=10s,deadline=10m,budget=100" --wrap true

# --- 9. a quote loop (sbatch --test-only) ----------------------------------
# Each quote holds its capacity a few seconds (LIBRA_TOKEN_HOLD); once one
# has waited a quarter of a second for a job that never comes
# (LIBRA_TOKEN_LATE), A may hold only libra_quote_max (4) of them: the
# loop is refused, and B, right after it, is admitted.
SB_USER=$A
t0=$SECONDS nq=0 nlimit=0 lim_out=
while [ $((SECONDS - t0)) -lt 4 ]; do
	libra_sbatch --test-only -n 1 --comment="runtime=20s,deadline=80s,budget=1000" --wrap true
	nq=$((nq + 1))
	if [[ $SB_OUT == *"quotes without a job holding capacity"* ]]; then
		nlimit=$((nlimit + 1))
		lim_out=$SB_OUT
	fi
done
note "A's quote loop: $nq quotes in 4 s, $nlimit refused for the quotes it held"
[ "$nlimit" -ge 1 ] || fail "A's loop of $nq quotes without jobs was never limited"
assert_contains "$lim_out" "libra_quote_max=4" "the limit's refusal names it"
SB_USER=$B
libra_sbatch_admitted "B's job after A's quote loop" -J bafter -n 1 \
	--comment="runtime=20s,deadline=80s,budget=1000" --wrap true
SB_USER=
# the last of A's quotes hold their capacity 3 s more (LIBRA_TOKEN_HOLD),
# a state no client shows; the attacks below pin jobs to single nodes
sleep 4

# --- the attacks ------------------------------------------------------------
SB_USER=$A
# 1. work done, then a self-cancel: 6 s of a 20 s estimate, window 10 m
libra_sbatch_admitted "self-cancel" -J selfcancel -w n1 -n 1 \
	--comment="runtime=20s,deadline=10m,budget=1000" --wrap "$burn 6; scancel \$SLURM_JOB_ID; sleep 30"
selfcancel=$SB_JOBID
# 2. held from submission, cancelled pending after about 20 s of a 2 m window
libra_sbatch_admitted "held then cancelled" -J heldcancel --hold -n 1 \
	--comment="runtime=10s,deadline=2m,budget=1000" --wrap true
heldcancel=$SB_JOBID
# 3. held, an update that would make it unrunnable, held on: a hard
# deadline 60 s ahead
libra_sbatch_admitted "held, a harmful update refused, held on" -J unrunnable --hold -n 1 \
	--comment="runtime=10s,deadline=60s,budget=1000,penalty=1e6" --wrap true
unrunnable=$SB_JOBID
# 4. a soft job that burns 25 s of a 5 s estimate
libra_sbatch_admitted "soft overrun" -J overrun -w n2 -n 1 \
	--comment="runtime=5s,deadline=15s,budget=1000,type=soft,penalty=3600" --wrap "$burn 25"
overrun=$SB_JOBID
# 5. a soft job requeued by its owner once it has run
libra_sbatch_admitted "requeued by its owner" -J requeued -w n3 -n 1 --requeue \
	--comment="runtime=8s,deadline=30s,budget=1000,type=soft,penalty=3600" \
	--wrap "$(gate_wait "$LIBRA_WORK/requeue-go" "$burn 8")"
requeued=$SB_JOBID
SB_USER=

t0=$SECONDS
! as "$A" scontrol update JobId="$unrunnable" ReqSockets=64 >"$LIBRA_WORK/update.out" 2>&1 ||
	fail "A's update ReqSockets=64 of its admitted job $unrunnable was taken"
note "A's update ReqSockets=64 of held job $unrunnable: $(tr '\n' ' ' <"$LIBRA_WORK/update.out")"
wait_until 120 "job $requeued to run" job_in_state "$requeued" RUNNING
sleep 3
as "$A" scontrol requeue "$requeued" || fail "A cannot requeue its own job $requeued"
note "A requeued job $requeued; it runs again when Slurm lets it (then opens its gate)"
gate_open "$LIBRA_WORK/requeue-go"
# B, beside A's held and running jobs: admitted
SB_USER=$B
libra_sbatch_admitted "B's job beside A's" -J bjob -n 1 \
	--comment="runtime=5s,deadline=10m,budget=1000" --wrap "$burn 1"
bjob=$SB_JOBID
SB_USER=
sleep $((t0 + 20 - SECONDS > 0 ? t0 + 20 - SECONDS : 0))
as "$A" scancel "$heldcancel" || fail "A cannot cancel its own job $heldcancel"

ids="$selfcancel,$heldcancel,$unrunnable,$overrun,$requeued,$bjob"
wait_until 400 "the attack jobs to end" bash -c "[ -z \"\$(squeue -h -j $ids -o %i)\" ]"
wait_until 120 "accounting to have every settled record" \
	bash -c "[ \"\$(sacct -n -X -P -j $ids -o AdminComment%65535 | grep -c '\"final\"')\" -ge 6 ]"

sacct -n -X -P -j "$ids" -o JobID,JobName,State,AdminComment%65535 >"$LIBRA_WORK/records"
"$LIBRA_PYTHON" - "$LIBRA_WORK/records" <<'EOF' || fail "settlements: see above"
import json, sys
recs = {}
for line in open(sys.argv[1]):
    jid, name, state, rec = line.rstrip("\n").split("|", 3)
    recs[name] = (jid, state, json.loads(rec))
bad = []
def say(name, why):
    bad.append("%s (job %s): %s" % (name, recs[name][0], why))
owed = paid = 0.0
for name, (jid, state, r) in sorted(recs.items()):
    a, f, s = r["admit"], r["final"], r["sla"]
    price = a["price"]
    print("%-11s %-10s how %-10s price %9.4f charge %9.4f penalty %9.4f start %s end %.0f owner %s"
          % (name, state, f["how"], price, f["charge"], f["penalty"],
             r.get("start", "-"), f["end"], r.get("owner", "-")))
    # 6. the site's cap, in the record from admission
    if abs(a.get("penalty_max", -1) - price) > 1e-9 * max(1, price):
        say(name, "penalty_max %r is not its price %r" % (a.get("penalty_max"), price))
    if f["penalty"] > a.get("penalty_max", 0) + 1e-9:
        say(name, "penalty %r beyond the cap %r" % (f["penalty"], a.get("penalty_max")))
    if name == "bjob":
        continue
    # 8. the work that ran is paid for
    start = r.get("start", 0)
    if start:
        owed += price * min(1.0, (f["end"] - start) / s["runtime"])
    paid += f["charge"] + f["penalty"]
sc = recs["selfcancel"][2]
f = sc["final"]
ran = f["end"] - sc.get("start", f["end"])
if f["how"] != "CANCELLED":
    say("selfcancel", "settled %s, not CANCELLED" % f["how"])
elif ran < 5:
    say("selfcancel", "ran %.1f s, not its 6 s of work" % ran)
elif f["charge"] < sc["admit"]["price"] * min(1, ran / 20.0) - 1e-6:
    say("selfcancel", "charge %r under price x ran / RE = %r" % (f["charge"], sc["admit"]["price"] * min(1, ran / 20.0)))
hc = recs["heldcancel"][2]
f = hc["final"]
held = f["end"] - hc["admit"]["time"]
if f["how"] != "CANCELLED" or "start" in hc:
    say("heldcancel", "settled %s (start %s), not CANCELLED unstarted" % (f["how"], hc.get("start")))
elif held < 15 or f["charge"] < hc["admit"]["price"] * held / (hc["sla"]["deadline"] - hc["admit"]["time"]) - 1e-6:
    say("heldcancel", "held %.1f s of its window, charged %r" % (held, f["charge"]))
un = recs["unrunnable"][2]
f = un["final"]
if f["how"] != "WITHDRAWN" or f["penalty"] != 0:
    say("unrunnable", "settled %s with penalty %r: its owner kept it from running" % (f["how"], f["penalty"]))
elif f["charge"] < 0.9 * un["admit"]["price"]:
    say("unrunnable", "charge %r: it held its whole window (price %r)" % (f["charge"], un["admit"]["price"]))
ov = recs["overrun"][2]
f = ov["final"]
late_start = ov.get("start", 0) - ov["admit"]["time"]
if f["how"] != "COMPLETED" or f["met"] or f["delay"] < 5:
    say("overrun", "settled %s, met %s, delay %r: not a late completion" % (f["how"], f["met"], f["delay"]))
elif f["penalty"] > ov["sla"]["penalty"] * max(0.0, late_start) / 3600.0 + 1e-6:
    say("overrun", "penalty %r for its own overrun (its start was %.2f s after admission)" % (f["penalty"], late_start))
rq = recs["requeued"][2]
f = rq["final"]
if rq.get("owner", 0) < 3:
    say("requeued", "the owner's time %r does not count its run before the requeue" % rq.get("owner"))
if f["penalty"] > f["delay"] * rq["sla"]["penalty"] / 3600.0 and f["penalty"] > 0:
    say("requeued", "penalty %r" % f["penalty"])
print("the work that ran, at its prices: %.4f; charged (before penalties): %.4f" % (owed, paid))
if paid < owed - 1e-6:
    bad.append("A's charges %.4f are less than the price of the work that ran, %.4f" % (paid, owed))
for b in bad:
    print("BAD:", b)
sys.exit(1 if bad else 0)
EOF
errs=$(ctld_plugin_errors | grep -v -e "refused update of admitted" -e "not on the list of harmless changes" || :)
[ -z "$errs" ] || fail "slurmctld logged plugin errors: $errs"
cluster_stop
assert_nothing_left
pass
