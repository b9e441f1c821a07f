#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# rel_memory: memory errors and leaks.  LONG mode only
# (LIBRA_LONG=1; it takes several minutes); quick mode reports SKIP.
#
#  1. the unit tests under valgrind (tests/unit: make check-valgrind: any
#     error or definite/indirect leak fails a test);
#  2. the fuzz targets' corpus and reproducers under valgrind
#     (tests/fuzz/run-replay with LIBRA_VALGRIND=1);
#  3. slurmctld with the plugins under valgrind: a cluster starts as usual,
#     then its slurmctld is stopped and started again by this test under
#     valgrind --leak-check=full --keep-debuginfo=yes (plugins unloaded at
#     shutdown keep their symbols) with the same slurm.conf, recorded by
#     pid; a workload goes through every plugin path (admissions, each kind
#     of refusal, --test-only quotes, best effort, hard-deadline ends,
#     cancel, requeue, refused and operator updates, a node going down and
#     back, good and bad reconfigurations, an AdminComment dropped); then
#     slurmctld is stopped by its pid (SIGTERM) and valgrind's report read.
#     Asserted: no invalid access, use of uninitialised memory or definite
#     leak whose stack has a frame of our code (sched_libra, job_submit_qos,
#     jobcomp_libra, libslurm_libra, libra_*, or any source file of
#     src/core and src/plugins).  Slurm's own findings are counted and
#     listed, not failed; slurm-valgrind.supp holds the known ones (glibc's
#     loader reading past an $ORIGIN rpath, Slurm's own leaks), made with
#     LIBRA_VALGRIND_BASELINE=1: the same workload on stock Slurm (sched/
#     backfill, no job_submit or jobcomp plugin) with --gen-suppressions.
# shellcheck source=../integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
libra_long || skip "long mode only (LIBRA_LONG=1): valgrind runs take several minutes"
libra_test_init
command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed"
REL_SRC=${LIBRA_REL_SRC:-$LIBRA_TOP/tests/reliability}
SUPP=$REL_SRC/slurm-valgrind.supp
BASELINE=${LIBRA_VALGRIND_BASELINE:-0}
t_all=$SECONDS

# --- 1 and 2: the policy core ----------------------------------------------------
if [ "$BASELINE" != 1 ]; then
	t0=$SECONDS
	# not our make's command line (make check TESTS=rel_memory.sh would
	# ask tests/unit for a test it does not have)
	if out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$LIBRA_BUILD/tests/unit" check-valgrind 2>&1); then
		note "unit tests under valgrind: $(grep -E '^# (TOTAL|PASS|FAIL)' <<<"$out" | paste -sd' ' -) in $((SECONDS - t0)) s"
	else
		why=$(grep -E '^(FAIL|ERROR)|^# (TOTAL|PASS|FAIL)' <<<"$out" | paste -sd' ' -) || :
		# no test result: make itself failed (a build error, say)
		[ -n "$why" ] || why=$(tail -n 5 <<<"$out" | paste -sd' ' -)
		expect_fail "unit tests under valgrind: $why (see tests/unit/test-suite.log)"
	fi
	t0=$SECONDS
	make -C "$LIBRA_BUILD/tests/fuzz" replay_sla replay_record replay_params >/dev/null 2>&1 ||
		fail "cannot build the fuzz replay programs"
	if out=$(cd "$LIBRA_BUILD/tests/fuzz" && LIBRA_VALGRIND=1 FUZZ_SRCDIR="$LIBRA_TOP/tests/fuzz" ./run-replay 2>&1); then
		note "fuzz corpus and reproducers under valgrind: clean ($(find "$LIBRA_TOP"/tests/fuzz/corpus "$LIBRA_TOP"/tests/fuzz/crashes -type f ! -name README.md | wc -l) inputs) in $((SECONDS - t0)) s"
	else
		expect_fail "fuzz replay under valgrind: $(head -c 1500 <<<"$out")"
	fi
fi

