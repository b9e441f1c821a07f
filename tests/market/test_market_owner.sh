#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_market_owner: every change an owner can make to an admitted job
# after its admission is harmless, or refused with nothing changed (the
# allow-list of job_submit/qos, design.md decision 37; job_submit_qos(8),
# "Updates of admitted jobs").  As an unprivileged user, on a held
# (pending) admitted job H and a running one R, each field that the
# release's _update_job() lets an owner change (tests/market/README.md
# lists them):
#  - harmless (its name, mail, nice, output, work directory, requeue flag,
#    accrue time; hold and release): taken by Slurm, the job's record
#    unchanged but for the time held;
#  - anything else (its priority, the sockets, cores, threads or scratch
#    disk it needs, its switches, boot delay, TRES bindings and frequency,
#    an earlier end time, its size, limits, nodes, dependencies,
#    features, ...): refused, the field and the record as they were, and
#    slurmctld's log says why;
#  - an array's throttle (its admitted lanes), which Slurm sets before the
#    plugin sees the update, stays as admitted;
#  - the same updates by root (an operator) are taken;
#  - a job that ended cannot be requeued, by its owner or root, and its
#    Requeue flag cannot be set again (it would run again unpaid);
#  - the owner's suspend of a running job (refused before 26.05, taken by
#    26.05) costs the provider nothing: the job's overrun is settled
#    DEADLINE at its deadline, not SUSPENDED.
# Run on Debian's 22.05 and, in the compatibility suite, on 24.11 and 26.05.
. "$(dirname "$0")/../integration/lib.sh"
libra_test_init
export LIBRA_NODES=2
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
libra_add_user
user=$LIBRA_USER
cluster_start
log=$LIBRA_CLUSTER_DIR/log/slurmctld.log

libra_held_and_running "$user"
libra_at_exit "scancel $H $R 2>/dev/null"

# S: a hard-deadline job that overruns its estimate, suspended by its
# owner as soon as it runs.  Slurm 22.05 lets only operators suspend and
# 24.11 also the account's coordinators: the owner is refused; 26.05
# lets the owner too, so the suspend is not taken for the provider's
# (design.md decision 30).  Either way S ends at its deadline settled
# DEADLINE (its own overrun: the price, no penalty), never SUSPENDED (a
# penalty to the owner).  Its deadline passes while the updates below run.
SB_USER=$user
libra_sbatch_admitted "job S" -n 1 --comment="runtime=5s,deadline=25s,budget=100,penalty=3600" --wrap 'sleep 600'
S=$SB_JOBID
SB_USER=
libra_at_exit "scancel $S 2>/dev/null"
wait_until 60 "job $S to run" job_in_state "$S" RUNNING
rc=0
sus=$(runuser -u "$user" -- scontrol suspend "$S" 2>&1) || rc=$?
s_suspended=$([ "$rc" = 0 ] && echo yes || echo no)
note "the owner's scontrol suspend $S: exit $rc${sus:+: $sus}"

# the record without the owner's time (a hold or release adds to it)
record_of() { job_record "$1" | sed -E 's/,"owner(_since)?":[0-9.e+]+//g'; }
# FIELD: scontrol show job's value (the whole line for "-")
field_of() { if [ "$2" = - ]; then job_field "$1" JobState; else job_field "$1" "$2"; fi; }

# try JOB KEY=VALUE SHOWN VERDICT: the owner updates; VERDICT "ok" (taken,
# SHOWN changed or not, record the same) or "refused" (scontrol fails,
# SHOWN and the record as they were, slurmctld's log names the update).
nok=0 nref=0
try() {
	local job=$1 kv=$2 shown=$3 want=$4 rec0 rec1 f0 f1 rc=0 out n0 n1
	rec0=$(record_of "$job")
	f0=$(field_of "$job" "$shown")
	n0=$(ctld_log_count "refused update of admitted JobId=$job")
	out=$(runuser -u "$user" -- scontrol update JobId="$job" "$kv" 2>&1) || rc=$?
	f1=$(field_of "$job" "$shown")
	rec1=$(record_of "$job")
	n1=$(ctld_log_count "refused update of admitted JobId=$job")
	[ "$rec0" = "$rec1" ] || fail "$kv on job $job changed its record: $rec0 -> $rec1"
	case $want in
	ok)
		[ "$rc" = 0 ] || fail "$kv on job $job: refused, expected harmless (exit $rc): $out"
		nok=$((nok + 1))
		;;
	refused)
		[ "$rc" != 0 ] || fail "$kv on job $job: taken (${shown}: '$f0' -> '$f1'), expected a refusal"
		[ "$f0" = "$f1" ] || fail "$kv on job $job: refused, but $shown changed: '$f0' -> '$f1'"
		[ "$n1" -gt "$n0" ] || fail "$kv on job $job: refused, but slurmctld's log does not say so: $out"
		nref=$((nref + 1))
		;;
	esac
}

