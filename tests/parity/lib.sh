# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/parity/lib.sh: two clusters side by side (site parity).
# Sourced (not run) by every tests/parity/test_*.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   parity_init                     # skip rules, scratch directories, ports
#   parity_add_user                 # optional: an ordinary user on both
#   parity_start                    # both clusters at once, stopped on exit
#   scenario() { ... on whichever cluster "on" chose: sbatch, squeue ...;
#                parity_put wait 12; }
#   both scenario                   # on stock and on libra at the same time
#   expect_eq "$(parity_get stock wait)" "$(parity_get libra wait)" "..."
#   parity_stop                     # stop both, nothing of them left
#   expect_done; pass
#
# "stock" is the cluster as a site runs it without slurm-libra:
# sched/backfill, OverSubscribe=NO, no job_submit, jobcomp or SPANK plugin.
# "libra" is the same four nodes with every plugin (libra_cluster_env of
# ../integration/lib.sh), OverSubscribe=YES:8 and SchedulerParameters
# without sched_interval=-1 and defer: libra_no_sla=slurm, Slurm's own
# main scheduler and backfill start the jobs without an SLA.  Both get
# the same PARITY_EXTRA_CONF (priority/multifactor, a license, limits).
#
# PARITY_LIBRA_AS_STOCK=1 configures the "libra" cluster as a second stock
# one: the scenarios themselves are checked against a known-good side.
# LIBRA_KEEP_CLUSTER=1 leaves both clusters running after the test.

# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

PARITY_SIDES=(stock libra)
# libra_interval of the libra side, and the slack the timing checks allow
# on top of it (a busy 2-core machine runs both clusters at once).
# shellcheck disable=SC2034 # used by the tests
PARITY_INTERVAL=5
PARITY_SLACK=${PARITY_SLACK:-3}
PARITY_LIBRA_PARAMS=${PARITY_LIBRA_PARAMS:-'libra_policy=libra+$,libra_interval=5,libra_no_sla=slurm'}
# PARITY_STOCK_PARAMS: the stock cluster's SchedulerParameters (empty:
# Slurm's defaults); a test that changes one of Slurm's own keys (such as
# bf_interval) adds it to both.
# slurm.conf lines of both clusters.  Priorities: only the partition
# factor (the same for every job) and nice count, so a job's priority is
# 10000 - nice, set at submission, changed only by nice, "scontrol top"
# and "scontrol update", never by age or fair share: distinct and
# deterministic, and the same on both clusters.
PARITY_EXTRA_CONF=${PARITY_EXTRA_CONF:-"$LIBRA_PRIORITY_CONF
Licenses=lic:1
AccountingStorageEnforce=associations,limits"}
# PARITY_NODE_SPEC: LIBRA_NODE_SPEC of both clusters (libra-cluster:
# nodes that track memory, "n1:1:1000,..."); empty: 4 nodes of 1 CPU,
# memory not tracked.
PARITY_NODE_SPEC=${PARITY_NODE_SPEC:-}
PARITY_USERS=
PARITY_UP=0
declare -A PARITY_DIR=() PARITY_PORT=()

# note as in ../integration/lib.sh, with the cluster's name when "on" one
# (in "both", whose output has it already, without).
note() {
	local side=${PARITY_SIDE:+ [$PARITY_SIDE]}
	[ "$BASHPID" = "$$" ] || side=
	printf '%s%s: %s\n' "$LIBRA_TEST" "$side" "$*"
}

# fail MESSAGE: in a scenario that "both" runs (a subshell), say why and
# end that side; "both" then fails the test.  In the test itself: say why,
# show both clusters' queues and logs, exit 1 (the clusters are stopped
# on exit, the scratch directory kept).
fail() {
	printf 'FAIL: %s%s: %s\n' "$LIBRA_TEST" "${PARITY_SIDE:+ [$PARITY_SIDE]}" "$*" >&2
	[ "$BASHPID" = "$$" ] || exit 1
	[ "$PARITY_UP" != 1 ] || parity_dump >&2
	exit 1
}

# parity_dump: both clusters' queues, nodes and log tails.
parity_dump() {
	local side f
	for side in "${PARITY_SIDES[@]}"; do
		[ -f "$PARITY_TMP/$side.env" ] || continue
		echo "=== cluster $side (${PARITY_DIR[$side]})"
		on "$side" _parity_dump_one || :
	done
}
_parity_dump_one() {
	echo "--- squeue"
	squeue -t all -o '%.8i %.12j %.9T %.20r %.10Q %.20S %N' 2>&1 | head -n 60 || :
	echo "--- sinfo"
	sinfo -N 2>&1 || :
	local f
	for f in "$LIBRA_CLUSTER_DIR"/log/slurmctld.log "$LIBRA_CLUSTER_DIR"/log/slurmd-*.log; do
		[ -s "$f" ] || continue
		echo "--- last lines of $f"
		case $f in
		*slurmctld.log) tail -n 40 "$f" ;;
		*) tail -n 8 "$f" ;;
		esac
	done
}