# --- 3: slurmctld under valgrind ------------------------------------------------------
export LIBRA_NODES=2
if [ "$BASELINE" = 1 ]; then
	export LIBRA_SCHEDULER_TYPE=sched/backfill LIBRA_JOB_SUBMIT_PLUGINS='' LIBRA_JOBCOMP_TYPE=jobcomp/none
	export LIBRA_PLUGSTACK=
	libra_find_python
else
	libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.8 libra_price_base=3600
fi
libra_add_user
user=$LIBRA_USER
# slurmctld answers slowly under valgrind: a longer MessageTimeout, so
# that no daemon gives up on a message to it
export LIBRA_EXTRA_CONF="AuthInfo=socket=$LIBRA_CLUSTER_DIR/munge/munged.socket,cred_expire=10
ReturnToService=2
MessageTimeout=60"
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
submit=$(libra_rel_tool libra_submit)
V=$LIBRA_CLUSTER_DIR/log/valgrind
mkdir -p "$V"
"$LIBRA_CLUSTER" kill slurmctld >/dev/null || fail "cannot stop the cluster's slurmctld"
# shellcheck disable=SC2054 # commas separate valgrind's list values
vg=(valgrind --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite,indirect
	--keep-debuginfo=yes --num-callers=40 --track-origins=no --log-file="$V/valgrind.%p.log")
if [ "$BASELINE" = 1 ]; then
	vg+=(--gen-suppressions=all)
elif [ -f "$SUPP" ]; then
	vg+=(--suppressions="$SUPP")
fi
# (debugging the test itself: the same run without valgrind)
[ "${LIBRA_MEMORY_NO_VALGRIND:-0}" != 1 ] || vg=(env)
cgroup=$(cat "$LIBRA_CLUSTER_DIR/run/cgroup" 2>/dev/null || :)
(
	[ -z "$cgroup" ] || printf '%s\n' "$BASHPID" >"$cgroup/cgroup.procs" 2>/dev/null || :
	cd "$LIBRA_CLUSTER_DIR"
	exec setsid "${vg[@]}" slurmctld -D -f "$SLURM_CONF" </dev/null >>"$V/slurmctld.out" 2>&1
) &
VGPID=$!
libra_at_exit "kill -TERM $VGPID 2>/dev/null || :"
note "slurmctld under valgrind: pid $VGPID"
# shellcheck disable=SC2317 # called by wait_until
nodes_up() { [[ $(scontrol ping 2>&1) == *UP* ]] && [ "$(sinfo -h -N -o %t | grep -cxE 'idle|mix|alloc')" = 2 ]; }
wait_until 240 "slurmctld under valgrind to answer, with both nodes" nodes_up
vg_alive() { [ -d "/proc/$VGPID" ] || fail "slurmctld under valgrind (pid $VGPID) died: $(tail -n 20 "$V"/valgrind."$VGPID".log)"; }

