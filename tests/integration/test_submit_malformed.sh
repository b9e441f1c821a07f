#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Malformed SLAs are refused at submission, each with one line that names
# the key (or option) at fault, and no job is created (job_submit_qos(8): nothing
# the user writes can crash slurmctld or be stored half-parsed).  After
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
# refused EXPECTED ARGS...: "sbatch ARGS --wrap 'sleep 1'" fails at once
# (sbatch does not retry it), its output contains every '|'-separated part
# of EXPECTED (the key or option at fault, the offending value, the kind of
# error), and no job exists afterwards.  A check that fails is recorded and
# the test goes on, so that one run lists every broken case.
refused() {
	local want part left parts before
	IFS='|' read -ra parts <<<"$1"
	shift
	ncase=$((ncase + 1))
	before=$(job_ids)
	libra_sbatch "$@" --wrap 'sleep 1'
	if [ "$SB_RC" = 0 ]; then
		expect_fail "case $ncase (sbatch $*): accepted, expected a refusal saying '${parts[*]}'; got: $SB_OUT"
	else
		want=
		for part in "${parts[@]}"; do
			[[ $SB_OUT == *"$part"* ]] || want+="'$part' "
		done
		[ -z "$want" ] ||
			expect_fail "case $ncase (sbatch $*): the refusal does not say ${want% }; got: $SB_OUT"
	fi
	if [ "$SB_RETRIED" = 1 ]; then
		expect_fail "case $ncase (sbatch $*): sbatch retried the refusal (an error code that sbatch retries); a refusal must be final"
	fi
	if [ -n "$SB_JOBID" ]; then
		expect_fail "case $ncase (sbatch $*): job $SB_JOBID was created"
		scancel "$SB_JOBID" 2>/dev/null || :
	fi
	left=$(job_ids)
	if [ "$left" != "$before" ]; then
		expect_fail "case $ncase (sbatch $*): jobs after the refusal: $left (before: $before): $(squeue -h -t all -o '%i %T %r' 2>&1 | tr '\n' ' ')"
		scancel -u root 2>/dev/null || :
	fi
}

# job_ids: the ids of every job slurmctld has, ended ones too.
job_ids() { squeue -h -t all -o %i | sort -n | paste -sd, || :; }

R='libra: rejected: '
ok='runtime=1m,deadline=5m' # a valid base that the bad field is added to

