#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# rel_tamper: what an ordinary user might try beyond "scontrol update" of
# the SLA fields (test_submit_tamper.sh has those).
#
# The list (one entry per attempt, with the outcome that is right) is in
# ATTEMPTS below and printed at the end with what happened.  The rule
# behind the "no penalty" entries: a penalty compensates the user for the
# provider's broken promise; a delay the owner caused (holding, requeueing,
# making the job unable to start) must not turn into a payment to the
# owner, and an admitted job that can no longer meet its hard deadline is
# ended at that deadline (sched_libra(8)) whatever state it waits in.
# shellcheck source=../integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
libra_test_init
libra_cluster_env 'libra_policy=libra+$' libra_price_base=3600
libra_add_user
user=$LIBRA_USER
# A requeued batch job is held back for the credential's lifetime: 10 s
# here instead of 120 s, so that reruns happen within the test.
export LIBRA_EXTRA_CONF="AuthInfo=socket=$LIBRA_CLUSTER_DIR/munge/munged.socket,cred_expire=10"
cluster_start
ctld=$(slurmctld_pid)
submit=$(libra_rel_tool libra_submit)
log=$LIBRA_CLUSTER_DIR/log/slurmctld.log
T=$LIBRA_WORK/tamper
rm -rf "$T"
mkdir -p "$T"
chmod 777 "$T"

