# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# tests/integration/lib.sh: shared helpers for the integration tests.
# Sourced (not run) by every tests/integration/test_*.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   libra_test_init                  # skip (77) unless root; cluster settings
#   cluster_start                    # a fresh local cluster, stopped on exit
#   jobid=$(sbatch --parsable ...)
#   wait_until 30 "job $jobid to run" job_in_state "$jobid" RUNNING
#   assert_eq COMPLETED "$(sacct_field "$jobid" State)" "job state"
#   cluster_stop
#   assert_nothing_left
#   pass
#
# Exit codes follow automake: 0 pass, 1 fail, 77 skip.  A failed assertion
# prints what was expected and what was found, the tail of the cluster's
# logs, and stops the cluster.
#
# Each test gets its own scratch directory (<build>/_cluster-<test>) and its
# own ports (LIBRA_PORT_BASE derived from the test name), so a developer's
# cluster in _cluster keeps running.  LIBRA_KEEP_CLUSTER=1 leaves the test's
# cluster running after the test, for a look at it.

set -euo pipefail

LIBRA_TEST=$(basename "$0" .sh)
LIBRA_TOP=${abs_top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
LIBRA_BUILD=${abs_top_builddir:-$LIBRA_TOP}
LIBRA_CLUSTER=$LIBRA_TOP/contrib/cluster/libra-cluster
LIBRA_STARTED=0

note() { printf '%s: %s\n' "$LIBRA_TEST" "$*"; }

skip() {
	printf 'SKIP: %s: %s\n' "$LIBRA_TEST" "$*"
	exit 77
}

# slurm.conf lines of priority/multifactor where only the partition factor
# (the same for every job) and nice count: a job's priority is 10000 -
# nice, changed only by nice, "scontrol top" and "scontrol update", never
# by age, size or fair share (the parity suite, Slurm's Python tests).
# shellcheck disable=SC2034 # used by the tests that source this
LIBRA_PRIORITY_CONF='PriorityType=priority/multifactor
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightQOS=0
PriorityWeightPartition=10000
PriorityFavorSmall=NO'

pass() {
	# With the test's run time: run-tests lists the slowest tests from it.
	printf 'PASS: %s (%d s)\n' "$LIBRA_TEST" "$SECONDS"
	exit 0
}

# fail MESSAGE: the test failed; say why, show the cluster's state and logs.
fail() {
	printf 'FAIL: %s: %s\n' "$LIBRA_TEST" "$*" >&2
	if [ "$LIBRA_STARTED" = 1 ]; then
		{
			echo "--- squeue"
			squeue 2>&1 || :
			echo "--- sinfo"
			sinfo -N 2>&1 || :
			local f
			for f in "$LIBRA_CLUSTER_DIR"/log/slurmctld.log "$LIBRA_CLUSTER_DIR"/log/slurmctld-backup.log \
				"$LIBRA_CLUSTER_DIR"/log/slurmd-*.log \
				"$LIBRA_CLUSTER_DIR"/log/slurmdbd.log; do
				[ -s "$f" ] || continue
				echo "--- last 25 lines of $f"
				tail -n 25 "$f"
			done
		} >&2
	fi
	exit 1
}

# Two at a time (run-tests runs make check with -j2): the tests that wait
# on states, which the compatibility suite runs beside another release's
# tests (tests/compat/run-compat), may run beside each other, and so may
# test_sched_power, whose jobs sleep and whose cheap minute is 3 minutes
# ahead, the mixed workloads (../mixed) that compare their two
# clusters' figures with seconds of slack, not CPU time, and the attacks of
# unprivileged users (../reliability: rel_tamper, rel_hostile); every other test (one that measures CPU time, gives a restart a
# fixed time, boots a VM, ...) runs alone.  test_sched_predict's
# parts 1 to 3 (the compatibility suite runs part 4 alone) learn run times
# from the wall time of jobs that burn CPU: beside another test they ran
# 3.4 times slower, and part 4's prediction no longer fit its deadline.
# A test takes the build tree's lock shared or exclusive before it starts
# its cluster.
LIBRA_CONCURRENT='test_basic_job test_submit_malformed test_submit_records
test_submit_tamper test_sched_deadlines test_sched_faults test_enforce_v2
test_sched_resources test_release_tools test_submit_booked
test_sched_reconfig test_sched_replan test_sched_opt test_sched_array
test_market_money test_market_owner test_sched_power
test_mixed_busy test_mixed_book test_mixed_wide test_mixed_owner
test_mixed_preempt test_sched_warm test_sched_speed test_sched_metrics
test_submit_quotes test_submit_tender
rel_tamper rel_hostile'

# _libra_lock: hold the lock (shared for LIBRA_CONCURRENT, else exclusive)
# until this script exits.  A process of its own holds it, so that the
# cluster's daemons, started from here, never inherit the lock; it says
# one line once it holds it.  It watches this script by its pid and start
# time (/proc/PID/stat's field 22): a pid alone is given to another
# process once this one has ended, which a suite's thousands of processes
# reach within minutes (pid_max 32768), and a holder that watched the pid
# alone then held the lock for the new process, for ever.
# shellcheck disable=SC2016 # expanded by the holder's shell
LIBRA_STARTED='started() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0; s=${s##*) }; set -- $s; echo "${20}"; }'
# shellcheck disable=SC2016
LIBRA_LOCK_HOLDER="$LIBRA_STARTED"'
echo held
while [ "$(started "$1")" = "$2" ]; do sleep 0.5; done'
_libra_lock() {
	local lock=$LIBRA_BUILD/_build/tests.lock mode=-x how=alone fd t0=$SECONDS
	local me
	if [[ " ${LIBRA_CONCURRENT//$'\n'/ } " == *" $LIBRA_TEST "* ]]; then
		mode=-s
		how='beside one other'
	fi
	mkdir -p "$LIBRA_BUILD/_build"
	me=$(bash -c "$LIBRA_STARTED"$'\n''started "$1"' libra-lock "$$") &&
		[ -n "$me" ] || fail "cannot read the start time of process $$"
	exec {fd}< <(flock "$mode" "$lock" bash -c "$LIBRA_LOCK_HOLDER" \
		libra-lock "$$" "$me" </dev/null 2>/dev/null)
	read -r -u "$fd" _ || fail "cannot take the test lock $lock"
	exec {fd}<&-
	[ $((SECONDS - t0)) -lt 2 ] ||
		note "waited $((SECONDS - t0)) s for the other test to end (this one runs $how)"
	SECONDS=0	# its own run time, on its PASS line
}

# libra_test_init: skip unless we can run a cluster; settle where it lives.
libra_test_init() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (it starts munged, MariaDB and Slurm daemons)"
	if [ "${LIBRA_HAVE_PLUGINS:-yes}" != yes ]; then
		skip "the plugins were not built (configure found no Slurm source; run contrib/setup)"
	fi
	_libra_lock
	export LIBRA_CLUSTER_DIR=${LIBRA_TEST_CLUSTER_DIR:-$LIBRA_BUILD/_cluster-$LIBRA_TEST}
	if [ -z "${LIBRA_PORT_BASE:-}" ]; then
		local h
		h=$(printf '%s' "$LIBRA_TEST" | cksum | cut -d' ' -f1)
		export LIBRA_PORT_BASE=$((20000 + (h % 12) * 1000))
	fi
	export LIBRA_PLUGIN_DIR=${LIBRA_PLUGIN_DIR:-$LIBRA_BUILD/_plugins}
	eval "$("$LIBRA_CLUSTER" env)"
	LIBRA_WORK=$LIBRA_CLUSTER_DIR/work
	# A failed run keeps its scratch directory; its job outputs, owned by
	# the test users, would keep this run's jobs (other uids, the sticky
	# work directory) from opening theirs: the work directory is this
	# run's alone.
	rm -rf "$LIBRA_WORK"
	trap _libra_exit EXIT
}