# --- numbers that are not numbers
# sbatch's second line is the errno's text (design.md decision 29): true
refused "$R|budget: '12x'|not a decimal number|submission failed: Invalid argument" -n 1 --comment="budget=12x,$ok"
refused "$R|budget: '1.2.3'|not a decimal number" -n 1 --comment="$ok,budget=1.2.3"
refused "$R|budget: |empty" -n 1 --comment="$ok,budget="
refused "$R|budget: '+5'|not a decimal number" -n 1 --comment="$ok,budget=+5"
refused "$R|budget: '1e'|not a decimal number" -n 1 --comment="$ok,budget=1e"
refused "$R|penalty_cap: 'abc'|not a decimal number" -n 1 --comment="$ok,penalty=1,penalty_cap=abc"
refused "$R|type: |empty" -n 1 --comment="$ok,type="
# --- bad units and durations
refused "$R|runtime: '90x'|unknown unit 'x'|submission failed: Invalid time specified" -n 1 --comment="runtime=90x,deadline=5m"
refused "$R|runtime: '5 hours'|not a duration" -n 1 --comment="runtime=5 hours,deadline=5m"
refused "$R|runtime: '1.5.h'|not a duration" -n 1 --comment="runtime=1.5.h,deadline=5h"
refused "$R|runtime: '1:60'|not a duration" -n 1 --comment="runtime=1:60,deadline=5m"
refused "$R|runtime: '1-25'|not a duration" -n 1 --comment="runtime=1-25,deadline=5d"
refused "$R|deadline: '99:99'|not a duration" -n 1 --comment="runtime=1m,deadline=99:99"
refused "$R|runtime: '1m deadline=5m'|not a duration" -n 1 --comment="runtime=1m deadline=5m"
# --- overflow
refused "$R|budget: '1e400'|too large" -n 1 --comment="$ok,budget=1e400"
refused "$R|runtime: '99999999d'|too long" -n 1 --comment="runtime=99999999d,deadline=5m"
refused "$R|budget: '9999999999999999999'|too large" -n 1 --comment="$ok,budget=9999999999999999999"
refused "$R|penalty: '1e16'|too large" -n 1 --comment="$ok,penalty=1e16"
refused "$R|runtime: '123456789012'" -n 1 --comment="runtime=123456789012,deadline=5m"
# --- negative, zero
refused "$R|budget: '-1'|negative" -n 1 --comment="$ok,budget=-1"
refused "$R|penalty: '-0.5'|negative" -n 1 --comment="$ok,penalty=-0.5"
refused "$R|runtime: '-5m'|positive" -n 1 --comment="runtime=-5m,deadline=5m"
refused "$R|runtime: '0'|positive" -n 1 --comment="runtime=0,deadline=1h"
refused "$R|runtime: '0s'|positive" -n 1 --comment="runtime=0s,deadline=1h"
# --- not finite, not decimal
refused "$R|budget: 'nan'|not a decimal number" -n 1 --comment="$ok,budget=nan"
refused "$R|budget: 'inf'|not a decimal number" -n 1 --comment="$ok,budget=inf"
refused "$R|budget: '0x10'|not a decimal number" -n 1 --comment="$ok,budget=0x10"
# --- keys and structure
refused "$R|budgett: unknown key" -n 1 --comment="$ok,budgett=5"
refused "$R|Budget: unknown key" -n 1 --comment="$ok,Budget=5"
refused "$R|budget: given twice" -n 1 --comment="$ok,budget=1,budget=2"
refused "$R|field 2 is empty" -n 1 --comment="runtime=1m,,budget=2,deadline=5m"
refused "$R|field 3 is empty" -n 1 --comment="$ok,"
refused "$R|'runtime' is not key=value" -n 1 --comment="runtime"
refused "$R|field 3 has no key before '='" -n 1 --comment="$ok,=5"
# a near miss of a key: the key it misses (design.md decision 29)
refused "$R|dedline: unknown key, did you mean deadline?" -n 1 --comment="runtime=1m,dedline=5m"
refused "$R|budjet: unknown key, did you mean budget?" -n 1 --comment="budjet=5"
refused "$R|type: 'maybe'|hard or soft" -n 1 --comment="$ok,type=maybe"
# --- missing fields
refused "$R|deadline: no deadline" -n 1 --comment="runtime=1m"
refused "$R|runtime: no runtime estimate" -n 1 --comment="budget=5"
# --- deadlines that cannot be met or are absurd
refused "$R|deadline: 1h from submission is not after the runtime estimate 2h" -n 1 --comment="runtime=2h,deadline=1h"
refused "$R|deadline: 1h from submission is not after the runtime estimate 1h" -n 1 --comment="runtime=1h,deadline=1h"
refused "$R|deadline: 1m from submission is not after the runtime estimate 1m" -n 1 --time=1 --comment="deadline=1m"
refused "$R|deadline: '7300d'|too long" -n 1 --comment="runtime=1m,deadline=7300d"
far=$(date -d '+20 years' +%Y-%m-%dT%H:%M)
refused "$R|deadline|3650 days" -n 1 --comment="runtime=1m,deadline=$far"
refused "$R|deadline: |in the past" -n 1 --comment="runtime=1m,deadline=2001-01-01T00:00"
refused "$R|deadline: '2031-02-30T00:00'|not a time" -n 1 --comment="runtime=1m,deadline=2031-02-30T00:00"
refused "$R|deadline: '2031-13-01T00:00'|not a time" -n 1 --comment="runtime=1m,deadline=2031-13-01T00:00"
refused "$R|deadline: '2031-01-01T24:00'|not a time" -n 1 --comment="runtime=1m,deadline=2031-01-01T24:00"
refused "$R|duedate: |is after the deadline" -n 1 --comment="$ok,duedate=10m"
refused "$R|duedate: 30s from submission is before the runtime estimate 1m has run" -n 1 --comment="$ok,due=30s"
refused "$R|tier: 'gold' is not value, standard or premium" -n 1 --comment="$ok,tier=gold"
# booked (--begin, decision 21) to begin after its absolute deadline
# (an absolute deadline: sbatch itself refuses a --deadline before --begin)
refused "$R|deadline: in the past from submission|(booked by --begin: times count from " \
	-n 1 --begin=now+2hours --comment="runtime=1m,deadline=$(date -d '+1 hour' +%Y-%m-%dT%H:%M)"