declare -A EXPECT RESULT
ATTEMPTS=()
attempt() { # NAME EXPECTED-OUTCOME
	ATTEMPTS+=("$1")
	EXPECT[$1]=$2
	RESULT[$1]=ok
}
bad() { # NAME MESSAGE: the attempt did not have the right outcome
	RESULT[$1]="FAILED: $2"
	expect_fail "$1: $2"
}
as_user() { runuser -u "$user" -- "$@"; }
usb() { # sbatch as the user, not on n4 (kept for the weight jobs); sets
	# JID (empty if refused) and OUT
	OUT=$(as_user sbatch -D "$T" -o /dev/null -x n4 "$@" 2>&1) || :
	JID=$(sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$OUT")
}
record_has_start() { [[ $(job_record "$1") == *'"start":'* ]]; }
# fields of a record that must never change: policy, token, sla, admit
core_of() {
	"$LIBRA_PYTHON" -c 'import json, sys
r = json.loads(sys.argv[1]) if sys.argv[1] else {}
print(json.dumps({k: r.get(k) for k in ("policy", "token", "sla", "admit")}, sort_keys=True))' "$1"
}

attempt requeue "scontrol requeue of the running job by its owner: allowed by Slurm; record (SLA, price, placement) unchanged, no second admission; the rerun completes by the deadline; exactly one settlement, charged the quoted price once"
attempt requeuehold "scontrol requeuehold, then scontrol release, by the owner: as requeue"
attempt release_admin_hold "scontrol release by the owner of a job an operator held: refused, the job stays held"
attempt suspend "scontrol suspend by the owner: refused (operators only)"
attempt held_past_deadline "submitted --hold and left held past its hard deadline: ended at its deadline, and no penalty paid to the owner"
attempt requeuehold_past_deadline "requeuehold of the running job by its owner, released after the hard deadline: no penalty paid to the owner"
attempt requeue_at_deadline "scontrol requeue by the owner 8 s before the hard deadline (the rerun cannot start before it, cred_expire 10 s): no penalty paid to the owner"
attempt later_start "scontrol update StartTime=now+60 by the owner of a held admitted job, then release: refused, or no penalty and ended at its deadline"
attempt dependency "scontrol update Dependency=afterok:<a held job> by the owner of a held admitted job, then release: refused, or no penalty and ended at its deadline"
attempt no_memory "scontrol update MinMemoryNode=999999 by the owner of a held admitted job (it can start nowhere), then release: refused, or no penalty"
attempt admincomment_running "scontrol update AdminComment=<forged record> by the owner of a running job: refused, record unchanged"
attempt admincomment_clear "scontrol update AdminComment= (empty) by the owner: refused, record unchanged"
attempt admincomment_other "scontrol update AdminComment=<forged record> of root's job by the user: refused, record unchanged"
attempt api_forged_user "Slurm API slurm_submit_batch_job() as the user with admin_comment = a forged record (price 0): refused, no job"
attempt api_note_user "Slurm API as the user with admin_comment = a plain note: refused, no job"
attempt api_forged_root "Slurm API as root (an operator) with admin_comment = a forged record and an SLA comment: admitted with the plugin's own record (forged one dropped)"
attempt api_forged_root_nosla "Slurm API as root with admin_comment = a forged record and no SLA: best effort with the plugin's own record (forged one dropped)"
attempt sbatch_admin_comment "sbatch --admin-comment (no such option in 22.05): refused by sbatch, no job"
attempt env_weight "job submitted with SLURMD_NODENAME=n4, SLURM_JOB_ID=1, SLURM_CPUS_ON_NODE=64, _SLURM_SPANK_OPTION_libra_runtime=1s, ... in its environment: its cgroup weight on its node equals the record's share, as for the same job without them; no cgroup under another node or job id"
attempt cgroup_write "the job itself writes its cpu.shares and moves into its node's cgroup: permission denied, the weight stays the record's"

FORGED='{"libra":1,"policy":"libra+$","sla":{"runtime":60,"submit":0,"deadline":10000000000,"budget":1000000000000000,"type":"soft","given":["runtime","deadline","budget","type"]},"admit":{"time":0,"price":0,"rate":0,"place":[{"node":"n1","cpus":1}]}}'
PEN="penalty=36000" # per hour: 50 for 5 s of runtime

# --- jobs -----------------------------------------------------------------
# The requeued jobs' first runs wait at a gate until they have been
# requeued (a job that sleeps a few seconds can be over before a busy
# machine gets to the requeue); their reruns pass it.  The jobs with a 30 s
# hard deadline are submitted later, right before what is done to them.
GATE_RQ=$T/go-requeued
usb -J rq --comment="runtime=5s,deadline=3m,budget=100" --wrap "$(gate_wait "$GATE_RQ" 'sleep 1')"
RQ=$JID
usb -J rqh --comment="runtime=5s,deadline=3m,budget=100" --wrap "$(gate_wait "$GATE_RQ" 'sleep 1')"
RQH=$JID
usb -J ah --hold --comment="runtime=5s,deadline=3m,budget=100" --wrap 'sleep 1'
AH=$JID
for v in RQ RQH AH; do
	[ -n "${!v}" ] || fail "job $v was not admitted: $OUT"
done
ROOTJ=$(sbatch -D "$T" -o /dev/null -x n4 -J rootjob --parsable --comment="runtime=5s,deadline=10m,budget=100" --wrap 'sleep 120' 2>/dev/null) ||
	fail "root's job was not admitted"
# the environment tricks: two identical jobs on n4, one with the tricks
ENVS=(SLURMD_NODENAME=n4 SLURM_JOB_ID=1 SLURM_JOBID=1 SLURM_CPUS_ON_NODE=64 SLURM_JOB_CPUS_PER_NODE=64
	SLURM_NTASKS=64 SLURM_NNODES=4 SLURM_NODELIST=n4 SLURM_JOB_NODELIST=n4 SLURM_STEP_ID=0
	_SLURM_SPANK_OPTION_libra_runtime=1s _SLURM_SPANK_OPTION_libra_budget=0 SPANK_LIBRA_RUNTIME=1s
	SLURM_SPANK__SLURM_SPANK_OPTION_libra_penalty=5 LIBRA_SHARE=1)
CG_SCRIPT='cg=$(awk -F: '\''$2 ~ /(^|,)cpu(,|$)/ { print $3 }'\'' /proc/self/cgroup)
echo "cgroup $cg"
d=/sys/fs/cgroup/cpu$cg
echo 262144 > "$d/cpu.shares" && echo "WROTE cpu.shares" || echo "write cpu.shares: refused"
echo $$ > "$d/../cgroup.procs" && echo "MOVED to the node cgroup" || echo "move: refused"
echo $$ > /sys/fs/cgroup/cpu/cgroup.procs && echo "MOVED to the root cgroup" || echo "move to root: refused"
sleep 100'
OUT=$(as_user sbatch -D "$T" -o /dev/null -J ctl -w n4 --comment="runtime=10m,deadline=1h,budget=10000" --wrap 'sleep 100' 2>&1) || :
CTL=$(sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$OUT")
OUT=$(as_user env "${ENVS[@]}" sbatch -D "$T" -o /dev/null -J envjob -w n4 --comment="runtime=10m,deadline=1h,budget=10000" --wrap 'sleep 100' 2>&1) || :
ENVJ=$(sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$OUT")
OUT=$(as_user sbatch -D "$T" -J cgw -w n4 -o "$T/cgw.out" --comment="runtime=10m,deadline=1h,budget=10000" --wrap "$CG_SCRIPT" 2>&1) || :
CGW=$(sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$OUT")
[ -n "$CTL" ] && [ -n "$ENVJ" ] && [ -n "$CGW" ] || fail "the weight jobs were not admitted: $OUT"
note "jobs: requeue $RQ, requeuehold $RQH, admin hold $AH, root's $ROOTJ, weights: control $CTL, env $ENVJ, cgroup writer $CGW"
admissions0=$(grep -cF 'job_submit/qos: libra: admitted:' "$log" || :)
# admissions after admissions0 that are not the API's (the later jobs')
admissions_later=0
for j in $RQ $RQH $ROOTJ $CTL $ENVJ $CGW; do
	wait_until 120 "job $j to run" job_in_state "$j" RUNNING
	wait_until 60 "job $j's record to have its start" record_has_start "$j"
done

# --- requeue tricks ------------------------------------------------------------
recRQ=$(job_record "$RQ")
recRQH=$(job_record "$RQH")
rc=0
out=$(as_user scontrol requeue "$RQ" 2>&1) || rc=$?
[ "$rc" = 0 ] || bad requeue "Slurm refused the owner's requeue ($out): nothing to check"
rc=0
out=$(as_user scontrol requeuehold "$RQH" 2>&1) || rc=$?
[ "$rc" = 0 ] || bad requeuehold "Slurm refused the owner's requeuehold ($out)"
# a submission, so that sched/libra passes while both are still COMPLETING
# (a start attempt then would leave them COMPLETING for good)
sbatch -D "$LIBRA_WORK" -o /dev/null -J poke --wrap true >/dev/null 2>&1 || :
# shellcheck disable=SC2317 # called by wait_until_ok
done_completing() { [ "$(job_state "$1")" != COMPLETING ]; }
wait_until_ok 60 done_completing "$RQ" || bad requeue "still COMPLETING 60 s after the requeue: $(squeue -h -j "$RQ" -o '%T %r')"
wait_until_ok 60 done_completing "$RQH" || bad requeuehold "still COMPLETING 60 s after the requeuehold: $(squeue -h -j "$RQH" -o '%T %r')"
gate_open "$GATE_RQ"
[ "$(core_of "$(job_record "$RQ")")" = "$(core_of "$recRQ")" ] || bad requeue "the record changed at the requeue: $(job_record "$RQ")"
[ "$(core_of "$(job_record "$RQH")")" = "$(core_of "$recRQH")" ] || bad requeuehold "the record changed at the requeuehold: $(job_record "$RQH")"
[[ $(job_record "$RQ") != *'"final"'* ]] || bad requeue "settled at the requeue: $(job_record "$RQ")"
rc=0
out=$(as_user scontrol release "$RQH" 2>&1) || rc=$?
[ "$rc" = 0 ] || bad requeuehold "the owner could not release the job held by requeuehold: $out"

# an operator's hold cannot be released by the owner
scontrol hold "$AH" || fail "root could not hold job $AH"
rc=0
out=$(as_user scontrol release "$AH" 2>&1) || rc=$?
sleep 0.5
if [ "$rc" = 0 ] || [ "$(job_state "$AH")" != PENDING ] || [ "$(job_field "$AH" Priority)" != 0 ]; then
	bad release_admin_hold "exit $rc ($out), state $(job_state "$AH"), priority $(job_field "$AH" Priority)"
fi
scontrol release "$AH" || fail "root could not release job $AH"

rc=0
out=$(as_user scontrol suspend "$ROOTJ" 2>&1) || rc=$?
[ "$rc" != 0 ] && [ "$(job_state "$ROOTJ")" = RUNNING ] || bad suspend "exit $rc ($out), state $(job_state "$ROOTJ")"
rc=0
out=$(as_user scontrol suspend "$CTL" 2>&1) || rc=$?
[ "$rc" != 0 ] && [ "$(job_state "$CTL")" = RUNNING ] || bad suspend "own job: exit $rc ($out), state $(job_state "$CTL")"

# --- AdminComment ------------------------------------------------------------------
for a in "admincomment_running $CTL $FORGED" "admincomment_clear $CTL " "admincomment_other $ROOTJ $FORGED"; do
	read -r name j val <<<"$a"
	before=$(job_record "$j")
	rc=0
	out=$(as_user scontrol update jobid="$j" AdminComment="$val" 2>&1) || rc=$?
	[ "$rc" != 0 ] || bad "$name" "accepted ($out)"
	[ "$(job_record "$j")" = "$before" ] || bad "$name" "record changed: $(job_record "$j")"
done

# Slurm API with admin_comment
api() { # AS ARGS...: one submission with libra_submit; sets API_OUT, API_JID
	local who=$1
	shift
	if [ "$who" = root ]; then
		API_OUT=$("$submit" -D "$T" -x 'sleep 2' "$@" 2>&1) || :
	else
		API_OUT=$(as_user "$submit" -D "$T" -x 'sleep 2' "$@" 2>&1) || :
	fi
	API_JID=$(sed -n 's/^RESULT 0 0 \([0-9]*\) .*/\1/p' <<<"$API_OUT")
	API_JOBS+=" $API_JID"
}
API_JOBS=
api user -A "$FORGED" -c "runtime=1m,deadline=1h,budget=100"
[ -z "$API_JID" ] && [[ $API_OUT == *"denied"* || $API_OUT == *"Access"* ]] || bad api_forged_user "job '$API_JID': $API_OUT"
api user -A "just a note" -c "runtime=1m,deadline=1h,budget=100"
[ -z "$API_JID" ] || bad api_note_user "job $API_JID made: $API_OUT"
api root -A "$FORGED" -c "runtime=1m,deadline=1h,budget=100"
if [ -z "$API_JID" ]; then
	bad api_forged_root "no job: $API_OUT"
else
	r=$(job_record "$API_JID")
	"$LIBRA_PYTHON" -c 'import json, sys
r = json.loads(sys.argv[1])
sys.exit(not (r["sla"]["runtime"] == 60 and r["sla"]["deadline"] - r["sla"]["submit"] == 3600 and r["admit"]["price"] > 0
              and r["admit"]["time"] > 1e9 and r.get("token", 0) > 0))' "$r" ||
		bad api_forged_root "job $API_JID's record is not the plugin's own: $r"
fi
api root -A "$FORGED"
if [ -z "$API_JID" ]; then
	bad api_forged_root_nosla "no job: $API_OUT"
else
	r=$(job_record "$API_JID")
	"$LIBRA_PYTHON" -c 'import json, sys
r = json.loads(sys.argv[1])
sys.exit(not (r.get("best_effort") and "sla" not in r and r["admit"]["rate"] > 0))' "$r" ||
		bad api_forged_root_nosla "job $API_JID's record is not the plugin's best-effort record: $r"
fi
rc=0
out=$(as_user sbatch -D "$T" -o /dev/null --admin-comment="$FORGED" --wrap true 2>&1) || rc=$?
[ "$rc" != 0 ] && [[ $out != *"Submitted batch job"* ]] || bad sbatch_admin_comment "exit $rc: $out"

# --- the node-side weight --------------------------------------------------------
prefix="libra-$(printf '%s' "$LIBRA_CLUSTER_DIR" | cksum | cut -d' ' -f1)"
cgcpu=/sys/fs/cgroup/cpu/$prefix
if [ ! -f /sys/fs/cgroup/cpu/cpu.shares ]; then
	RESULT[env_weight]="not checked: no cgroup v1 cpu controller"
	RESULT[cgroup_write]="not checked: no cgroup v1 cpu controller"
else
	weights_ok() { [ -f "$cgcpu/n4/job_$CTL/cpu.shares" ] && [ -f "$cgcpu/n4/job_$ENVJ/cpu.shares" ] && [ -f "$cgcpu/n4/job_$CGW/cpu.shares" ]; }
	wait_until 120 "the weight jobs' cgroups on n4" weights_ok
	# The requeued jobs' reruns (the first of them is job 1, the id the
	# environment trick names) end, and their cgroups go, before the check
	# for cgroups that should not be: on a busy machine they can still run
	# now.  A cgroup the trick made would stay: the trick's job runs on.
	# shellcheck disable=SC2317 # called by wait_until_ok
	reruns_gone() {
		job_ended "$RQ" && job_ended "$RQH" &&
			[ -z "$(find "$cgcpu" -maxdepth 2 \( -name "job_$RQ" -o -name "job_$RQH" \) 2>/dev/null)" ]
	}
	wait_until_ok 120 reruns_gone || :
	wait_until 120 "the cgroup writer's report" grep -q "move to root\|MOVED to the root" "$T/cgw.out"
	sleep 2 # a weight update or two after the writer's attempt
	now=$(date +%s.%N)
	check_weight() { # NAME JOB: the weight is the record's share now (sleeping: no CPU done)
		local w rec
		w=$(cat "$cgcpu/n4/job_$2/cpu.shares")
		rec=$(job_record "$2")
		"$LIBRA_PYTHON" -c 'import json, sys
r = json.loads(sys.argv[1]); w = int(sys.argv[2]); now = float(sys.argv[3])
s = r["sla"]; share = s["runtime"] / (s["deadline"] - now)
want = round(share * 10000)
print("weight %d, record share %.5f -> %d" % (w, share, want))
sys.exit(abs(w - want) > max(5, 0.01 * want))' "$rec" "$w" "$now" || bad "$1" "job $2 on n4: $w is not the record's share ($rec)"
	}
	note "control job $CTL: $(check_weight env_weight "$CTL")"
	note "job $ENVJ with the tricks: $(check_weight env_weight "$ENVJ")"
	wc_=$(cat "$cgcpu/n4/job_$CTL/cpu.shares") we=$(cat "$cgcpu/n4/job_$ENVJ/cpu.shares")
	[ "$((wc_ > we ? wc_ - we : we - wc_))" -le 5 ] || bad env_weight "weight $we with the tricks, $wc_ without"
	stray=$(find "$cgcpu" -maxdepth 2 -name "job_$ENVJ" ! -path "*/n4/*" 2>/dev/null; find "$cgcpu" -maxdepth 2 -name job_1 2>/dev/null)
	[ -z "$stray" ] || bad env_weight "cgroups the job should not have: $stray"
	note "cgroup writer: $(tr '\n' ';' <"$T/cgw.out")"
	if grep -q "WROTE\|MOVED" "$T/cgw.out"; then
		bad cgroup_write "the job changed its own cgroup: $(tr '\n' ';' <"$T/cgw.out")"
	fi
	note "cgroup writer $CGW: $(check_weight cgroup_write "$CGW")"
	grep -qx "$(pgrep -u "$user" -f 'sleep 100' | head -n 1)" "$cgcpu/n4/job_$CGW/cgroup.procs" 2>/dev/null ||
		grep -q . "$cgcpu/n4/job_$CGW/cgroup.procs" || bad cgroup_write "its tasks left job_$CGW's cgroup"
fi
scancel "$CTL" "$ENVJ" "$CGW" "$ROOTJ" 2>/dev/null || :

# --- jobs with a hard deadline D ----------------------------------------------
# What is done to them must happen before their deadline, and the
# requeue_at_deadline job must still run 8 s before it: D is 30 s on an
# idle machine, stretched by how long a job takes to start and end here
# (time_scale; probes as root, not counted below), and they are submitted
# only now.  A job that must run and starts too late for that is cancelled
# and submitted again with D doubled (up to 3 times), with a note.
admissions_before=$(grep -cF 'job_submit/qos: libra: admitted:' "$log" || :)
over=$(job_overhead_ms deadline-jobs -J probe -n 1 -x n4 --comment="runtime=2s,deadline=10m,budget=100" --wrap true)
D=$((30 * $(time_scale "$over" 1500)))
note "a job's overhead here: $over ms (median of 3 probes): hard deadlines of $D s"
# deadline_of JOB: the job's hard deadline (unix time) from its record
deadline_of() { "$LIBRA_PYTHON" -c 'import json, sys; print(int(json.loads(sys.argv[1])["sla"]["deadline"]))' "$(job_record "$1")"; }
# running_job NAME LEAD ARGS...: submit (as the user, deadline $D, and
# ARGS), wait until it runs with at least LEAD s left before its deadline;
# sets JID.
running_job() {
	local name=$1 lead=$2 d=$D try left
	shift 2
	for try in 1 2 3; do
		usb -J "$name" --comment="runtime=5s,deadline=${d}s,budget=100,$PEN" "$@"
		[ -n "$JID" ] || fail "job $name was not admitted: $OUT"
		wait_until $((d + 60)) "job $JID ($name) to run or end" bash -c "case \$(squeue -h -j $JID -t all -o %T) in RUNNING) [[ \$(scontrol show job $JID) == *'\"start\":'* ]] ;; PENDING|CONFIGURING) exit 1 ;; esac"
		left=$(($(deadline_of "$JID") - $(date +%s)))
		if job_in_state "$JID" RUNNING && [ "$left" -ge "$lead" ]; then
			return 0
		fi
		note "job $JID ($name, hard deadline ${d}s) is $(job_state "$JID") with $left s left, fewer than the $lead s needed: cancelled; again with a deadline of $((2 * d)) s"
		scancel "$JID" 2>/dev/null || :
		d=$((2 * d))
	done
	fail "job $name never ran with $lead s before its deadline in 3 tries (deadlines up to $((d / 2)) s)"
}
usb -J hold --hold --comment="runtime=5s,deadline=${D}s,budget=100,$PEN" --wrap 'sleep 5'
HOLD=$JID
usb -J begin --hold --comment="runtime=5s,deadline=${D}s,budget=100,$PEN" --wrap 'sleep 5'
BEGIN=$JID
usb -J blocker --hold --wrap 'sleep 1'
BLOCKER=$JID
usb -J dep --hold --comment="runtime=5s,deadline=${D}s,budget=100,$PEN" --wrap 'sleep 5'
DEP=$JID
usb -J mem --hold --comment="runtime=5s,deadline=${D}s,budget=100,$PEN" --wrap 'sleep 5'
MEM=$JID
for v in HOLD BEGIN BLOCKER DEP MEM; do
	[ -n "${!v}" ] || fail "job $v was not admitted: $OUT"
done

# --- updates that would keep a held admitted job from starting -------------
try_update() { # NAME JOB ARGS...: as the user; sets UPD_RC, UPD_OUT
	local name=$1 j=$2
	shift 2
	UPD_RC=0
	UPD_OUT=$(as_user scontrol update jobid="$j" "$@" 2>&1) || UPD_RC=$?
	note "$name: scontrol update jobid=$j $* -> exit $UPD_RC ${UPD_OUT:0:120}"
	# an update after the deadline would show nothing
	[ "$(date +%s)" -lt "$(deadline_of "$j")" ] ||
		bad "$name" "not observed: the update came after the job's hard deadline (${D}s; the machine was too slow)"
}
try_update later_start "$BEGIN" StartTime=now+60
try_update dependency "$DEP" Dependency=afterok:"$BLOCKER"
try_update no_memory "$MEM" MinMemoryNode=999999
for j in $BEGIN $DEP $MEM; do
	as_user scontrol release "$j" >/dev/null 2>&1 || :
done

# requeuehold of a running job; it stays held past its deadline.  The job
# runs until something ends it.
running_job rqhd 5 --wrap 'sleep 100000'
RQHD=$JID
rc=0
out=$(as_user scontrol requeuehold "$RQHD" 2>&1) || rc=$?
[ "$rc" = 0 ] || bad requeuehold_past_deadline "Slurm refused the requeuehold ($out)"

# requeue 8 s before its deadline: the rerun may start only 10 s later
running_job rqd 10 --wrap 'sleep 100000'
RQD=$JID
# (the probes' admissions and these)
admissions_later=$(($(grep -cF 'job_submit/qos: libra: admitted:' "$log" || :) - admissions_before))
note "jobs: held $HOLD, requeuehold past deadline $RQHD, requeue at deadline $RQD, later start $BEGIN, dependency $DEP on $BLOCKER, memory $MEM"

# --- past the hard deadlines ----------------------------------------------------------
dl_rqd=$(deadline_of "$RQD")
while [ "$(date +%s)" -lt $((dl_rqd - 8)) ]; do sleep 0.2; done
rc=0
out=$(as_user scontrol requeue "$RQD" 2>&1) || rc=$?
[ "$rc" = 0 ] || bad requeue_at_deadline "Slurm refused the requeue ($out)"
dl=0
for j in $HOLD $BEGIN $DEP $MEM $RQHD $RQD; do
	d=$(deadline_of "$j")
	[ "$d" -le "$dl" ] || dl=$d
done
# after the deadlines: the held, begin-time and dependent jobs should be
# ended by the scheduler (at its next pass; up to 60 s on a busy machine)
# shellcheck disable=SC2317 # called by wait_until_ok
deadline_jobs_ended() {
	local j
	for j in $HOLD $BEGIN $DEP $MEM $RQHD $RQD; do
		case $(job_state "$j") in
		PENDING | RUNNING | CONFIGURING | SUSPENDED) return 1 ;;
		esac
	done
}
while [ "$(date +%s)" -lt $((dl + 1)) ]; do sleep 0.5; done
wait_until_ok 60 deadline_jobs_ended || :
note "$(($(date +%s) - dl)) s after the last hard deadline"
for a in "held_past_deadline $HOLD" "later_start $BEGIN" "dependency $DEP" "no_memory $MEM" "requeuehold_past_deadline $RQHD" "requeue_at_deadline $RQD"; do
	read -r name j <<<"$a"
	st=$(job_state "$j")
	case $st in
	PENDING | RUNNING | CONFIGURING | SUSPENDED)
		bad "$name" "job $j still $st ($(job_field "$j" Reason)) $(($(date +%s) - $(deadline_of "$j"))) s after its hard deadline"
		;;
	esac
done
# the owner releases what is still held, cancels the blocker
for j in $HOLD $RQHD $BEGIN $DEP $MEM; do
	as_user scontrol release "$j" >/dev/null 2>&1 || :
done
as_user scancel "$BLOCKER" 2>/dev/null || :
sleep 3
for j in $BEGIN $DEP $MEM; do # still waiting for a begin time or a dependency
	job_ended "$j" || as_user scancel "$j" 2>/dev/null || :
done
wait_until 180 "every job to end" no_jobs_active
wait_until 120 "slurmctld's messages to slurmdbd to be sent" dbd_queue_empty
# every job has a settled row (an earlier run of a requeued job has a row of
# its own, REQUEUED, not settled)
settled() {
	sacct_dump "$T/sacct" "$(tr -s ' ' '\n' <<<"$ALL" | grep . | paste -sd, -)"
	awk -F'|' -v want="$ALL" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) f[w[i]] = 0 }
		$7 ~ /"final":\{/ { f[$1]++ }
		END { for (j in f) if (!f[j]) { print j; bad = 1 } exit bad }' "$T/sacct"
}
ALL="$RQ $RQH $AH $HOLD $RQHD $RQD $BEGIN $BLOCKER $DEP $MEM $ROOTJ $CTL $ENVJ $CGW $API_JOBS"
if ! wait_until_ok 180 settled; then
	expect_fail "jobs without a settled record in accounting 180 s after they ended: $(settled | paste -sd' ' -) (sacct: $(sacct -n -X -a -P -S 2000-01-01 -E now -j "$(settled | paste -sd, -)" -o JobID,State 2>&1 | paste -sd' ' -))"