# On exit: stop the cluster (unless LIBRA_KEEP_CLUSTER=1); after a pass,
# also remove the scratch directory the test made (~100 MB, mostly MariaDB);
# after a failure keep it for a look at the logs.
_libra_exit() {
	local rc=$?
	if [ "${LIBRA_KEEP_CLUSTER:-0}" = 1 ]; then
		[ "$LIBRA_STARTED" = 0 ] ||
			note "leaving the cluster running (LIBRA_KEEP_CLUSTER=1): $("$LIBRA_CLUSTER" env | tr '\n' ' ')"
		exit "$rc"
	fi
	if [ "$LIBRA_STARTED" = 1 ]; then
		# a test that failed never reached cluster_stop: its tally too
		tally_unstarted "$LIBRA_CLUSTER_DIR"
		"$LIBRA_CLUSTER" stop >/dev/null 2>&1 || :
	fi
	scratch_done "$rc" "$LIBRA_CLUSTER_DIR" "$LIBRA_CLUSTER_DIR/log"
}

# scratch_done RC DIR LOGS: the end of a test's exit trap.  After a pass,
# remove the test's scratch directory DIR if it is the default one
# (_cluster-<test> in the build tree, LIBRA_TEST_CLUSTER_DIR unset); after
# a failure keep it and say where LOGS are.  Then exit RC.
scratch_done() {
	if [ "$1" = 0 ] && [ -z "${LIBRA_TEST_CLUSTER_DIR:-}" ] &&
		[ "$2" = "$LIBRA_BUILD/_cluster-$LIBRA_TEST" ]; then
		rm -rf "$2"
	elif [ "$1" != 0 ] && [ "$1" != 77 ]; then
		note "logs kept in $3"
	fi
	exit "$1"
}

