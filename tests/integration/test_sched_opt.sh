#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_sched_opt: opt=time against opt=cost for the same job (design.md
# decision 33; the thesis' QoSOptimization).  One node of one CPU, enforcement
# on.  The same job, 10 s of work declared as 20 s by 3 minutes, is
# submitted twice at once: first with opt=cost (the default, a share of
# 20/180 = 0.11), then with opt=time (libra_spank's --optimize), admitted for the earliest finish the
# CPU left can give (about 0.9 - 0.11 of it).  The weights make the second
# finish first although it started second, and Libra+$ charges it more
# for the larger share; both meet the deadline, and the record of the
# opt=time job carries its target, the planned finish.  Half the work
# declared leaves room for a busy machine (two clusters on this CPU, as
# in the compatibility suite): the opt=time job still ends before its
# planned finish with under half the CPU.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
export LIBRA_NODES=1
libra_cluster_env libra_capacity=0.9 libra_price_base=3600
export LIBRA_PLUGSTACK="required libra_spank.so pin=yes interval=1 top_weight=65536 enforce=yes"
cluster_start

price_re='libra: admitted: price ([0-9.]+) '
libra_sbatch_admitted "opt=cost" -J cost -w n1 -n 1 \
	--comment="runtime=20s,deadline=3m,budget=1000,opt=cost" --wrap "$burn 10"
cost=$SB_JOBID
[[ $SB_OUT =~ $price_re ]] || fail "opt=cost: no price in: $SB_OUT"
cost_price=${BASH_REMATCH[1]}
[[ $SB_OUT != *"opt=time"* ]] || fail "opt=cost: planned as opt=time: $SB_OUT"
libra_sbatch_refused "--optimize=fast" "libra: --optimize: 'fast' is not cost or time" \
	-J bad -w n1 -n 1 --optimize=fast --comment="runtime=20s,deadline=3m" --wrap true
libra_sbatch_admitted "opt=time" -J time -w n1 -n 1 --optimize=time \
	--comment="runtime=20s,deadline=3m,budget=1000" --wrap "$burn 10"
fast=$SB_JOBID
[[ $SB_OUT =~ $price_re ]] || fail "opt=time: no price in: $SB_OUT"
time_price=${BASH_REMATCH[1]}
assert_contains "$SB_OUT" "; opt=time: planned to finish in " "opt=time: sbatch's message"
note "opt=cost: $cost, price $cost_price; opt=time: $fast, $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
awk -v t="$time_price" -v c="$cost_price" 'BEGIN { exit !(t > c) }' ||
	fail "opt=time was charged $time_price, not more than opt=cost's $cost_price"

# the record: opt=time's target (the planned finish) well before the
# deadline; opt is how it was admitted, not a term of the agreement
msg=$("$LIBRA_PYTHON" - "$(job_record "$fast")" "$(job_record "$cost")" <<'PY'
import json, sys
t, c = (json.loads(a) for a in sys.argv[1:3]); bad = []
st, sc = t["sla"], c["sla"]
if "target" not in st:
    bad.append("opt=time: no sla.target")
elif not st["target"] < st["deadline"] - 60:
    bad.append("opt=time: target %r not a minute before the deadline %r" % (st["target"], st["deadline"]))
if "target" in sc:
    bad.append("opt=cost: sla.target %r" % sc["target"])
if "opt" in st or "opt" in st.get("given", []):
    bad.append("opt=time: opt recorded as a term: %r" % st)
print("; ".join(bad))
PY
)
assert_eq "" "$msg" "the records"

wait_until 240 "both jobs to end" bash -c "[ -z \"\$(squeue -h -j $cost,$fast -o %i)\" ]"
for j in "$cost" "$fast"; do
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
	assert_eq true "$(json_get "$(sacct_record "$j")" final.met)" "job $j met its deadline (sacct)"
done
end_of() { sacct -n -X -P -j "$1" -o End | awk 'NR == 1'; }
secs() { date -d "$1" +%s; }
te=$(end_of "$fast") ce=$(end_of "$cost")
note "ends: opt=time $te, opt=cost $ce"
[ "$(secs "$te")" -lt "$(secs "$ce")" ] ||
	fail "opt=time ended at $te, not before opt=cost ($ce), though its share was the larger"
expect_done
cluster_stop
assert_nothing_left
pass
