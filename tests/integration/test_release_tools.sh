#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# What users and administrators read the plugins through, on whatever
# Slurm release runs (tests/compat/run-compat runs this on each):
#  - scontrol show job: an admitted job's record (AdminComment) and the
#    reason sched/libra gives a job it does not start (here a best-effort
#    job waiting for memory an admitted, held job holds);
#  - squeue: the same reason, and a job's state;
#  - sdiag: sched/libra's passes in the "Backfilling stats" section;
#  - sacct: the settled record of a finished job;
#  - libra-report: the provider's totals from accounting and the refusal
#    log.
# Each command's output is printed, so the log shows them per release.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=1
export LIBRA_NODE_SPEC='n1:2:1000'
export LIBRA_DEF_MEM_PER_CPU=100
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
cluster_start
note "release: $(scontrol --version)"

SLA='runtime=1m,deadline=30m,budget=1000'
gate=$LIBRA_WORK/go
libra_sbatch_admitted "held admitted job" -J held -H -n 1 --mem=800 \
	--comment="$SLA" --wrap "$(gate_wait "$gate")"
held=$SB_JOBID
libra_sbatch_refused "a job over its budget" "libra: rejected:" \
	-J poor -n 1 --comment="runtime=1m,deadline=30m,budget=0.000001" --wrap 'true'
note "sbatch (refused): $(printf '%s' "$SB_OUT" | tr '\n' ' ')"
libra_sbatch -J plain -n 1 --mem=500 --wrap 'true'
[ -n "$SB_JOBID" ] || fail "the best-effort job was not accepted: $SB_OUT"
plain=$SB_JOBID

# scontrol show job: the record
rec=$(job_record "$held")
note "scontrol show job $held: AdminComment=$rec"
assert_eq 1 "$(json_get "$rec" libra)" "the held job's record"
assert_eq n1 "$(json_get "$rec" admit.place.0.node)" "the held job's admitted node"

# squeue and scontrol: sched/libra's reason
want='libra: best effort: memory or GPUs held for admitted jobs on 1 node(s)'
# shellcheck disable=SC2317 # called through wait_until
reason_is() { [[ $(squeue -h -j "$plain" -o %r 2>/dev/null) == *"$want"* ]]; }
wait_until 120 "squeue to show the best-effort job's reason" reason_is
note "squeue -j $plain -o '%i %T %r': $(squeue -h -j "$plain" -o '%i %T %r')"
sc=$(scontrol show job "$plain" | tr ' ' '\n' | sed -n 's/^Reason=//p')
note "scontrol show job $plain: Reason=$sc"
# scontrol prints a reason with its spaces as underscores
assert_contains "$sc" "${want// /_}" "scontrol's reason for the best-effort job"

# the held job runs when released, then the best-effort one
scontrol release "$held" || fail "could not release job $held"
wait_until 120 "job $held to run" job_in_state "$held" RUNNING
gate_open "$gate"
wait_until 180 "both jobs to end" bash -c "[ -z \"\$(squeue -h -j $held,$plain -o %i)\" ]"

# sdiag: the passes
diag=$(sdiag)
stats=$(printf '%s\n' "$diag" | awk '/^Backfilling stats/ { p = 1 } p && /^$/ { exit } p')
note "sdiag, Backfilling stats:"
printf '%s\n' "$stats" | sed 's/^/    /'
cycles=$(printf '%s\n' "$stats" | sed -n 's/^[[:space:]]*Total cycles: *//p')
[ "${cycles:-0}" -ge 1 ] || fail "sdiag shows no sched/libra pass: $stats"
started=$(printf '%s\n' "$stats" | sed -n 's/^[[:space:]]*Total backfilled jobs (since last slurm start): *//p')
[ "${started:-0}" -ge 2 ] || fail "sdiag's started jobs: '${started:-}' (2 started)"

# sacct: the settled record
wait_until 120 "accounting to have job $held settled" sacct_record_final "$held"
final=$(sacct_record "$held")
note "sacct -j $held -o AdminComment: $final"
assert_eq true "$(json_get "$final" final.met)" "job $held met its deadline (sacct)"
assert_eq COMPLETED "$(sacct_field "$held" State)" "job $held (sacct)"

# libra-report
report=$LIBRA_BUILD/contrib/report/libra-report
[ -x "$report" ] || fail "build contrib/report first (make)"
out=$("$report" -S now-1hours 2>&1) || fail "libra-report failed: $out"
note "libra-report -S now-1hours:"
printf '%s\n' "$out" | sed 's/^/    /'
assert_contains "$out" "TOTAL" "libra-report's totals"
total=$(printf '%s\n' "$out" | awk '$1 == "TOTAL" { print $2, $3, $4 }')
assert_eq "2 1 1" "$total" "libra-report's submitted, admitted and refused jobs"

expect_done
cluster_stop
assert_nothing_left
pass