# cluster_start: a fresh cluster (any earlier one in the same scratch
# directory is stopped and discarded), configured by the LIBRA_* variables
# (contrib/cluster/README.md) the test exported before.
#
# Two clusters started at the same moment can pick the same free ports
# (libra_free_port_base checks, then the daemons bind): a start that fails
# because a port is in use moves to the next free port range and tries
# again, up to 3 times.
cluster_start() {
	local t0=$SECONDS try out rc
	out=$(mktemp "${TMPDIR:-/tmp}/libra-start.XXXXXX")
	for try in 1 2 3; do
		rc=0
		"$LIBRA_CLUSTER" start --restart --fresh >"$out" 2>&1 || rc=$?
		cat "$out"
		[ "$rc" != 0 ] || break
		if [ "$try" = 3 ] || ! grep -q 'in use' "$out"; then
			rm -f "$out"
			LIBRA_STARTED=0
			fail "the cluster did not start"
		fi
		note "a port of the cluster was taken meanwhile (another cluster started at the same time): again on other ports"
		export LIBRA_PORT_BASE=$((LIBRA_PORT_BASE + 1000 > 31000 ? 20000 : LIBRA_PORT_BASE + 1000))
		libra_free_port_base
	done
	rm -f "$out"
	LIBRA_STARTED=1
	mkdir -p "$LIBRA_WORK"
	chmod 1777 "$LIBRA_WORK"
	note "cluster up in $((SECONDS - t0)) s ($LIBRA_CLUSTER_DIR, ports from $LIBRA_PORT_BASE)"
}