# parity_init: skip unless both clusters can run; settle where they live.
parity_init() {
	local so h
	[ "$(id -u)" -eq 0 ] || skip "needs root (it starts munged, MariaDB and Slurm daemons)"
	if [ "${LIBRA_HAVE_PLUGINS:-yes}" != yes ]; then
		skip "the plugins were not built (configure found no Slurm source; run contrib/setup)"
	fi
	_libra_lock	# alone, unless LIBRA_CONCURRENT names the test
	export LIBRA_PLUGIN_DIR=${LIBRA_PLUGIN_DIR:-$LIBRA_BUILD/_plugins}
	if [ "${PARITY_LIBRA_AS_STOCK:-0}" != 1 ]; then
		for so in sched_libra.so job_submit_qos.so jobcomp_libra.so libra_spank.so libslurm_libra.so; do
			[ -f "$LIBRA_PLUGIN_DIR/$so" ] ||
				skip "$LIBRA_PLUGIN_DIR/$so is missing (build the plugins: make)"
		done
	fi
	PARITY_BURN=$LIBRA_BUILD/contrib/tools/libra-burn
	[ -x "$PARITY_BURN" ] || fail "$PARITY_BURN is missing: build contrib/tools first (make)"
	PARITY_ROOT=${LIBRA_TEST_CLUSTER_DIR:-$LIBRA_BUILD/_cluster-$LIBRA_TEST}
	PARITY_DIR[stock]=$PARITY_ROOT/stock
	PARITY_DIR[libra]=$PARITY_ROOT/libra
	PARITY_TMP=$PARITY_ROOT/results
	if [ -z "${LIBRA_PORT_BASE:-}" ]; then
		h=$(printf '%s' "$LIBRA_TEST" | cksum | cut -d' ' -f1)
		LIBRA_PORT_BASE=$((20000 + (h % 12) * 1000))
	fi
	PARITY_PORT[stock]=$LIBRA_PORT_BASE
	PARITY_PORT[libra]=$((LIBRA_PORT_BASE + 1000 > 31000 ? 20000 : LIBRA_PORT_BASE + 1000))
	# No command may reach a cluster except through "on".
	unset SLURM_CONF LIBRA_CLUSTER_DIR LIBRA_PORT_BASE
	# A failed run keeps its scratch directory: its results and job
	# outputs are this run's alone.
	rm -rf "$PARITY_TMP" "${PARITY_DIR[stock]}/work" "${PARITY_DIR[libra]}/work"
	mkdir -p "$PARITY_TMP"
	trap _parity_exit EXIT
	if [ "${PARITY_LIBRA_AS_STOCK:-0}" = 1 ]; then
		note "PARITY_LIBRA_AS_STOCK=1: the libra cluster is a second stock cluster"
	fi
}

