#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# A user cannot change an admitted job's SLA, price or record (job_submit_qos(8),
# job_modify): every "scontrol update" that would (comment, AdminComment, deadline,
# time limit, CPUs, tasks, nodes, partition, node lists, QOS) fails for the
# job's owner, the job's AdminComment and its other settings stay as they
# were, and slurmctld logs why ("job_submit/qos: refused update of admitted
# JobId=...: changing ... would alter its SLA or price"); from Slurm 24.11
# scontrol also shows the user that reason ("libra: refused: changing ...
# would alter the job's SLA or price").  Requeueing the
# job neither duplicates nor changes its record.  An operator (root) can
# still change the comment, the time limit and the deadline.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
# shellcheck disable=SC2119 # the default settings: no arguments
libra_cluster_env
libra_add_user
user=$LIBRA_USER
uid=$(id -u "$user")
export LIBRA_EXTRA_CONF="PartitionName=other Nodes=n[1-${LIBRA_NODES:-4}] MaxTime=INFINITE State=UP OverSubscribe=FORCE:8"
cluster_start
log=$LIBRA_CLUSTER_DIR/log/slurmctld.log

# Two admitted jobs of the user: H held and R running (it is requeued
# and cancelled below).
libra_held_and_running "$user"
assert_eq "$user" "$(job_field "$H" UserId | sed 's/(.*//')" "owner of job $H"
note "user $user (uid $uid): held job $H, running job $R"

# snapshot JOBID: what must not change: the record and the settings an
# update could touch.
snapshot() {
	local f out
	out="AdminComment=$(job_record "$1")"
	for f in Comment TimeLimit TimeMin Deadline NumCPUs NumTasks CPUs/Task MinCPUsNode NumNodes \
		Partition ReqNodeList ExcNodeList QOS JobState EndTime; do
		out+=" $f=$(job_field "$1" "$f")"
	done
	printf '%s' "$out"
}

# The attempts: JOB|scontrol update arguments|what slurmctld's log says
# (fragments separated by ';', all on one new line; '-' for none).
Q="job_submit/qos: refused update of admitted JobId"
attempts=(
	# a new SLA in the comment: a smaller budget, a later deadline
	"H|comment=runtime=1m,deadline=2h,budget=0.001|$Q=\$id by uid $uid: changing the comment (SLA);would alter its SLA or price"
	# even a comment that is no SLA would replace the one that was priced
	"H|comment=just-a-note|$Q=\$id by uid $uid: changing the comment (SLA)"
	# a forged record (Slurm lets only operators set AdminComment)
	"H|admincomment={\"libra\":1,\"policy\":\"libra+\$\",\"best_effort\":true,\"admit\":{\"time\":0,\"price\":0,\"rate\":0,\"place\":[]}}|Attempt to change admin_comment for JobId=\$id"
	# clearing the record
	"H|admincomment=|Attempt to change admin_comment for JobId=\$id"
	# Slurm's own deadline, later
	"H|deadline=now+3hours|$Q=\$id by uid $uid: changing the deadline"
	# a shorter time limit, and a longer one
	"H|timelimit=1|$Q=\$id by uid $uid: changing the time limit"
	"H|timelimit=+600|$Q=\$id by uid $uid: changing the time limit"
	# a minimum time limit
	"H|timemin=1|$Q=\$id by uid $uid: changing the minimum time limit"
	# more CPUs, in each way Slurm knows: CPUs, tasks, CPUs per task,
	# CPUs per node, tasks per node
	"H|numcpus=2|$Q=\$id by uid $uid: changing the CPU count"
	"H|numtasks=2|$Q=\$id by uid $uid: changing the CPU count"
	"H|cpuspertask=2|$Q=\$id by uid $uid: changing the CPU count"
	"H|mincpusnode=2|$Q=\$id by uid $uid: changing the CPU count"
	"H|taskspernode=2|$Q=\$id by uid $uid: changing the CPU count"
	# more nodes
	"H|numnodes=2|$Q=\$id by uid $uid: changing the node count"
	# another partition (the same nodes, but not the one it was priced for)
	"H|partition=other|$Q=\$id by uid $uid: changing the partition"
	# other nodes than the admitted ones, by name and by exclusion
	"H|reqnodelist=n4|$Q=\$id by uid $uid: changing the node list"
	"H|nodelist=n3|$Q=\$id by uid $uid: changing the node list"
	"H|excnodelist=n1|$Q=\$id by uid $uid: changing the node list"
	# another QOS
	"H|qos=normal|$Q=\$id by uid $uid: changing the QOS"
	# the running job: a new SLA, a longer or shorter time limit
	"R|comment=runtime=1m,deadline=2h,budget=0.001|$Q=\$id by uid $uid: changing the comment (SLA)"
	"R|timelimit=+600|$Q=\$id by uid $uid: changing the time limit"
	"R|timelimit=2|$Q=\$id by uid $uid: changing the time limit"
	# a later end (Slurm itself refuses to extend it for a user)
	# a later end time (Slurm refuses it too, after job_submit/qos's
	# allow-list of harmless changes, design.md decision 37)
	"R|endtime=now+3hours|$Q=\$id by uid $uid: changing what is not on the list of harmless changes (job_submit_qos(8))"
)