# cluster_stop: stop the cluster; remember which processes it had, for
# assert_nothing_left.
LIBRA_STOPPED_PIDS=
# tally_unstarted DIR: add each admitted job sched/libra cancelled at its
# hard deadline unstarted in cluster DIR, with the reason it was pending,
# to the suite's tally (LIBRA_UNSTARTED_LOG, default _build/unstarted.log;
# run-tests prints it): the suite shows that no admitted job ends
# UNSTARTED for a reason admission could have seen (design.md decision 29).
tally_unstarted() {
	local log=${LIBRA_UNSTARTED_LOG:-$LIBRA_TOP/_build/unstarted.log} rel
	rel=${LIBRA_SLURM_PREFIX:+ (${LIBRA_SLURM_PREFIX##*/})}
	mkdir -p "$(dirname "$log")" 2>/dev/null || return 0
	cat "$1"/log/slurmctld*.log 2>/dev/null |
		sed -n 's/.*sched\/libra: \(JobId=[0-9]*\) could not start before its hard deadline (\([^)]*\)).*/\1 \2/p' |
		sed "s|^|$LIBRA_TEST$rel: |" >>"$log" || :
}

cluster_stop() {
	tally_unstarted "$LIBRA_CLUSTER_DIR"
	LIBRA_STOPPED_PIDS=$(cat "$LIBRA_CLUSTER_DIR"/pids/* 2>/dev/null | cut -d' ' -f1-2 | tr '\n' ';')
	LIBRA_CGROUP=$(cat "$LIBRA_CLUSTER_DIR/run/cgroup" 2>/dev/null || :)
	"$LIBRA_CLUSTER" stop || fail "libra-cluster stop failed"
	LIBRA_STARTED=0
}

# assert_nothing_left: none of the processes the cluster started (daemons by
# their pid records, job processes by the cluster's cgroup) still runs.
assert_nothing_left() {
	local rec pid st now left=()
	local IFS=';'
	for rec in $LIBRA_STOPPED_PIDS; do
		[ -n "$rec" ] || continue
		pid=${rec% *}
		st=${rec#* }
		now=$(awk '{ sub(/.*\) /, ""); print $1, $20 }' "/proc/$pid/stat" 2>/dev/null) || continue
		case $now in Z* | X*) continue ;; esac
		[ "${now#* }" = "$st" ] && left+=("$pid")
	done
	unset IFS
	[ "${#left[@]}" -eq 0 ] ||
		fail "processes of the cluster still run after stop: $(IFS=,; ps -o pid=,args= -p "${left[*]}" 2>/dev/null)"
	if [ -n "${LIBRA_CGROUP:-}" ] && [ -f "$LIBRA_CGROUP/cgroup.procs" ] && [ -s "$LIBRA_CGROUP/cgroup.procs" ]; then
		fail "processes remain in the cluster's cgroup $LIBRA_CGROUP: $(tr '\n' ' ' <"$LIBRA_CGROUP/cgroup.procs")"
	fi
}

# ---------------------------------------------------------------------------
# Waiting and assertions
# ---------------------------------------------------------------------------

# wait_until SECONDS DESCRIPTION COMMAND...: poll COMMAND until it succeeds.
wait_until() {
	local limit=$1 what=$2 deadline
	shift 2
	deadline=$((SECONDS + limit))
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${limit}s waiting for $what"
		sleep 0.2
	done
}

assert_eq() { # expected actual what
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
}

assert_match() { # extended-regex actual what
	[[ $2 =~ $1 ]] || fail "$3: '$2' does not match /$1/"
}

assert_file_contains() { # file fixed-string what
	[ -f "$1" ] || fail "$3: file $1 does not exist"
	grep -qF -- "$2" "$1" || fail "$3: '$2' not in $1, which holds: $(head -c 500 "$1")"
}

# ---------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------

# job_state JOBID: the state slurmctld reports (empty once the job is purged).
job_state() { squeue -h -j "$1" -t all -o '%T' 2>/dev/null | awk 'NR == 1'; }

job_in_state() { [ "$(job_state "$1")" = "$2" ]; }

# job_ended JOBID: the job is no longer pending, running or completing.
job_ended() {
	case $(job_state "$1") in
	PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | REQUEUED | RESIZING) return 1 ;;
	*) return 0 ;;
	esac
}

# Gates.  A job that must still run when the test looks at it waits for
# the test to let it go, instead of running for a time the test hopes is
# long enough: a busy machine can make any daemon restart or step launch
# take longer than a fixed duration.
#   libra_sbatch ... --wrap "$(gate_wait "$LIBRA_WORK/go" "$burn 1")"
#   ...            # look at it: it runs
#   gate_open "$LIBRA_WORK/go"
# gate_wait FILE [COMMAND]: a job script that waits (a sleep a second, no
# CPU) until FILE exists, then runs COMMAND.
gate_wait() { printf 'while [ ! -e %q ]; do sleep 1; done; %s' "$1" "${2:-true}"; }
gate_open() { touch "$1"; }

# job_overhead_ms WHAT SBATCH-ARGS...: what running a job costs on this
# machine now, besides the job's own work: from sbatch to the job's end
# as squeue shows it, the median of 3 probe jobs (admitted, one after the
# other), in ms (the three are noted).  A test whose jobs must
# keep deadlines sizes them from it (time_scale), so that start-up and
# clean-up, which a busy machine stretches, stay as small a part of each
# deadline as on an idle one.
job_overhead_ms() {
	local what=$1 i t0 ms=()
	shift
	for i in 1 2 3; do
		t0=$(date +%s%N)
		libra_sbatch_admitted "$what probe $i" "$@"
		wait_until 300 "$what probe job $SB_JOBID to end" job_ended "$SB_JOBID"
		ms+=($((($(date +%s%N) - t0) / 1000000)))
	done
	note "$what: overhead of 3 probe jobs: ${ms[*]} ms" >&2
	printf '%s\n' "${ms[@]}" | sort -n | awk 'NR == 2'
}

# time_scale OVERHEAD_MS BUDGET_MS [MAX]: the factor (an integer from 1 to
# MAX, default 10) by which a test stretches its jobs' times so that a
# job's overhead fits the BUDGET_MS it was written for:
# ceil(OVERHEAD_MS / BUDGET_MS).  Past MAX the machine is too busy for the
# test to take a reasonable time; it says so and runs at MAX.
time_scale() {
	local k=$((($1 + $2 - 1) / $2)) max=${3:-10}
	[ "$k" -ge 1 ] || k=1
	if [ "$k" -gt "$max" ]; then
		note "a job's overhead of $1 ms would need times x$k; running at x$max" >&2
		k=$max
	fi
	echo "$k"
}

# sacct_field JOBID FIELD: one field of the job's accounting record
# (allocation line only).
sacct_field() { sacct -n -X -P -j "$1" -o "$2" 2>/dev/null | awk 'NR == 1'; }

sacct_in_state() { [ "$(sacct_field "$1" State)" = "$2" ]; }

# ---------------------------------------------------------------------------
# Deferred checks: a test that checks many independent things can report
# every broken one in one run instead of stopping at the first.
# ---------------------------------------------------------------------------

LIBRA_FAILURES=()

# expect_fail MESSAGE: record a failed check and go on (see expect_done).
expect_fail() {
	LIBRA_FAILURES+=("$*")
	printf 'FAILED CHECK: %s: %s\n' "$LIBRA_TEST" "$*" >&2
}

expect_eq() { # expected actual what
	[ "$1" = "$2" ] || expect_fail "$3: expected '$1', got '$2'"
}

expect_contains() { # text fixed-string what
	[[ $1 == *"$2"* ]] || expect_fail "$3: '$2' not in: $1"
}

# expect_done: fail (with every recorded message) if any check failed.
expect_done() {
	[ "${#LIBRA_FAILURES[@]}" -eq 0 ] && return 0
	local m all=
	for m in "${LIBRA_FAILURES[@]}"; do
		all+=$'\n  - '"$m"
	done
	fail "${#LIBRA_FAILURES[@]} check(s) failed:$all"
}

assert_contains() { # text fixed-string what
	[[ $1 == *"$2"* ]] || fail "$3: '$2' not in: $1"
}

# ---------------------------------------------------------------------------
# A cluster with the slurm-libra plugins
# ---------------------------------------------------------------------------

# SchedulerParameters of every plugin test; libra_cluster_env's arguments
# replace (same key) or extend them.  libra_no_sla=best_effort with
# sched_interval=-1,defer: slurmctld's own scheduler starts nothing,
# sched/libra starts every job, those without an SLA best effort (the
# tests written before decision 27; tests/parity runs the default,
# libra_no_sla=slurm, beside stock Slurm).  libra_settle_paper=yes and
# libra_penalty_cap=0: the papers' settlement, whose formulas these tests
# check (decision 37; tests/market runs the site's, the default).
LIBRA_SCHED_DEFAULTS=(sched_interval=-1 defer libra_no_sla=best_effort 'libra_policy=libra+$' libra_interval=5 libra_settle_paper=yes libra_penalty_cap=0)

# libra_cluster_env [KEY[=VALUE]...]: configure the next cluster_start for
# the plugins: SchedulerType=sched/libra, JobSubmitPlugins=qos,
# JobCompType=jobcomp/libra and the SPANK plugin (sbatch --runtime,
# --budget, ...).  Arguments are SchedulerParameters entries, e.g.
#   libra_cluster_env libra_policy=libra libra_price_base=100
# Skips the test when the plugins were not built.  Call it after
# libra_test_init; other LIBRA_* knobs (LIBRA_NODES, LIBRA_USERS, ...) may
# be set before or after it, before cluster_start.
libra_cluster_env() {
	local so kv i hit params
	for so in sched_libra.so job_submit_qos.so jobcomp_libra.so libra_spank.so libslurm_libra.so; do
		[ -f "$LIBRA_PLUGIN_DIR/$so" ] ||
			skip "$LIBRA_PLUGIN_DIR/$so is missing (build the plugins: make)"
	done
	libra_find_python
	params=("${LIBRA_SCHED_DEFAULTS[@]}")
	for kv in "$@"; do
		hit=0
		for i in "${!params[@]}"; do
			if [ "${params[i]%%=*}" = "${kv%%=*}" ]; then
				params[i]=$kv
				hit=1
			fi
		done
		[ "$hit" = 1 ] || params+=("$kv")
	done
	LIBRA_SCHEDULER_PARAMETERS=$(IFS=,; printf '%s' "${params[*]}")
	export LIBRA_SCHEDULER_TYPE=sched/libra LIBRA_SCHEDULER_PARAMETERS
	export LIBRA_JOB_SUBMIT_PLUGINS=qos LIBRA_JOBCOMP_TYPE=jobcomp/libra
	export LIBRA_PLUGSTACK='required libra_spank.so pin=yes interval=1'
	libra_free_port_base
}

# Is a TCP port taken (something listens on it)?
_libra_port_taken() { [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]; }

# libra_free_port_base: the port base libra_test_init derived from the test
# name is shared by several test names (12 slots, below the ephemeral port range 32768-60999 so that no outgoing connection can hold a daemon's port); when another cluster
# (a test run by someone else at the same time) holds one of its ports,
# move to the next slot that is free.
libra_free_port_base() {
	local base=$LIBRA_PORT_BASE tries=0 off busy
	command -v ss >/dev/null 2>&1 || return 0
	while :; do
		busy=
		for off in 306 817 819 $(seq 1 "${LIBRA_NODES:-4}"); do
			if _libra_port_taken $((base + off)); then
				busy=$((base + off))
				break
			fi
		done
		[ -n "$busy" ] || break
		tries=$((tries + 1))
		[ "$tries" -lt 12 ] || fail "no free range of ports for the cluster (tried 12 slots)"
		base=$((base + 1000))
		[ "$base" -le 31000 ] || base=20000
	done
	if [ "$base" != "$LIBRA_PORT_BASE" ]; then
		note "ports from $LIBRA_PORT_BASE are taken; using $base"
		export LIBRA_PORT_BASE=$base
	fi
}

# libra_find_python: LIBRA_PYTHON, a python3 for reading the JSON records
# (the system's first: a pyenv shim costs 0.4 s a call); skip without one.
LIBRA_PYTHON=
libra_find_python() {
	[ -z "$LIBRA_PYTHON" ] || return 0
	if [ -x /usr/bin/python3 ]; then
		LIBRA_PYTHON=/usr/bin/python3
	else
		LIBRA_PYTHON=$(command -v python3 2>/dev/null) || skip "no python3 (contrib/setup installs it)"
	fi
}

# slurmctld_pid: the pid of the cluster's slurmctld (its pid record).
slurmctld_pid() { awk '{ print $1 }' "$LIBRA_CLUSTER_DIR/pids/slurmctld" 2>/dev/null || :; }

# assert_slurmctld_up PID: slurmctld answers "scontrol ping" and is still
# the process PID (it did not crash and get restarted).
# A busy machine can keep a live slurmctld from answering one ping within
# its timeout (10 s, MessageTimeout): it is asked again, for up to 2
# minutes, as long as the process lives.
assert_slurmctld_up() {
	local ping deadline=$((SECONDS + 120))
	while :; do
		ping=$(scontrol ping 2>&1) || :
		[[ $ping != *UP* ]] || break
		[ -d "/proc/$1" ] || fail "slurmctld (pid $1) is gone"
		[ "$SECONDS" -lt "$deadline" ] || fail "slurmctld does not answer: $ping"
		sleep 1
	done
	[ -d "/proc/$1" ] || fail "slurmctld (pid $1) is gone"
	assert_eq "$1" "$(slurmctld_pid)" "pid of slurmctld"
}

# ctld_log_count FIXED-STRING: how many lines of slurmctld's log have it.
ctld_log_count() { grep -cF -- "$1" "$LIBRA_CLUSTER_DIR/log/slurmctld.log" || :; }

# ---------------------------------------------------------------------------
# Submissions and records
# ---------------------------------------------------------------------------

# libra_sbatch ARGS...: sbatch in $LIBRA_WORK (output job-<id>.out there),
# as user $SB_USER when that is set (runuser; SLURM_CONF is kept).  Sets
# SB_RC (exit status), SB_OUT (stdout and stderr: the libra line, the
# "Submitted batch job" line) and SB_JOBID (empty when no job was made).
# A refusal must be final, but sbatch retries some error codes (for
# ESLURM_NODES_BUSY: 15 times, 2 minutes in all, submitting again each
# time): when sbatch says it is retrying, it is stopped at once and
# SB_RETRIED=1, SB_RC=1; SB_OUT has what it printed until then.
SB_USER=
libra_sbatch() {
	local run=(timeout 60) out pid
	[ -z "$SB_USER" ] || run=(runuser -u "$SB_USER" -- timeout 60)
	out=$(mktemp "${TMPDIR:-/tmp}/libra-sbatch.XXXXXX")
	"${run[@]}" sbatch -D "$LIBRA_WORK" -o "$LIBRA_WORK/job-%j.out" "$@" >"$out" 2>&1 &
	pid=$!
	SB_RETRIED=0
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q 'retrying' "$out"; then
			SB_RETRIED=1
			kill "$pid" 2>/dev/null || :
			break
		fi
		sleep 0.01
	done
	SB_RC=0
	wait "$pid" || SB_RC=$?
	[ "$SB_RETRIED" = 0 ] || SB_RC=1
	SB_OUT=$(<"$out")
	rm -f "$out"
	SB_JOBID=
	if [[ $SB_OUT =~ Submitted\ batch\ job\ ([0-9]+) ]]; then
		SB_JOBID=${BASH_REMATCH[1]}
	fi
}

# libra_held_and_running USER: two admitted jobs of USER (1 CPU, 1 m by
# 30 m, budget 10), for tests of what an owner may do to them: H held from
# its submission (pending: Slurm itself lets the owner change most of its
# request) and R running, at a gate that never opens so that it runs
# however long the test takes, its start in its record.  Sets H and R.
# shellcheck disable=SC2034 # H and R are the caller's
H='' R=''
libra_held_and_running() {
	SB_USER=$1
	libra_sbatch_admitted "held job H" --hold -n 1 --comment="runtime=1m,deadline=30m,budget=10" --wrap 'sleep 60'
	# shellcheck disable=SC2034 # the caller's
	H=$SB_JOBID
	libra_sbatch_admitted "running job R" -n 1 --comment="runtime=1m,deadline=30m,budget=10" \
		--wrap "$(gate_wait "$LIBRA_WORK/never")"
	R=$SB_JOBID
	SB_USER=
	wait_until 120 "job $R to run" job_in_state "$R" RUNNING
	wait_until 60 "job $R's record to have its start" _record_has_start "$R"
}
# shellcheck disable=SC2317 # called by wait_until
_record_has_start() { [[ $(job_record "$1") == *'"start":'* ]]; }

# libra_sbatch_admitted WHAT ARGS...: submit, and fail unless the job was
# admitted ("libra: admitted: ...") and created; sets what libra_sbatch sets.
libra_sbatch_admitted() {
	local what=$1
	shift
	libra_sbatch "$@"
	if [ "$SB_RC" != 0 ] || [ -z "$SB_JOBID" ]; then
		fail "$what: sbatch $* was not accepted (exit $SB_RC): $SB_OUT"
	fi
	assert_contains "$SB_OUT" "libra: admitted: price " "$what: sbatch's message"
}

# libra_sbatch_refused WHAT EXPECTED ARGS...: submit; it must be refused
# with a message that contains EXPECTED, and no job may be created.  A
# refusal that sbatch retried is a failed check (expect_fail) that lets the
# test go on; anything else wrong fails the test at once.
libra_sbatch_refused() {
	local what=$1 want=$2
	shift 2
	libra_sbatch "$@"
	if [ -n "$SB_JOBID" ] || [ "$SB_RC" = 0 ]; then
		fail "$what: sbatch $* was accepted (job '$SB_JOBID'), expected a refusal with '$want': $SB_OUT"
	fi
	assert_contains "$SB_OUT" "$want" "$what: sbatch's message"
	[ "$SB_RETRIED" = 0 ] ||
		expect_fail "$what: sbatch retried the refusal (slurmctld returned an error code that sbatch retries, e.g. ESLURM_NODES_BUSY); a refusal must be final: $SB_OUT"
}

# libra_quote WHAT SLA: a binding quote for 1 CPU (job_submit_qos(8),
# "Binding quotes": SLA plus quote=hold, under --test-only); sets QID,
# QPRICE (as sbatch printed it) and QAT (when it was given, epoch).
libra_quote() {
	local re='libra: quote ([0-9]+): price ([0-9.]*[0-9]) '
	libra_sbatch --test-only -n 1 --comment="$2,quote=hold" --wrap 'sleep 1'
	assert_eq 0 "$SB_RC" "$1: sbatch --test-only ... quote=hold exit status ($SB_OUT)"
	[[ $SB_OUT =~ $re ]] || fail "$1: no quote in: $SB_OUT"
	# shellcheck disable=SC2034 # for the caller
	QID=${BASH_REMATCH[1]} QPRICE=${BASH_REMATCH[2]}
	# shellcheck disable=SC2034 # for the caller
	QAT=$(date +%s)
	assert_eq "" "$SB_JOBID" "$1: job id from sbatch --test-only"
	note "$1: $(sed -n 's/.*\(libra: quote .*\)/\1/p' <<<"$SB_OUT")"
}

# job_record JOBID: the job's AdminComment (its Libra record, JSON) as
# slurmctld has it now; empty if none or no such job.
job_record() {
	{ scontrol show job "$1" 2>/dev/null || :; } | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//'
}

# job_field JOBID KEY: one KEY=VALUE of "scontrol show job" (the first).
job_field() {
	{ scontrol show -o job "$1" 2>/dev/null || :; } | tr ' ' '\n' | sed -n "s|^$2=||p" | awk 'NR == 1'
}

# sacct_record JOBID: the AdminComment accounting has for the job (it
# arrives with the job's completion record).
sacct_record() { sacct -n -X -P -j "$1" -o AdminComment%8000 2>/dev/null | awk 'NR == 1'; }

# sacct_record_final JOBID: accounting has the job's settled record.
sacct_record_final() { [[ $(sacct_record "$1") == *'"final":{'* ]]; }

# assert_ran_once_and_met WHAT JOBID...: wait for the jobs to end and for
# their settled records; each has one accounting row (sacct -D: a job run
# twice or requeued has more), COMPLETED, one settlement that met its
# deadline and charged its admitted price.
assert_ran_once_and_met() {
	local what=$1 ids
	shift
	ids=$(IFS=,; echo "$*")
	wait_until 300 "all jobs to end ($what)" bash -c "[ -z \"\$(squeue -h -j $ids -o %i)\" ]"
	wait_until 120 "accounting to have every settled record ($what)" \
		bash -c "[ \"\$(sacct -n -X -P -j $ids -o AdminComment%65535 | grep -c '\"final\"')\" -ge $# ]"
	sacct -n -X -D -P -j "$ids" -o JobID,State,AdminComment%65535 | "$LIBRA_PYTHON" -c "
import json, sys
seen = {}
for line in sys.stdin:
    jid, state, rec = line.rstrip('\n').split('|', 2)
    seen[jid] = seen.get(jid, 0) + 1
    assert rec.count('\"final\"') == 1, (jid, rec)
    r = json.loads(rec)
    f = r['final']
    assert state == 'COMPLETED' and f['how'] == 'COMPLETED' and f['met'], (jid, state, f)
    assert abs(f['charge'] - r['admit']['price']) < 1e-9, (jid, f)
assert all(n == 1 for n in seen.values()), seen
assert len(seen) == $#, seen
" || fail "records after $what are not complete and single: $(sacct -n -X -D -P -j "$ids" -o JobID,State,AdminComment%300)"
}

# slurm_minutes MINUTES: a time limit as scontrol and sacct show it.
slurm_minutes() {
	local m=$1
	if [ "$m" -ge 1440 ]; then
		printf '%d-%02d:%02d:00' $((m / 1440)) $((m % 1440 / 60)) $((m % 60))
	else
		printf '%02d:%02d:00' $((m / 60)) $((m % 60))
	fi
}

# json_get JSON PATH: the value at PATH (keys and list indices separated by
# dots, e.g. admit.place.0.node); strings as they are, anything else as
# JSON (true, 0.0187, [...]).  Fails if PATH is not there.
json_get() {
	"$LIBRA_PYTHON" - "$1" "$2" <<'PY'
import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v if isinstance(v, str) else json.dumps(v))
PY
}

# no_jobs_exist: slurmctld knows no job at all (pending, running or ended).
no_jobs_exist() {
	local out
	out=$(squeue -h -t all -o %i 2>&1) || return 2
	[ -z "$out" ]
}

# no_jobs_active: no job is pending, running, completing or suspended.
no_jobs_active() {
	local out
	out=$(squeue -h -t PD,R,CG,S,CF -o %i 2>&1) || return 2
	[ -z "$out" ]
}

# libra_at_exit COMMAND: also run COMMAND (a string, eval'd) when the test
# exits, before the cluster is stopped; the exit status is kept.
LIBRA_AT_EXIT=
libra_at_exit() {
	LIBRA_AT_EXIT+="$1"$'\n'
	trap _libra_exit_hooks EXIT
}
_libra_exit_hooks() {
	local rc=$?
	eval "$LIBRA_AT_EXIT" || :
	set +e
	(exit "$rc") # _libra_exit takes the status from $?
	_libra_exit
}

# libra_add_user [SUFFIX]: create an ordinary user (libratest<pid>, or
# libratest<pid><SUFFIX> for a second one; home in the scratch directory,
# removed when the test exits) for jobs that are not root's; sets
# LIBRA_USER and adds it to LIBRA_USERS, so call it before cluster_start.
LIBRA_USER=
libra_add_user() {
	LIBRA_USER=libratest$$${1:-}
	command -v useradd >/dev/null 2>&1 || skip "no useradd"
	! id "$LIBRA_USER" >/dev/null 2>&1 || fail "user $LIBRA_USER exists already"
	mkdir -p "$LIBRA_CLUSTER_DIR"
	useradd -M -d "$LIBRA_CLUSTER_DIR/home-$LIBRA_USER" -s /bin/sh "$LIBRA_USER" ||
		fail "useradd $LIBRA_USER failed"
	libra_at_exit "userdel -f $LIBRA_USER >/dev/null 2>&1; rm -rf '$LIBRA_CLUSTER_DIR/home-$LIBRA_USER'"
	mkdir -p "$LIBRA_CLUSTER_DIR/home-$LIBRA_USER"
	chown "$LIBRA_USER:" "$LIBRA_CLUSTER_DIR/home-$LIBRA_USER"
	export LIBRA_USERS="${LIBRA_USERS:+$LIBRA_USERS }$LIBRA_USER"
}

# ---------------------------------------------------------------------------
# Reliability suite (tests/reliability): modes, tools, measurements
# ---------------------------------------------------------------------------

# libra_long: true in the suite's LONG (soak) mode, LIBRA_LONG=1.
libra_long() { [ "${LIBRA_LONG:-0}" = 1 ]; }

# libra_mode: "long" or "quick", for messages.
libra_mode() { if libra_long; then echo long; else echo quick; fi; }

# libra_rel_tool NAME: the path of a helper program of tests/reliability
# (built by its "make check"); fails when it was not built.
libra_rel_tool() {
	local d=${LIBRA_REL_BIN:-$LIBRA_BUILD/tests/reliability}
	[ -x "$d/$1" ] || fail "$d/$1 is missing: run 'make -C tests/reliability check' (or 'make check') first"
	printf '%s' "$d/$1"
}

# ctld_plugin_errors: the "error:" lines of slurmctld's log (and of the
# backup's, LIBRA_BACKUP=1) that come from our plugins (they all name libra
# or job_submit/qos).
ctld_plugin_errors() {
	grep -hE 'error: .*(libra|job_submit/qos)' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" \
		"$LIBRA_CLUSTER_DIR/log/slurmctld-backup.log" 2>/dev/null || :
}

# node_plugin_errors: the "error:" lines of the slurmd logs (where
# slurmstepd's go too) that come from the libra SPANK plugin.
node_plugin_errors() {
	grep -hE 'error: libra:' "$LIBRA_CLUSTER_DIR"/log/slurmd-*.log 2>/dev/null || :
}

# proc_rss_kb PID: resident memory of a process (VmRSS, kB); empty if gone.
proc_rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || :; }

# cmd_ms COMMAND...: run COMMAND (output discarded), print its wall time in
# milliseconds; the exit status is COMMAND's.
cmd_ms() {
	local t0 t1 rc=0
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
	return "$rc"
}

# dbd_queue_empty: slurmctld has nothing left to send to slurmdbd.
dbd_queue_empty() {
	local q
	q=$(sdiag 2>/dev/null | sed -n 's/^ *DBD Agent queue size: *//p')
	[ "$q" = 0 ]
}

# sacct_dump FILE [JOBIDS]: every job's allocation row as accounting has
# it, with duplicates (a job id used twice, a requeued run): one line each,
# JobID|JobName|State|Submit|Start|End|AdminComment.  With JOBIDS (comma-
# separated) those jobs, else every job in a time window since 2000; a
# window leaves out jobs that were never eligible (held, then cancelled:
# Eligible=Unknown), so pass the ids when they are known.
sacct_dump() {
	local sel=(-a -S 2000-01-01 -E now)
	[ -z "${2:-}" ] || sel=(-j "$2")
	sacct -n -X -D -P "${sel[@]}" \
		-o JobID,JobName%40,State,Submit,Start,End,AdminComment%65535 >"$1"
}

# records_check FILE FIELD [--final]: every record in FILE (pipe-separated
# lines, the first field a label, the record from field FIELD to the end of
# the line: 7 for sacct_dump's) is well formed for the policy core's own
# decoder (tests/reliability/record_check); prints its summary line, fails
# the test on a bad one.
records_check() {
	local file=$1 field=$2 out rc=0
	shift 2
	out=$(awk -v n="$field" '{ lab = $0; sub(/\|.*/, "", lab); s = $0
		for (i = 1; i < n; i++) sub(/^[^|]*\|/, "", s)
		print lab "|" s }' "$file" | "$(libra_rel_tool record_check)" "$@") || rc=$?
	[ "$rc" = 0 ] || fail "malformed records ($file): $(head -c 2000 <<<"$out")"
	tail -n 1 <<<"$out"
}

# wait_until_ok SECONDS COMMAND...: poll COMMAND until it succeeds; return
# 1 (instead of failing the test, as wait_until does) after SECONDS.
wait_until_ok() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}
