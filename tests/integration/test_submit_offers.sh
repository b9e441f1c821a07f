#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# A refusal carries a counter-offer (job_submit_qos(8), counter-offers; ISQoS advisory offers):
# "feasible with budget B", or "cheapest feasible: deadline X at P[, or
# budget B]".  Resubmitting with exactly what was offered, copied from the
# message as a user would, is admitted.  Checked on an idle cluster (budget
# offers) and on a busy one, where every node is 10/13 committed to a filler
# job, so that the offered deadlines are well past the requested ones
# (minutes, over an hour, over a day).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
cluster_start

# offer_deadline / offer_deadline_price / offer_budget OUTPUT: the parts of
# the counter-offer in a refusal (empty if absent).
RE_DEADLINE='cheapest feasible: deadline ([^ ]+) at ([0-9.]*[0-9])'
RE_BUDGET='(feasible with|or) budget ([0-9.]*[0-9])'
offer_deadline() { if [[ $1 =~ $RE_DEADLINE ]]; then printf '%s' "${BASH_REMATCH[1]}"; fi; }
offer_deadline_price() { if [[ $1 =~ $RE_DEADLINE ]]; then printf '%s' "${BASH_REMATCH[2]}"; fi; }
offer_budget() { if [[ $1 =~ $RE_BUDGET ]]; then printf '%s' "${BASH_REMATCH[2]}"; fi; }

# le A B: A <= B (decimal numbers)
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# resubmit WHAT ARGS...: a resubmission with the offered values must be
# admitted (a failed check otherwise; the test goes on).  Sets RESUB_JOB.
RESUB_JOB=
resubmit() {
	local what=$1
	shift
	libra_sbatch "$@"
	RESUB_JOB=$SB_JOBID
	if [ -z "$SB_JOBID" ] || [[ $SB_OUT != *"libra: admitted: price "* ]]; then
		expect_fail "$what: resubmitted with the offer (sbatch $*) and refused: $SB_OUT"
		return 1
	fi
	note "$what: offer taken: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
}

price_of() { json_get "$(job_record "$1")" admit.price; }

# --- 1. budget offers on an idle cluster --------------------------------------
# 1 CPU x 7m by 30m costs 0.1319 on an idle node (alpha 1, beta 0.1, base
# 1 per CPU-hour: 7/60 * (1 + 0.1 * 30/23)).
libra_sbatch_refused "7m by 30m, budget 0.01" "libra: rejected: price " \
	-n 1 --comment="runtime=7m,deadline=30m,budget=0.01" --wrap 'sleep 600'
assert_contains "$SB_OUT" "exceeds budget" "7m by 30m, budget 0.01: why"
b=$(offer_budget "$SB_OUT")
assert_match '^[0-9]+(\.[0-9]+)?$' "$b" "7m by 30m, budget 0.01: offered budget in '$SB_OUT'"
resubmit "7m by 30m, offered budget $b" -n 1 --comment="runtime=7m,deadline=30m,budget=$b" --wrap 'sleep 600' &&
	{ le "$(price_of "$RESUB_JOB")" "$b" || expect_fail "job $RESUB_JOB: price $(price_of "$RESUB_JOB") over the offered budget $b"; }

# A budget a little under the price: a later deadline fits it.
libra_sbatch_refused "7m by 30m, budget 0.131" "libra: rejected: price " \
	-n 1 --comment="runtime=7m,deadline=30m,budget=0.131" --wrap 'sleep 600'
d=$(offer_deadline "$SB_OUT")
p=$(offer_deadline_price "$SB_OUT")
if [ -z "$d" ] || [ -z "$p" ]; then
	fail "7m by 30m, budget 0.131: no deadline offer in '$SB_OUT'"
fi
le "$p" 0.131 || expect_fail "7m by 30m, budget 0.131: the offered deadline $d costs $p, over the budget"
resubmit "7m by 30m, budget 0.131: offered deadline $d at $p" \
	-n 1 --comment="runtime=7m,deadline=$d,budget=$p" --wrap 'sleep 600' || :

