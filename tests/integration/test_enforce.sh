#!/usr/bin/env bash
# test_enforce: the SPANK plugin's cgroup CPU weights give each job its
# deadline share (issue "Node-side enforcement", done-when 1-3).
#
#  1. Two CPU-bound jobs on one single-CPU node with shares 2:1 receive CPU
#     time in the ratio 2:1 within 10%, read from the cgroups' own
#     accounting (cpuacct.usage, or cpu.stat on cgroup v2).
#  2. A tight-deadline job sharing a CPU with a loose one: with enforcement
#     on, both meet their deadlines; with it off (enforce=no), the tight one
#     misses (soft deadlines, so it finishes late instead of being ended).
#  3. After each workload no cgroup the plugin created remains.

. "$(dirname "$0")/lib.sh"
libra_test_init
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
export LIBRA_NODES=2

# Where the plugin keeps this cluster's cgroups (see libra-cluster).
prefix="libra-$(printf '%s' "$LIBRA_CLUSTER_DIR" | cksum | cut -d' ' -f1)"
if [ -f /sys/fs/cgroup/cpu/cpu.shares ]; then
	cg_cpu=/sys/fs/cgroup/cpu/$prefix
	cg_acct=/sys/fs/cgroup/cpuacct/$prefix
	usage() { cat "$cg_acct/n1/job_$1/cpuacct.usage"; }	# ns
else
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	cg_cpu=$v2/$prefix
	cg_acct=$v2/$prefix
	usage() { awk '$1 == "usage_usec" { print $2 * 1000 }' "$cg_acct/n1/job_$1/cpu.stat"; }
fi

start_with() { # enforce=yes|no
	libra_cluster_env 'libra_policy=libra' libra_capacity=0.9 libra_price_base=3600
	export LIBRA_PLUGSTACK="required libra_spank.so pin=yes interval=1 top_weight=65536 enforce=$1"
	cluster_start
}

no_cgroups_left() {
	local d
	for d in "$cg_cpu" "$cg_acct" "/sys/fs/cgroup/cpuset/$prefix"; do
		[ ! -e "$d" ] || fail "cgroup $d still exists after the workload: $(find "$d" -maxdepth 3 -type d | tr '\n' ' ')"
	done
}

# --- 1: the 2:1 ratio -------------------------------------------------------
start_with yes
# shares 0.6 and 0.3 of n1 (36 s and 18 s of CPU in 60 s); 40 s of burning
# each, so both are still running when we measure.
libra_sbatch_admitted "share 0.6" -J big -w n1 -n 1 \
	--comment="runtime=36s,deadline=60s,budget=1000" --wrap "$burn 40"
big=$SB_JOBID
libra_sbatch_admitted "share 0.3" -J small -w n1 -n 1 \
	--comment="runtime=18s,deadline=60s,budget=1000" --wrap "$burn 40"
small=$SB_JOBID
have_cgroups() { [ -f "$cg_acct/n1/job_$big/cgroup.procs" ] && [ -f "$cg_acct/n1/job_$small/cgroup.procs" ]; }
wait_until 20 "both jobs' cgroups" have_cgroups
sleep 3	# let both get going
b0=$(usage "$big"); s0=$(usage "$small")
sleep 15
b1=$(usage "$big"); s1=$(usage "$small")
ratio=$(awk -v b=$((b1 - b0)) -v s=$((s1 - s0)) 'BEGIN { printf "%.3f", (s > 0) ? b / s : 0 }')
note "CPU time over 15 s: big $(((b1 - b0) / 1000000)) ms, small $(((s1 - s0) / 1000000)) ms, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.8 && r <= 2.2) }' ||
	fail "CPU time ratio $ratio is not 2:1 within 10%"
scancel "$big" "$small"
wait_until 30 "the jobs to end" bash -c "[ -z \"\$(squeue -h -j $big,$small -o %i)\" ]"
sleep 2
cluster_stop
no_cgroups_left

# --- 2: tight and loose, with and without enforcement -----------------------
# tight: 16 s of CPU by 24 s (share 0.667); loose: 16 s by 96 s (0.167).
# Even shares (no enforcement) give the tight one 0.5 CPU: 32 s > 24 s.
run_pair() { # enforce -> prints "tight_met loose_met"
	start_with "$1"
	libra_sbatch_admitted "tight ($1)" -J tight -w n1 -n 1 \
		--comment="runtime=16s,deadline=24s,budget=1000,type=soft" --wrap "$burn 16"
	local tight=$SB_JOBID
	libra_sbatch_admitted "loose ($1)" -J loose -w n1 -n 1 \
		--comment="runtime=16s,deadline=96s,budget=1000,type=soft" --wrap "$burn 16"
	local loose=$SB_JOBID
	wait_until 120 "tight and loose to end" bash -c "[ -z \"\$(squeue -h -j $tight,$loose -o %i)\" ]"
	settled() { [ "$(sacct -n -X -P -j "$tight,$loose" -o AdminComment%65535 | grep -c '"final"')" -eq 2 ]; }
	wait_until 30 "both settled records" settled
	met() { sacct -n -X -P -j "$1" -o AdminComment%65535 | "$LIBRA_PYTHON" -c '
import json, sys
f = json.loads(sys.stdin.readline())["final"]
print("met" if f["met"] else "late_by_%.0fs" % f["delay"])'; }
	PAIR="$(met "$tight") $(met "$loose")"
	sleep 2
	cluster_stop
	no_cgroups_left
}
run_pair yes
on=$PAIR
run_pair no
off=$PAIR
note "enforcement on: tight/loose = $on; off: $off"
assert_eq "met met" "$on" "with enforcement, both deadlines"
[[ $off == late_by_* ]] || fail "without enforcement the tight job should miss its deadline; got '$off'"

assert_nothing_left
pass
