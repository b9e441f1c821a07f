#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions called through trap, pair and wait_until
# test_enforce_vm: enforcement on a real cgroup v2 kernel (design.md
# decision 31).
#
# This machine's cpu controller is bound to cgroup v1; contrib/vm/libra-vm
# boots Debian's kernel under QEMU (TCG) with this machine's root over 9p,
# and this script runs again inside the guest (LIBRA_IN_VM=1), where the
# whole local cluster (munged, MariaDB, slurmdbd, slurmctld, one slurmd)
# runs on the guest's loopback, with slurmd's CgroupPlugin=cgroup/v2 on the
# kernel's own /sys/fs/cgroup.  Two admitted jobs with shares 2:1, each a
# busy loop pinned to CPU 0, in two set-ups:
#  A. Slurm tracks processes itself (proctrack/linuxproc, task/none): the
#     SPANK plugin builds its tree, <prefix>/n1/job_<id>, with "+cpu"
#     delegated at each level, and moves each task there;
#  B. Slurm's cgroup/v2 stack (proctrack/cgroup, task/cgroup) owns the
#     job's cgroups: the task stays in Slurm's job_<id>/step_<s>/..., and
#     the plugin writes the weight on Slurm's job_<id> (doc/design.md,
#     decision 31).
# In each: the weights written and read back are in the ratio of the
# jobs' shares at that moment (2:1 at their admission; each job's work
# left over its time left, within 10%); the CPU time the kernel's
# cpu.stat gives each job over a window is in the weights' ratio within
# 10%; both weights drop to share_min's 100 when cpu.stat shows each job's
# declared work done; both jobs end COMPLETED with settled records that
# met.  In A also the kernel's refusals (EOPNOTSUPP, EBUSY) of a task's
# move, each said plainly in slurmd's log, the job run and settled.
# Skipped, with the reason, where QEMU cannot run.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ "${LIBRA_IN_VM:-0}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || skip "needs root (QEMU's 9p share of the host's root)"
	[ "${LIBRA_HAVE_PLUGINS:-yes}" = yes ] ||
		skip "the plugins were not built (configure found no Slurm source; run contrib/setup)"
	vm=$LIBRA_TOP/contrib/vm/libra-vm
	rc=0
	"$vm" prepare || rc=$?
	[ "$rc" != 77 ] || skip "QEMU cannot run a VM here (above)"
	[ "$rc" = 0 ] || fail "libra-vm prepare failed"
	share=${LIBRA_TEST_CLUSTER_DIR:-$LIBRA_BUILD/_cluster-$LIBRA_TEST}
	rm -rf "$share"
	mkdir -p "$share"
	args=(LIBRA_IN_VM=1 "LIBRA_VM_SHARE=$share")
	for v in abs_top_srcdir abs_top_builddir LIBRA_PLUGIN_DIR LIBRA_SLURM_PREFIX LIBRA_DEBUG; do
		[ -z "${!v:-}" ] || args+=("$v=${!v}")
	done
	# the guest's output, also kept to name its failure in this test's
	# last line (run-tests prints that, CI shows the end)
	set +e
	"$vm" run "$share" /usr/bin/env "${args[@]}" bash "$LIBRA_TOP/tests/integration/$LIBRA_TEST.sh" 2>&1 |
		tee "$share.out"
	rc=${PIPESTATUS[0]}
	set -e
	note "the VM test took $SECONDS s (boot, two clusters, power-off)"
	if [ -s "$share/unstarted.log" ]; then
		mkdir -p "$LIBRA_TOP/_build"
		cat "$share/unstarted.log" >>"${LIBRA_UNSTARTED_LOG:-$LIBRA_TOP/_build/unstarted.log}"
	fi
	case $rc in
	0)
		rm -rf "$share" "$share.out"
		pass
		;;
	77) exit 77 ;;
	*)
		note "logs kept in $share"
		why=$(grep -E "^(FAIL|FAILED CHECK): $LIBRA_TEST: |^libra-vm: " "$share.out" | tail -n 3 | cut -c1-400)
		fail "the test in the VM failed (exit $rc): ${why:-its output above}"
		;;
	esac
fi