slurm_major=$(scontrol -V | awk '{ split($2, v, "."); print v[1] + 0 }')
slurm_major=${slurm_major:-0}
n=0
for a in "${attempts[@]}"; do
	IFS='|' read -r which args expect <<<"$a"
	id=${!which}
	n=$((n + 1))
	before=$(snapshot "$id")
	lines=$(wc -l <"$log")
	rc=0
	out=$(runuser -u "$user" -- scontrol update jobid="$id" "$args" 2>&1) || rc=$?
	what="attempt $n (as $user: scontrol update jobid=$id $args)"
	[ "$n" != 1 ] || note "$what: scontrol says: $out"
	# From 24.11 Slurm returns job_modify's message to the user
	# (LIBRA_JOB_MODIFY in libra_compat.h); 22.05 gives the hook none.
	if [ "$slurm_major" -ge 24 ] && [[ $expect == "$Q"* ]]; then
		want=${expect#*uid $uid: }
		want="libra: refused: ${want%%;*} would alter the job's SLA or price"
		[[ $out == *"$want"* ]] ||
			expect_fail "$what: scontrol did not show the plugin's reason '$want': $out"
	fi
	if [ "$rc" = 0 ]; then
		expect_fail "$what: succeeded ($out)"
	fi
	after=$(snapshot "$id")
	[ "$after" = "$before" ] || expect_fail "$what: the job changed: before: $before; after: $after"
	if [ "$expect" != - ]; then
		expect=${expect//\$id/$id}
		new=$(tail -n +"$((lines + 1))" "$log")
		IFS=';' read -ra parts <<<"$expect"
		hit=$(grep -F -- "${parts[0]}" <<<"$new" || :)
		for part in "${parts[@]:1}"; do
			hit=$(grep -F -- "$part" <<<"$hit" || :)
		done
		[ -n "$hit" ] || expect_fail "$what: slurmctld's log has no line with '${parts[*]}'; new lines: $(tail -n 5 <<<"$new")"
	fi
done
note "$n attempts to change the job as its owner, ${#LIBRA_FAILURES[@]} failed check(s)"

# Requeue: the owner may requeue the running job; it comes back pending
# with the same record (not settled, not a second admission), and there is
# still one job with that id.
recR=$(job_record "$R")
rc=0
out=$(runuser -u "$user" -- scontrol requeue "$R" 2>&1) || rc=$?
note "requeue of job $R by $user: exit $rc $out"
# (Slurm holds a requeued batch job back for cred_expire, 120 s: pending)
wait_until_ok 60 job_in_state "$R" PENDING || :
assert_eq 1 "$(squeue -h -t all -j "$R" -o %i | wc -l)" "jobs with id $R after the requeue"
after=$(job_record "$R")
msg=$("$LIBRA_PYTHON" -c '
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:3])
bad = [k for k in ("policy", "token", "sla", "admit") if a.get(k) != b.get(k)]
if "final" in b: bad.append("final (settled at the requeue)")
print(", ".join(bad))' "$recR" "$after")
assert_eq "" "$msg" "job $R: fields of the record changed by the requeue (before $recR, after $after)"
# two submissions, two admissions: the requeue did not admit again
assert_eq 2 "$(grep -cF 'job_submit/qos: libra: admitted:' "$log" || :)" "admissions in slurmctld's log"

# Pending again after the requeue, the job is still protected.
before=$(snapshot "$R")
rc=0
out=$(runuser -u "$user" -- scontrol update jobid="$R" numcpus=2 2>&1) || rc=$?
[ "$rc" != 0 ] || expect_fail "as $user: scontrol update jobid=$R numcpus=2 after the requeue succeeded ($out)"
assert_eq "$before" "$(snapshot "$R")" "job $R after an update of the requeued job"

# The owner cancels the requeued job.  It ran before the requeue, so it
# pays for the part of its window it used (CANCELLED, settle.h), not
# nothing: a requeue must not turn the time used into a free ride.
runuser -u "$user" -- scancel "$R" || fail "$user could not cancel job $R"
wait_until 120 "job $R to end" job_ended "$R"
wait_until 120 "job $R's settled record in sacct" sacct_record_final "$R"
final=$(sacct_record "$R")
note "job $R settled: $final"
assert_eq CANCELLED "$(json_get "$final" final.how)" "job $R: final.how"
"$LIBRA_PYTHON" -c 'import json, sys; sys.exit(not json.loads(sys.argv[1])["final"]["charge"] > 0)' "$final" ||
	expect_fail "job $R ran $(($(date +%s) - $(json_get "$recR" start | cut -d. -f1))) s or so, was requeued by its owner and cancelled while pending, and is charged nothing: $final"

# An operator can change the comment, the time limit and the deadline.
scontrol update jobid="$H" comment="runtime=1m,deadline=1h,budget=20" ||
	fail "root could not change the comment of job $H"
assert_eq "runtime=1m,deadline=1h,budget=20" "$(job_field "$H" Comment)" "comment of job $H after root's update"
scontrol update jobid="$H" timelimit=45 || fail "root could not change the time limit of job $H"
assert_eq 00:45:00 "$(job_field "$H" TimeLimit)" "time limit of job $H after root's update"
dl=$(date -d '+3 hours' +%Y-%m-%dT%H:%M:%S)
scontrol update jobid="$H" deadline="$dl" || fail "root could not change the deadline of job $H"
assert_eq "$dl" "$(job_field "$H" Deadline)" "deadline of job $H after root's update"
assert_match "operator uid 0 changes the comment \(SLA\) of admitted JobId=$H" "$(grep -F "operator uid 0 changes" "$log" | tr '\n' ' ')" \
	"slurmctld's log of root's update"
if [ "$(job_state "$R")" = RUNNING ]; then
	scontrol update jobid="$R" timelimit=+10 || fail "root could not extend the time limit of running job $R"
fi

# An administrator's AdminComment is kept beside the record, never over it
# (design.md decision 29): the record's "admin" member; the
# record reads as before, and the job is scheduled and settled as before.
# (sbatch has no --admin-comment on 22.05: scontrol update, pending.)
recH=$(job_record "$H")
scontrol update jobid="$H" admincomment="ticket 7: disk quota" ||
	fail "root could not set the AdminComment of job $H"
after=$(job_record "$H")
assert_eq "ticket 7: disk quota" "$(json_get "$after" admin)" "job $H: the administrator's text in the record"
assert_eq "$(json_get "$recH" admit)" "$(json_get "$after" admit)" "job $H: the record's admission after the administrator's AdminComment"
scontrol update jobid="$H" admincomment="ticket 8" || fail "root could not change the AdminComment of job $H"
assert_eq "ticket 8" "$(json_get "$(job_record "$H")" admin)" "job $H: the administrator's second text"
SB_USER=$user
libra_sbatch_admitted "job A (AdminComment)" --hold -n 1 --comment="runtime=5s,deadline=10m,budget=10" --wrap 'sleep 2'
A=$SB_JOBID
SB_USER=
scontrol update jobid="$A" admincomment="ticket 9" || fail "root could not set the AdminComment of job $A"
scontrol release "$A"
wait_until 120 "job $A to end" job_ended "$A"
assert_eq COMPLETED "$(job_state "$A")" "state of job $A, AdminComment set by root"
wait_until 120 "job $A's settled record in sacct" sacct_record_final "$A"
final=$(sacct_record "$A")
assert_eq "ticket 9" "$(json_get "$final" admin)" "job $A: the administrator's text in sacct's AdminComment"
assert_eq true "$(json_get "$final" final.met)" "job $A: deadline met"
# the owner still cannot touch it
rc=0
out=$(runuser -u "$user" -- scontrol update jobid="$H" admincomment=mine 2>&1) || rc=$?
[ "$rc" -ne 0 ] || expect_fail "$user changed the AdminComment of job $H: $out"

# A best-effort job (no SLA) is its owner's to update, as under stock
# Slurm (found by tests/slurm-python's review: its owner could not change
# its time limit, dependencies or comment); only an SLA comment is refused.
B=$(runuser -u "$user" -- sbatch --parsable --hold -n 1 -t 10 --wrap 'sleep 30') ||
	fail "$user could not submit a best-effort job"
for args in timelimit=5 comment=hello "dependency=afterany:$H"; do
	runuser -u "$user" -- scontrol update jobid="$B" "$args" ||
		fail "$user could not update best-effort job $B with $args"
done
assert_eq 00:05:00 "$(job_field "$B" TimeLimit)" "time limit of best-effort job $B after its owner's update"
assert_eq hello "$(job_field "$B" Comment)" "comment of best-effort job $B after its owner's update"
rc=0
out=$(runuser -u "$user" -- scontrol update jobid="$B" comment="runtime=1m,deadline=1h,budget=20" 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "$user turned best-effort job $B into an SLA job by an update: $out"
assert_eq hello "$(job_field "$B" Comment)" "comment of best-effort job $B after a refused SLA comment"
# an administrator's text beside a best-effort record too
scontrol update jobid="$B" admincomment="ticket 10" || fail "root could not set the AdminComment of job $B"
recB=$(job_record "$B")
assert_eq "ticket 10" "$(json_get "$recB" admin)" "best-effort job $B: the administrator's text"
assert_eq true "$(json_get "$recB" best_effort)" "best-effort job $B: still a best-effort record"
scancel "$B"

expect_done
cluster_stop
assert_nothing_left
pass
