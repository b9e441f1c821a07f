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

cgroups_gone() {
	local d
	for d in "$cg_cpu" "$cg_acct" "/sys/fs/cgroup/cpuset/$prefix"; do
		[ ! -e "$d" ] || return 1
	done
}
# settle_cgroups: before a stop, give the jobs' slurmstepd the time they
# take here to remove their cgroups as their jobs end (a stop would kill
# them on the way); no_cgroups_left, after it, checks that none is left.
settle_cgroups() { wait_until_ok 60 cgroups_gone || :; }
no_cgroups_left() {
	local d
	for d in "$cg_cpu" "$cg_acct" "/sys/fs/cgroup/cpuset/$prefix"; do
		[ ! -e "$d" ] || fail "cgroup $d still exists after the workload: $(find "$d" -maxdepth 3 -type d | tr '\n' ' ')"
	done
}

# --- 1: the 2:1 ratio -------------------------------------------------------
start_with yes
# shares 0.6 and 0.3 of n1 (72 s and 36 s of CPU in 120 s); 200 s of
# burning each, so both still run when we measure however long they took
# to start (they are cancelled after), and neither reaches its estimate
# (where its share would drop) in the 18 s measured: big has done at most
# 2/3 of that.
libra_sbatch_admitted "share 0.6" -J big -w n1 -n 1 \
	--comment="runtime=72s,deadline=120s,budget=1000" --wrap "$burn 200"
big=$SB_JOBID
libra_sbatch_admitted "share 0.3" -J small -w n1 -n 1 \
	--comment="runtime=36s,deadline=120s,budget=1000" --wrap "$burn 200"
small=$SB_JOBID
have_cgroups() { [ -f "$cg_acct/n1/job_$big/cgroup.procs" ] && [ -f "$cg_acct/n1/job_$small/cgroup.procs" ]; }
wait_until 120 "both jobs' cgroups" have_cgroups
sleep 3	# let both get going
b0=$(usage "$big"); s0=$(usage "$small")
sleep 15
b1=$(usage "$big"); s1=$(usage "$small")
ratio=$(awk -v b=$((b1 - b0)) -v s=$((s1 - s0)) 'BEGIN { printf "%.3f", (s > 0) ? b / s : 0 }')
note "CPU time over 15 s: big $(((b1 - b0) / 1000000)) ms, small $(((s1 - s0) / 1000000)) ms, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.8 && r <= 2.2) }' ||
	fail "CPU time ratio $ratio is not 2:1 within 10%"
scancel "$big" "$small"
wait_until 120 "the jobs to end" bash -c "[ -z \"\$(squeue -h -j $big,$small -o %i)\" ]"
settle_cgroups
cluster_stop
no_cgroups_left

# --- 2: tight and loose, with and without enforcement -----------------------
# tight: 16 s of CPU by 24 s (share 0.667); loose: 16 s by 96 s (0.167).
# Even shares (no enforcement) give the tight one 0.5 CPU: 32 s > 24 s.
# With enforcement the tight one has some 4 s to spare, which a job's
# start and end must not eat: written for a second or two of those, so on
# a busy machine (measured on the first cluster: jobs that do nothing on
# n1 while another burns there) every time is stretched by the same
# factor k (time_scale), shares unchanged.
k=
run_pair() { # enforce -> prints "tight_met loose_met"
	start_with "$1"
	if [ -z "$k" ]; then
		libra_sbatch_admitted "probe load" -J probe -w n1 -n 1 \
			--comment="runtime=30s,deadline=100s,budget=1000" --wrap "$burn 30"
		wait_until 120 "the probe load to run" job_in_state "$SB_JOBID" RUNNING
		local over
		over=$(job_overhead_ms enforce -J probe -w n1 -n 1 --comment="runtime=2s,deadline=10m,budget=1000" --wrap true)
		scancel -n probe
		wait_until 120 "the probes to end" bash -c "[ -z \"\$(squeue -h -n probe -t PD,R,CG -o %i)\" ]"
		k=$(time_scale "$over" 2000)
		note "a job's overhead on n1 here: $over ms (median of 3 probes); tight and loose times x$k"
	fi
	libra_sbatch_admitted "tight ($1)" -J tight -w n1 -n 1 \
		--comment="runtime=$((16 * k))s,deadline=$((24 * k))s,budget=1000,type=soft" --wrap "$burn $((16 * k))"
	local tight=$SB_JOBID
	libra_sbatch_admitted "loose ($1)" -J loose -w n1 -n 1 \
		--comment="runtime=$((16 * k))s,deadline=$((96 * k))s,budget=1000,type=soft" --wrap "$burn $((16 * k))"
	local loose=$SB_JOBID
	wait_until $((240 * k)) "tight and loose to end" bash -c "[ -z \"\$(squeue -h -j $tight,$loose -o %i)\" ]"
	settled() { [ "$(sacct -n -X -P -j "$tight,$loose" -o AdminComment%65535 | grep -c '"final"')" -eq 2 ]; }
	wait_until 120 "both settled records" settled
	met() { sacct -n -X -P -j "$1" -o AdminComment%65535 | "$LIBRA_PYTHON" -c '
import json, sys
f = json.loads(sys.stdin.readline())["final"]
print("met" if f["met"] else "late_by_%.0fs" % f["delay"])'; }
	PAIR="$(met "$tight") $(met "$loose")"
	settle_cgroups
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