fi
note "accounting: $(records_check "$T/sacct" 7)"

# the settlements
final_of() { # JOB: "rows|charges|penalties|how" over the job's accounting rows
	awk -F'|' -v j="$1" '$1 == j { print $7 }' "$T/sacct" | "$LIBRA_PYTHON" -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
fins = [r["final"] for r in rows if "final" in r]
print("%d|%.6f|%.6f|%s|%.6f|%s" % (len(rows), sum(f["charge"] for f in fins), sum(f["penalty"] for f in fins),
      ",".join(f["how"] for f in fins), rows[-1]["admit"]["price"] if rows and "admit" in rows[-1] else 0,
      ",".join(str(f["met"]) for f in fins)))'
}
for a in requeue:$RQ requeuehold:$RQH; do
	name=${a%%:*} j=${a#*:}
	IFS='|' read -r nrows charge pen how price met <<<"$(final_of "$j")"
	note "$name (job $j): rows $nrows, settled $how, met $met, charge $charge, price $price"
	[ "$how" = COMPLETED ] && [ "$met" = True ] || bad "$name" "settled '$how' (met $met), expected one COMPLETED settlement that met the deadline"
	"$LIBRA_PYTHON" -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 1e-9)' "$charge" "$price" ||
		bad "$name" "charged $charge in all, quoted $price"
