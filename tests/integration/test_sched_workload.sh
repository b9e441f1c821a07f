#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_sched_workload: a workload of CPU-bound jobs, each burning exactly its
# declared CPU time, with mixed deadlines and budgets, through job_submit/qos,
# sched/libra, jobcomp/libra and the SPANK plugin on two nodes (one CPU each).
#
# Asserts:
#  - every admitted job (accurate estimate) COMPLETED by its deadline, with
#    exactly one settled record whose charge is its quoted price;
#  - the admit/refuse decisions equal what the policy core decides for the
#    same arrival sequence (contrib/tools/libra-replay);
#  - some jobs were admitted and some refused, for each reason exercised;
#  - libra-report's totals agree with the per-job records (its own
#    check-totals, and recomputed here from the records and refusals).

. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2
# Capacity 0.8: headroom for job start-up (launching a batch script and its
# step takes part of each deadline) and the daemons.
libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.8 libra_price_base=3600
# Each node pinned to its own core; our jobs ahead of other work on the
# host (the daemons), as on a dedicated node.
export LIBRA_PLUGSTACK='required libra_spank.so pin=yes interval=1 top_weight=65536'

burn=$LIBRA_BUILD/contrib/tools/libra-burn
replay=$LIBRA_BUILD/contrib/tools/libra-replay
[ -x "$burn" ] && [ -x "$replay" ] || fail "build contrib/tools first (make)"

