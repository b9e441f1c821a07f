#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# A warm pool and Slurm's exclusions in the power plan (doc/design.md
# decision 24): four nodes of one CPU under libra_power=h2 (an idle node
# is powered down when two decision points in a row find it idle: h1's
# first decision would come before the nodes have registered), decisions
# every 10 s, libra_power_warm=2, SuspendExcNodes=n4.
#
#  1. Idle: n4 (excluded) is never powered down, and it counts in the warm
#     pool of two, so one other node is kept while the other two go: for
#     three decision points in a row the plan keeps n4 and one of n1-n3
#     powered and idle.
#  2. A job lands on the warm node (the only powered one of n1-n3, and an
#     SLA job sleeps there): the pool is empty, so the next decision point
#     powers a node up again, and it stays up while the job runs; n4 stays
#     up all along.
#  3. The job meets its deadline.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=4 LIBRA_POWER=1 LIBRA_POWER_BOOT_DELAY=2
export LIBRA_EXTRA_CONF="SuspendExcNodes=n4"
libra_cluster_env libra_capacity=1 libra_power=h2 libra_power_interval=10 \
	libra_power_boot=40 libra_power_warm=2
cluster_start

powered_down() { # NODE: Slurm has it powered down (or powering down)
	local t
	t=$(sinfo -h -n "$1" -o '%T')
	[[ $t == *powered_down* || $t == *powering_down* || $(sinfo -h -n "$1" -o '%t') == *[~%]* ]]
}
up_count() { # how many of n1-n3 are powered and not powering down
	local n c=0
	for n in n1 n2 n3; do
		powered_down "$n" || c=$((c + 1))
	done
	echo "$c"
}
two_down() { [ "$(up_count)" = 1 ]; }

# --- 1. the pool and the exclusion -------------------------------------------------
wait_until 120 "two of n1-n3 to be powered down" two_down
for k in 1 2 3; do
	sleep 10	# a decision point
	assert_eq 1 "$(up_count)" "nodes of n1-n3 powered after decision point $k"
	powered_down n4 && fail "n4 (SuspendExcNodes) was powered down: $(sinfo -h -N -o '%N %T' | tr '\n' ';')"
done
warm=
for n in n1 n2 n3; do
	powered_down "$n" || warm=$n
done
note "idle: $warm kept warm, n4 excluded; sinfo: $(sinfo -h -N -o '%N %T' | tr '\n' ';')"
[ "$(ctld_log_count 'sched/libra: power (h2): powering down')" -ge 1 ] ||
	fail "slurmctld's log has no 'powering down' decision"

# --- 2. the warm node taken: another powered up -----------------------------------
libra_sbatch_admitted "a job on the warm node" -J warm -w "$warm" -n 1 \
	--comment="runtime=5s,deadline=120s,budget=1000" --wrap "sleep 40"
job=$SB_JOBID
wait_until 30 "job $job to run on $warm" job_in_state "$job" RUNNING
two_up() { [ "$(up_count)" = 2 ]; }
wait_until 60 "another of n1-n3 to be powered up for the pool" two_up
note "with job $job on $warm: sinfo: $(sinfo -h -N -o '%N %T' | tr '\n' ';')"
[ "$(ctld_log_count 'sched/libra: power (h2): powering up')" -ge 1 ] ||
	fail "slurmctld's log has no 'powering up' decision"
powered_down n4 && fail "n4 (SuspendExcNodes) was powered down"

# --- 3. the job met its deadline ----------------------------------------------------
assert_ran_once_and_met "the job on the warm node" "$job"
[ -z "$(ctld_plugin_errors)" ] || fail "slurmctld logged errors from our plugins: $(ctld_plugin_errors | head -5)"
cluster_stop
assert_nothing_left
pass
