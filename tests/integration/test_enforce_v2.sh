#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_enforce_v2: the SPANK plugin's cgroup v2 path, as far as this machine
# lets it run.  Here the kernel's cpu controller is bound to
# cgroup v1, and no cgroup2 hierarchy can weight CPUs (doc/design.md,
# "Slurm releases").  With cgroup_v2_root= naming a plain directory made to
# look like one (a cgroup.controllers listing cpu), the real slurmstepd runs
# the plugin's v2 code, which writes the tree and the files the kernel would
# have had (libra_spank(8)):
#  1. <root>/<prefix>/<node>/job_<id>, with "+cpu" in cgroup.subtree_control
#     at each level above it and the top weight (10000, v2's largest) at
#     the top; the job's task in its cgroup.procs (the process of that job);
#  2. cpu.weight in proportion to each job's share (libra_weight_v2: share x
#     10000): two jobs of shares 2:1 on one node get weights 2:1;
#  3. the weight follows the CPU time that cpu.stat's usage_usec reports
#     (written here as the kernel would): a job reported done with its
#     estimate drops to the best-effort share (share_min 0.01: weight 100);
#  4. a job without an SLA (libra_no_sla=slurm) is left where Slurm put it
#     (doc/design.md decision 27): no task of it in the plugin's tree, no
#     weight written for it;
#  5. a job that idles (no CPU time in its cpu.stat) keeps the weight of
#     the share committed at its admission, not Libra's growing one
#     (decision 16, libra_share_committed()).
# What this cannot show: that a kernel divides CPU time by these weights
# (test_enforce shows it with v1's cpu.shares), the kernel's own files and
# their errors, and Slurm's cgroup/v2 plugin beside ours (the local cluster
# runs proctrack/linuxproc and task/none).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1
v2=$LIBRA_CLUSTER_DIR/cgv2
rm -rf "$v2"
mkdir -p "$v2"
printf 'cpu memory pids\n' >"$v2/cgroup.controllers"
: >"$v2/cgroup.subtree_control"
# As a site runs it: jobs without an SLA are Slurm's (libra_no_sla=slurm)
LIBRA_SCHED_DEFAULTS=(libra_interval=5 libra_no_sla=slurm)
libra_cluster_env 'libra_policy=libra' libra_capacity=0.9
export LIBRA_PLUGSTACK="required libra_spank.so interval=1 top_weight=65536 cgroup_v2_root=$v2"
cluster_start
prefix=$(sed -n 's/.*cgroup_prefix=\([^ ]*\).*/\1/p' "$LIBRA_CLUSTER_DIR/etc/plugstack.conf")
[ -n "$prefix" ] || fail "no cgroup_prefix in plugstack.conf"
node=$v2/$prefix/n1

gate=$LIBRA_WORK/go
# shares 0.2 and 0.1 of n1's CPU: 60 s and 30 s of CPU by 300 s
libra_sbatch_admitted "share 0.2" -J big -n 1 \
	--comment="runtime=60s,deadline=300s,budget=1000" --wrap "$(gate_wait "$gate")"
big=$SB_JOBID
libra_sbatch_admitted "share 0.1" -J small -n 1 \
	--comment="runtime=30s,deadline=300s,budget=1000" --wrap "$(gate_wait "$gate")"
small=$SB_JOBID
# shellcheck disable=SC2317 # called through wait_until
have_weights() { [ -s "$node/job_$big/cpu.weight" ] && [ -s "$node/job_$small/cpu.weight" ]; }
wait_until 120 "both jobs' cpu.weight under $node" have_weights

# 1. the tree
note "tree: $(cd "$v2" && find . | sort | tr '\n' ' ')"
for d in "$v2" "$v2/$prefix" "$node"; do
	assert_contains "$(cat "$d/cgroup.subtree_control")" "+cpu" "cgroup.subtree_control of ${d#"$v2"}"
done
assert_eq 10000 "$(cat "$v2/$prefix/cpu.weight")" "the top directory's weight (top_weight=65536, v2's largest)"
for j in "$big" "$small"; do
	pids=$(cat "$node/job_$j/cgroup.procs")
	[ -n "$pids" ] || fail "job $j: no task in its cgroup.procs"
	for pid in $pids; do
		env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) ||
			fail "job $j: task $pid of its cgroup.procs is not running"
		assert_contains "$env" "SLURM_JOB_ID=$j" "job $j: task $pid's job"
	done
	note "job $j: cgroup.procs $pids, cpu.weight $(cat "$node/job_$j/cpu.weight")"
done