# What a job costs here besides its work (the batch launch, the srun step,
# the end), on the idle cluster: the workload below was written for about
# a second of it.  A busy machine stretches it, so every time of the
# workload (runtimes, deadlines, the gaps between submissions) is
# stretched by the same factor k: the shares, and so the admissions, stay
# those of the workload as written, and the overhead stays as small a part
# of each deadline.  The probes are left out of the checks below.
#
# In the workload our jobs' weights put them ahead of the daemons that
# launch the others' steps (as on a dedicated node), and the load can grow
# after the probes (3 s to launch a step, and 50 s while other work kept
# the load at 20, were seen), and other work takes CPU from the nodes
# themselves.  A missed deadline whose job had its step launched more than
# k x 1 s after sched/libra started it (slurmctld's and slurmd's logs), or
# got less CPU from then on than it needed to be done by its deadline
# (libra-burn's own report; none: it was ended before it was done), or
# whose work was all done before its deadline while the job's end (its
# step's and batch script's exits) came after, can be the machine's: the test says so and runs the workload again on a
# fresh cluster, k measured again and at least doubled, up to 3 times.  A
# scheduler that gets it wrong fails all three; anything else wrong with
# a job (its state, its charge, its records) fails the test at once.
#
# workload K: the workload on a fresh cluster with times x K (K empty: from
# the probes); sets k, admitted, refused, probes, ids; writes
# $LIBRA_WORK/sacct.txt.  Returns 1 when a deadline was missed for the
# machine's delays.
workload() {
	local i re dl cpus budget over rc
	cluster_start
	over=$(job_overhead_ms workload -J probe -n 1 --comment="runtime=3s,deadline=15s,budget=100" --wrap "srun -n 1 true")
	k=$(time_scale "$over" 1000)
	[ -z "$1" ] || [ "$1" -le "$k" ] || k=$1
	probes=$(squeue -h -t all -n probe -o %i | sort -n | paste -sd, -)
	note "a job's overhead here: $over ms (median of 3 probes, jobs $probes); the workload's times x$k"

	# 36 jobs: runtime 3-8 s, deadline 2-6x runtime and at least 10 s (a
	# second of start-up is a large part of a shorter one), budget 0.9-3x
	# runtime (the base price is $1 per CPU-second, so the lowest budgets
	# are refused), one in six on two CPUs; one every 0.6 s; times x k.
	# Deterministic.
	RANDOM=4242
	admitted=()
	refused=0
	for i in $(seq 1 36); do
		re=$((3 + RANDOM % 6))
		dl=$((re * (2 + RANDOM % 5)))
		[ "$dl" -ge 10 ] || dl=10
		re=$((re * k)) dl=$((dl * k))
		cpus=1
		[ $((i % 6)) -ne 0 ] || cpus=2
		budget=$(awk -v re="$re" -v c="$cpus" -v r="$RANDOM" 'BEGIN { printf "%.2f", re * c * (0.9 + 2.1 * r / 32767) }')
		libra_sbatch -J "w$i" -n "$cpus" \
			--comment="runtime=${re}s,deadline=${dl}s,budget=$budget" \
			--wrap "srun -n $cpus $burn $re"
		if [ -n "$SB_JOBID" ]; then
			admitted+=("$SB_JOBID")
		else
			[[ $SB_OUT == *"libra: rejected:"* ]] || fail "job w$i: neither admitted nor refused by libra: $SB_OUT"
			refused=$((refused + 1))
		fi
		sleep "$(awk -v k="$k" 'BEGIN { print 0.6 * k }')"
	done
	note "${#admitted[@]} admitted, $refused refused"
	# How many are admitted depends on how soon earlier jobs finish (14-21
	# in runs on 2 cores): enough for the test is a third.
	[ "${#admitted[@]}" -ge 12 ] || fail "only ${#admitted[@]} of 36 jobs admitted"
	[ "$refused" -ge 3 ] || fail "only $refused of 36 jobs refused: the workload does not test admission"

	ids=$(IFS=,; echo "${admitted[*]}")
	wait_until $((180 * k)) "all admitted jobs to end" bash -c "[ -z \"\$(squeue -h -j $ids -o %i 2>/dev/null)\" ]"
	# shellcheck disable=SC2317 # called by wait_until
	all_settled() {
		[ "$(sacct -n -X -P -j "$ids" -o AdminComment%65535 | grep -c '"final"')" -eq "${#admitted[@]}" ]
	}
	wait_until 120 "accounting to have every settled record" all_settled

	sacct -n -X -a -P -o JobID,Account,User,State,Submit,Start,End,AdminComment%65535 |
		awk -F'|' -v p="$probes" 'BEGIN { n = split(p, a, ","); for (i = 1; i <= n; i++) skip[a[i]] = 1 } !($1 in skip)' >"$LIBRA_WORK/sacct.txt"
	rc=0
	"$LIBRA_PYTHON" - "$LIBRA_WORK/sacct.txt" "$ids" "$LIBRA_CLUSTER_DIR/log" "$k" "$LIBRA_WORK" <<'EOF' || rc=$?
import datetime, glob, json, re, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("|", 7)
    rows.setdefault(f[0], []).append(f)
logdir, allowed = sys.argv[3], float(sys.argv[4])
def stamps(files, pattern):
    """job id -> time of the first log line matching pattern (group 1: the id)"""
    got = {}
    for fn in files:
        for line in open(fn, errors="replace"):
            m = re.search(pattern, line)
            if m and m.group(1) not in got:
                t = datetime.datetime.strptime(line[1:24], "%Y-%m-%dT%H:%M:%S.%f")
                got[m.group(1)] = t.timestamp()
    return got
started = stamps([logdir + "/slurmctld.log"], r"libra: started JobId=(\d+) ")
stepped = stamps(glob.glob(logdir + "/slurmd-*.log"), r"launch task StepId=(\d+)\.0 ")
bad = slow = 0
slack = []
for jid in sys.argv[2].split(","):
    recs = rows.get(jid, [])
    if len(recs) != 1:
        print("job %s: %d accounting rows" % (jid, len(recs))); bad += 1; continue
    state, rec = recs[0][3], json.loads(recs[0][7])
    fin = rec.get("final")
    late = fin and fin["end"] > rec["sla"]["deadline"] + 1
    missed = fin and (fin["how"] == "DEADLINE" or (fin["how"] == "COMPLETED" and (not fin["met"] or late)))
    if state != "COMPLETED" or not fin or fin["how"] != "COMPLETED" or not fin["met"] or late:
        why = "state %s, final %s" % (state, fin)
        if late:
            why = "ended %.0f s after its deadline" % (fin["end"] - rec["sla"]["deadline"])
        if not missed:
            print("job %s: %s" % (jid, why)); bad += 1; continue
        step = stepped.get(jid)
        lag = (step if step else float("inf")) - started.get(jid, 0)
        # the CPU it got from its step's start on (libra-burn's report, the
        # slowest task's), and what it needed then
        try:
            out = open("%s/job-%s.out" % (sys.argv[5], jid), errors="replace").read()
        except OSError:
            out = ""
        burns = [(float(c), float(w), float(b)) for c, w, b in re.findall(r"burned ([0-9.]+) cpu in ([0-9.]+) wall from ([0-9.]+)", out) if float(w) > 0]
        rates = [c / w for c, w, _ in burns]
        # the CPU it needed from when its work began (the later of its
        # step's launch and libra-burn's own start: forking the tasks
        # takes a second on a loaded machine), to be done by its deadline
        began = max([step] + [b for _, _, b in burns]) if step else None
        need = rec["sla"]["runtime"] / max(1e-3, rec["sla"]["deadline"] - began) if step else float("inf")
        got = min(rates) if rates else None
        # when its work began (libra-burn's own clock): a launched step
        # still has to fork and exec its tasks, seconds on a loaded machine
        work_lag = max(b for _, _, b in burns) - started.get(jid, 0) if burns else lag
        evidence = []
        if lag > allowed:
            evidence.append("its step was launched %.1f s after its start (%.0f s allowed)" % (lag, allowed))
        elif work_lag > allowed:
            evidence.append("its work began %.1f s after its start (%.0f s allowed)" % (work_lag, allowed))
        # all its work burned by the deadline: what missed it was ending
        # the job (the step's and the batch script's exits), slow under load
        work_end = max(b + w for _, w, b in burns) if burns else None
        done = burns and min(c for c, _, _ in burns) >= rec["sla"]["runtime"] - 0.05
        if got is None:
            evidence.append("it was ended before its work was done")
        elif done and work_end <= rec["sla"]["deadline"]:
            evidence.append("its work was done %.1f s before its deadline and the job's end came after" % (rec["sla"]["deadline"] - work_end))
        elif got < need:
            evidence.append("it got %.3f CPU from its work's start on, and needed %.3f" % (got, need))
        if evidence:
            print("job %s: %s; %s: this machine's delays" % (jid, why, "; ".join(evidence)))
            slow += 1
        else:
            print("job %s: %s, though its step was launched %.1f s and its work began %.1f s after its start and it got %.3f CPU (needed %.3f)" % (jid, why, lag, work_lag, got, need)); bad += 1
        continue
    if abs(fin["charge"] - rec["admit"]["price"]) > 1e-9 * max(1, rec["admit"]["price"]):
        print("job %s: charged %s, quoted %s" % (jid, fin["charge"], rec["admit"]["price"])); bad += 1
    slack.append((rec["sla"]["deadline"] - fin["end"], jid))
if slack:
    s, j = min(slack)
    print("smallest slack: job %s ended %.1f s before its deadline" % (j, s))
sys.exit(1 if bad else 3 if slow else 0)
EOF
	case $rc in
	0) ;;
	3) return 1 ;;
	*) fail "admitted jobs did not all keep their deadline (see above)" ;;
	esac

	# Every decision, decided again by the core alone.  The replay knows
	# every node as up: a node that slurmctld found not responding (its
	# slurmd starved of CPU by the jobs pinned with it and other work on
	# the machine) was no candidate for the admissions of that time, and
	# a pending job admitted there was admitted again elsewhere later,
	# with less time to go.  A difference with such an event in the log
	# is the machine's (run again); without one it fails the test.
	local params replay_args node_events
	params=$(scontrol show config | sed -n 's/^SchedulerParameters *= *//p')
	# shellcheck disable=SC2054 # commas separate libra-replay's list values
	replay_args=(--nodes n1:1,n2:1 --params "$params" --sacct-file "$LIBRA_WORK/sacct.txt"
		--refusals "$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl")
	if ! replay_out=$("$replay" "${replay_args[@]}"); then
		# everything that could explain it: every decision, the
		# refusals, the controller's view of the nodes
		"$replay" -v "${replay_args[@]}" >&2 || true
		cat "$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl" >&2
		grep -E "respond|DOWN|DRAIN|drain|admitted again|libra: (refused|rejected)" "$LIBRA_CLUSTER_DIR/log/slurmctld.log" >&2 || true
		node_events=$(grep -cE "not responding|setting DOWN|state set to (DOWN|DRAIN)|admitted again on" "$LIBRA_CLUSTER_DIR/log/slurmctld.log")
		[ "$node_events" -gt 0 ] || fail "libra-replay: decisions differ, and every node was up throughout: $replay_out"
		note "libra-replay: decisions differ while slurmctld saw $node_events node event(s) (above): $replay_out"
		return 1
	fi
}
scale=
for attempt in 1 2 3; do
	workload "$scale" && break
	[ "$attempt" -lt 3 ] || fail "3 attempts, and the machine was too busy in each (deadlines missed only where a step started late, or a node stopped responding; times up to x$k)"
	scale=$((2 * k))
	note "deadlines were missed where this machine was slow to launch a step, or a node stopped responding: the workload again on a fresh cluster (attempt $((attempt + 1)) of 3), times at least x$scale"
