#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Slurm's own regression tests with the plugins loaded.
#
# Runs a curated subset of Slurm's Python test suite (testsuite/python of
# the Slurm source tree the plugins are built against, "local-config" mode)
# twice: against a stock cluster (sched/backfill, no job_submit, jobcomp or
# SPANK plugin) and against the same cluster with all of slurm-libra loaded
# (sched/libra, job_submit/qos, jobcomp/libra, libra_spank.so).  Slurm's
# tests submit no SLA, so under the plugins every one of their jobs is a job
# without an SLA, scheduled by Slurm's own main scheduler and the
# sched/backfill that sched/libra loads (libra_no_sla=slurm, the default;
# sched_libra(8) JOBS WITHOUT AN SLA), which must behave exactly as under
# stock Slurm.  Both clusters run priority/multifactor and hold a
# reservation.  Prints a table of every test, stock against
# plugins, and a summary line; fails when a test that passed on stock does
# not pass with the plugins, unless expected-differences.txt lists it with
# the documented reason.
#
# Exit status: 0 pass, 1 fail, 77 skip (not root, plugins not built, no
# testsuite/python in the source tree, no pytest).
#
# Knobs: LIBRA_SLURM_SRC (the Slurm source tree; make check passes the one
# configure found), LIBRA_LONG=1 (add subset-long.txt: the slow tests),
# LIBRA_SP_SUBSET (another file of tests to run instead), LIBRA_SP_TIMEOUT
# (seconds per test, default 240), LIBRA_SP_PARAMS (SchedulerParameters of
# the plugins' side), LIBRA_SP_ONLY=stock|plugins (run one
# side only, for a look; no comparison), LIBRA_KEEP_CLUSTER=1 (leave the
# last cluster running).

# shellcheck source=../integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"

SP_DIR=$(cd "$(dirname "$0")" && pwd)
SP_SUBSET=${LIBRA_SP_SUBSET:-$SP_DIR/subset.txt}
SP_LONG=${LIBRA_LONG:-0}
SP_EXPECTED=$SP_DIR/expected-differences.txt
SP_TIMEOUT=${LIBRA_SP_TIMEOUT:-240}
SP_PY=/usr/bin/python3
# SchedulerParameters of the plugins' cluster: sched/libra's default mode.
SP_LIBRA_PARAMS=${LIBRA_SP_PARAMS:-'libra_policy=libra+$,libra_interval=5,libra_no_sla=slurm'}

# Where the Slurm source tree is: make check passes it; by hand, the one
# contrib/setup prepared.
SP_SRC=${LIBRA_SLURM_SRC:-}
if [ -z "$SP_SRC" ]; then
	for d in "$LIBRA_TOP"/_slurm/slurm-wlm-*; do
		[ -d "$d" ] && SP_SRC=$d
	done
fi

libra_test_init
if [ -z "$SP_SRC" ] || [ ! -d "$SP_SRC" ]; then
	skip "no Slurm source tree (LIBRA_SLURM_SRC; contrib/setup prepares one in _slurm/)"
fi
SP_ATF=$SP_SRC/testsuite/python
if [ ! -f "$SP_ATF/conftest.py" ] || [ ! -f "$SP_ATF/lib/atf.py" ] || [ ! -d "$SP_ATF/tests" ]; then
	skip "the Slurm source tree $SP_SRC has no Python test suite (testsuite/python)"
fi
[ -x "$SP_PY" ] || skip "no $SP_PY (contrib/setup installs python3)"
"$SP_PY" -c 'import pytest, pexpect, py.io' 2>/dev/null ||
	skip "Slurm's Python test suite needs pytest, pexpect and py (Debian: python3-pytest python3-pexpect python3-py; contrib/setup installs them)"
SP_TIMEOUT_OPT=()
if "$SP_PY" -c 'import pytest_timeout' 2>/dev/null; then
	SP_TIMEOUT_OPT=("--timeout=$SP_TIMEOUT")
else
	note "no pytest-timeout (python3-pytest-timeout): no per-test time limit, only the run's"
fi
[ -f "$SP_SUBSET" ] || fail "no list of tests: $SP_SUBSET"

