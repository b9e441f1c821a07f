#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# A tender across clusters (doc/design.md decision 45; contrib/tools/
# libra-tender): two clusters of one slurmdbd (Slurm's multi-cluster
# operation), east and west, one node of one CPU each, libra+$, west's base
# price twice east's.  libra-tender -M east,west asks each for a binding
# quote (held 30 s: a binding quote is priced for a start as late as its
# hold's end), takes the cheapest and gives the other back at once:
#  1. a job both can take goes to east, the cheaper; west's quote is gone
#     (given back: a second release finds no such quote);
#  2. with east's CPU held by an admitted job, a job whose deadline east
#     cannot meet goes to west, dearer but the only one to quote it; east
#     held no quote;
#  3. a budget neither can meet: nothing submitted, exit 1, each cluster's
#     refusal with its counter-offer printed;
# and the jobs taken run where they were quoted and meet their deadlines.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1 LIBRA_CLUSTER_NAME=east
libra_cluster_env libra_capacity=1 libra_price_base=3600 libra_quote_hold=30
cluster_start
east_dir=$LIBRA_CLUSTER_DIR
west_dir=$LIBRA_CLUSTER_DIR-west
tender=$LIBRA_TOP/contrib/tools/libra-tender

# west: its slurmctld and slurmd on ports of this test's range that east
# does not use (base + 100 on), east's munged and slurmdbd; stopped first
# (it uses east's daemons), whatever happens
west() {
	LIBRA_CLUSTER_DIR=$west_dir LIBRA_DBD_CLUSTER=$east_dir \
		LIBRA_CLUSTER_NAME=west LIBRA_PORT_BASE=$((LIBRA_PORT_BASE + 100)) \
		LIBRA_SCHEDULER_PARAMETERS=${LIBRA_SCHEDULER_PARAMETERS/libra_price_base=3600/libra_price_base=7200} \
		"$LIBRA_CLUSTER" "$@"
}
trap 'rc=$?; west stop >/dev/null 2>&1; [ "$rc" != 0 ] || rm -rf "$west_dir"; (exit $rc); _libra_exit' EXIT
rm -rf "$west_dir"
out=$(west start --fresh 2>&1) || fail "cluster west did not start: $out"
note "$(tail -n 1 <<<"$out")"
clusters=$(sacctmgr -n -P show cluster format=cluster | sort | tr '\n' ' ')
assert_eq "east west " "$clusters" "the clusters slurmdbd knows"

# job_on CLUSTER JOB: the job's state there ("" once purged)
job_on() { squeue -M "$1" -h -j "$2" -t all -o %T 2>/dev/null | awk 'NR > 1 || !/^CLUSTER/' | tail -n 1; }
ended_on() { case $(job_on "$1" "$2") in '' | COMPLETED | FAILED | CANCELLED | TIMEOUT) return 0 ;; esac; return 1; }
# quote_of CLUSTER OUTPUT: the quote number libra-tender got there
quote_of() { sed -n "s/^libra-tender: $1: quote \([0-9]*\): .*/\1/p" <<<"$2"; }
# gone CLUSTER QUOTE: giving the quote back finds none (it was given
# back, or taken)
gone() {
	local o
	o=$(sbatch -M "$1" --test-only --comment="quote=release:$2" --wrap true 2>&1)
	[[ $o == *"libra: rejected: quote $2: "* ]]
}

# --- 1. both quote: the cheaper takes it ---------------------------------------------------
out=$("$tender" -M east,west -n 1 -D "$LIBRA_WORK" -o "$LIBRA_WORK/tender-%j.out" \
	--comment="runtime=20s,deadline=10m" --wrap 'sleep 2' 2>&1) ||
	fail "libra-tender, both clusters free: exit $?: $out"