# parity_add_user: an ordinary user (libparity<pid>), associated on both
# clusters, removed on exit; sets PARITY_USER.  Call before parity_start.
parity_add_user() {
	PARITY_USER=libparity$$
	command -v useradd >/dev/null 2>&1 || skip "no useradd"
	! id "$PARITY_USER" >/dev/null 2>&1 || fail "user $PARITY_USER exists already"
	mkdir -p "$PARITY_ROOT/home-$PARITY_USER"
	useradd -M -d "$PARITY_ROOT/home-$PARITY_USER" -s /bin/sh "$PARITY_USER" ||
		fail "useradd $PARITY_USER failed"
	PARITY_AT_EXIT+="userdel -f $PARITY_USER >/dev/null 2>&1; rm -rf '$PARITY_ROOT/home-$PARITY_USER'"$'\n'
	chown "$PARITY_USER:" "$PARITY_ROOT/home-$PARITY_USER"
	PARITY_USERS="${PARITY_USERS:+$PARITY_USERS }$PARITY_USER"
}

# _parity_knobs SIDE: export the LIBRA_* knobs of SIDE's cluster (in the
# subshell that starts it).
_parity_knobs() {
	export LIBRA_CLUSTER_DIR=${PARITY_DIR[$1]} LIBRA_PORT_BASE=${PARITY_PORT[$1]}
	export LIBRA_NODES=4 LIBRA_NODE_CPUS=1 LIBRA_NODE_SPEC=${PARITY_NODE_SPEC:-}
	export LIBRA_EXTRA_CONF=$PARITY_EXTRA_CONF LIBRA_USERS=$PARITY_USERS
	export LIBRA_CLUSTER_NAME=parity$1
	if [ "$1" = libra ] && [ "${PARITY_LIBRA_AS_STOCK:-0}" != 1 ]; then
		# The plugins exactly as every plugin test has them (SPANK line,
		# job_submit, jobcomp), then this suite's SchedulerParameters.
		# shellcheck disable=SC2119 # no arguments: the defaults
		libra_cluster_env
		export LIBRA_SCHEDULER_PARAMETERS=$PARITY_LIBRA_PARAMS
		export LIBRA_OVERSUBSCRIBE=YES:8
		# Not pin=yes: the stock cluster's jobs run on any core of
		# the host, so must these.  Pinned, a node's jobs had one
		# core, shared with another cluster's on the same host (the
		# other release's tests in the compatibility suite): two of
		# (a)'s 2-second jobs got under 2 s of CPU in their minute.
		export LIBRA_PLUGSTACK='required libra_spank.so interval=1'
	else
		export LIBRA_SCHEDULER_TYPE=sched/backfill LIBRA_SCHEDULER_PARAMETERS=${PARITY_STOCK_PARAMS:-}
		export LIBRA_JOB_SUBMIT_PLUGINS='' LIBRA_JOBCOMP_TYPE=jobcomp/none LIBRA_PLUGSTACK=''
		export LIBRA_OVERSUBSCRIBE=NO
		libra_free_port_base
	fi
}

# _parity_start_one SIDE: start SIDE's cluster (fresh); on a port taken
# meanwhile (the other cluster, or another test, started at the same
# moment) the next free range, up to 3 times.  Leaves SIDE.port and
# SIDE.env in PARITY_TMP.
_parity_start_one() {
	local side=$1 try rc out
	PARITY_SIDE=$side
	_parity_knobs "$side"
	out=$PARITY_TMP/$side.start
	for try in 1 2 3; do
		rc=0
		"$LIBRA_CLUSTER" start --restart --fresh >"$out" 2>&1 || rc=$?
		[ "$rc" != 0 ] || break
		if [ "$try" = 3 ] || ! grep -q 'in use' "$out"; then
			cat "$out"
			fail "the cluster did not start"
		fi
		note "a port was taken meanwhile: again on other ports"
		export LIBRA_PORT_BASE=$((LIBRA_PORT_BASE + 2000 > 31000 ? 20000 : LIBRA_PORT_BASE + 2000))
		libra_free_port_base
	done
	printf '%s\n' "$LIBRA_PORT_BASE" >"$PARITY_TMP/$side.port"
	"$LIBRA_CLUSTER" env >"$PARITY_TMP/$side.env"
	mkdir -p "$LIBRA_CLUSTER_DIR/work"
	chmod 1777 "$LIBRA_CLUSTER_DIR/work"
}

