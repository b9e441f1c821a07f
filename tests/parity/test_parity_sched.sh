#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both, on and wait_until
# test_parity_sched: scheduling without an SLA, the same on a stock
# cluster (sched/backfill) and on the plugin cluster (sched/libra,
# libra_no_sla=slurm), run on both at once (design.md decision 27; README.md):
#  (a) 8 CPU-bound jobs with a time limit on 4 CPUs: never two on a CPU,
#      all COMPLETED;
#  (b) a backlog of 7 jobs of distinct priorities (nice, scontrol top)
#      behind 4 blockers, nodes freed one at a time: the same start order;
#  (c) a whole-cluster job among 1-node jobs with time limits: it waits
#      no longer than under stock plus one libra_interval (and a slack);
#  (g) an array of 20 one-second tasks on 4 nodes: all COMPLETED, none
#      overlapping, the makespan at most twice stock's + 2 s in one run
#      (PARITY_G_RUNS=N: N runs, the means compared);
#  (i) an SLA job while jobs without an SLA hold every node: nothing is
#      preempted (design.md decision 27), on libra as on stock; libra
#      admits it for a planned start at their time limits (decision 39).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
parity_init
parity_start

# _overlaps: on standard input "node|start|end" rows (epoch
# seconds) of 1-node jobs; prints the number of pairs of jobs that overlap
# on a node (one starting before another on its node ended).
_overlaps() {
	sort -t'|' -k1,1 -k2,2n | awk -F'|' '
		$1 == node && $2 < end { n++ }
		{ if ($1 != node || $3 > end) end = $3; node = $1 }
		END { print n + 0 }'
}