# 2. weights 2:1
wb=$(cat "$node/job_$big/cpu.weight")
ws=$(cat "$node/job_$small/cpu.weight")
awk -v b="$wb" -v s="$ws" 'BEGIN { r = b / s; exit !(r >= 1.8 && r <= 2.2) }' ||
	fail "cpu.weight $wb and $ws are not the shares' 2:1 within 10%"
awk -v b="$wb" 'BEGIN { exit !(b >= 1900 && b <= 2400) }' ||
	fail "the share-0.2 job's cpu.weight $wb is not about 0.2 x 10000"

# 3. the weight follows cpu.stat: big reported done with its 60 s
printf 'usage_usec 60000000\nuser_usec 60000000\nsystem_usec 0\n' >"$node/job_$big/cpu.stat"
# shellcheck disable=SC2317 # called through wait_until
weight_is() { [ "$(cat "$node/job_$1/cpu.weight" 2>/dev/null)" = "$2" ]; }
wait_until 30 "the done job's weight to drop to share_min's 100" weight_is "$big" 100
note "after cpu.stat reported 60 s done: job $big cpu.weight $(cat "$node/job_$big/cpu.weight"), job $small $(cat "$node/job_$small/cpu.weight")"
awk -v s="$(cat "$node/job_$small/cpu.weight")" 'BEGIN { exit !(s >= 950) }' ||
	fail "the other job's weight changed with the done job's cpu.stat"

gate_open "$gate"
wait_until 120 "the jobs to end" bash -c "[ -z \"\$(squeue -h -j $big,$small -o %i)\" ]"

# 4. a job without an SLA: CPUs of its own, Slurm's cgroup, Slurm's weight
gate2=$LIBRA_WORK/go2
libra_sbatch -J plain -n 1 --wrap "echo started >$LIBRA_WORK/plain.started; $(gate_wait "$gate2")"
[ "$SB_RC" = 0 ] && [ -n "$SB_JOBID" ] || fail "a job without an SLA was not accepted: $SB_OUT"
plain=$SB_JOBID
# shellcheck disable=SC2317 # called through wait_until
plain_started() { [ -s "$LIBRA_WORK/plain.started" ]; }
wait_until 120 "the job without an SLA to start" plain_started
# the step's hook ran before its task: the record was read by then
in_tree=$(cat "$node/job_$plain/cgroup.procs" 2>/dev/null || :)
assert_eq "" "$in_tree" "tasks of the job without an SLA in the plugin's tree ($node/job_$plain)"
[ ! -e "$node/job_$plain/cpu.weight" ] ||
	fail "the plugin wrote cpu.weight $(cat "$node/job_$plain/cpu.weight") for job $plain, which has no SLA"
note "job $plain (no SLA): no task and no weight in the plugin's tree"
gate_open "$gate2"
wait_until 120 "the job without an SLA to end" bash -c "[ -z \"\$(squeue -h -j $plain -o %i)\" ]"

# 5. a job that idles (cpu.stat reports no work) claims no more than the
# share committed at its admission: 20 s of work by 60 s, paced one
# interval early, 20 / 59 = 0.339; Libra's formula alone asks 20 / 44 =
# 0.455 by 15 s after the admission
gate3=$LIBRA_WORK/go3
libra_sbatch_admitted "an idle job" -J idle -n 1 \
	--comment="runtime=20s,deadline=60s,budget=1000" --wrap "$(gate_wait "$gate3")"
idle=$SB_JOBID
# shellcheck disable=SC2317 # called through wait_until
idle_weight() { [ -s "$node/job_$idle/cpu.weight" ]; }
wait_until 60 "the idle job's cpu.weight" idle_weight
admitted=$(json_get "$(job_record "$idle")" admit.time)
sleep "$(awk -v a="$admitted" -v n="$(date +%s.%N)" 'BEGIN { d = a + 16 - n; print (d > 0 ? d : 0) }')"
wi=$(cat "$node/job_$idle/cpu.weight")
libra=$(awk -v a="$admitted" -v n="$(date +%s.%N)" 'BEGIN { printf "%d", 10000 * 20 / (60 - 1 - (n - a)) }')
note "job $idle idle for 16 s: cpu.weight $wi (committed 3390; Libra's formula now $libra)"
awk -v w="$wi" 'BEGIN { exit !(w >= 3220 && w <= 3560) }' ||
	expect_fail "the idle job's cpu.weight $wi is not its committed share's 3390 within 5% (Libra's formula: $libra)"
gate_open "$gate3"
wait_until 120 "the idle job to end" bash -c "[ -z \"\$(squeue -h -j $idle -o %i)\" ]"
expect_done
cluster_stop
assert_nothing_left
rm -rf "$v2"
pass