# parity_start: both clusters, fresh, at the same time.
parity_start() {
	local t0=$SECONDS side pids=() rc bad=
	for side in "${PARITY_SIDES[@]}"; do
		rm -f "$PARITY_TMP/$side.env" "$PARITY_TMP/$side.port"
		(_parity_start_one "$side") &
		pids+=($!)
	done
	PARITY_UP=1
	for side in "${!pids[@]}"; do
		rc=0
		wait "${pids[side]}" || rc=$?
		[ "$rc" = 0 ] || bad+=" ${PARITY_SIDES[side]}"
	done
	for side in "${PARITY_SIDES[@]}"; do
		[ ! -f "$PARITY_TMP/$side.port" ] || PARITY_PORT[$side]=$(<"$PARITY_TMP/$side.port")
	done
	[ -z "$bad" ] || fail "cluster(s)$bad did not start"
	# Each cluster runs what it is meant to: a comparison with a libra
	# side that is not (a configuration gone wrong) would pass for nothing.
	on stock _parity_expect_sched sched/backfill
	if [ "${PARITY_LIBRA_AS_STOCK:-0}" = 1 ]; then
		on libra _parity_expect_sched sched/backfill
	else
		on libra _parity_expect_sched sched/libra
		wait_until 60 "sched/libra to run Slurm's backfill (its log line)" \
			grep -q "running Slurm's backfill scheduler from" "${PARITY_DIR[libra]}/log/slurmctld.log"
	fi
	note "both clusters up in $((SECONDS - t0)) s (stock: ports from ${PARITY_PORT[stock]}, libra: from ${PARITY_PORT[libra]})"
}

# _parity_expect_sched TYPE: the cluster's SchedulerType is TYPE.
_parity_expect_sched() {
	local t
	t=$(scontrol show config 2>/dev/null | sed -n 's/^SchedulerType *= *//p')
	[ "$t" = "$1" ] || fail "cluster $PARITY_SIDE runs SchedulerType '$t', not $1"
}

# parity_stop: stop both clusters (at once); fail if a process of either
# is left.  Nothing with LIBRA_KEEP_CLUSTER=1 (they are left running).
parity_stop() {
	local side pids=() recs=() cgs=()
	[ "${LIBRA_KEEP_CLUSTER:-0}" != 1 ] || return 0
	for side in "${PARITY_SIDES[@]}"; do
		tally_unstarted "${PARITY_DIR[$side]}"
		recs+=("$(cat "${PARITY_DIR[$side]}"/pids/* 2>/dev/null | cut -d' ' -f1-2 | tr '\n' ';')")
		cgs+=("$(cat "${PARITY_DIR[$side]}/run/cgroup" 2>/dev/null || :)")
		LIBRA_CLUSTER_DIR=${PARITY_DIR[$side]} "$LIBRA_CLUSTER" stop >"$PARITY_TMP/$side.stop" 2>&1 &
		pids+=($!)
	done
	for side in "${!pids[@]}"; do
		wait "${pids[side]}" || fail "libra-cluster stop failed for ${PARITY_SIDES[side]}: $(cat "$PARITY_TMP/${PARITY_SIDES[side]}.stop")"
	done
	PARITY_UP=0
	for side in "${!recs[@]}"; do
		# shellcheck disable=SC2034 # assert_nothing_left reads them
		LIBRA_STOPPED_PIDS=${recs[side]} LIBRA_CGROUP=${cgs[side]}
		assert_nothing_left
	done
}

PARITY_AT_EXIT=
_parity_exit() {
	local rc=$? side pids=()
	eval "$PARITY_AT_EXIT" || :
	if [ "${LIBRA_KEEP_CLUSTER:-0}" = 1 ] && [ "$PARITY_UP" = 1 ]; then
		for side in "${PARITY_SIDES[@]}"; do
			[ ! -f "$PARITY_TMP/$side.env" ] ||
				note "leaving cluster $side running: $(tr '\n' ' ' <"$PARITY_TMP/$side.env")"
		done
		exit "$rc"
	fi
	if [ "$PARITY_UP" = 1 ]; then
		for side in "${PARITY_SIDES[@]}"; do
			LIBRA_CLUSTER_DIR=${PARITY_DIR[$side]} "$LIBRA_CLUSTER" stop >/dev/null 2>&1 &
			pids+=($!)
		done
		# the stops only: a bare "wait" would wait for the lock's
		# holder too, which waits for this script to exit
		wait "${pids[@]}"
	fi
	scratch_done "$rc" "$PARITY_ROOT" "${PARITY_DIR[stock]}/log and ${PARITY_DIR[libra]}/log"
}