# --- the held job H ---------------------------------------------------------
try "$H" JobName=renamed JobName ok
try "$H" MailType=END MailType ok
try "$H" MailUser=someone@example.invalid MailUser ok
try "$H" Nice=10 Nice ok
try "$H" Priority=1 Priority refused
try "$H" WorkDir=/tmp WorkDir ok
try "$H" StdOut=/tmp/h.out StdOut ok
try "$H" Requeue=0 Requeue ok
try "$H" ResetAccrueTime - ok
try "$H" ReqSockets=2 Socks/Node refused
try "$H" ReqCores=2 CoresPerSocket refused
try "$H" ReqThreads=2 ThreadsPerCore refused
try "$H" MinTmpDiskNode=999999 MinTmpDiskNode refused
try "$H" Switches=1 Switches refused
try "$H" DelayBoot=60 DelayBoot refused
try "$H" Prefer=fast Prefer refused
try "$H" Features=fast Features refused
try "$H" Dependency=afterok:1 Dependency refused
try "$H" EligibleTime=now+1hour EligibleTime refused
try "$H" TimeLimit=2 TimeLimit refused
try "$H" NumCPUs=2 NumCPUs refused
try "$H" ExcNodeList=n1 ExcNodeList refused
try "$H" Contiguous=1 Contiguous refused
try "$H" NumTasks=2 NumTasks refused
try "$H" CPUsPerTask=2 CPUs/Task refused
try "$H" MinCPUsNode=2 MinCPUsNode refused
try "$H" MinMemoryNode=100 MinMemoryNode refused
try "$H" Gres=gpu:1 TresPerNode refused
try "$H" Licenses=lic:1 Licenses refused
try "$H" Reservation=none Reservation refused
try "$H" Account=other Account refused
try "$H" QOS=normal QOS refused
try "$H" Partition=other Partition refused
try "$H" TimeMin=1 TimeMin refused
try "$H" Comment=just-a-note Comment refused
# --- the running job R ------------------------------------------------------
try "$R" JobName=renamed-r JobName ok
try "$R" MailType=FAIL MailType ok
try "$R" Nice=5 Nice ok
try "$R" EndTime=now+2minutes EndTime refused
try "$R" TimeLimit=5 TimeLimit refused
try "$R" Switches=1 Switches refused
try "$R" DelayBoot=5 DelayBoot refused
try "$R" NumNodes=1 NumNodes refused
try "$R" TresBind=gres/gpu:closest TresBind refused
try "$R" TresFreq=gpu:low TresFreq refused
try "$R" Licenses= Licenses refused
note "owner updates: $nok harmless and taken, $nref refused with nothing changed"

# the owner's holds: H, held from its submission, has the time held in
# its record; P, pending on a dependency on R, held and released by its
# owner through job_modify(), too
[[ $(job_record "$H") == *'"owner_since":'* ]] ||
	fail "job $H submitted held: its record has no owner_since: $(job_record "$H")"
SB_USER=$user
libra_sbatch_admitted "pending job P" -n 1 --dependency=afterok:"$R" \
	--comment="runtime=1m,deadline=30m,budget=10" --wrap true
P=$SB_JOBID
SB_USER=
libra_at_exit "scancel $P 2>/dev/null"
runuser -u "$user" -- scontrol hold "$P" || fail "the owner cannot hold its job $P"
[[ $(job_record "$P") == *'"owner_since":'* ]] ||
	fail "job $P held by its owner: its record has no owner_since: $(job_record "$P")"
[ "$(ctld_log_count "JobId=$P held by its owner")" -ge 1 ] ||
	fail "slurmctld's log does not say that job $P was held by its owner"
runuser -u "$user" -- scontrol release "$P" || fail "the owner cannot release its job $P"