refused "$R|deadline: --deadline and deadline= give different times" -n 1 --deadline=now+2hours --comment="$ok"
refused "$R|deadline: |in the past" -n 1 --deadline=2001-01-01 --comment="runtime=1m"
# --- sizes, partitions, nodes, arrays
refused "$R|the partition does not have the CPUs, nodes, memory or GPUs requested|100000 CPUs|submission failed: Requested node configuration is not available" -n 100000 --comment="$ok"
refused "$R|the partition does not have the CPUs, nodes, memory or GPUs requested|5 CPUs" -n 5 -N 1 --comment="$ok"
# a job array is one bag of lanes side by side on one node (decision 36):
# two 1-CPU lanes fit no node of one CPU; a task of two nodes fits none
refused "$R|the partition does not have the CPUs, nodes, memory or GPUs requested|(2 CPUs x 1m, |(a job array of 2 tasks: 1 wave of 60 s, 2 at a time; its price and budget are the whole array's)" \
	-n 1 --array=1-2 --comment="$ok"
refused "$R|a job array under an SLA runs its 1 lane side by side on one node|(asked more than one node)" \
	-N 2 -n 2 --array=1-2%1 --comment="$ok"
refused "$R|no such partition 'nosuch'" -n 1 -p nosuch --comment="$ok"
refused "libra: |invalid node list 'n9'" -n 1 -w n9 --comment="$ok"
# --- text that is too long or has odd bytes
refused "$R|1131 bytes|at most 1024" -n 1 --comment="$ok,budget=1$(printf '0%.0s' {1..1100})"
refused "$R|1122 bytes|at most 1024" -n 1 --comment="$ok$(printf ' %.0s' {1..1100})"
refused "$R|byte 0x09 at position 12|not printable ASCII" -n 1 --comment=$'runtime=1m,\tdeadline=5m'
refused "$R|budget: |byte 0xe2 at position 32|not printable ASCII" -n 1 --comment="$ok,budget=5€"
refused "$R|type: |byte 0xc3 at position 33|not printable ASCII" -n 1 --comment="$ok,type=hardé"
refused "$R|budget: |byte 0x1b at position 32|not printable ASCII" -n 1 --comment=$'runtime=1m,deadline=5m,budget=5\x1b[31m'
# --- the libra sbatch options (SPANK), alone and against --comment
refused "$R|budget: --comment and the libra options give different values" -n 1 --comment="$ok,budget=5" --budget=6
refused "$R|runtime: --comment and the libra options give different values" -n 1 --comment="$ok" --runtime=2m
refused "$R|--budget: |'abc'|not a decimal number" -n 1 --comment="$ok" --budget=abc
refused "$R|--penalty: |'-1'|negative" -n 1 --comment="$ok" --penalty=-1
refused "$R|--duedate: |'xyz'|is not a duration" -n 1 --comment="$ok" --duedate=xyz
# the message names the option as the user typed it: --penalty-cap
refused "$R|--penalty-cap: |'1e99'|too large" -n 1 --comment="$ok" --penalty-cap=1e99
# refused by sbatch itself (the SPANK option check), before slurmctld
refused "libra: --deadline-type: |'maybe'|hard or soft" -n 1 --comment="$ok" --deadline-type maybe
refused "libra: --budget needs a value" -n 1 --comment="$ok" --budget=
refused "libra: --runtime: |not printable ASCII" -n 1 --comment="$ok" --runtime=$'1m\x1b'

# --- requests that Slurm cannot run: the plugin must not admit them
refused "$R|CPU" -c 2 --comment="$ok"
refused "$R|CPU" -n 2 --ntasks-per-node=2 --comment="$ok"
# --contiguous over two nodes: placement follows CPU share, not node order
refused "$R|--contiguous over 2 nodes|Requested node configuration is not available" -N 2 --contiguous --comment="$ok"

