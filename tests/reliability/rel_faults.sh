#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# rel_faults: fault injection on the real local cluster during a workload
# of CPU-bound jobs (libra-burn, exact estimates, loose deadlines).
# test_sched_faults.sh kills each daemon once at a chosen moment;
# here the faults come at seeded random moments while jobs are being
# submitted, started and settled:
#
#   quick: 3 x SIGKILL of slurmctld (restarted 0.5-3 s later), 1 x SIGKILL
#          of a slurmd (restarted 1-3 s later), 1 restart of slurmdbd, 1 of
#          MariaDB, 4-10 s apart, during a workload of about a minute;
#   long (LIBRA_LONG=1): 12 slurmctld kills, 4 slurmd kills, 2 slurmdbd
#          restarts and 1 SIGKILL of slurmdbd, 2 MariaDB restarts, 5-30 s
#          apart, during about 8 minutes.
#
# LIBRA_SEED picks the workload and the moments (default 9; printed).
#
# The first LIBRA_WINDOW_KILLS (default 1) slurmctld kills land in the
# window of a start instead (decision 26): the submitter paused, a probe
# job is submitted, slurmctld is killed as soon as sched/libra has launched
# it, and the job state written before its start (LIBRA_TEST_STALE_STATE
# keeps a copy) is put in place of the one on disk, as when slurmctld's
# state save thread packed the state before the start and wrote it last.
# The restarted slurmctld has the probe pending while it runs on its node:
# started again, it runs twice (the first run aborted when its node
# registers, or, started before that, refused by slurmd: "Duplicate
# jobid", the node drained).
#
# Afterwards, for every submission (each has its own job name):
#  - sbatch's answer was an admission, a "libra: rejected:" refusal, or (while
#    slurmctld was down) no answer at all;
#  - an admitted job ran once and has exactly one accounting row (and,
#    when slurmctld died before slurmd could confirm its launch, a
#    REQUEUED row before it: sched/libra released Slurm's hold), with one
#    settled record
#    (well formed for the core's decoder): COMPLETED, deadline met, charged
#    exactly its quoted price, ended by its deadline; a job that was pending
#    when slurmctld died still starts, one running keeps running (one still
#    pending whose window, when slurmctld answered again, was too short for
#    its work at the whole admissible share may end at its deadline,
#    charged its price: the outage is noted, as on a loaded machine a
#    restart can take as long as the shortest window; and with slurmctld
#    down at a deadline, the job is ended, or its end learnt, only when
#    slurmctld is back or at slurmstepd's next retry, 15 s on);
#    one admitted on a node whose slurmd was killed in another job's end
#    (the node completing that end for a minute or more) is placed again
#    on the other node if it fits, and else ends UNSTARTED at its
#    deadline with its penalty paid: the provider's failure, noted;
#  - nothing is charged twice: the sum of the charges in the records equals
#    libra-report's net (revenue - penalties) and the sum of the quoted prices;
#  - a refused submission made no job;
#  - slurmctld's log has no "error:" line from our plugins;
#  - every decision (the records and the refusal log, which survive the
#    restarts) replays to the same verdict in libra-replay.
# shellcheck source=../integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
libra_test_init
export LIBRA_NODES=2
libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.7 libra_price_base=3600
# Each node pinned to its own core, our jobs ahead of the host's other work.
export LIBRA_PLUGSTACK='required libra_spank.so pin=yes interval=1 top_weight=65536'
# A requeued batch job is held back for the credential's lifetime: 10 s.
export LIBRA_EXTRA_CONF="AuthInfo=socket=$LIBRA_CLUSTER_DIR/munge/munged.socket,cred_expire=10"
# the job state as written before each start, and each launch logged
export LIBRA_TEST_STALE_STATE=1
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
replay=$LIBRA_BUILD/contrib/tools/libra-replay
report=$LIBRA_BUILD/contrib/report/libra-report
for t in "$burn" "$replay" "$report"; do
	[ -x "$t" ] || fail "$t is missing: build the project first (make)"
done
libra_rel_tool record_check >/dev/null

SEED=${LIBRA_SEED:-9}
RANDOM=$SEED
W=$LIBRA_WORK/faults
rm -rf "$W"
mkdir -p "$W"
if libra_long; then
	faults=(); for _ in $(seq 12); do faults+=(ctld); done
	faults+=(slurmd slurmd slurmd slurmd dbd dbd dbdkill mariadb mariadb)
	GAP_MIN=5 GAP_MAX=30