done
out=$replay_out
note "libra-replay: $out"
assert_match "^decisions 36, agree 36 " "$(tail -n 1 <<<"$out")" "replayed decisions"

# The provider's report: its totals are those of the per-job records.
report=$LIBRA_BUILD/contrib/report/libra-report
[ -x "$report" ] || fail "build contrib/report first (make)"
refusals=$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl
LIBRA_REPORT=$report "$LIBRA_TOP/contrib/report/check-totals" --sacct-file "$LIBRA_WORK/sacct.txt" \
	--refusals "$refusals" || fail "libra-report's totals differ from its per-job lines"
"$report" --sacct-file "$LIBRA_WORK/sacct.txt" --refusals "$refusals" --json >"$LIBRA_WORK/report.json" ||
	fail "libra-report failed"
"$LIBRA_PYTHON" - "$LIBRA_WORK/sacct.txt" "$refusals" "$LIBRA_WORK/report.json" "${#admitted[@]}" "$refused" <<'EOF' ||
import json, sys
recs = []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("|", 7)
    if f[7].startswith('{"libra":'):
        recs.append(json.loads(f[7]))
refused = [json.loads(l) for l in open(sys.argv[2])]
t = json.load(open(sys.argv[3]))["total"]
admitted, nrefused = int(sys.argv[4]), int(sys.argv[5])
want = {
    "admitted": admitted,
    "refused": nrefused,
    "submitted": admitted + nrefused,
    "finished": sum(1 for r in recs if "final" in r),
    "met": sum(1 for r in recs if r.get("final", {}).get("met")),
}
bad = [(k, v, t[k]) for k, v in want.items() if t[k] != v]
revenue = sum(r["final"]["charge"] + r["final"]["penalty"] for r in recs if "final" in r)
budgets = sum(r["sla"]["budget"] for r in recs) + sum(x.get("budget", 0) for x in refused)
charge_met = sum(r["final"]["charge"] for r in recs if r["final"]["met"])
if abs(t["revenue"] - revenue) > 1e-6 * max(1, revenue):
    bad.append(("revenue", revenue, t["revenue"]))
if abs(t["profit"] - charge_met / budgets) > 1e-9:
    bad.append(("profit", charge_met / budgets, t["profit"]))
if abs(t["qos"] - want["met"] / want["submitted"]) > 1e-9:
    bad.append(("qos", want["met"] / want["submitted"], t["qos"]))
for k, w, g in bad:
    print("libra-report %s: records say %s, report says %s" % (k, w, g))
sys.exit(1 if bad else 0)
EOF
	fail "libra-report's totals disagree with the records"
note "libra-report TOTAL: $("$LIBRA_PYTHON" -c 'import json,sys; t=json.load(open(sys.argv[1]))["total"]; print(" ".join("%s=%s" % (k, t[k]) for k in ("submitted","admitted","refused","met","qos","profit","revenue")))' "$LIBRA_WORK/report.json")"

cluster_stop
assert_nothing_left
pass