# The subset: one test file (or pytest node id) per line, relative to
# testsuite/python; comments and blank lines ignored.  A file missing from
# this source tree (another Slurm release) is left out, and said so.
SP_TESTS=()
SP_MISSING=()
while read -r t; do
	t=${t%%#*}
	t=${t%"${t##*[![:space:]]}"}
	[ -n "$t" ] || continue
	if [ -f "$SP_ATF/${t%%::*}" ]; then
		SP_TESTS+=("$t")
	else
		SP_MISSING+=("$t")
	fi
done < <(cat "$SP_SUBSET"; [ "$SP_LONG" != 1 ] || [ -n "${LIBRA_SP_SUBSET:-}" ] || cat "$SP_DIR/subset-long.txt")
[ "${#SP_MISSING[@]}" -eq 0 ] ||
	note "not in this source tree, left out: ${SP_MISSING[*]}"
[ "${#SP_TESTS[@]}" -gt 0 ] || skip "none of the tests of $SP_SUBSET is in $SP_ATF"

# Both clusters alike but for the plugins: 10 nodes of 4 CPUs (the hetjob
# test wants a node of 4), the last one held by a reservation (below) that
# none of the tests' jobs may use, which leaves 9 (srun --test-only wants
# 9, --preserve-env 6, --hostfile 5).  Partition batch: OverSubscribe=NO on
# stock, as a site runs it without slurm-libra; OverSubscribe=YES:8 with the
# plugins, which sched/libra's default mode (libra_no_sla=slurm) wants: a
# job without an SLA asks no sharing and gets CPUs of its own, as under NO.
# Settings the tests ask for in slurm.conf itself (local-config mode reads
# them from the file, and skips a test whose value is not written there),
# the same on both sides: priority/multifactor (sprio's tests and the
# multifactor priority test; only the partition factor weighs, the same for
# every job, so the priority of a job is its nice and hold alone, as the
# tests expect), Slurm's own defaults of switch/none and OverTimeLimit
# written out and, in the long mode, the kill and inactivity times of srun
# -t's test.
export LIBRA_NODES=${LIBRA_NODES:-10}
export LIBRA_NODE_CPUS=${LIBRA_NODE_CPUS:-4}
SP_RESV_NODE=n$LIBRA_NODES
LIBRA_EXTRA_CONF="$LIBRA_PRIORITY_CONF
SwitchType=switch/none
OverTimeLimit=0"
[ "$SP_LONG" != 1 ] || LIBRA_EXTRA_CONF+='
InactiveLimit=90
KillWait=30'
export LIBRA_EXTRA_CONF

SP_OUT=$LIBRA_CLUSTER_DIR/results
rm -rf "$SP_OUT"
mkdir -p "$SP_OUT"

# run_side MODE: start the cluster for MODE (stock|plugins), run the subset
# under pytest (junit XML in $SP_OUT/MODE.xml, its output in MODE.log); on
# the plugins' side, once the stock side's results are in ($SP_OUT/
# stock.done), run again what passed there and not here
# (plugins-rerunN.xml); stop the cluster and keep its logs in
# $SP_OUT/MODE-log.
run_side() {
	local mode=$1 t0=$SECONDS rc
	if [ "$mode" = plugins ]; then
		# shellcheck disable=SC2119 # the SchedulerParameters are set below
		libra_cluster_env
		# sched/libra's default mode, not the deprecated best_effort of
		# ../integration/lib.sh's defaults: no sched_interval=-1, no
		# defer, partitions OverSubscribe=YES:N.
		export LIBRA_SCHEDULER_PARAMETERS=$SP_LIBRA_PARAMS
		export LIBRA_OVERSUBSCRIBE=YES:8
	else
		unset LIBRA_SCHEDULER_TYPE LIBRA_SCHEDULER_PARAMETERS LIBRA_JOB_SUBMIT_PLUGINS \
			LIBRA_JOBCOMP_TYPE LIBRA_PLUGSTACK
		export LIBRA_OVERSUBSCRIBE=NO
		libra_free_port_base
	fi
	cluster_start
	# The reservation: the last node, for root, from now on.  No test asks
	# for it, so no job may run there (squeue, sinfo and the tests' node
	# counts show it RESERVED); the schedulers have to keep every job off.
	scontrol create reservation reservationname=libra_sp_resv users=root \
		nodes="$SP_RESV_NODE" starttime=now duration=infinite >/dev/null ||
		fail "$mode: scontrol create reservation failed"
	note "$mode: $(scontrol show config | awk '$1 ~ /^(SchedulerType|SchedulerParameters|PriorityType|JobSubmitPlugins|JobCompType|PlugStackConfig)$/ { printf "%s=%s ", $1, $3 }')OverSubscribe=$LIBRA_OVERSUBSCRIBE; reservation $(scontrol show reservation libra_sp_resv | grep -o 'Nodes=[^ ]*')"
	SP_CONF=$SP_OUT/testsuite-$mode.conf
	cat >"$SP_CONF" <<-EOF
		# Written by tests/slurm-python/test_slurm_python.sh for its $mode cluster.
		SlurmSourceDir=$SP_SRC
		SlurmBuildDir=$SP_SRC
		SlurmInstallDir=/usr
		SlurmConfigDir=$(dirname "$SLURM_CONF")
	EOF
	rc=0
	sp_pytest "$mode" "${SP_TESTS[@]}" || rc=$?
	note "$mode: pytest exit $rc after $((SECONDS - t0)) s"
	if [ "$mode" = plugins ] && [ -z "${LIBRA_SP_ONLY:-}" ]; then
		# A test that passed on stock and not here, and is not a listed
		# difference, is run again on this cluster, up to three times,
		# to tell a difference from a flaky moment (a race in the test
		# that a busy machine makes srun lose).
		local again=() attempt src=$SP_OUT/plugins.xml present=()
		while [ ! -e "$SP_OUT/stock.done" ]; do sleep 1; done
		[ -s "$SP_OUT/stock.xml" ] || fail "plugins: the stock side left no results"
		for attempt in 1 2 3; do
			mapfile -t again < <("$SP_PY" "$SP_DIR/compare.py" --rerun-list \
				"${present[@]}" --expected "$SP_EXPECTED" \
				"$SP_OUT/stock.xml" "$src")
			[ "${#again[@]}" -gt 0 ] || break
			note "plugins: running again (attempt $attempt of 3) what passed on stock and not here: ${again[*]}"
			sp_pytest "plugins-rerun$attempt" "${again[@]}" || :
			src=$SP_OUT/plugins-rerun$attempt.xml
			present=(--only-present)
		done
	fi
	if [ "${LIBRA_KEEP_CLUSTER:-0}" = 1 ] && [ "$mode" = "${SP_LAST:-plugins}" ]; then
		return 0
	fi
	cluster_stop
	assert_nothing_left
	cp -r "$LIBRA_CLUSTER_DIR/log" "$SP_OUT/$mode-log"
	note "$mode: done in $((SECONDS - t0)) s"
}

# sp_pytest NAME TEST...: run Slurm's tests with pytest in local-config
# mode against the running cluster ($SLURM_CONF); junit XML to NAME.xml.
# sp_cleanup.py cancels the jobs each test module leaves, as the suite's
# auto-config mode does.  Nothing is written into the source tree (no byte
# code, no cache).
sp_pytest() {
	local name=$1 rc=0
	shift
	(
		cd "$SP_ATF" || exit 1
		export SLURM_TESTSUITE_CONF=$SP_CONF PYTHONDONTWRITEBYTECODE=1
		export PYTHONPATH=$SP_DIR${PYTHONPATH:+:$PYTHONPATH}
		timeout -k 10 1500 "$SP_PY" -m pytest -p no:cacheprovider -p sp_cleanup -v -rfE \
			"${SP_TIMEOUT_OPT[@]}" --basetemp="$SP_OUT/$name-tmp" \
			--junitxml="$SP_OUT/$name.xml" -o junit_family=xunit1 \
			--local-config "$@"
	) >"$SP_OUT/$name.log" 2>&1 || rc=$?
	# Keep the job files small: the tests' scratch directories.
	rm -rf "$SP_OUT/$name-tmp"
	[ -s "$SP_OUT/$name.xml" ] ||
		fail "$name: pytest wrote no results (exit $rc); last lines of its output: $(tail -n 30 "$SP_OUT/$name.log")"
	return "$rc"
}

T0=$SECONDS
note "Slurm's Python tests from $SP_ATF: ${#SP_TESTS[@]} files; $LIBRA_NODES nodes of $LIBRA_NODE_CPUS CPUs; per-test limit ${SP_TIMEOUT}s"
case ${LIBRA_SP_ONLY:-} in
stock | plugins)
	SP_LAST=$LIBRA_SP_ONLY
	run_side "$LIBRA_SP_ONLY"
	"$SP_PY" "$SP_DIR/compare.py" --one "$SP_OUT/$LIBRA_SP_ONLY.xml" || :
	pass
	;;