else
	faults=(ctld ctld ctld slurmd dbd mariadb)
	GAP_MIN=4 GAP_MAX=10
fi
# shuffle (seeded), but never two slurmctld kills in a row at the start:
# the first fault comes after some jobs run
for ((i = ${#faults[@]} - 1; i > 0; i--)); do
	j=$((RANDOM % (i + 1)))
	tmp=${faults[i]} faults[i]=${faults[j]} faults[j]=$tmp
done
note "$(libra_mode) mode, seed $SEED: faults in this order: ${faults[*]}"

# The workload, drawn now (a subshell's RANDOM would differ): runtime 2-5 s,
# deadline 6-10 x runtime and at least 30 s (slurmctld may be down for
# several seconds while a job waits to start), budget 0.8-3 x runtime at
# $1 per CPU-second (the cheapest are refused), one every 0.8-1.6 s.
plan=$W/plan
: >"$plan"
for i in $(seq 1 2000); do
	re=$((2 + RANDOM % 4))
	dl=$((re * (6 + RANDOM % 5)))
	[ "$dl" -ge 30 ] || dl=30
	budget=$(awk -v re="$re" -v r="$RANDOM" 'BEGIN { printf "%.2f", re * (0.8 + 2.2 * r / 32767) }')
	gap=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.8 + 0.8 * r / 32767 }')
	printf '%s %s %s %s %s\n' "$i" "$re" "$dl" "$budget" "$gap" >>"$plan"
done

subs=$W/submissions runs=$W/runs
stop_flag=$W/stop pause_flag=$W/pause
: >"$subs"
: >"$runs"
# submit I RE DL BUDGET: one sbatch, its answer on one line of $subs:
#   i|unix time sent|unix time answered|jobid|admitted/refused/noanswer|output
submit() {
	local t0 t1 kind
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016 # $SLURM_JOB_ID expands in the job
	libra_sbatch -J "f$1" -n 1 --comment="runtime=${2}s,deadline=${3}s,budget=$4" \
		--wrap "echo \"\$SLURM_JOB_ID\" >>$runs; $burn $2"
	t1=$(date +%s.%N)
	if [ -n "$SB_JOBID" ]; then
		kind=admitted
	elif [[ $SB_OUT == *"libra: rejected:"* ]]; then
		kind=refused
	else
		kind=noanswer
	fi
	printf '%s|%s|%s|%s|%s|%s\n' "$1" "$t0" "$t1" "$SB_JOBID" "$kind" "$(tr '\n|' '  ' <<<"$SB_OUT")" >>"$subs"
}
# submitter: one submission at a time; while $pause_flag exists it waits
# between two, saying so in $W/paused
submitter() {
	local i re dl budget gap
	while read -r i re dl budget gap; do
		while [ -e "$pause_flag" ] && [ ! -e "$stop_flag" ]; do
			touch "$W/paused"
			sleep 0.1
		done
		[ ! -e "$stop_flag" ] || break
		submit "$i" "$re" "$dl" "$budget"
		sleep "$gap"
	done <"$plan"
}
submitter &
sub_pid=$!
libra_at_exit "touch '$stop_flag'; kill $sub_pid 2>/dev/null; wait $sub_pid 2>/dev/null"

# restart_daemon DAEMON: start it again.  For slurmctld and slurmd,
# libra-cluster also waits until the nodes are usable; a node that
# slurmctld set DRAIN or DOWN meanwhile is a finding reported at the end,
# not a reason to stop the test, as long as the daemon itself runs (and
# slurmctld answers).
restart_daemon() {
	local out st rc=0
	out=$("$LIBRA_CLUSTER" restart "$1" 2>&1) || rc=$?
	[ "$rc" != 0 ] || return 0
	# status is captured first: "grep -q" closing the pipe early would
	# fail the pipeline (pipefail)
	st=$("$LIBRA_CLUSTER" status 2>/dev/null) || :
	grep -qE "^$1 +running" <<<"$st" ||
		fail "$1 did not restart: $(tail -n 5 <<<"$out")"
	[[ $(scontrol ping 2>&1) == *UP* ]] || fail "slurmctld does not answer after restarting $1: $(tail -n 5 <<<"$out")"
	log_fault "$1 up, but not every node usable: $(sinfo -h -N -o '%N=%t' | paste -sd' ' -)"
	note "$1 restarted; nodes: $(sinfo -h -N -o '%N=%t(%E)' | paste -sd' ' -)"
}

# The faults, one after the other, each after a random gap.
log_fault() { printf '%s|%s\n' "$(date +%s.%N)" "$*" >>"$W/faults"; }

# node_usable_watch NODE: note in the faults when NODE, whose slurmd was
# just restarted, is no longer completing a job (at most 300 s).
node_usable_watch() {
	local k st
	for ((k = 0; k < 600; k++)); do
		st=$(scontrol -o show node "$1" 2>/dev/null) || st=
		st=${st#*State=}
		st=${st%% *}
		case $st in
		'' | *COMPLETING* | *NOT_RESPONDING*) ;;
		*) break ;;
		esac
		sleep 0.5
	done
	log_fault "slurmd $1 node usable"
}

# window_kill: SIGKILL slurmctld just after sched/libra launched a probe
# job, and put the job state written before its start in place (see the
# header).  The submitter waits meanwhile, so that no job it submits is
# missing from that state.
ctld_log=$LIBRA_CLUSTER_DIR/log/slurmctld.log
state_dir=$LIBRA_CLUSTER_DIR/state
probes=0
window_kill() {
	local k
	touch "$pause_flag"
	rm -f "$W/paused"
	wait_until 60 "the submitter to pause" test -e "$W/paused"
	# a probe the cluster admits (capacity may be short for a moment),
	# long enough to run still when the kill comes on a busy machine (one
	# that ended before is taken too: the journal of ended jobs ends it)
	for k in 1 2 3 4 5 6 7 8 9 10; do
		probes=$((probes + 1))
		submit "p$probes" 6 60 100
		[ -z "$SB_JOBID" ] || break
		sleep 1
	done
	[ -n "$SB_JOBID" ] || fail "no probe job admitted in 10 tries: $SB_OUT"
	wait_until 60 "sched/libra to launch the probe, job $SB_JOBID" grep -qF \
		"sched/libra: LIBRA_TEST_STALE_STATE: launched JobId=$SB_JOBID" "$ctld_log"
	"$LIBRA_CLUSTER" kill slurmctld >/dev/null || fail "could not kill slurmctld"
	log_fault "SIGKILL slurmctld"
	cp "$state_dir/job_state.libra-test" "$state_dir/job_state" ||
		fail "no copy of the job state written before job $SB_JOBID started"
	note "slurmctld killed just after launching job $SB_JOBID; the job state of before its start put in place"
	restart_daemon slurmctld
	log_fault "slurmctld back"
	grep -qF "sched/libra: JobId=$SB_JOBID was started on" "$ctld_log" ||
		expect_fail "the restarted slurmctld did not take job $SB_JOBID as running again"
	rm -f "$pause_flag"
}
window_kills=${LIBRA_WINDOW_KILLS:-1}
: >"$W/faults"
ctld_kills=0 slurmd_kills=0 dbd_restarts=0 db_restarts=0 watchers=()
sleep 8 # some jobs are running before the first fault
for f in "${faults[@]}"; do
	gap=$((GAP_MIN + RANDOM % (GAP_MAX - GAP_MIN + 1)))
	frac=$((RANDOM % 10))
	sleep "$gap.$frac"
	down=$((RANDOM % 3)).$((RANDOM % 10))
	case $f in
	ctld)
		if [ "$ctld_kills" -lt "$window_kills" ]; then
			window_kill
			ctld_kills=$((ctld_kills + 1))
			note "fault: $(tail -n 2 "$W/faults" | cut -d'|' -f2 | paste -sd' ' -) (in the window of a start)"
			continue
		fi
		"$LIBRA_CLUSTER" kill slurmctld >/dev/null || fail "could not kill slurmctld"
		log_fault "SIGKILL slurmctld"
		sleep "0.5" && sleep "$down"
		restart_daemon slurmctld
		log_fault "slurmctld back"
		ctld_kills=$((ctld_kills + 1))
		;;
	slurmd)
		node=n$((1 + RANDOM % LIBRA_NODES))
		"$LIBRA_CLUSTER" kill "slurmd:$node" >/dev/null || fail "could not kill slurmd on $node"
		log_fault "SIGKILL slurmd $node"
		sleep 1 && sleep "$down"
		restart_daemon "slurmd:$node"
		log_fault "slurmd $node back"
		# killed in a job's end, its node stays completing until Slurm
		# sends TERMINATE_JOB again (a minute or more): noted when done
		node_usable_watch "$node" >/dev/null 2>&1 &
		watchers+=($!)
		slurmd_kills=$((slurmd_kills + 1))
		;;
	dbd)
		log_fault "restart slurmdbd"
		"$LIBRA_CLUSTER" restart slurmdbd >/dev/null || fail "slurmdbd did not restart"
		log_fault "slurmdbd back"
		dbd_restarts=$((dbd_restarts + 1))
		;;
	dbdkill)
		"$LIBRA_CLUSTER" kill slurmdbd >/dev/null || fail "could not kill slurmdbd"
		log_fault "SIGKILL slurmdbd"
		sleep 1 && sleep "$down"
		"$LIBRA_CLUSTER" restart slurmdbd >/dev/null || fail "slurmdbd did not restart after SIGKILL"
		log_fault "slurmdbd back"
		dbd_restarts=$((dbd_restarts + 1))
		;;
	mariadb)
		log_fault "restart mariadb"
		"$LIBRA_CLUSTER" restart mariadb >/dev/null || fail "MariaDB did not restart"
		log_fault "mariadb back"
		db_restarts=$((db_restarts + 1))
		;;
	esac
	note "fault: $(tail -n 2 "$W/faults" | cut -d'|' -f2 | paste -sd' ' -)"