note "tender 1: $(tr '\n' ';' <<<"$out")"
qe=$(quote_of east "$out") qw=$(quote_of west "$out")
[ -n "$qe" ] && [ -n "$qw" ] || fail "tender 1: a quote from each cluster expected: $out"
assert_contains "$out" "west: quote $qw given back" "tender 1: west's quote given back"
assert_contains "$out" "taking east's quote $qe" "tender 1: east, the cheaper, chosen"
[[ $out =~ Submitted\ batch\ job\ ([0-9]+)\ on\ cluster\ east ]] ||
	fail "tender 1: no job submitted on east: $out"
j1=${BASH_REMATCH[1]}
gone west "$qw" || fail "tender 1: west still holds quote $qw"
pe=$(sed -n 's/^libra-tender: east: quote [0-9]*: price \([0-9.]*\) .*/\1/p' <<<"$out")
pw=$(sed -n 's/^libra-tender: west: quote [0-9]*: price \([0-9.]*\) .*/\1/p' <<<"$out")
"$LIBRA_PYTHON" -c 'import sys; e, w = map(float, sys.argv[1:]); sys.exit(not e < w)' "$pe" "$pw" ||
	fail "tender 1: east's price $pe is not below west's $pw"

# --- 2. only west can meet the deadline -----------------------------------------------------
out=$(sbatch -M east -D "$LIBRA_WORK" -o /dev/null --comment="runtime=100s,deadline=120s" --wrap 'sleep 100' 2>&1) ||
	fail "east: the job that holds its CPU: $out"
[[ $out =~ Submitted\ batch\ job\ ([0-9]+) ]] || fail "east: no job: $out"
blocker=${BASH_REMATCH[1]}
out=$("$tender" -M east,west -n 1 -D "$LIBRA_WORK" -o "$LIBRA_WORK/tender-%j.out" \
	--comment="runtime=60s,deadline=120s" --wrap 'sleep 2' 2>&1) ||
	fail "libra-tender, east full: exit $?: $out"
note "tender 2: $(tr '\n' ';' <<<"$out")"
assert_contains "$out" "libra-tender: east: refused: not enough free CPU share to meet the deadline" "tender 2: east's refusal"
qw=$(quote_of west "$out")
[ -n "$qw" ] || fail "tender 2: no quote from west: $out"
[[ $out =~ Submitted\ batch\ job\ ([0-9]+)\ on\ cluster\ west ]] ||
	fail "tender 2: no job submitted on west: $out"
j2=${BASH_REMATCH[1]}

# --- 3. nobody takes it ---------------------------------------------------------------------
rc=0
out=$("$tender" -M east,west -n 1 --comment="runtime=1m,deadline=10m,budget=0.00001" --wrap true 2>&1) || rc=$?
note "tender 3: $(tr '\n' ';' <<<"$out")"
assert_eq 1 "$rc" "tender 3: exit status"
assert_contains "$out" "libra-tender: east: refused: price " "tender 3: east's refusal"
assert_contains "$out" "libra-tender: west: refused: price " "tender 3: west's refusal"
assert_contains "$out" "feasible with budget" "tender 3: a counter-offer"
assert_contains "$out" "no cluster takes the job: nothing submitted" "tender 3: the verdict"
[[ $out != *"Submitted batch job"* ]] || fail "tender 3: a job was submitted: $out"

# --- the jobs taken run where they were quoted ------------------------------------------------
wait_until 120 "job $j1 to end on east" ended_on east "$j1"
wait_until 180 "job $j2 to end on west" ended_on west "$j2"
scancel -M east "$blocker" 2>/dev/null || :
for cj in "east $j1" "west $j2"; do
	read -r c j <<<"$cj"
	wait_until 120 "job $j's settled record on $c" \
		bash -c "sacct -M $c -n -X -P -j $j -o AdminComment%8000 | grep -q '\"final\":{'"
	met=$(sacct -M "$c" -n -X -P -j "$j" -o AdminComment%8000 | "$LIBRA_PYTHON" -c 'import json, sys; print(str(json.loads(sys.stdin.readline())["final"]["met"]).lower())')
	assert_eq true "$met" "job $j on $c met its deadline"
done
out=$(west stop 2>&1) || fail "cluster west did not stop: $out"
cluster_stop
assert_nothing_left
pass