# The workload: every path of the plugins, mostly in parallel.
t0=$SECONDS
W=$LIBRA_WORK
q() { sbatch -D "$W" -o /dev/null "$@" 2>&1 || :; }
uq() { runuser -u "$user" -- sbatch -D "$W" -o /dev/null "$@" 2>&1 || :; }
jid() { sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$1"; }
ok=()
for i in 1 2 3; do
	ok+=("$(jid "$(q -J ok$i --comment="runtime=2s,deadline=60s,budget=100" --wrap "$burn 2")")")
done
q -J budget --comment="runtime=1h,deadline=2h,budget=0.01" --wrap true >/dev/null # counter-offer
q -J parse --comment="runtime=1h,deadline=soon" --wrap true >/dev/null
q -J big -n 64 --comment="runtime=1m,deadline=1h" --wrap true >/dev/null
scancel -n big 2>/dev/null || : # stock Slurm keeps it pending
q -J full --comment="runtime=59m,deadline=1h" --wrap true >/dev/null # capacity
uq -J opt --budget=lots --comment="runtime=1m,deadline=1h" --wrap true >/dev/null
q --test-only -J quote --comment="runtime=1m,deadline=1h,budget=100" --wrap true >/dev/null
# shellcheck disable=SC2034 # made for their paths through the plugins
be=$(jid "$(q -J besteffort --wrap 'sleep 3')")
# shellcheck disable=SC2034
hard=$(jid "$(q -J overrun --comment="runtime=2s,deadline=15s,budget=100" --wrap 'sleep 60')")
# shellcheck disable=SC2034
soft=$(jid "$(q -J soft --comment="runtime=2s,deadline=12s,budget=100,type=soft,penalty=36,penalty_cap=1" --wrap 'sleep 20')")
cancel=$(jid "$(uq -J cancel --comment="runtime=5s,deadline=5m,budget=100" --wrap 'sleep 60')")
held=$(jid "$(uq -J held --hold --comment="runtime=5s,deadline=5m,budget=100" --wrap 'sleep 1')")
rq=$(jid "$(q -J requeue --requeue --comment="runtime=3s,deadline=3m,budget=100" --wrap 'sleep 5')")
"$submit" -A '{"libra":1,"policy":"libra+$"}' -c "runtime=1m,deadline=1h,budget=100" -D "$W" -x true >/dev/null 2>&1 || :
vg_alive
# launched (slurmd has it): a requeue racing the launch RPC can leave a
# job COMPLETING for minutes under a slurmctld slowed down by valgrind
launched() { cat "$LIBRA_CLUSTER_DIR"/log/slurmd-*.log | grep -q "Launching batch job $1 "; }
for j in $cancel $rq; do
	wait_until 180 "job $j to run" job_in_state "$j" RUNNING
	wait_until 180 "job $j to be launched" launched "$j"
done
sleep 3
runuser -u "$user" -- scontrol update jobid="$cancel" timelimit=+60 >/dev/null 2>&1 || : # refused
runuser -u "$user" -- scontrol update jobid="$held" comment=runtime=1s >/dev/null 2>&1 || : # refused
scontrol update jobid="$held" timelimit=30 >/dev/null 2>&1 || :                                # operator
runuser -u "$user" -- scancel "$cancel" || :
runuser -u "$user" -- scancel "$held" || :
scontrol requeue "$rq" >/dev/null 2>&1 || :
# a node goes down while a job runs there, and comes back
down=$(jid "$(q -J down -w n2 --requeue --comment="runtime=3s,deadline=2m,budget=100" --wrap 'sleep 30')")
if wait_until_ok 180 job_in_state "$down" RUNNING && wait_until_ok 180 launched "$down"; then
	sleep 3
else
	expect_fail "job $down (placed on n2) did not start within 180 s: $(squeue -h -t all -o '%i %j %T %r' | paste -sd';' -)"
fi
scontrol update nodename=n2 state=down reason="rel_memory" || :
sleep 5
scontrol update nodename=n2 state=resume 2>/dev/null || scontrol update nodename=n2 state=idle || :
# reconfigurations: a bad value, then the good set again
good=$(sed -n 's/^SchedulerParameters=//p' "$SLURM_CONF")
if [ "$BASELINE" != 1 ]; then
	sed -i "s|^SchedulerParameters=.*|SchedulerParameters=$good,libra_alpha=-1|" "$SLURM_CONF"
	scontrol reconfigure || :
	sleep 2
	sed -i "s|^SchedulerParameters=.*|SchedulerParameters=$good|" "$SLURM_CONF"
	scontrol reconfigure || :
fi
vg_alive
for i in 1 2 3; do
	q -J late$i --comment="runtime=2s,deadline=60s,budget=100" --wrap "$burn 2" >/dev/null
done
# a job that does not end is a finding of its own: reported, cancelled,
# and the run goes on to valgrind's report
if ! wait_until_ok 600 no_jobs_active; then
	expect_fail "jobs still active 10 minutes into the workload: $(squeue -h -t all -o '%i %j %T %r' | paste -sd';' -)"
	scancel -u root 2>/dev/null || :
	scancel -u "$user" 2>/dev/null || :
	wait_until_ok 120 no_jobs_active || note "still there after scancel: $(squeue -h -t all -o '%i %j %T %r' | paste -sd';' -)"
fi
note "workload under valgrind in $((SECONDS - t0)) s"
vg_alive

# Stop it by its pid and read the report.
t0=$SECONDS
kill -TERM "$VGPID"
# shellcheck disable=SC2317 # called by wait_until
vg_gone() { ! kill -0 "$VGPID" 2>/dev/null; }
wait_until 300 "slurmctld under valgrind to exit" vg_gone
wait "$VGPID" 2>/dev/null || :
note "slurmctld stopped; valgrind's leak check took $((SECONDS - t0)) s"
main_log=$V/valgrind.$VGPID.log
[ -s "$main_log" ] || fail "no valgrind log $main_log"
# our code: the plugins' objects and every source file of ours
ours="sched_libra|job_submit_qos|jobcomp_libra|libslurm_libra|libra_spank|[^a-z_]libra_[a-z_]+ \\(|$(cd "$LIBRA_TOP" && for f in src/core/*.c src/plugins/*/*.c src/plugins/*/*/*.c; do basename "$f"; done | sed 's/\./\\./' | paste -sd'|' -)"
report=$("$LIBRA_PYTHON" - "$ours" "$V"/valgrind.*.log <<'EOF'
import re, sys
ours = re.compile(r"(at|by) 0x[0-9A-F]+: .*(" + sys.argv[1] + r")")
kinds = [("invalid", re.compile(r"Invalid (read|write|free)|Mismatched free|Source and destination overlap")),
         ("uninitialised", re.compile(r"uninitialised|Conditional jump")),
         ("syscall", re.compile(r"Syscall param")),
         ("definite", re.compile(r"definitely lost in loss record")),
         ("indirect", re.compile(r"indirectly lost in loss record")),
         ("possible", re.compile(r"possibly lost in loss record"))]
counts, mine = {}, []
for path in sys.argv[2:]:
    blocks, cur = [], []
    for line in open(path, errors="replace"):
        m = re.match(r"==\d+== ?(.*)", line)
        if not m:
            continue
        text = m.group(1)
        if not text.strip():
            if cur:
                blocks.append(cur)
            cur = []
        else:
            cur.append(text)
    if cur:
        blocks.append(cur)
    for b in blocks:
        kind = next((k for k, rx in kinds if rx.search(b[0])), None)
        if not kind:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if kind in ("invalid", "uninitialised", "syscall", "definite") and any(ours.search(l) for l in b):
            mine.append("%s: %s" % (path.rsplit("/", 1)[-1], " | ".join(b[:14])))
print("COUNTS " + " ".join("%s=%d" % kv for kv in sorted(counts.items())))
for x in mine:
    print("OURS " + x)
EOF
)
note "valgrind (all processes; leaks of Slurm itself included): ${report%%$'\n'*}"
note "$(grep -hE 'ERROR SUMMARY|definitely lost:' "$main_log" | sed 's/^==[0-9]*== //' | paste -sd';' -)"
if [ "$BASELINE" = 1 ]; then
	newsupp=${LIBRA_REL_BIN:-$LIBRA_BUILD/tests/reliability}/slurm-valgrind.supp.new
	"$LIBRA_PYTHON" - "$V"/valgrind.*.log >"$newsupp" <<'EOF'
import sys
out, cur = [], None
for path in sys.argv[1:]:
    for line in open(path, errors="replace"):
        if line.startswith("{"):
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line.startswith("}"):
                out.append("".join(cur)); cur = None
seen = set()
for s in out:
    body = s.split("\n", 2)[2]
    if body not in seen:
        seen.add(body); print(s, end="")
EOF
	note "suppressions for stock Slurm: $newsupp ($(grep -c '^{' "$newsupp") entries)"
else
	while IFS= read -r line; do
		[[ $line == OURS\ * ]] && expect_fail "valgrind, in our code: ${line#OURS }"
	done <<<"$report"
fi
note "rel_memory took $((SECONDS - t_all)) s"
expect_done
cluster_stop
assert_nothing_left
pass