# ---------------------------------------------------------------------------
# Running on one cluster, or on both at once
# ---------------------------------------------------------------------------

# on SIDE COMMAND...: run COMMAND (a function too, in this shell) with
# everything pointed at SIDE's cluster: what its "libra-cluster env"
# prints (SLURM_CONF, LIBRA_CLUSTER_DIR, a release's PATH), LIBRA_WORK
# (the cluster's work directory) and PARITY_SIDE.
on() {
	local side=$1
	shift
	[ -f "$PARITY_TMP/$side.env" ] || fail "no cluster '$side' (parity_start first)"
	local -x SLURM_CONF LIBRA_CLUSTER_DIR LIBRA_WORK PARITY_SIDE=$side
	eval "$(sed 's/^export /local -x /' "$PARITY_TMP/$side.env")"
	LIBRA_WORK=$LIBRA_CLUSTER_DIR/work
	"$@"
}

# both COMMAND...: run COMMAND on both clusters at the same time, each "on"
# its cluster in a subshell, its output prefixed with the cluster's name.
# COMMAND hands figures back with parity_put.  If it failed on either
# cluster: a failed check (expect_fail, the test goes on to its next
# scenario and fails at expect_done), both clusters' state and logs on
# standard error, and status 1.
both() {
	local side i pids=() rc bad=
	for side in "${PARITY_SIDES[@]}"; do
		rm -f "$PARITY_TMP/$side.rc"
		{
			(
				# shellcheck disable=SC2064 # $side now, $? at exit
				trap "echo \$? >'$PARITY_TMP/$side.rc'" EXIT
				on "$side" "$@"
			) 2>&1 | sed -u "s/^/[$side] /"
		} &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}" || :
		side=${PARITY_SIDES[i]}
		rc=$(cat "$PARITY_TMP/$side.rc" 2>/dev/null || echo '?')
		[ "$rc" = 0 ] || bad+=" $side (exit $rc)"
	done
	[ -n "$bad" ] || return 0
	expect_fail "$1 failed on:$bad"
	parity_dump >&2
	return 1
}

# parity_plugin_errors: no "error:" line of the plugins in the libra
# cluster's slurmctld and slurmd logs (a failed check otherwise).  As
# ctld_plugin_errors and node_plugin_errors of ../integration/lib.sh, but
# the cluster's directory (.../libra) taken out of the lines first.
parity_plugin_errors() {
	local e d=${PARITY_DIR[libra]}
	[ "${PARITY_LIBRA_AS_STOCK:-0}" != 1 ] || return 0
	e=$(grep -h 'error:' "$d"/log/slurmctld.log "$d"/log/slurmd-*.log 2>/dev/null |
		awk -v d="$d" '{ while ((i = index($0, d)) > 0) $0 = substr($0, 1, i - 1) "<dir>" substr($0, i + length(d)); print }' |
		grep -E 'error: .*(libra|job_submit/qos)' || :)
	[ -z "$e" ] || expect_fail "the plugins logged errors on libra: $(head -c 2000 <<<"$e")"
}

# parity_want LETTER: the scenario is to run (PARITY_ONLY, e.g. "bh",
# names the ones to run; empty: all).
parity_want() { [ -z "${PARITY_ONLY:-}" ] || [[ $PARITY_ONLY == *"$1"* ]]; }

# parity_put KEY VALUE: a figure of the cluster "on" chose, for parity_get.
parity_put() { printf '%s\n' "$2" >"$PARITY_TMP/$PARITY_SIDE.$1"; }