done
sleep 6
touch "$stop_flag"
wait "$sub_pid" || :
note "faults survived: $ctld_kills slurmctld SIGKILL ($((ctld_kills < window_kills ? ctld_kills : window_kills)) in the window of a start), $slurmd_kills slurmd SIGKILL, $dbd_restarts slurmdbd, $db_restarts MariaDB restarts"
note "submissions: $(wc -l <"$subs") ($(grep -c '|admitted|' "$subs" || :) admitted, $(grep -c '|refused|' "$subs" || :) refused, $(grep -c '|noanswer|' "$subs" || :) without an answer)"

# Everything ends, and accounting has it all.  Every admitted job has a
# hard deadline of at most 50 s, and sched/libra ends one that could not
# start by then: what is still there 180 s later (time for a busy
# machine's daemons to report the ends) is stuck; it is reported and
# cancelled, so that the rest can be checked.
for ((k = 0; k < 180; k++)); do
	no_jobs_active && break
	sleep 1
done
if ! no_jobs_active; then
	expect_fail "jobs still active 180 s after the workload (every hard deadline has passed): $(squeue -h -t PD,R,CG,S -o '%i %j %T %r' | paste -sd';' -)"
	scancel -u root 2>/dev/null || :
	wait_until 120 "the stuck jobs to end after scancel" no_jobs_active
