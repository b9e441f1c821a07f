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

pass() {
	printf 'PASS: %s\n' "$LIBRA_TEST"
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
			for f in "$LIBRA_CLUSTER_DIR"/log/slurmctld.log "$LIBRA_CLUSTER_DIR"/log/slurmd-*.log \
				"$LIBRA_CLUSTER_DIR"/log/slurmdbd.log; do
				[ -s "$f" ] || continue
				echo "--- last 25 lines of $f"
				tail -n 25 "$f"
			done
		} >&2
	fi
	exit 1
}

# libra_test_init: skip unless we can run a cluster; settle where it lives.
libra_test_init() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (it starts munged, MariaDB and Slurm daemons)"
	if [ "${LIBRA_HAVE_PLUGINS:-yes}" != yes ]; then
		skip "the plugins were not built (configure found no Slurm source; run contrib/setup)"
	fi
	export LIBRA_CLUSTER_DIR=${LIBRA_TEST_CLUSTER_DIR:-$LIBRA_BUILD/_cluster-$LIBRA_TEST}
	if [ -z "${LIBRA_PORT_BASE:-}" ]; then
		local h
		h=$(printf '%s' "$LIBRA_TEST" | cksum | cut -d' ' -f1)
		export LIBRA_PORT_BASE=$((20000 + (h % 40) * 1000))
	fi
	export LIBRA_PLUGIN_DIR=${LIBRA_PLUGIN_DIR:-$LIBRA_BUILD/_plugins}
	eval "$("$LIBRA_CLUSTER" env)"
	LIBRA_WORK=$LIBRA_CLUSTER_DIR/work
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
		"$LIBRA_CLUSTER" stop >/dev/null 2>&1 || :
	fi
	if [ "$rc" = 0 ] && [ -z "${LIBRA_TEST_CLUSTER_DIR:-}" ] &&
		[ "$LIBRA_CLUSTER_DIR" = "$LIBRA_BUILD/_cluster-$LIBRA_TEST" ]; then
		rm -rf "$LIBRA_CLUSTER_DIR"
	elif [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
		note "logs kept in $LIBRA_CLUSTER_DIR/log"
	fi
	exit "$rc"
}

# cluster_start: a fresh cluster (any earlier one in the same scratch
# directory is stopped and discarded), configured by the LIBRA_* variables
# (contrib/cluster/README.md) the test exported before.
cluster_start() {
	local t0=$SECONDS
	if ! "$LIBRA_CLUSTER" start --restart --fresh; then
		LIBRA_STARTED=0
		fail "the cluster did not start"
	fi
	LIBRA_STARTED=1
	mkdir -p "$LIBRA_WORK"
	chmod 1777 "$LIBRA_WORK"
	note "cluster up in $((SECONDS - t0)) s ($LIBRA_CLUSTER_DIR, ports from $LIBRA_PORT_BASE)"
}

# cluster_stop: stop the cluster; remember which processes it had, for
# assert_nothing_left.
LIBRA_STOPPED_PIDS=
cluster_stop() {
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

# sacct_field JOBID FIELD: one field of the job's accounting record
# (allocation line only).
sacct_field() { sacct -n -X -P -j "$1" -o "$2" 2>/dev/null | awk 'NR == 1'; }

sacct_in_state() { [ "$(sacct_field "$1" State)" = "$2" ]; }