# parity_get SIDE KEY: a figure parity_put left ('' if none).
parity_get() { cat "$PARITY_TMP/$1.$2" 2>/dev/null || :; }

# ---------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------

# psub WHAT SBATCH-ARGS...: submit (libra_sbatch: in LIBRA_WORK, as SB_USER
# when set); fail unless a job was made.  Sets SB_JOBID.
psub() {
	local what=$1
	shift
	libra_sbatch "$@"
	if [ "$SB_RC" != 0 ] || [ -z "$SB_JOBID" ]; then
		fail "$what: sbatch $* was not accepted (exit $SB_RC): $SB_OUT"
	fi
}

# job_started JOBID: the job runs or ran (RUNNING, COMPLETING, COMPLETED...).
job_started() {
	case $(job_state "$1") in
	'' | PENDING | CONFIGURING | REQUEUED) return 1 ;;
	*) return 0 ;;
	esac
}

# job_reason JOBID: squeue's reason (%r) for the job.
job_reason() { squeue -h -j "$1" -o '%r' 2>/dev/null | awk 'NR == 1'; }

# job_has_reason JOBID: the job pends with a reason other than None.
job_has_reason() {
	local r
	r=$(job_reason "$1")
	[ -n "$r" ] && [ "$r" != None ]
}

# epoch_field JOBID FIELD: a time field of the job's accounting row
# (Submit, Start, End), in seconds since the epoch.
epoch_field() { SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$1" -o "$2" 2>/dev/null | awk 'NR == 1'; }

# expect_planned_start WHAT: on libra, the figures "admit" (sbatch's
# output), "planned" and "start" (parity_put) say the job was admitted for
# a planned start (design.md decision 39) and started no later than
# PARITY_INTERVAL and PARITY_SLACK after it (a failed check otherwise).
expect_planned_start() {
	local admit planned st p
	admit=$(parity_get libra admit)
	[[ $admit == *'libra: admitted'*'planned to start at'* ]] ||
		expect_fail "libra: $1 was not admitted for a planned start: $admit"
	planned=$(parity_get libra planned) st=$(parity_get libra start)
	[ -n "$planned" ] && [ -n "$st" ] || return 0
	p=$(date -d "$planned" +%s)
	[ "$st" -le $((p + PARITY_INTERVAL + PARITY_SLACK)) ] ||
		expect_fail "libra: $1 started $((st - p)) s after its planned start, not within $((PARITY_INTERVAL + PARITY_SLACK)) s"
}

# start_epoch JOBID: the job's start by sacct (epoch seconds), once
# accounting has it (it may lag squeue by a moment; fails after 30 s).
start_epoch() {
	wait_until 30 "job $1's start in accounting" bash -c \
		"[[ \$(SLURM_TIME_FORMAT=%s sacct -n -X -P -j $1 -o Start 2>/dev/null | awk 'NR == 1') =~ ^[0-9]+\$ ]]"
	epoch_field "$1" Start
}

# running_count: how many jobs (array tasks counted one by one) run now.
running_count() { squeue -h -t R -o %i 2>/dev/null | wc -l; }

# nodes_idle: all four nodes idle (no job, none completing).
nodes_idle() { [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" = 4 ]; }

# parity_reset: cancel every job and wait until none is active and every
# node is idle again.
parity_reset() {
	scancel -p batch >/dev/null 2>&1 || :
	[ -z "$PARITY_USERS" ] || scancel -u "$PARITY_USER" >/dev/null 2>&1 || :
	wait_until 120 "no job active" no_jobs_active
	wait_until 120 "all nodes idle" nodes_idle
}

# elapsed_since T0 SECONDS: at least SECONDS have passed since T0 ($SECONDS).
elapsed_since() { [ $((SECONDS - $1)) -ge "$2" ]; }

# parity_same KEY WHAT: a figure both clusters put must be the same
# (expect_eq: recorded, the test goes on).
parity_same() {
	local s l
	s=$(parity_get stock "$1")
	l=$(parity_get libra "$1")
	expect_eq "$s" "$l" "$2 (stock vs libra)"
}