done
admissions=$(grep -cF 'job_submit/qos: libra: admitted:' "$log" || :)
note "admissions in the log: $admissions0 before the requeues, $admissions after ($((admissions - admissions0)) for the API submissions)"
[ "$((admissions - admissions0 - admissions_later))" = 1 ] || bad requeue "admissions after the requeues, besides the $admissions_later of the jobs with a deadline of $D s submitted later: $((admissions - admissions0 - admissions_later)), expected 1 (the root API job with an SLA)"
for a in held_past_deadline:$HOLD requeuehold_past_deadline:$RQHD requeue_at_deadline:$RQD later_start:$BEGIN dependency:$DEP no_memory:$MEM; do
	name=${a%%:*} j=${a#*:}
	IFS='|' read -r nrows charge pen how price met <<<"$(final_of "$j")"
	note "$name (job $j): $nrows accounting row(s), settled '$how', charge $charge, penalty $pen"
	case $name in
	later_start | dependency | no_memory)
		# refused updates leave an ordinary held job: nothing to pay out either
		;;
	esac
	"$LIBRA_PYTHON" -c 'import sys; sys.exit(float(sys.argv[1]) > 1e-9 or float(sys.argv[2]) < -1e-9)' "$pen" "$charge" ||
		bad "$name" "the owner is paid: settled $how, penalty $pen, charge $charge"
done

assert_slurmctld_up "$ctld"
# the list, with what happened
printf '\n%-28s %-8s %s\n' ATTEMPT RESULT "EXPECTED" >"$T/summary"
nok=0
for a in "${ATTEMPTS[@]}"; do
	[ "${RESULT[$a]}" != ok ] || nok=$((nok + 1))
	printf '%-28s %-8s %s\n' "$a" "${RESULT[$a]%%:*}" "${EXPECT[$a]}" >>"$T/summary"
done
cat "$T/summary"
note "${#ATTEMPTS[@]} attempts, $nok with the right outcome"
expect_done
cluster_stop
assert_nothing_left
pass