# ---------------------------------------------------------------- guest
export LIBRA_TEST_CLUSTER_DIR=/tmp/cluster
libra_test_init
# the logs, for a look after a failure, and the tally of unstarted jobs
# (the guest sees the project's tree read-only) go to the shared directory
export LIBRA_UNSTARTED_LOG=$LIBRA_VM_SHARE/unstarted.log
_vm_exit() {
	local rc=$?
	cp -r "$LIBRA_CLUSTER_DIR/log" "$LIBRA_VM_SHARE/" 2>/dev/null || :
	(exit "$rc")
	_libra_exit
}
trap _vm_exit EXIT
export LIBRA_NODES=1
cg=/sys/fs/cgroup
[ -f "$cg/cgroup.controllers" ] || fail "no cgroup2 hierarchy at $cg in the VM"
note "kernel $(uname -r), $(nproc) CPUs; $cg: controllers '$(cat "$cg/cgroup.controllers")', enabled below the root '$(cat "$cg/cgroup.subtree_control")'"

# usage JOBDIR: the job's tasks' CPU time, in microseconds (cpu.stat): in
# Slurm's tree the sum over step_*/user (its slurmstepds are in
# step_*/slurm), as the plugin counts it
usage() {
	if [ -d "$1/step_batch" ]; then
		cat "$1"/step_*/user/cpu.stat
	else
		cat "$1/cpu.stat"
	fi | awk '$1 == "usage_usec" { s += $2 } END { print s + 0 }'
}
# burn FILE: a busy loop on CPU 0 until FILE exists
burn() { printf "exec taskset -c 0 bash -c 'while [ ! -e %q ]; do :; done'" "$1"; }

