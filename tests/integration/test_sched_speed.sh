#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_sched_speed: nodes of two speeds (design.md decision 43), made real
# on one host: n1's jobs share half a CPU (its cgroup's CPU quota, 50 ms
# in every 100 ms, over the jobs' own cgroups), and SchedulerParameters
# declare it libra_node_speed=n1:0.5; n2 is a whole CPU.  A runtime is in
# seconds of the reference CPU (n2's).
#
#  1. The same SLA job (20 s by 90 s) on each node: admitted on n1 with
#     twice n2's share (0.444 against 0.222), its placement saying speed
#     0.5 (n2's says none); priced by each node's utilisation in its own
#     seconds, so dearer on n1; the SPANK plugin's weights read back from
#     the cgroups in the ratio admission planned, 2:1 within 5% (the jobs
#     sleep, so their weights stay at their committed shares).
#  2. A job of 20 s by 75 s on n1 runs on its half CPU (some 40 s) and
#     meets its hard deadline.
#  3. A job of 30 s by 60 s is refused on n1 (it needs the whole node, more
#     than libra_capacity) and admitted on n2 at half a CPU.
#  4. A name slurm.conf lacks in libra_node_speed is logged by slurmctld.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
export LIBRA_NODES=2
libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.9 \
	libra_price_base=3600 'libra_node_speed=n1:0.5;nosuch[1-2]:2'
export LIBRA_PLUGSTACK='required libra_spank.so pin=yes interval=1 top_weight=65536'

# Where the plugin keeps this cluster's cgroups (see libra-cluster).
prefix="libra-$(printf '%s' "$LIBRA_CLUSTER_DIR" | cksum | cut -d' ' -f1)"
[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] ||
	skip "no cgroup v1 cpu controller with a CPU quota here (the VM's cgroup v2 tests cover weights)"
cg_cpu=/sys/fs/cgroup/cpu/$prefix
cluster_start

# n1's cgroup, made before its first job (the plugin makes it if missing,
# and takes one that exists): half a CPU for all of n1's jobs.
mkdir -p "$cg_cpu/n1"
echo 100000 >"$cg_cpu/n1/cpu.cfs_period_us"
echo 50000 >"$cg_cpu/n1/cpu.cfs_quota_us"
libra_at_exit "rmdir '$cg_cpu/n1' '$cg_cpu' 2>/dev/null || :"

# --- 4: a name slurm.conf lacks ------------------------------------------------
wait_until 30 "slurmctld to name the unknown node of libra_node_speed" grep -qF \
	"libra_node_speed: 'nosuch[1-2]' names a node slurm.conf does not have" \
	"$LIBRA_CLUSTER_DIR/log/slurmctld.log"

# --- 1: the same job on each node --------------------------------------------
sla="runtime=20s,deadline=90s,budget=1000"
libra_sbatch_admitted "20 s by 90 s on n1" -J slow -w n1 -n 1 \
	--comment="$sla" --wrap "sleep 60"
slow=$SB_JOBID slow_msg=$SB_OUT
libra_sbatch_admitted "20 s by 90 s on n2" -J fast -w n2 -n 1 \
	--comment="$sla" --wrap "sleep 60"
fast=$SB_JOBID fast_msg=$SB_OUT
price() { sed -n 's/.*libra: admitted: price \([0-9.]*\).*/\1/p' <<<"$1"; }
p_slow=$(price "$slow_msg") p_fast=$(price "$fast_msg")
rec_slow=$(job_record "$slow") rec_fast=$(job_record "$fast")
assert_eq 0.5 "$(json_get "$rec_slow" admit.place.0.speed)" "job $slow's placement speed"
[[ $rec_fast != *'"speed"'* ]] || fail "job $fast's record names a speed at 1: $rec_fast"
note "prices: $p_slow on n1 (speed 0.5), $p_fast on n2"
awk -v s="$p_slow" -v f="$p_fast" 'BEGIN { exit !(s > f) }' ||
	fail "the job is not dearer on the slow node: $p_slow on n1, $p_fast on n2"
for j in "$slow" "$fast"; do
	wait_until 60 "job $j to run" job_in_state "$j" RUNNING
done
wfile() { # the weight file of job $1 on node $2
	if [ -f "$cg_cpu/$2/job_$1/cpu.shares" ]; then
		echo "$cg_cpu/$2/job_$1/cpu.shares"
	else
		echo "$cg_cpu/$2/job_$1/cpu.weight"
	fi
}
# shellcheck disable=SC2317 # called by wait_until
have_weights() { [ -f "$(wfile "$slow" n1)" ] && [ -f "$(wfile "$fast" n2)" ]; }
wait_until 60 "both jobs' weights" have_weights
sleep 2	# the plugin writes a weight each interval (1 s)
w_slow=$(cat "$(wfile "$slow" n1)") w_fast=$(cat "$(wfile "$fast" n2)")
ratio=$(awk -v a="$w_slow" -v b="$w_fast" 'BEGIN { printf "%.3f", a / b }')
note "weights: $w_slow on n1, $w_fast on n2: ratio $ratio (planned 2: shares 0.444 and 0.222)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.9 && r <= 2.1) }' ||
	fail "the weights' ratio $ratio is not the planned 2 within 5%"
assert_eq 50000 "$(cat "$cg_cpu/n1/cpu.cfs_quota_us")" "n1's CPU quota while its job runs"
scancel "$slow" "$fast"
wait_until 60 "the sleeping jobs to end" bash -c "[ -z \"\$(squeue -h -j $slow,$fast -o %i)\" ]"

# --- 2: a job on the half CPU meets its deadline ------------------------------
mkdir -p "$cg_cpu/n1"	# again, should its last job have removed it
echo 50000 >"$cg_cpu/n1/cpu.cfs_quota_us"
libra_sbatch_admitted "20 s by 75 s on n1" -J burn -w n1 -n 1 \
	--comment="runtime=20s,deadline=75s,budget=1000" --wrap "$burn 20"
burnjob=$SB_JOBID
t0=$SECONDS
assert_ran_once_and_met "the job on n1's half CPU" "$burnjob"
note "job $burnjob: 20 s of CPU on n1's half CPU took $((SECONDS - t0)) s to end and settle; deadline met"

# --- 3: refused on the slow node, admitted on the fast one --------------------
libra_sbatch_refused "30 s by 60 s on n1" "libra: rejected" -J tight1 -w n1 -n 1 \
	--comment="runtime=30s,deadline=60s,budget=1000" --wrap true
note "n1: $(grep -o 'libra: rejected:.*' <<<"$SB_OUT" | head -c 200)"
libra_sbatch_admitted "30 s by 60 s on n2" -J tight2 -w n2 -n 1 \
	--comment="runtime=30s,deadline=60s,budget=1000" --wrap true
assert_ran_once_and_met "the job on n2" "$SB_JOBID"

[ -z "$(ctld_plugin_errors | grep -v 'libra_node_speed')" ] ||
	fail "slurmctld logged errors from our plugins: $(ctld_plugin_errors | head -5)"
cluster_stop
assert_nothing_left
pass