# Clear the cluster for the busy part.
scancel -u root
wait_until 120 "the jobs of part 1 to end" no_jobs_active

# --- 2. a busy cluster ----------------------------------------------------------
# One filler per node, 10m by 13m: share 10/13, free share 3/13 = 0.2308.
declare -A filled=()
for i in 1 2 3 4; do
	libra_sbatch_admitted "filler $i" -n 1 --comment="runtime=10m,deadline=13m" --wrap 'sleep 600'
	filled[$(json_get "$(job_record "$SB_JOBID")" admit.place.0.node)]=$SB_JOBID
done
assert_eq 4 "${#filled[@]}" "nodes with a filler (one each: ${!filled[*]})"

# deadline_offer WHAT RUNTIME DEADLINE MIN-SECONDS: a job of RUNTIME by
# DEADLINE does not fit in 3/13 of a CPU; the offered deadline is at least
# MIN-SECONDS = RUNTIME * 13/3 (no earlier deadline fits) and resubmitting
# with it (and the offered price as budget) is admitted.
deadline_offer() {
	local what=$1 re=$2 dl=$3 min=$4 d p secs
	libra_sbatch_refused "$what" "libra: rejected: not enough free CPU share to meet the deadline" \
		-n 1 --comment="runtime=$re,deadline=$dl,budget=100000" --wrap 'sleep 600'
	d=$(offer_deadline "$SB_OUT")
	p=$(offer_deadline_price "$SB_OUT")
	if [ -z "$d" ] || [ -z "$p" ]; then
		expect_fail "$what: no deadline offer in: $SB_OUT"
		return 0
	fi
	note "$what: offered deadline $d at $p"
	# the offer must be at least the least feasible deadline; compare by
	# what the parser (sbatch --test-only with the offered deadline) says
	secs=$("$LIBRA_PYTHON" -c '
import re, sys
d = sys.argv[1]; u = {"s": 1, "m": 60, "h": 3600, "d": 86400}
parts = re.findall(r"([0-9.]+)([smhd])", d)
print(int(sum(float(n) * u[k] for n, k in parts)) if parts and "".join(a + b for a, b in parts) == d else -1)' "$d")
	if [ "$secs" -ge 0 ] && [ "$secs" -lt "$min" ]; then
		expect_fail "$what: offered deadline '$d' ($secs s) is earlier than the least feasible one ($min s)"
	fi
	resubmit "$what: offered deadline $d at $p" \
		-n 1 --comment="runtime=$re,deadline=$d,budget=$p" --wrap 'sleep 600' || :
}

# 5m by 10m: least feasible deadline 21m40s.
deadline_offer "5m by 10m" 5m 10m 1300
# 20m by 40m: least feasible deadline 1h26m40s.
deadline_offer "20m by 40m" 20m 40m 5200
# 10h by 11h: least feasible deadline 1d19h20m.
deadline_offer "10h by 11h" 10h 11h 156000

# A budget refusal on the busy cluster: 2m by 20m (share 0.1) fits on a node
# that is left, for a price.
libra_sbatch_refused "2m by 20m, budget 0.001" "libra: rejected: price " \
	-n 1 --comment="runtime=2m,deadline=20m,budget=0.001" --wrap 'sleep 600'
b=$(offer_budget "$SB_OUT")
if [ -z "$b" ]; then
	expect_fail "2m by 20m, budget 0.001: no budget offer in: $SB_OUT"
else
	resubmit "2m by 20m, offered budget $b" -n 1 --comment="runtime=2m,deadline=20m,budget=$b" --wrap 'sleep 600' &&
		{ le "$(price_of "$RESUB_JOB")" "$b" || expect_fail "job $RESUB_JOB: price $(price_of "$RESUB_JOB") over the offered budget $b"; }
fi

expect_done
cluster_stop
assert_nothing_left
pass