'') ;;
*) fail "LIBRA_SP_ONLY must be stock or plugins" ;;
esac

# The two sides at once, each on a cluster of its own (stock in this
# test's scratch directory, the plugins beside it in ...-plugins, on the
# next range of ports): their clusters wait far more than they compute
# (one after the other, 115 s and 122 s; side by side about 130 s).  Each
# side's notes go to its file, printed here once both are done.
# side MODE: run_side MODE in a subshell of its own, its cluster stopped
# whatever happens; the stock side says when its results are in.
side() {
	(
		trap '[ "$1" != stock ] || touch "$SP_OUT/stock.done"; "$LIBRA_CLUSTER" stop >/dev/null 2>&1 || :' EXIT
		if [ "$1" = plugins ]; then
			export LIBRA_CLUSTER_DIR=$SP_PLUGINS_DIR
			export LIBRA_PORT_BASE=$((LIBRA_PORT_BASE + 1000 > 31000 ? 20000 : LIBRA_PORT_BASE + 1000))
			eval "$("$LIBRA_CLUSTER" env)"
			LIBRA_WORK=$LIBRA_CLUSTER_DIR/work
		fi
		run_side "$1"
	) >"$SP_OUT/$1-side.out" 2>&1
}
SP_PLUGINS_DIR=$LIBRA_CLUSTER_DIR-plugins
rm -f "$SP_OUT/stock.done"
trap 'rc=$?; "$LIBRA_CLUSTER" stop >/dev/null 2>&1; LIBRA_CLUSTER_DIR=$SP_PLUGINS_DIR "$LIBRA_CLUSTER" stop >/dev/null 2>&1; [ "$rc" != 0 ] || rm -rf "$SP_PLUGINS_DIR"; (exit $rc); _libra_exit' EXIT
side stock &
stock_pid=$!
side plugins &
plugins_pid=$!
stock_rc=0 plugins_rc=0
wait "$stock_pid" || stock_rc=$?
wait "$plugins_pid" || plugins_rc=$?
cat "$SP_OUT/stock-side.out" "$SP_OUT/plugins-side.out"
[ "$stock_rc" = 0 ] || fail "the stock side failed (exit $stock_rc; its lines above)"
[ "$plugins_rc" = 0 ] || fail "the plugins' side failed (exit $plugins_rc; its lines above)"
note "both sides in $((SECONDS - T0)) s; results and logs in $SP_OUT"
# pytest's results and output of both sides outlive the scratch directory
# (removed after a pass): in <build>/tests/slurm-python/results.
SP_KEEP=$LIBRA_BUILD/tests/slurm-python/results
rm -rf "$SP_KEEP"
mkdir -p "$SP_KEEP"
cp "$SP_OUT"/*.xml "$SP_OUT"/*.log "$SP_KEEP"/
rerun=()
for f in "$SP_OUT"/plugins-rerun[0-9].xml; do
	[ ! -s "$f" ] || rerun+=(--rerun "$f")
done
if "$SP_PY" "$SP_DIR/compare.py" --expected "$SP_EXPECTED" "${rerun[@]}" \
	"$SP_OUT/stock.xml" "$SP_OUT/plugins.xml" | tee "$SP_KEEP/table.txt"; then
	pass
fi
fail "a test of Slurm's that passes on stock Slurm does not pass with the plugins (table above; pytest output in $SP_OUT/plugins.log)"
