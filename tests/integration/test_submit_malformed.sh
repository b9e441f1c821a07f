#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Malformed SLAs are refused at submission, each with one line that names
# the key (or option) at fault, and no job is created (SPEC section 3: "Nothing
# the user writes can crash slurmctld or be stored half-parsed").  After
# every one of them slurmctld still runs (same pid) and a good submission is
# admitted and runs to COMPLETED.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
cluster_start
ctld=$(slurmctld_pid)

ncase=0
# refused EXPECTED ARGS...: "sbatch ARGS --wrap 'sleep 1'" fails, its output
# contains EXPECTED, and no job exists afterwards.  A check that fails is
# recorded and the test goes on, so that one run lists every broken case.
refused() {
	local want=$1 left
	shift
	ncase=$((ncase + 1))
	libra_sbatch "$@" --wrap 'sleep 1'
	if [ "$SB_RC" = 0 ]; then
		expect_fail "case $ncase (sbatch $*): accepted, expected a refusal with '$want'; got: $SB_OUT"
	elif [[ $SB_OUT != *"$want"* ]]; then
		expect_fail "case $ncase (sbatch $*): refusal does not say '$want'; got: $SB_OUT"
	fi
	if [ "$SB_RETRIED" = 1 ]; then
		expect_fail "case $ncase (sbatch $*): sbatch retried the refusal (an error code that sbatch retries); a refusal must be final"
	fi
	if [ -n "$SB_JOBID" ]; then
		expect_fail "case $ncase (sbatch $*): job $SB_JOBID was created"
		scancel "$SB_JOBID" 2>/dev/null || :
	fi
	if ! no_jobs_exist; then
		left=$(squeue -h -t all -o '%i %T' 2>&1 | tr '\n' ' ')
		expect_fail "case $ncase (sbatch $*): jobs exist after the refusal: $left"
		scancel -u root 2>/dev/null || :
	fi
}

R='libra: rejected: '
C="${R}--comment: "
ok='runtime=1m,deadline=5m' # a valid base that the bad field is added to

# --- numbers that are not numbers
refused "${C}budget: '12x' is not a decimal number" -n 1 --comment="budget=12x,$ok"
refused "${C}budget: '1.2.3' is not a decimal number" -n 1 --comment="$ok,budget=1.2.3"
refused "${C}budget: empty value" -n 1 --comment="$ok,budget="
refused "${C}budget: '+5' is not a decimal number" -n 1 --comment="$ok,budget=+5"
refused "${C}budget: '1e' is not a decimal number" -n 1 --comment="$ok,budget=1e"
refused "${C}penalty_cap: 'abc' is not a decimal number" -n 1 --comment="$ok,penalty=1,penalty_cap=abc"
refused "${C}type: empty value" -n 1 --comment="$ok,type="
# --- bad units and durations
refused "${C}runtime: '90x' has an unknown unit 'x'" -n 1 --comment="runtime=90x,deadline=5m"
refused "${C}runtime: '5 hours' is not a duration" -n 1 --comment="runtime=5 hours,deadline=5m"
refused "${C}runtime: '1.5.h' is not a duration" -n 1 --comment="runtime=1.5.h,deadline=5h"
refused "${C}runtime: '1:60' is not a duration" -n 1 --comment="runtime=1:60,deadline=5m"
refused "${C}runtime: '1-25' is not a duration" -n 1 --comment="runtime=1-25,deadline=5d"
refused "${C}deadline: '99:99' is not a duration" -n 1 --comment="runtime=1m,deadline=99:99"
refused "${C}runtime: '1m deadline=5m' is not a duration" -n 1 --comment="runtime=1m deadline=5m"
# --- overflow
refused "${C}budget: '1e400' is too large" -n 1 --comment="$ok,budget=1e400"
refused "${C}runtime: '99999999d' is too long" -n 1 --comment="runtime=99999999d,deadline=5m"
refused "${C}budget: '9999999999999999999' is too large" -n 1 --comment="$ok,budget=9999999999999999999"
refused "${C}penalty: '1e16' is too large" -n 1 --comment="$ok,penalty=1e16"
refused "${C}runtime: '123456789012' is not a duration" -n 1 --comment="runtime=123456789012,deadline=5m"
# --- negative, zero
refused "${C}budget: '-1' is negative" -n 1 --comment="$ok,budget=-1"
refused "${C}penalty: '-0.5' is negative" -n 1 --comment="$ok,penalty=-0.5"
refused "${C}runtime: '-5m' must be a positive duration" -n 1 --comment="runtime=-5m,deadline=5m"
refused "${C}runtime: '0' must be a positive duration" -n 1 --comment="runtime=0,deadline=1h"
refused "${C}runtime: '0s' must be a positive duration" -n 1 --comment="runtime=0s,deadline=1h"
# --- not finite, not decimal
refused "${C}budget: 'nan' is not a decimal number" -n 1 --comment="$ok,budget=nan"
refused "${C}budget: 'inf' is not a decimal number" -n 1 --comment="$ok,budget=inf"
refused "${C}budget: '0x10' is not a decimal number" -n 1 --comment="$ok,budget=0x10"
# --- keys and structure
refused "${C}budgett: unknown key" -n 1 --comment="$ok,budgett=5"
refused "${C}Budget: unknown key" -n 1 --comment="$ok,Budget=5"
refused "${C}budget: given twice" -n 1 --comment="$ok,budget=1,budget=2"
refused "${C}comment: field 2 is empty" -n 1 --comment="runtime=1m,,budget=2,deadline=5m"
refused "${C}comment: field 3 is empty" -n 1 --comment="$ok,"
refused "${C}comment: 'runtime' is not key=value" -n 1 --comment="runtime"
refused "${C}comment: field 1 has no key before '='" -n 1 --comment="=5"
refused "${C}type: 'maybe' is not hard or soft" -n 1 --comment="$ok,type=maybe"
# --- missing fields
refused "${R}deadline: no deadline" -n 1 --comment="runtime=1m"
refused "${R}runtime: no runtime estimate" -n 1 --comment="budget=5"
# --- deadlines that cannot be met or are absurd
refused "${R}deadline: 1h from submission is not after the runtime estimate 2h" -n 1 --comment="runtime=2h,deadline=1h"
refused "${R}deadline: 1h from submission is not after the runtime estimate 1h" -n 1 --comment="runtime=1h,deadline=1h"
refused "${R}deadline: 1m from submission is not after the runtime estimate 1m" -n 1 --time=1 --comment="deadline=1m"
refused "${C}deadline: '7300d' is too long" -n 1 --comment="runtime=1m,deadline=7300d"
refused "${R}deadline: more than 3650 days after submission" -n 1 \
	--comment="runtime=1m,deadline=$(date -d '+20 years' +%Y-%m-%dT%H:%M)"