# an array admitted as one bag of 1 lane (%1): Slurm sets the throttle
# before job_submit/qos sees the update; the owner's ArrayTaskThrottle=0
# is refused and the throttle stays 1, the lanes admitted
SB_USER=$user
libra_sbatch_admitted "array of 3 x 10s, 1 at a time" -n 1 --array=1-3%1 \
	--comment="runtime=10s,deadline=30m,budget=10" --wrap 'sleep 600'
A=$SB_JOBID
SB_USER=
libra_at_exit "scancel $A 2>/dev/null"
try "$A" ArrayTaskThrottle=0 ArrayTaskThrottle refused
assert_eq 1 "$(job_field "$A" ArrayTaskThrottle)" "array $A's throttle after its owner's update"
scancel "$A"

# F: an admitted job that ended is not run again (decision 37).  Slurm
# lets an owner requeue a batch job after it ended; jobcomp/libra turned
# F's Requeue flag off when it settled it, so Slurm refuses the requeue,
# the owner's and root's, and the flag cannot be set again on an ended
# job.  F stays COMPLETED with its one settlement.
SB_USER=$user
libra_sbatch_admitted "job F" -n 1 --comment="runtime=5s,deadline=30m,budget=10" --wrap true
F=$SB_JOBID
SB_USER=
wait_until 120 "job $F to end" job_ended "$F"
assert_eq COMPLETED "$(job_state "$F")" "job $F's state"
libra_at_exit "scancel $F 2>/dev/null"
# (deferred checks from here: every way the old behaviour shows, at once)
expect_eq 0 "$(job_field "$F" Requeue)" "job $F's Requeue flag once it ended"
recF=$(job_record "$F")
for who in "$user" root; do
	rc=0
	out=$(runuser -u "$who" -- scontrol requeue "$F" 2>&1) || rc=$?
	[ "$rc" != 0 ] || expect_fail "$who requeued job $F after it ended and was settled: $out"
	note "$who's scontrol requeue of ended job $F: exit $rc: $out"
done
rc=0
out=$(runuser -u "$user" -- scontrol update JobId="$F" Requeue=1 2>&1) || rc=$?
[ "$rc" != 0 ] || expect_fail "the owner set the Requeue flag of ended job $F: $out"
expect_eq COMPLETED "$(job_state "$F")" "job $F's state after the requeues"
expect_eq "$recF" "$(job_record "$F")" "job $F's record after the requeues"

# root, an operator, may make the changes an owner may not
scontrol update JobId="$H" ReqSockets=1 || fail "root cannot update job $H's ReqSockets"
scontrol update JobId="$R" DelayBoot=5 || fail "root cannot update job $R's DelayBoot"
[ "$(ctld_log_count "operator uid 0 changes")" -ge 2 ] ||
	fail "slurmctld's log does not name root's changes of admitted jobs"

# S at its deadline: its own overrun, whoever suspended it
wait_until 180 "job $S to end at its deadline" job_ended "$S"
wait_until 120 "job $S's settled record in sacct" sacct_record_final "$S"
final=$(sacct_record "$S")
note "job $S (suspended by its owner: $s_suspended) settled: $final"
expect_eq DEADLINE "$(json_get "$final" final.how)" "job $S: final.how"
expect_eq 0 "$(json_get "$final" final.penalty)" "job $S: the penalty paid to its owner"
"$LIBRA_PYTHON" -c 'import json, sys; f = json.loads(sys.argv[1])["final"]; sys.exit(not f["charge"] > 0)' "$final" ||
	expect_fail "job $S overran its estimate, was suspended by its owner ($s_suspended) and is charged nothing: $final"
if [ "$s_suspended" = yes ]; then
	[ "$(ctld_log_count "JobId=$S reached its hard deadline after a suspend its owner may have made")" -ge 1 ] ||
		expect_fail "slurmctld's log does not say that job $S's suspend may have been its owner's"
fi
expect_done

errs=$(ctld_plugin_errors | grep -v -e "refused update of admitted" -e "not on the list of harmless changes" || :)
[ -z "$errs" ] || fail "slurmctld logged other plugin errors: $errs"
grep -q "not on the list of harmless changes" "$log" ||
	fail "no update was refused by the allow-list (qos_update.c): the named checks refused everything"
scancel "$H" "$R" "$P" "$S" "$F"
cluster_stop
assert_nothing_left
pass