# --- a request that Slurm itself rejects after the plugin (more memory
# than a node has; the plugin does not know memory): Slurm keeps it as a
# FAILED job.  It never ran, so it must not be charged, and it must not
# hold the capacity its admission counted on.
ncase=$((ncase + 1))
before=,$(job_ids),
libra_sbatch -n 1 --mem=2000 --comment="$ok" --wrap 'sleep 1'
[ "$SB_RC" != 0 ] || expect_fail "case $ncase (--mem=2000): accepted: $SB_OUT"
for id in $(squeue -h -t all -o %i); do
	[[ $before != *,$id,* ]] || continue
	rec=$(job_record "$id")
	[[ $rec != *'"start":'* ]] || expect_fail "case $ncase (--mem=2000): job $id never ran but its record has a start: $rec"
	if [[ $rec == *'"final":'* ]]; then
		[ "$(json_get "$rec" final.charge)" = 0 ] ||
			expect_fail "case $ncase (--mem=2000): job $id never ran and is charged $(json_get "$rec" final.charge): $rec"
	fi
done

note "$ncase malformed submissions, ${#LIBRA_FAILURES[@]} failed check(s)"
[ "$ncase" -ge 40 ] || fail "only $ncase cases"

# slurmctld survived all of it, and still admits and runs a good job.
assert_slurmctld_up "$ctld"
libra_sbatch_admitted "good job after the refusals" -n 1 --comment="runtime=1m,deadline=5m,budget=10" --wrap 'sleep 2'
jobid=$SB_JOBID
# Nothing refused holds capacity: the price is that of an idle cluster,
# 1 CPU x 1m by 5m = 1/60 * (1 + 0.1 * 5/4) at the default parameters.
price=$(json_get "$(job_record "$jobid")" admit.price)
"$LIBRA_PYTHON" -c "import sys; sys.exit(abs($price - 1 / 60 * (1 + 0.1 * 5 / 4)) > 1e-9)" ||
	expect_fail "the good job $jobid costs $price, not 0.01875 as on an idle cluster: capacity is still held by refused submissions"
wait_until 180 "job $jobid to end" job_ended "$jobid"
assert_eq COMPLETED "$(job_state "$jobid")" "state of the good job $jobid"
wait_until 120 "job $jobid COMPLETED in sacct" sacct_in_state "$jobid" COMPLETED

# --- a budget refusal and a capacity refusal: their errno's text
# (design.md decision 29: a capacity refusal said "Requested time limit is
# invalid")
refused "$R|price |exceeds budget|submission failed: Job violates accounting/QOS policy" \
	-n 1 --comment="runtime=1m,deadline=5m,budget=0.0001"
gate=$LIBRA_WORK/fill.gate
libra_sbatch_admitted "the cluster's CPU share taken" -n 4 \
	--comment="runtime=4m,deadline=5m" --wrap "$(gate_wait "$gate")"
fill=$SB_JOBID
refused "$R|not enough free CPU share to meet the deadline|submission failed: Requested partition configuration not available now" \
	-n 1 --comment="runtime=4m,deadline=5m"
gate_open "$gate"
scancel "$fill" 2>/dev/null || :
wait_until 120 "job $fill to end" job_ended "$fill"

# --- comments that are not SLAs pass unchanged and the jobs run as under
# stock Slurm (design.md decision 29; any comment with '=' used to be refused)
plain=()
for c in 'run=42' 'see a=b, step=3' 'type=analysis' 'workflow:step3'; do
	libra_sbatch -n 1 --comment="$c" --wrap 'true'
	if [ "$SB_RC" != 0 ] || [ -z "$SB_JOBID" ]; then
		expect_fail "comment '$c' (not an SLA): refused: $SB_OUT"
		continue
	fi
	[[ $SB_OUT != *"libra: rejected"* ]] || expect_fail "comment '$c': $SB_OUT"
	plain+=("$SB_JOBID=$c")
done
for jc in "${plain[@]}"; do
	id=${jc%%=*} c=${jc#*=}
	wait_until 180 "job $id ('$c') to end" job_ended "$id"
	expect_eq COMPLETED "$(job_state "$id")" "job $id with comment '$c'"
	expect_eq "$c" "$(squeue -h -t all -j "$id" -o %k)" "job $id's comment in squeue"
	wait_until 120 "job $id COMPLETED in sacct" sacct_in_state "$id" COMPLETED
	expect_eq "$c" "$(sacct_field "$id" Comment)" "job $id's comment in sacct"
done
note "${#plain[@]} jobs with comments that are not SLAs ran"
assert_slurmctld_up "$ctld"
expect_done

cluster_stop
assert_nothing_left
pass