fi
# each killed slurmd's node done completing, or given up on
if [ "${#watchers[@]}" != 0 ]; then
	wait "${watchers[@]}" || :
	note "killed slurmds' nodes usable again: $(awk -F'|' '
		$2 ~ /^SIGKILL slurmd / { split($2, w, " "); k[w[3]] = $1 }
		$2 ~ / node usable$/ { split($2, w, " ")
			printf "%s %.1f s after the kill; ", w[2], $1 - k[w[2]] }' "$W/faults")"
fi
# Nodes that slurmctld set DRAIN or DOWN on the way (and why)
bad_nodes=$(sinfo -h -N -o '%N %t %E' | awk '$2 !~ /^(idle|alloc|mix)$/')
[ -z "$bad_nodes" ] || expect_fail "nodes not usable after the faults: $bad_nodes; slurmctld's log: $(grep -E 'set to state (DRAIN|DOWN)|Duplicate jobid' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | head -n 4 | paste -sd';' -)"
wait_until 120 "slurmctld's messages to slurmdbd to be sent" dbd_queue_empty
# shellcheck disable=SC2317 # called by wait_until
# every job id up to the last one given out, and some (jobs made without
# an answer to sbatch); a time window would leave out jobs never eligible
maxid=$(cut -d'|' -f4 "$subs" | sort -n | tail -n 1)
ids=$(seq -s, 1 $((${maxid:-0} + 20)))
# (a REQUEUED row is a run that was requeued: it is never settled, the
# job's last row is; the per-job checks below say which may have one)
accounting_final() {
	sacct_dump "$W/sacct.dump" "$ids"
	! awk -F'|' '$3 != "REQUEUED" && $7 !~ /"final":\{/' "$W/sacct.dump" | grep -q .
}
# (bounded; what is still missing then is reported job by job below)
for ((k = 0; k < 300; k++)); do
	accounting_final && break
	sleep 1