# _sacct_rows IDS FIELDS: accounting rows (allocations) of the jobs, times
# in epoch seconds.
_sacct_rows() { SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$1" -o "$2" 2>/dev/null; }

# _sacct_terminal IDS COUNT: accounting has COUNT rows for the jobs, each in
# a final state with an end time.
_sacct_terminal() {
	local rows
	rows=$(_sacct_rows "$1" State,End)
	[ "$(grep -c . <<<"$rows")" = "$2" ] || return 1
	! grep -qE '^(PENDING|RUNNING|COMPLETING|REQUEUED)|\|Unknown$|\|$' <<<"$rows"
}

# Sampling while waiting: the most jobs seen running at once, in all and
# on one node.
SAMPLE_MAX=0
SAMPLE_NODE_MAX=0
_sample_running() {
	local nodes n per
	nodes=$(squeue -h -t R -o %N 2>/dev/null) || return 0
	n=$(grep -c . <<<"$nodes" || :)
	per=$(grep . <<<"$nodes" | sort | uniq -c | awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }')
	[ "$n" -le "$SAMPLE_MAX" ] || SAMPLE_MAX=$n
	[ "$per" -le "$SAMPLE_NODE_MAX" ] || SAMPLE_NODE_MAX=$per
}
_sample_until_idle() {
	_sample_running
	no_jobs_active
}

# ---------------------------------------------------------------------------
# (a) CPU-bound jobs with time limits, more jobs than CPUs
# ---------------------------------------------------------------------------
scen_cpu() {
	local i ids=() list rows t0=$SECONDS
	SAMPLE_MAX=0 SAMPLE_NODE_MAX=0
	for i in 1 2 3 4 5 6 7 8; do
		psub "cpu job $i" -J "cpu$i" --time=1 --wrap "$PARITY_BURN 2"
		ids+=("$SB_JOBID")
	done
	list=$(IFS=,; echo "${ids[*]}")
	wait_until 300 "the 8 CPU-bound jobs to end" _sample_until_idle
	wait_until 120 "accounting of the 8 CPU-bound jobs" _sacct_terminal "$list" 8
	rows=$(_sacct_rows "$list" NodeList,Start,End,State)
	parity_put a_states "$(cut -d'|' -f4 <<<"$rows" | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = " " }')"
	parity_put a_overlaps "$(cut -d'|' -f1-3 <<<"$rows" | _overlaps)"
	parity_put a_node_max "$SAMPLE_NODE_MAX"
	parity_put a_max "$SAMPLE_MAX"
	parity_put a_makespan "$(awk -F'|' 'NR == 1 || $2 < s { s = $2 } $3 > e { e = $3 } END { print e - s }' <<<"$rows")"
	note "(a) done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------
# (b) start order of a backlog of distinct priorities
# ---------------------------------------------------------------------------
ORDER_IDS=()
ORDER_NAMES=()
# _order_started K: at least K jobs of the backlog have started.
_order_started() {
	local i n=0
	for i in "${!ORDER_IDS[@]}"; do
		job_started "${ORDER_IDS[i]}" && n=$((n + 1))
	done
	[ "$n" -ge "$1" ]
}
_all_running() {
	local j
	for j in "$@"; do job_in_state "$j" RUNNING || return 1; done
}
# Each has started (it may have ended since: a job of 2 s can end before
# a busy machine starts the fourth, and they are never all running at once)
_all_started() {
	local j
	for j in "$@"; do job_started "$j" || return 1; done
}
_all_have_reason() {
	local j
	for j in "$@"; do job_has_reason "$j" || return 1; done
}
scen_order() {
	local i name nice blockers=() gates=() order=() seen=() k new early t0=$SECONDS
	for i in 1 2 3 4; do
		psub "blocker $i" -J "blk$i" --wrap "$(gate_wait "$LIBRA_WORK/blk$i")"
		blockers+=("$SB_JOBID")
		gates+=("blk$i")
	done
	wait_until 120 "the 4 blockers to run" _all_running "${blockers[@]}"
	ORDER_IDS=()
	ORDER_NAMES=()
	# Priority 10000 - nice: J2 9990, J4 9980, J6 9970, J5 9960, J3 9950,
	# J1 9940, J7 9930; "scontrol top" then gives J7 the highest and
	# lowers the others (Slurm's _set_top: J7 9990, the rest 10 less).
	for name in J1:60 J2:10 J3:50 J4:20 J5:40 J6:30 J7:70; do
		nice=${name#*:}
		name=${name%:*}
		psub "backlog job $name" -J "$name" --nice="$nice" --wrap "$(gate_wait "$LIBRA_WORK/$name")"
		ORDER_IDS+=("$SB_JOBID")
		ORDER_NAMES+=("$name")
	done
	scontrol top "${ORDER_IDS[6]}" || fail "scontrol top ${ORDER_IDS[6]} failed"
	# Each has been looked at by a scheduler (a reason), and none started
	# while all four nodes are held.
	wait_until 120 "the backlog to have pending reasons" _all_have_reason "${ORDER_IDS[@]}"
	early=0
	for i in "${!ORDER_IDS[@]}"; do
		job_started "${ORDER_IDS[i]}" && early=$((early + 1))
	done
	parity_put b_early "$early"
	parity_put b_prio "$(squeue -h -t PD -o '%Q %i %j' | sort -k1,1nr -k2,2n | awk '$3 ~ /^J/ { printf "%s%s:%s", s, $3, $1; s = " " }')"
	# Shown, not compared: which job says Resources depends on whether a
	# scheduler ran since "scontrol top" (stock's may not for a minute).
	parity_put b_reasons "$(squeue -h -t PD -o '%j %r' | sort | awk '$1 ~ /^J/ { printf "%s%s:%s", s, $1, $2; s = " " }')"
	# Free one node at a time: let the oldest running job go, wait for
	# the next backlog job to start.
	for k in 1 2 3 4 5 6 7; do
		gate_open "$LIBRA_WORK/${gates[k - 1]}"
		wait_until 120 "backlog job number $k to start" _order_started "$k"
		new=()
		for i in "${!ORDER_IDS[@]}"; do
			[[ " ${seen[*]} " != *" ${ORDER_NAMES[i]} "* ]] || continue
			if job_started "${ORDER_IDS[i]}"; then
				new+=("${ORDER_NAMES[i]}")
				seen+=("${ORDER_NAMES[i]}")
				gates+=("${ORDER_NAMES[i]}")
			fi
		done
		# Two at once (another node free) would be a finding: both
		# recorded, joined by "+".
		order+=("$(IFS=+; echo "${new[*]}")")
		[ "${#seen[@]}" -lt 7 ] || break
	done
	parity_put b_order "${order[*]}"
	for name in "${ORDER_NAMES[@]}"; do gate_open "$LIBRA_WORK/$name"; done
	note "(b) done in $((SECONDS - t0)) s: order ${order[*]}"
}

# ---------------------------------------------------------------------------
# (c) a whole-cluster job among 1-node jobs with time limits
# ---------------------------------------------------------------------------
scen_wide() {
	local i s small=() wide times t0=$SECONDS
	# Four 1-node jobs end one after the other (2, 4, 6, 8 s); the wide
	# job comes next, then a stream of 1-node jobs that could take each
	# node as it frees (their limit, 3 min, is longer than the wide job's
	# planned start, so backfill must not start them first).
	for i in 1 2 3 4; do
		s=$((2 * i))
		psub "small job $i" -J "s$i" --time=1 --wrap "sleep $s"
		small+=("$SB_JOBID")
	done
	wait_until 120 "the 4 small jobs to start" _all_started "${small[@]}"
	psub "wide job" -J wide -N4 --time=1 --wrap 'sleep 1'
	wide=$SB_JOBID
	for i in 5 6 7 8 9 10; do
		psub "stream job $i" -J "s$i" --time=3 --wrap 'sleep 8'
	done
	wait_until 90 "the wide job to start" job_started "$wide"
	times=$(SLURM_TIME_FORMAT=%s squeue -h -t all -j "$wide" -o '%V %S')
	parity_put c_wait "$(awk '{ print $2 - $1 }' <<<"$times")"
	# Stream jobs that started before the wide job.
	parity_put c_before "$(SLURM_TIME_FORMAT=%s squeue -h -t all -o '%j %T %S' |
		awk -v w="${times#* }" '$1 ~ /^s([5-9]|10)$/ && $2 != "PENDING" && $3 < w { n++ } END { print n + 0 }')"
	note "(c) done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------
# (g) an array of 20 short tasks
# ---------------------------------------------------------------------------
scen_array() {
	local arr rows t0=$SECONDS
	SAMPLE_MAX=0 SAMPLE_NODE_MAX=0
	psub "array" -J arr --array=0-19 --time=1 --wrap 'sleep 1'
	arr=$SB_JOBID
	wait_until 300 "the array's 20 tasks to end" _sample_until_idle
	wait_until 120 "accounting of the 20 tasks" _sacct_terminal "$arr" 20
	rows=$(_sacct_rows "$arr" NodeList,Start,End,State)
	parity_put g_states "$(cut -d'|' -f4 <<<"$rows" | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = " " }')"
	parity_put g_makespan "$(awk -F'|' 'NR == 1 || $2 < s { s = $2 } $3 > e { e = $3 } END { print e - s }' <<<"$rows")"
	parity_put g_overlaps "$(cut -d'|' -f1-3 <<<"$rows" | _overlaps)"
	parity_put g_node_max "$SAMPLE_NODE_MAX"
	note "(g) done in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------------------
# (i) an SLA job while jobs without an SLA hold every node: no preemption
# ---------------------------------------------------------------------------
# Four jobs without an SLA hold the four nodes; then a job with an SLA
# (on stock its --comment is only a comment).  It must not preempt
# (design.md decision 27): after a window of a sched/libra pass and a main
# scheduler run the four still run, never suspended or requeued.  On
# libra admission plans its start at their time limits (Slurm would start
# no sharing job there before they end: decision 39).
scen_nopreempt() {
	local i held=() sla t0 states
	for i in 1 2 3 4; do
		psub "holder $i" -J "h$i" --time=2 --wrap "$(gate_wait "$LIBRA_WORK/h")"
		held+=("$SB_JOBID")
	done
	wait_until 120 "the 4 holders to run" _all_running "${held[@]}"
	libra_sbatch -J sla -n 1 --comment="runtime=5s,deadline=10m,budget=1000" --wrap 'sleep 1'
	sla=$SB_JOBID
	parity_put i_admission "$(printf '%s' "$SB_OUT" | grep -o 'libra: [a-z]*' | head -n 1)"
	parity_put i_message "$(printf '%s' "$SB_OUT" | grep 'libra: ' | head -n 1)"
	t0=$SECONDS
	wait_until 60 "a window (a pass and a scheduler run)" elapsed_since "$t0" $((PARITY_INTERVAL + 2))
	states=$(for i in "${held[@]}"; do job_state "$i"; done | sort | uniq -c | awk '{ printf "%s%s x%s", n++ ? ", " : "", $2, $1 }')
	parity_put i_held "$states"
	parity_put i_requeued "$(SLURM_TIME_FORMAT=%s sacct -n -X -P -D -j "$(IFS=,; echo "${held[*]}")" -o JobID 2>/dev/null | wc -l)"
	[ -z "$sla" ] || parity_put i_sla_state "$(job_state "$sla")"
	gate_open "$LIBRA_WORK/h"
	wait_until 120 "the holders to end" eval "$(printf 'job_ended %s && ' "${held[@]}") true"
	if [ -n "$sla" ]; then
		wait_until 120 "the SLA job to end" job_ended "$sla"
		parity_put i_sla_end "$(job_state "$sla")"
	fi
	note "(i) done"
}

# ---------------------------------------------------------------------------
# The scenarios, each on both clusters at once; the checks compare.
# ---------------------------------------------------------------------------
g() { parity_get "$@"; }

if parity_want a && both scen_cpu; then
	note "parity (a): 8 CPU-bound jobs: stock $(g stock a_states), makespan $(g stock a_makespan) s, at most $(g stock a_node_max) running on a node; libra $(g libra a_states), makespan $(g libra a_makespan) s, at most $(g libra a_node_max) on a node"
	for side in stock libra; do
		expect_eq "COMPLETED x8" "$(g $side a_states)" "(a) states of the 8 CPU-bound jobs on $side"
		expect_eq 0 "$(g $side a_overlaps)" "(a) jobs overlapping on a node (sacct) on $side"
		[ "$(g $side a_node_max)" -le 1 ] ||
			expect_fail "(a) $(g $side a_node_max) jobs seen running on one node (one CPU) on $side"
	done
fi
both parity_reset || fail "the clusters could not be emptied for the next scenario"

if parity_want b && both scen_order; then
	note "parity (b): start order: stock $(g stock b_order), libra $(g libra b_order) (priorities on stock: $(g stock b_prio); reasons on stock: $(g stock b_reasons), on libra: $(g libra b_reasons))"
	parity_same b_order "(b) start order of the backlog"
	parity_same b_prio "(b) the backlog's priorities"
	# Which pending job says Resources rather than Priority depends on the
	# moment Slurm's scheduler last looked (both Slurm's own reasons):
	# shown above, not compared.
	expect_eq "J7 J2 J4 J6 J5 J3 J1" "$(g stock b_order)" "(b) start order on stock (the priorities)"
	expect_eq 0 "$(g libra b_early)" "(b) backlog jobs started on libra while every node was held"
fi
both parity_reset || fail "the clusters could not be emptied for the next scenario"

if parity_want c && both scen_wide; then
	ws=$(g stock c_wait)
	wl=$(g libra c_wait)
	note "parity (c): the wide job waited $ws s on stock, $wl s on libra; stream jobs started before it: $(g stock c_before) on stock, $(g libra c_before) on libra"
	[ "$wl" -le $((ws + PARITY_INTERVAL + PARITY_SLACK)) ] ||
		expect_fail "(c) the wide job waited $wl s on libra, more than stock's $ws s + $PARITY_INTERVAL + $PARITY_SLACK"
	parity_same c_before "(c) stream jobs started before the wide job"
fi
both parity_reset || fail "the clusters could not be emptied for the next scenario"

# PARITY_G_RUNS=N runs (g) N times on the same two clusters and prints
# each side's mean and median makespan and their ratio: the figure the
# target "within 10% of stock's" is about (doc/benchmarks.md, "Array
# makespan"), which one run cannot show (see below).
g_runs=${PARITY_G_RUNS:-1} g_of=
[ "$g_runs" -le 1 ] || g_of=" run"
parity_want g || g_runs=0
g_ms=() g_ml=()
for ((g_run = 1; g_run <= g_runs; g_run++)); do
	if ! both scen_array; then
		both parity_reset || fail "the clusters could not be emptied for the next scenario"
		break
	fi
	mks=$(g stock g_makespan)
	mkl=$(g libra g_makespan)
	g_ms+=("$mks") g_ml+=("$mkl")
	note "parity (g)${g_of:+$g_of $g_run/$g_runs}: array of 20 x 1 s: makespan $mks s on stock, $mkl s on libra; at most $(g stock g_node_max) / $(g libra g_node_max) running on a node"
	for side in stock libra; do
		expect_eq "COMPLETED x20" "$(g $side g_states)" "(g) states of the 20 tasks on $side"
		expect_eq 0 "$(g $side g_overlaps)" "(g) tasks overlapping on a node (sacct) on $side"
	done
	# Slurm's own makespan for this array is not one figure: its main
	# scheduler starts the next wave at the next scheduling event after
	# an end, and two stock clusters side by side (PARITY_LIBRA_AS_STOCK=1,
	# idle machine) gave 13 s against 10 s and 13 s against 8 s; CI, with
	# both clusters on 2 busy cores, stock 10 s against libra 13 s.  The
	# defect this guards against is a crawl (one task a pass: not done
	# after 121 s), so one run's bound is twice stock's makespan + 2 s,
	# which stock against stock never came near; the 10% is judged on
	# means (PARITY_G_RUNS).
	[ "$mkl" -le $((2 * mks + 2)) ] ||
		expect_fail "(g) makespan $mkl s on libra, more than twice stock's $mks s + 2 s"
	both parity_reset || fail "the clusters could not be emptied for the next scenario"
done
if [ "${#g_ms[@]}" -gt 1 ]; then
	printf '%s\n' "${g_ms[@]}" >"$PARITY_TMP/g.stock"
	printf '%s\n' "${g_ml[@]}" >"$PARITY_TMP/g.libra"
	note "parity (g) over ${#g_ms[@]} runs: $(awk '
		function stats(f,   n, i, x, a, sum) {
			n = 0; sum = 0
			while ((getline x < f) > 0) { a[++n] = x + 0; sum += x }
			asort(a)
			M[f] = sum / n
			return sprintf("mean %.1f s, median %s s, range %d-%d s",
				sum / n, n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2, a[1], a[n])
		}
		BEGIN {
			s = stats(ARGV[1]); l = stats(ARGV[2])
			printf "stock %s; libra %s; libra/stock mean %.3f", s, l, M[ARGV[2]] / M[ARGV[1]]
		}' "$PARITY_TMP/g.stock" "$PARITY_TMP/g.libra")"
fi

if parity_want i && both scen_nopreempt; then
	# A job refused at submission has no states to show.
	i_stock='' i_libra=''
	for side in stock libra; do
		if [ -n "$(g $side i_sla_state)" ]; then
			printf -v "i_$side" '%s then %s' "$(g $side i_sla_state)" "$(g $side i_sla_end)"
		else
			printf -v "i_$side" 'refused at submission'
		fi
	done
	note "parity (i): 4 holders without an SLA on 4 nodes, then an SLA job ($(g libra i_admission) on libra): holders $(g stock i_held) on stock, $(g libra i_held) on libra; the SLA job $i_stock on stock, $i_libra on libra"
	parity_same i_held "(i) the holders' states after the SLA job came"
	expect_eq "RUNNING x4" "$(g libra i_held)" "(i) the holders on libra (not preempted)"
	expect_eq 4 "$(g libra i_requeued)" "(i) accounting rows of the holders on libra (none requeued)"
	# Every node runs a job that does not share: Slurm would start no
	# sharing job there until it ends, so admission plans the start at
	# the holders' time limits (decision 39); nothing is preempted.
	expect_eq "libra: admitted" "$(g libra i_admission)" "(i) job_submit/qos's answer on libra"
	assert_contains "$(g libra i_message)" "planned to start at" "(i) the admission on libra"
	expect_eq COMPLETED "$(g libra i_sla_end)" "(i) the SLA job on libra, once the holders ended"
fi

parity_plugin_errors
parity_stop
expect_done
pass
