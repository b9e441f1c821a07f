#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# A plain batch job on the local cluster: it runs on one node, completes, and
# accounting records it with that node and state COMPLETED.  Stopping the
# cluster leaves none of its processes behind.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
cluster_start

# The job waits at a gate until the test has seen it run (a job that
# sleeps a few seconds can be over before a busy machine's squeue says
# RUNNING).
gate=$LIBRA_WORK/go
# shellcheck disable=SC2016 # $SLURMD_NODENAME expands in the job
jobid=$(sbatch --parsable -D "$LIBRA_WORK" -o "$LIBRA_WORK/job-%j.out" \
	--wrap 'echo "job on $SLURMD_NODENAME"; '"$(gate_wait "$gate")"'; echo done')
assert_match '^[0-9]+$' "$jobid" "sbatch prints a job id"
note "submitted job $jobid"

wait_until 120 "job $jobid to be RUNNING" job_in_state "$jobid" RUNNING
node=$(squeue -h -j "$jobid" -o '%N')
assert_match '^n[0-9]+$' "$node" "a running job is on one node"
note "job $jobid runs on $node"
gate_open "$gate"

wait_until 120 "job $jobid to end" job_ended "$jobid"
assert_eq COMPLETED "$(job_state "$jobid")" "state of job $jobid in slurmctld"

wait_until 120 "job $jobid COMPLETED in sacct" sacct_in_state "$jobid" COMPLETED
assert_eq "COMPLETED|$node|0:0|1" "$(sacct_field "$jobid" State,NodeList,ExitCode,AllocCPUS)" \
	"sacct State|NodeList|ExitCode|AllocCPUS of job $jobid"
assert_file_contains "$LIBRA_WORK/job-$jobid.out" "job on $node" "job output"
assert_file_contains "$LIBRA_WORK/job-$jobid.out" "done" "job output"

cluster_stop
assert_nothing_left
pass