done
sacct_dump "$W/sacct.dump" "$ids"
note "records: $(records_check "$W/sacct.dump" 7)"

# The per-submission checks.
# Batch jobs that ended while slurmctld was down: slurmstepd could not
# report the end and retried 15 s later (Slurm's own retry), so slurmctld
# learned of the end only then.
cat "$LIBRA_CLUSTER_DIR"/log/slurmd-*.log 2>/dev/null |
	sed -n 's/.*Retrying job complete RPC for StepId=\([0-9]*\)\.batch.*/\1/p' | sort -u >"$W/retried"
# Admitted jobs whose batch launch failed (slurmctld killed before slurmd
# could confirm it): slurmd had them requeued held, sched/libra released
# them (design.md decision 32); each has a REQUEUED accounting row for
# the launch that never ran, before the row of its one run.
sed -n 's/.*sched\/libra: JobId=\([0-9]*\): its launch failed and Slurm held it; released.*/\1/p' \
	"$LIBRA_CLUSTER_DIR/log/slurmctld.log" | sort -u >"$W/relaunched"
out=$("$LIBRA_PYTHON" - "$subs" "$W/sacct.dump" "$W/faults" "$W/retried" "$runs" "$W/relaunched" <<'EOF'
import collections, json, sys, time
retried = set(l.strip() for l in open(sys.argv[4]) if l.strip())
relaunched = set(l.strip() for l in open(sys.argv[6]) if l.strip())
# each job's runs: every run notes its job id first thing
runs = collections.Counter(l.strip() for l in open(sys.argv[5]) if l.strip())
subs = [l.rstrip("\n").split("|", 5) for l in open(sys.argv[1])]
rows = {}
for l in open(sys.argv[2]):
    f = l.rstrip("\n").split("|", 6)
    rows.setdefault(f[1], []).append(f)
faults = [(float(l.split("|")[0]), l.rstrip("\n").split("|")[1]) for l in open(sys.argv[3])]
kills = [t for t, w in faults if w == "SIGKILL slurmctld"]
# slurmctld's outages: from each SIGKILL to the moment it answered again
outages, down = [], None
for t, w in faults:
    if w == "SIGKILL slurmctld":
        down = t
    elif down is not None and w.startswith("slurmctld back"):
        outages.append((down, t))
        down = None
# libra_capacity=0.7 (libra_cluster_env above): the most CPU share a job
# can be given on its node
CAPACITY = 0.7
def outage_miss(rec, fin):
    """The outage that made a deadline miss the provider's: the job had not
    started when slurmctld went down, and what was left of its window when
    slurmctld answered again was too short for its work even at the whole
    admissible share (on a loaded machine a restart can take 30 s, the
    shortest window).  A job running when slurmctld died keeps running on
    its node, so no outage excuses its miss."""
    dl, work, start = rec["sla"]["deadline"], rec["sla"]["runtime"], rec.get("start")
    for k, b in outages:
        if k >= dl or b <= rec["admit"]["time"]:
            continue
        if start is not None and start < k:
            continue
        if dl - b < work / CAPACITY + 1:
            return "pending while slurmctld was down for %.1f s; %.1f s of its window left for %.1f s of work" % (
                b - k, max(0.0, dl - b), work)
    return None
# RETRY: slurmstepd's interval between end reports slurmctld did not take
# (Slurm's own: 15 s), and a second
RETRY = 15.0 + 1.0
def end_allowed(dl):
    """The latest end a record may have: sched/libra ends a job by its
    deadline, but with slurmctld down at the deadline, or when the end
    report it missed is retried past the deadline, slurmctld learns of the
    end, or ends the job, only when it is back or at that retry."""
    allowed = dl + 1.0
    for k, b in outages:
        if k <= dl and b + RETRY >= dl:
            allowed = max(allowed, b + RETRY)
    return allowed
# a slurmd's outages: from each SIGKILL to its node usable again
slurmd_out, sd_down = [], {}
for t, w in faults:
    if w.startswith("SIGKILL slurmd "):
        sd_down[w.split()[-1]] = t
    elif w.startswith("slurmd ") and w.endswith(" back") and w.split()[1] in sd_down:
        slurmd_out.append((sd_down.pop(w.split()[1]), t))
# ... and to the end of the completing a kill in a job's end left behind
# (node_usable_watch), per node
stuck_out = []
for t, w in faults:
    if w.startswith("SIGKILL slurmd "):
        sd_down[w.split()[-1]] = t
    elif w.startswith("slurmd ") and w.endswith(" node usable") and w.split()[1] in sd_down:
        stuck_out.append((w.split()[1], sd_down.pop(w.split()[1]), t))
def stuck_miss(rec, fin):
    """A job that never started, admitted on a node whose slurmd was
    killed in another job's end: the node stayed completing past its
    admission (admission leaves out only nodes completing longer than
    MessageTimeout, and sched/libra places a job admitted there again
    when another node can take it).  The provider's: UNSTARTED, with its
    penalty."""
    if fin.get("how") != "UNSTARTED" or rec.get("start") is not None:
        return None
    nodes = {p["node"] for p in rec["admit"].get("place", [])}
    for node, k, u in stuck_out:
        if node in nodes and k - 1 <= rec["admit"]["time"] <= u and u - k > 15:
            return "admitted on %s, whose slurmd was killed %.1f s before; %s completed a job's end only %.1f s after the kill" % (
                node, rec["admit"]["time"] - k, node, u - k)
    return None
def slurmd_near(row):
    """The kill of a slurmd while the job of this sacct row was starting
    (between its submission and its row's end), or None."""
    def when(x):
        try:
            return time.mktime(time.strptime(x, "%Y-%m-%dT%H:%M:%S"))
        except ValueError:
            return None
    sub, end = when(row[3]), when(row[5])
    for k, b in slurmd_out:
        if sub is not None and end is not None and sub - 1 <= k <= end + 1:
            return k
    return None
bad, lost, twice, notes = [], [], [], []
charges = prices = 0.0
admitted = 0
def kill_gap(t):
    after = [k - t for k in kills if k >= t - 1]
    return min(after) if after else None
def near_kill(t):
    g = kill_gap(t)
    return ("%.1f s before a slurmctld SIGKILL" % g) if g is not None else "no slurmctld SIGKILL after it"
# slurmctld writes its job state at most every SAVE_MAX_WAIT = 5 s
# (state_save.c); a SIGKILL loses the jobs submitted since the last write,
# whatever the plugins do.  Such a job must have left nothing behind (it
# has no accounting row, so no record and no charge); anything older is ours.
UNSAVED = 5.0 + 1.0
for i, t0, t1, jid, kind, msg in subs:
    name = "f" + i
    rs = rows.pop(name, [])
    if kind == "refused":
        if rs:
            bad.append("%s: refused (%s) but accounting has job(s) %s" % (name, msg[:80], [r[0] for r in rs]))
        continue
    if kind == "noanswer":
        if not any(m in msg for m in ("Unable to contact slurm controller", "Socket timed out",
                                      "Zero Bytes were transmitted or received", "Connection reset",
                                      "Unexpected missing socket error",
                                      "Transport endpoint is not connected")):
            bad.append("%s: neither admitted nor refused by libra: %s" % (name, msg[:200]))
        if not rs:
            continue
        notes.append("%s: no answer from slurmctld, but job %s was made" % (name, rs[0][0]))
    else:
        admitted += 1
        if "libra: admitted: price " not in msg:
            bad.append("%s: job %s made without a libra admission message: %s" % (name, jid, msg[:200]))
    if not rs:
        g = kill_gap(float(t1))
        if g is not None and g <= UNSAVED:
            admitted -= 1
            notes.append("%s: job %s, admitted %.1f s before a slurmctld SIGKILL, was lost with slurmctld's unsaved job state (saved at most every 5 s); it left no record and no charge" %
                         (name, jid, g))
        else:
            lost.append("%s: job %s admitted at %.3f (%s) is unknown to accounting and to slurmctld" %
                        (name, jid, float(t1), near_kill(float(t1))))
        continue
    if jid and runs[jid] > 1:
        twice.append("%s: job %s ran %d times" % (name, jid, runs[jid]))
    if jid in relaunched and len(rs) > 1 and rs[0][2] == "REQUEUED":
        notes.append("%s: job %s: its launch failed (slurmctld killed before slurmd confirmed it), Slurm requeued it held and sched/libra released it; it ran %d time(s)" %
                     (name, jid, runs[jid]))
        rs = rs[1:]
    if len(rs) > 1 and rs[0][2] == "NODE_FAIL" and runs[jid] <= 1 and slurmd_near(rs[0]):
        # its batch launch went to a slurmd just killed: slurmctld ended
        # the launch as a node failure and requeued the job, which keeps
        # its SLA (the provider's); the row of that launch is never settled
        notes.append("%s: job %s: its launch was lost with the slurmd killed at %.1f, Slurm requeued it (NODE_FAIL row); it ran %d time(s)" %
                     (name, jid, slurmd_near(rs[0]), runs[jid]))
        rs = rs[1:]
    if len(rs) > 1:
        twice.append("%s: job %s has %d accounting rows: %s" % (name, jid, len(rs),
                     "; ".join("%s %s final=%s" % (r[0], r[2], json.loads(r[6]).get("final") if r[6] else None) for r in rs)))
    for r in rs:
        if jid and r[0] != jid:
            bad.append("%s: sbatch said job %s, accounting has it as job %s" % (name, jid, r[0]))
        if not r[6]:
            bad.append("%s: job %s (%s) has no record in accounting" % (name, r[0], r[2])); continue
        rec = json.loads(r[6])
        fin = rec.get("final")
        if r[6].count('"final"') != 1 or not fin:
            bad.append("%s: job %s (%s): record not settled exactly once: %s" % (name, r[0], r[2], r[6][:300])); continue
        charges += fin["charge"]
        prices += rec["admit"]["price"]
        if r[2] != "COMPLETED" or fin["how"] != "COMPLETED" or not fin["met"]:
            why = None if fin["how"] == "COMPLETED" or fin["penalty"] != 0 else outage_miss(rec, fin)
            stuck = stuck_miss(rec, fin)
            if stuck:
                # the provider's: its node stuck completing, no other free
                notes.append("%s: job %s could not start by its deadline (%s, penalty %.2f): %s" %
                             (name, r[0], fin["how"], fin["penalty"], stuck))
            elif r[0] in retried and fin["how"] == "DEADLINE" and fin["penalty"] == 0:
                # its end reached slurmctld only after the deadline: ended
                # there as an overrun, charged its price, nothing paid out
                notes.append("%s: job %s ended while slurmctld was down; slurmstepd's retried end report came after the deadline, where it was ended (%s, charge %.2f, no penalty)" %
                             (name, r[0], fin["how"], fin["charge"]))
            elif why:
                # the provider's outage, not a lost or doubled start: ended
                # at its deadline, charged its quoted price, no penalty
                notes.append("%s: job %s missed its deadline (%s, charge %.2f, no penalty): %s" %
                             (name, r[0], fin["how"], fin["charge"], why))
            else:
                bad.append("%s: job %s: state %s, final %s" % (name, r[0], r[2], fin)); continue
        if abs(fin["charge"] - rec["admit"]["price"]) > 1e-9 * max(1, rec["admit"]["price"]):
            bad.append("%s: job %s charged %s, quoted %s" % (name, r[0], fin["charge"], rec["admit"]["price"]))
        if fin["end"] > end_allowed(rec["sla"]["deadline"]):
            bad.append("%s: job %s ended %.1f s after its deadline" % (name, r[0], fin["end"] - rec["sla"]["deadline"]))
for name, rs in rows.items():
    bad.append("accounting has job(s) %s named %s that no submission made" % ([r[0] for r in rs], name))
print("SUMS %d %.9f %.9f" % (admitted, charges, prices))
for k, l in (("BAD", bad), ("LOST", lost), ("TWICE", twice), ("NOTE", notes)):
    for x in l:
        print(k, x)
EOF
) || fail "the per-job analysis failed: $out"
read -r _ n_adm sum_charges sum_prices <<<"$(grep '^SUMS ' <<<"$out")"
grep '^NOTE ' <<<"$out" | sed 's/^NOTE /  /' || :
while IFS= read -r line; do
	[ -n "$line" ] || continue
	case $line in
	BAD\ *) expect_fail "${line#BAD }" ;;
	LOST\ *) expect_fail "admitted job lost: ${line#LOST }" ;;
	TWICE\ *) expect_fail "job run and accounted more than once: ${line#TWICE }" ;;
	esac