refused "${R}deadline: in the past" -n 1 --comment="runtime=1m,deadline=2001-01-01T00:00"
refused "${C}deadline: '2031-02-30T00:00' is not a time" -n 1 --comment="runtime=1m,deadline=2031-02-30T00:00"
refused "${C}deadline: '2031-13-01T00:00' is not a time" -n 1 --comment="runtime=1m,deadline=2031-13-01T00:00"
refused "${C}deadline: '2031-01-01T24:00' is not a time" -n 1 --comment="runtime=1m,deadline=2031-01-01T24:00"
refused "${R}duedate: must be after submission and not after the deadline" -n 1 --comment="$ok,duedate=10m"
refused "${R}deadline: --deadline and deadline= give different times" -n 1 --deadline=now+2hours --comment="$ok"
refused "${R}deadline: in the past" -n 1 --deadline=2001-01-01 --comment="runtime=1m"
# --- sizes
refused "${R}the partition does not have the CPUs or nodes requested (100000 CPUs" -n 100000 --comment="$ok"
refused "${R}the partition does not have the CPUs or nodes requested (5 CPUs" -n 5 -N 1 --comment="$ok"
refused "${R}job arrays and heterogeneous jobs cannot carry an SLA" --array=1-2 --comment="$ok"
refused "${R}no such partition 'nosuch'" -n 1 -p nosuch --comment="$ok"
refused "libra: invalid node list 'n9'" -n 1 -w n9 --comment="$ok"
# --- text that is too long or has odd bytes
refused "${C}comment: 1131 bytes, at most 1024 allowed" -n 1 --comment="$ok,budget=1$(printf '0%.0s' {1..1100})"
refused "${C}comment: 1122 bytes, at most 1024 allowed" -n 1 --comment="$ok$(printf ' %.0s' {1..1100})"
refused "${C}comment: byte 0x09 at position 12 is not printable ASCII" -n 1 --comment=$'runtime=1m,\tdeadline=5m'
refused "${C}comment: byte 0xe2 at position 32 is not printable ASCII" -n 1 --comment="$ok,budget=5€"
refused "${C}comment: byte 0xc3 at position 33 is not printable ASCII" -n 1 --comment="$ok,type=hardé"
refused "${C}comment: byte 0x1b at position 32 is not printable ASCII" -n 1 --comment=$'runtime=1m,deadline=5m,budget=5\x1b[31m'
# --- the libra sbatch options (SPANK), alone and against --comment
refused "${R}budget: --comment and the libra options give different values" -n 1 --comment="$ok,budget=5" --budget=6
refused "${R}runtime: --comment and the libra options give different values" -n 1 --comment="$ok" --runtime=2m
refused "${R}--budget: budget: 'abc' is not a decimal number" -n 1 --comment="$ok" --budget=abc
refused "${R}--penalty: penalty: '-1' is negative" -n 1 --comment="$ok" --penalty=-1
refused "${R}--duedate: duedate: 'xyz' has an unknown unit 'z'" -n 1 --comment="$ok" --duedate=xyz
# the message names the option as the user typed it (--penalty-cap)
refused "${R}--penalty-cap: penalty_cap: '1e99' is too large" -n 1 --comment="$ok" --penalty-cap=1e99
# refused by sbatch itself (the SPANK option check), before slurmctld
refused "libra: --deadline-type: 'maybe' is not hard or soft" -n 1 --comment="$ok" --deadline-type maybe
refused "libra: --budget needs a value" -n 1 --comment="$ok" --budget=
refused "libra: --runtime: value has a byte that is not printable ASCII" -n 1 --comment="$ok" --runtime=$'1m\x1b'

note "$ncase malformed submissions, ${#LIBRA_FAILURES[@]} failed check(s)"
[ "$ncase" -ge 40 ] || fail "only $ncase cases"

# slurmctld survived all of it, and still admits and runs a good job.
assert_slurmctld_up "$ctld"
libra_sbatch_admitted "good job after the refusals" -n 1 --comment="runtime=1m,deadline=5m,budget=10" --wrap 'sleep 2'
jobid=$SB_JOBID
wait_until 60 "job $jobid to end" job_ended "$jobid"
assert_eq COMPLETED "$(job_state "$jobid")" "state of the good job $jobid"
wait_until 30 "job $jobid COMPLETED in sacct" sacct_in_state "$jobid" COMPLETED
assert_slurmctld_up "$ctld"
expect_done

cluster_stop
assert_nothing_left
pass
