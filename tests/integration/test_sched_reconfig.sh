#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_sched_reconfig: "scontrol reconfigure" applies new libra_* parameters
# without a restart, "scontrol show config" shows them, a bad value is
# refused with a log line naming the key and the running values stay, and
# sched/libra refuses to load without sched_interval=-1,defer when it starts
# jobs without an SLA itself (libra_no_sla=best_effort); an SLA job is refused
# where Slurm could preempt or gang-suspend it (design.md decision 30); the
# going rate (libra_min_profit_rate) refuses a job that earns too little.

. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2
libra_cluster_env 'libra_policy=libra+$' libra_price_base=3600
cluster_start
ctld=$(slurmctld_pid)

policy_of() { sacct_record "$1" >/dev/null; job_record "$1" | "$LIBRA_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["policy"])'; }

libra_sbatch_admitted "job under libra+\$" -n 1 --comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
assert_eq 'libra+$' "$(policy_of "$SB_JOBID")" "policy in the record before reconfigure"

# New parameters: Libra with a static price.
export LIBRA_SCHEDULER_PARAMETERS='sched_interval=-1,defer,libra_no_sla=best_effort,libra_policy=libra,libra_price_base=7200,libra_interval=5'
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig failed"
assert_contains "$(scontrol show config | grep SchedulerParameters)" "libra_policy=libra," "scontrol show config"
libra_sbatch_admitted "job under libra" -n 1 --comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
assert_eq libra "$(policy_of "$SB_JOBID")" "policy in the record after reconfigure"
# Libra's static price: PBase_s * (gamma RE + delta RE/D) = 2 * (10 + 10/600)
price=$(job_record "$SB_JOBID" | "$LIBRA_PYTHON" -c 'import json,sys; print("%.6f" % json.load(sys.stdin)["admit"]["price"])')
assert_eq "20.033333" "$price" "Libra's static price at 7200 per CPU-hour"

# A bad value: refused in the log, the running parameters stay.
export LIBRA_SCHEDULER_PARAMETERS='sched_interval=-1,defer,libra_no_sla=best_effort,libra_policy=libra,libra_price_base=7200,libra_beta=-3'
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig failed"
wait_until 60 "the log line refusing libra_beta" bash -c "grep -q 'libra_beta=-3: not a non-negative number; keeping the previous settings' '$LIBRA_CLUSTER_DIR/log/slurmctld.log'"
libra_sbatch_admitted "job after a bad reconfigure" -n 1 --comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
assert_eq libra "$(policy_of "$SB_JOBID")" "policy kept after a refused reconfigure"

# The going rate (ISQoS' filter; design.md decision 51): a job whose price
# earns less profit per hour to its deadline than libra_min_profit_rate is
# refused, as a policy, naming the rate: without a mark-up it earns none.
# The counter-offer is the lowest tier whose mark-up earns it: value (10%)
# earns 0.1 x 20.03 in 10 minutes, 12 per hour, at a price of 22.04; that
# job is admitted.
export LIBRA_SCHEDULER_PARAMETERS='sched_interval=-1,defer,libra_no_sla=best_effort,libra_policy=libra,libra_price_base=7200,libra_interval=5,libra_min_profit_rate=10'
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig (going rate) failed"
libra_sbatch_refused "a job that earns less than the going rate" \
	"libra: rejected: the price would earn the provider less than its going rate (libra_min_profit_rate)" \
	-n 1 --comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
assert_contains "$SB_OUT" "; the going rate is 10" "the refusal names the going rate"
assert_contains "$SB_OUT" "; cheapest feasible: tier=value at 22.04" "the counter-offer names the tier"
libra_sbatch_admitted "the counter-offer taken" -n 1 \
	--comment="runtime=10s,deadline=10m,budget=100,tier=value" --wrap 'sleep 1'
export LIBRA_SCHEDULER_PARAMETERS='sched_interval=-1,defer,libra_no_sla=best_effort,libra_policy=libra,libra_price_base=7200,libra_interval=5'
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig (no going rate) failed"

# Slurm's preemption and gang scheduling (design.md decision 30): an SLA is
# refused where Slurm could stop the job; admitted again once it cannot
export LIBRA_EXTRA_CONF='PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=high Nodes=n[1-2] PriorityTier=10 OverSubscribe=YES:4 PreemptMode=OFF'
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig (partition_prio) failed"
libra_sbatch_refused "an SLA where a higher tier may preempt it" \
	"libra: rejected: jobs of partition batch (PriorityTier 1, PreemptMode=REQUEUE) can be preempted by jobs of partition high (PriorityTier 10)" \
	-n 1 --comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
libra_sbatch_admitted "an SLA in the top tier (PreemptMode=OFF)" -p high -n 1 \
	--comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
libra_sbatch -n 1 --wrap 'sleep 1'
[ -n "$SB_JOBID" ] || fail "a job without an SLA was refused under partition_prio: $SB_OUT"
export LIBRA_EXTRA_CONF='PreemptMode=GANG'
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig (GANG) failed"
libra_sbatch_refused "an SLA under gang scheduling" \
	"libra: rejected: PreemptMode=GANG: Slurm's gang scheduling suspends jobs that share CPUs in turns" \
	-n 1 --comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
export LIBRA_EXTRA_CONF=
"$LIBRA_CLUSTER" reconfig >/dev/null || fail "libra-cluster reconfig (no preemption) failed"
libra_sbatch_admitted "an SLA without preemption again" -n 1 \
	--comment="runtime=10s,deadline=10m,budget=100" --wrap 'sleep 1'
assert_slurmctld_up "$ctld"
cluster_stop

# Starting every job itself (libra_no_sla=best_effort), sched/libra refuses
# to run without sched_interval=-1,defer.
libra_cluster_env 'libra_policy=libra'
export LIBRA_SCHEDULER_PARAMETERS='libra_policy=libra,libra_no_sla=best_effort'
if "$LIBRA_CLUSTER" start --restart --fresh >/dev/null 2>&1; then
	# shellcheck disable=SC2034 # read by lib.sh's exit trap: stop it
	LIBRA_STARTED=1
	fail "slurmctld started with sched/libra but without sched_interval=-1,defer"
fi
grep -q 'sched/libra: with libra_no_sla=best_effort SchedulerParameters must contain sched_interval=-1,defer' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" ||
	fail "slurmctld's log does not say why sched/libra refused to run"
"$LIBRA_CLUSTER" stop >/dev/null 2>&1 || :
pass