done <<<"$out"
note "admitted jobs: $n_adm; charges $sum_charges, quoted prices $sum_prices"

# Nothing charged twice: libra-report's net (revenue - penalties) over all
# records equals the sum of the charges, which equals the quoted prices.
sacct -n -X -a -P -S 2000-01-01 -E now --noconvert \
	-o JobID,Account,User,State,Submit,Start,End,AdminComment%65535 >"$W/sacct.txt"
refusals=$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl
# none when every submission was admitted (seed 2 once): an empty log
if [ ! -e "$refusals" ]; then
	refusals=$W/libra_refusals.jsonl
	: >"$refusals"
fi
"$report" --sacct-file "$W/sacct.txt" --refusals "$refusals" --no-squeue --json >"$W/report.json" ||
	fail "libra-report failed"
msg=$("$LIBRA_PYTHON" - "$W/report.json" "$sum_charges" "$sum_prices" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["total"]
charges, prices = float(sys.argv[2]), float(sys.argv[3])
bad = []
if abs(t["revenue"] - t["penalties"] - t["net"]) > 1e-6 * max(1, abs(t["net"])):
    bad.append("revenue %s - penalties %s != net %s" % (t["revenue"], t["penalties"], t["net"]))
if abs(t["net"] - charges) > 1e-6 * max(1, charges):
    bad.append("net %s != sum of the charges in the records %s" % (t["net"], charges))
if abs(charges - prices) > 1e-6 * max(1, prices):
    bad.append("sum of the charges %s != sum of the quoted prices %s" % (charges, prices))
print("; ".join(bad) if bad else "ok: revenue %.2f, penalties %.2f, net %.2f, admitted %s, refused %s, met %s" %
      (t["revenue"], t["penalties"], t["net"], t["admitted"], t["refused"], t["met"]))
EOF
)
[[ $msg == ok* ]] || expect_fail "charges: $msg"
note "libra-report: ${msg#ok: }"
# the refusal log survived the restarts: one line per refusal sbatch saw
nref=$(grep -c '|refused|' "$subs" || :)
nlog=$(wc -l <"$refusals")
[ "$nlog" -ge "$nref" ] || expect_fail "the refusal log has $nlog lines, sbatch saw $nref refusals"
note "refusal log: $(records_check <(sed 's/^/refusal|/' "$refusals") 2 --refusals)"