# pair SETUP DIRFN: the two jobs (shares 0.1 and 0.05 of n1's CPU: 12 s
# and 6 s of work by 120 s; shorter ones make the weights' ratio
# sensitive to the jobs' start-up CPU and their 2 s apart), each blocked on a FIFO of its own (a gate
# that polls would burn CPU under emulation, and count as work done)
# until both have their weights; DIRFN JOBID prints the cgroup holding the
# job's weight.
pair() {
	local setup=$1 dirfn=$2 big small db ds wb ws u0b u0s u1b u1s t0 ratio want j p
	mkfifo "$LIBRA_WORK/$setup-big" "$LIBRA_WORK/$setup-small"
	libra_sbatch_admitted "$setup: share 0.1" -J big -n 1 \
		--comment="runtime=12s,deadline=120s,budget=1000" --wrap "read -r _ <$LIBRA_WORK/$setup-big; $(burn "$LIBRA_WORK/$setup-stop")"
	big=$SB_JOBID
	libra_sbatch_admitted "$setup: share 0.05" -J small -n 1 \
		--comment="runtime=6s,deadline=120s,budget=1000" --wrap "read -r _ <$LIBRA_WORK/$setup-small; $(burn "$LIBRA_WORK/$setup-stop")"
	small=$SB_JOBID
	# (a cgroup file's size is 0 whatever it holds: read it)
	have_weights() {
		db=$("$dirfn" "$big") && ds=$("$dirfn" "$small") &&
			wb=$(cat "$db/cpu.weight" 2>/dev/null) && ws=$(cat "$ds/cpu.weight" 2>/dev/null) &&
			[ -n "$wb" ] && [ -n "$ws" ] && [ "$wb" != 100 ] && [ "$ws" != 100 ]
	}
	wait_until 180 "$setup: both jobs' weights" have_weights
	note "$setup: job $big in $db, job $small in $ds"
	for j in "$big" "$small"; do
		p=$(scontrol listpids "$j" 2>/dev/null | awk 'NR == 2 { print $1 }')
		note "$setup: job $j: its first process, $p, in $(cut -d: -f3 "/proc/$p/cgroup" 2>/dev/null)"
	done
	# cpu delegated at each level above the job's cgroup
	local d=${db%/*} tree=
	while [ "${#d}" -ge "${#cg}" ]; do
		assert_contains "$(cat "$d/cgroup.subtree_control")" cpu "$setup: cgroup.subtree_control of $d"
		tree="${d#"$cg"}: $(cat "$d/cgroup.subtree_control"); $tree"
		d=${d%/*}
	done
	note "$setup: cgroup.subtree_control from the root down: $tree"
	wb=$(cat "$db/cpu.weight")
	ws=$(cat "$ds/cpu.weight")
	# Live weights: each is its job's work left over its time left to its
	# deadline, paced one interval (1 s) early (libra_share_enforced()),
	# at most the share committed at its admission
	# (libra_share_committed()); both idle until the gate, so the later
	# submission's longer time left makes the ratio more than 2:1 until
	# the cap holds both: what the shares are now, within 10%.
	local dlb dls ab as share_ratio
	dlb=$(json_get "$(job_record "$big")" sla.deadline)
	dls=$(json_get "$(job_record "$small")" sla.deadline)
	ab=$(json_get "$(job_record "$big")" admit.time)
	as=$(json_get "$(job_record "$small")" admit.time)
	share_ratio=$(awk -v b="$dlb" -v s="$dls" -v ab="$ab" -v as="$as" -v t="$(date +%s.%N)" '
		function min(x, y) { return x < y ? x : y }
		BEGIN { printf "%.3f", min(12 / (b - 1 - t), 12 / (b - 1 - ab)) / min(6 / (s - 1 - t), 6 / (s - 1 - as)) }')
	note "$setup: cpu.weight read back: $wb (share 0.1) and $ws (share 0.05), $(awk -v b="$wb" -v s="$ws" 'BEGIN { printf "%.3f", b / s }'):1; the shares now, from each job's work and deadline: $share_ratio:1"
	awk -v b="$wb" -v s="$ws" -v w="$share_ratio" 'BEGIN { r = b / s; exit !(r >= 0.9 * w && r <= 1.1 * w) }' ||
		fail "$setup: cpu.weight $wb and $ws are not $share_ratio:1 within 10%"
	echo go >"$LIBRA_WORK/$setup-big"
	echo go >"$LIBRA_WORK/$setup-small"
	# a window while both work (the small one's 6 s take it 18 s at 1/3)
	sleep 2
	u0b=$(usage "$db")
	u0s=$(usage "$ds")
	t0=$SECONDS
	sleep 8
	u1b=$(usage "$db")
	u1s=$(usage "$ds")
	ratio=$(awk -v b=$((u1b - u0b)) -v s=$((u1s - u0s)) 'BEGIN { printf "%.3f", (s > 0) ? b / s : 0 }')
	want=$(awk -v b="$wb" -v s="$ws" 'BEGIN { printf "%.3f", b / s }')
	note "$setup: CPU over $((SECONDS - t0)) s by cpu.stat: $(((u1b - u0b) / 1000)) ms and $(((u1s - u0s) / 1000)) ms, ratio $ratio (weights $want)"
	# within 10%, as test_enforce on cgroup v1: under emulation on a
	# busy host a 6-second window measured 2.189:1 for weights 2.029:1
	awk -v r="$ratio" -v w="$want" 'BEGIN { exit !(r >= 0.9 * w && r <= 1.1 * w) }' ||
		fail "$setup: the kernel split CPU $ratio:1, not within 10% of the weights' $want:1"
	both_done() { [ "$(cat "$db/cpu.weight" 2>/dev/null)" = 100 ] && [ "$(cat "$ds/cpu.weight" 2>/dev/null)" = 100 ]; }
	wait_until 60 "$setup: both weights to drop to share_min's 100 once cpu.stat shows the work done" both_done
	note "$setup: after the work: cpu.stat $(($(usage "$db") / 1000)) ms and $(($(usage "$ds") / 1000)) ms, cpu.weight $(cat "$db/cpu.weight") and $(cat "$ds/cpu.weight")"
	touch "$LIBRA_WORK/$setup-stop"
	assert_ran_once_and_met "$setup" "$big" "$small"
	note "$setup: both jobs ended and settled ($SECONDS s into the guest's run)"
}

# ------------------------------------------------ A: the plugin's own tree
libra_cluster_env 'libra_policy=libra' libra_capacity=0.9
export LIBRA_PLUGSTACK="required libra_spank.so interval=1"
cluster_start
note "A: cluster up ($SECONDS s into the guest's run)"
cd "$LIBRA_WORK"	# the jobs' output: the guest sees the host's tree read-only
note "A: $(grep -h '^Cgroup\|^IgnoreSystemd' "$LIBRA_CLUSTER_DIR/etc/cgroup.conf" | tr '\n' ' ')$(grep -h '^ProctrackType\|^TaskPlugin' "$LIBRA_CLUSTER_DIR/etc/slurm.conf" | tr '\n' ' ')"
prefix=$(sed -n 's/.*cgroup_prefix=\([^ ]*\).*/\1/p' "$LIBRA_CLUSTER_DIR/etc/plugstack.conf")
[ -n "$prefix" ] || fail "no cgroup_prefix in plugstack.conf"
node=$cg/$prefix/n1
ours() { [ -d "$node/job_$1" ] && printf '%s' "$node/job_$1"; }
pair A ours
tree_gone() { [ ! -d "$node" ]; }
wait_until 60 "A: the plugin to remove the node's directory after its jobs" tree_gone

# The kernel's refusals, each logged by the plugin, its job still run and
# settled: EOPNOTSUPP, a process of its own in the node's directory (with
# cpu enabled below it, no cgroup under it is a valid domain);
mkdir -p "$node"
sleep 600 &
squatter=$!
echo "$squatter" >"$node/cgroup.procs"
libra_sbatch_admitted "A: EOPNOTSUPP" -J squat -n 1 --comment="runtime=5s,deadline=120s,budget=1000" --wrap 'sleep 2'
squat=$SB_JOBID
assert_ran_once_and_met "A: a job whose node directory holds a process" "$squat"
kill "$squatter"
wait "$squatter" 2>/dev/null || :
msg=$(grep -h "job $squat: cannot move task .* (EOPNOTSUPP)" "$LIBRA_CLUSTER_DIR"/log/slurmd-n1.log) ||
	fail "A: slurmd's log does not say why job $squat's task stayed out of its cgroup (EOPNOTSUPP)"
note "A: EOPNOTSUPP: ${msg#*] }"
wait_until 60 "A: job $squat's directory to go" bash -c "[ ! -d '$node/job_$squat' ]"
# and EBUSY, a job directory made a parent before its job starts (job ids
# are given in order): a domain controller (memory) enabled below it; with
# only threaded ones (cpu) the kernel takes the task (it may become a
# thread root)
nonleaf=$node/job_$((squat + 1))
mkdir -p "$nonleaf"
echo "+cpu +memory" >"$cg/$prefix/cgroup.subtree_control"
echo "+cpu +memory" >"$node/cgroup.subtree_control"
echo +memory >"$nonleaf/cgroup.subtree_control"
libra_sbatch_admitted "A: EBUSY" -J nonleaf -n 1 --comment="runtime=5s,deadline=120s,budget=1000" --wrap 'sleep 2'
[ "$SB_JOBID" = "$((squat + 1))" ] || fail "A: the next job got id $SB_JOBID, not $((squat + 1))"
assert_ran_once_and_met "A: a job whose cgroup has controllers enabled below it" "$SB_JOBID"
msg=$(grep -h "job $SB_JOBID: cannot move task .* (EBUSY)" "$LIBRA_CLUSTER_DIR"/log/slurmd-n1.log) ||
	fail "A: slurmd's log does not say why job $SB_JOBID's task stayed out of its cgroup (EBUSY)"
note "A: EBUSY: ${msg#*] } ($SECONDS s)"
wait_until 60 "A: job $SB_JOBID's directory to go" bash -c "[ ! -d '$nonleaf' ]"
rmdir "$node" "$cg/$prefix" 2>/dev/null || :

# ------------------------------- B: Slurm's cgroup/v2 owns the job cgroups
# The same cluster (its database kept: a fresh one costs a minute under
# emulation), its configuration rewritten and both Slurm daemons started
# again: a new ProctrackType needs a restart.
export LIBRA_EXTRA_CONF='ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup'
"$LIBRA_CLUSTER" reconfig >/dev/null 2>&1 || :
"$LIBRA_CLUSTER" restart slurmctld || fail "B: slurmctld did not start again"
"$LIBRA_CLUSTER" restart slurmd:n1 || fail "B: slurmd did not start again"
# shellcheck disable=SC2016 # expanded by that bash
wait_until 120 "B: n1 idle" bash -c '[ "$(sinfo -h -n n1 -o %T)" = idle ]'
note "B: slurmctld and slurmd restarted ($SECONDS s)"
note "B: $(grep -h '^Cgroup\|^IgnoreSystemd' "$LIBRA_CLUSTER_DIR/etc/cgroup.conf" | tr '\n' ' ')$(scontrol show config | grep -E '^(ProctrackType|TaskPlugin) ' | tr -s ' ' | tr '\n' ' ')"
# slurms JOBID: Slurm's directory of the job (job_<id>, or from 26.05 its
# SLUID): the one above its batch step's, from a process of the job
slurms() {
	local p d
	for p in $(scontrol listpids "$1" 2>/dev/null | awk 'NR > 1 { print $1 }'); do
		d=$(sed -n 's|^0::\(.*\)/step_.*|\1|p' "/proc/$p/cgroup" 2>/dev/null)
		[ -n "$d" ] && [ -d "$cg$d" ] && printf '%s' "$cg$d" && return 0
	done
	return 1
}
pair B slurms
[ ! -d "$node" ] || [ -z "$(ls -d "$node"/job_* 2>/dev/null)" ] ||
	fail "B: the plugin made job directories of its own beside Slurm's: $(ls -d "$node"/job_*)"
msg=$(grep -h "Slurm's cgroup/v2 tracks its tasks" "$LIBRA_CLUSTER_DIR"/log/slurmd-n1.log | head -n 1) ||
	fail "B: slurmd's log does not say where the weight went"
note "B: ${msg#*] }"
cluster_stop
pass