# Every decision again, by the policy core alone.
ctl_params=$(scontrol show config | sed -n 's/^SchedulerParameters *= *//p')
rc=0
rout=$("$replay" --nodes n1:1,n2:1 --params "$ctl_params" --sacct-file "$W/sacct.txt" --refusals "$refusals") || rc=$?
note "libra-replay: $(tail -n 1 <<<"$rout")"
# The replay has every node up; a refusal made while a killed slurmd's
# node did not respond (not usable to admission until it registered
# again, or, killed in a job's end, until that end completed) may differ,
# the core admitting it on both nodes.
if [ "$rc" != 0 ]; then
	unexplained=$(grep DIFFERS <<<"$rout" | "$LIBRA_PYTHON" -c '
import sys
out, down = [], {}
for l in open(sys.argv[1]):
    t, w = l.rstrip("\n").split("|", 1)
    if w.startswith("SIGKILL slurmd "):
        down[w.split()[-1]] = float(t)
    elif w.startswith("slurmd ") and w.endswith(" node usable") and w.split()[1] in down:
        out.append((down.pop(w.split()[1]), float(t) + 1.0))
for l in sys.stdin:
    t = float(l.split()[0])
    if ", core admits" not in l or not any(k <= t <= b for k, b in out):
        print(l.strip())
' "$W/faults")
	if [ -z "$unexplained" ]; then
		note "libra-replay: $(grep -c DIFFERS <<<"$rout") refusal(s) made while a killed slurmd's node was not usable; the core, with every node up, admits them"
	else
		expect_fail "libra-replay: decisions differ after the faults: $(head -5 <<<"$unexplained" | tr '\n' ';') $(tail -n 1 <<<"$rout")"
	fi
fi

# No error from our plugins in slurmctld's log.
errs=$(ctld_plugin_errors)
[ -z "$errs" ] || expect_fail "slurmctld logged $(wc -l <<<"$errs") error(s) from our plugins: $(head -n 5 <<<"$errs")"
assert_slurmctld_up "$(slurmctld_pid)"

expect_done
cluster_stop
assert_nothing_left
pass
