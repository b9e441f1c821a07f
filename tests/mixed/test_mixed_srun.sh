#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2317 # functions run through both
# test_mixed_srun: interactive allocations racing an admission
# (design.md decision 38), on a stock cluster and on the plugin cluster at
# once (../parity/lib.sh: 4 nodes of 1 CPU each).  Each round, on an idle
# cluster, a batch job with an SLA (runtime=1s; stock takes the --comment
# as a plain comment) and, started 0-60 ms before its sbatch, an ordinary
# user's three `srun -n1 -t1 sleep 3` (no SLA), which Slurm starts inside
# their RPC when they are at the top of the queue: they race the
# admission and sched/libra's start.  Asserted, over LIBRA_MIXED_ROUNDS
# rounds (default 20):
#  - libra: every SLA job admitted, started by sched/libra on its admitted
#    node before any allocation could take it (start - admission < 2 s,
#    where an srun on its node would have kept it 3 s), COMPLETED with its
#    deadline met, none UNSTARTED;
#  - both: every srun ran; libra's sruns all ended no later than stock's
#    plus one libra_interval and the slack (they wait for the admitted job
#    only, never for a pass).
# (A short name: slurmstepd's socket, <cluster>/stock/spool/slurmd-n4/
# n4_<job>.<step>, must fit in 108 bytes under the compatibility suite's
# build directories.)
# shellcheck source=../parity/lib.sh
. "$(dirname "$0")/../parity/lib.sh"
parity_init
libra_find_python
parity_add_user
parity_start

ROUNDS=${LIBRA_MIXED_ROUNDS:-20}
SLA="runtime=1s,deadline=60s,budget=1000"
# one node is left for the SLA job even when every srun comes first
NSRUN=3

# round K: the sruns and the SLA job, which reach slurmctld in either
# order or within milliseconds of each other; puts the SLA job's id and
# when the last srun ended (seconds from the submission).
scen_round() {
	local k=$1 j t0 pids=() i rc bad=0 out
	out=$LIBRA_WORK/sla$k
	t0=$(date +%s.%N)
	for ((i = 0; i < NSRUN; i++)); do
		runuser -u "$PARITY_USER" -- srun -n1 -t1 -D "$LIBRA_WORK" -J "i$k.$i" sleep 3 >/dev/null 2>&1 &
		pids+=($!)
	done
	# an srun takes longer to reach slurmctld than an sbatch started
	# with it: the sbatch starts 0-60 ms after the sruns, so that it
	# reaches slurmctld before, among or after them
	sleep "0.0$((RANDOM % 7))"
	(
		libra_sbatch -n 1 --comment="$SLA" --wrap 'sleep 1'
		printf '%s\n%s\n' "$SB_JOBID" "$SB_OUT" >"$out"
	) &
	for i in "${pids[@]}"; do
		rc=0
		wait "$i" || rc=$?
		[ "$rc" = 0 ] || bad=$((bad + 1))
	done
	wait # the sbatch
	parity_put "srun_end$k" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
	parity_put "srun_bad$k" "$bad"
	j=$(sed -n 1p "$out")
	[ -n "$j" ] || fail "round $k: sbatch made no job: $(tail -n +2 "$out")"
	[ "$PARITY_SIDE" = stock ] || grep -q "libra: admitted" "$out" ||
		fail "round $k: the SLA job was not admitted: $(tail -n +2 "$out")"
	parity_put "job$k" "$j"
	wait_until 120 "SLA job $j to end" job_ended "$j"
}

total_stock=0 total_libra=0 late=()
for ((k = 1; k <= ROUNDS; k++)); do
	both scen_round "$k" || break # a round that failed says why; the next would wait as long
	for side in stock libra; do
		[ "$(parity_get "$side" "srun_bad$k")" = 0 ] ||
			expect_fail "round $k on $side: $(parity_get "$side" "srun_bad$k") of $NSRUN sruns failed"
	done
	s=$(parity_get stock "srun_end$k") l=$(parity_get libra "srun_end$k")
	total_stock=$(awk -v a="$total_stock" -v b="$s" 'BEGIN { print a + b }')
	total_libra=$(awk -v a="$total_libra" -v b="$l" 'BEGIN { print a + b }')
	awk -v s="$s" -v l="$l" -v d=$((PARITY_INTERVAL + PARITY_SLACK)) 'BEGIN { exit !(l > s + d) }' &&
		late+=("round $k: sruns done after $l s, stock $s s")
done
note "the sruns' rounds took $total_libra s on libra, $total_stock s on stock (sum over $ROUNDS rounds)"
[ "${#late[@]}" = 0 ] || expect_fail "sruns later on libra than on stock plus $((PARITY_INTERVAL + PARITY_SLACK)) s: ${late[*]}"

# Every SLA job on libra: admitted, started at once on its node, met.
check_sla_jobs() {
	local k j rec st waits=() bad=()
	wait_until 120 "accounting of the SLA jobs" dbd_queue_empty
	for ((k = 1; k <= ROUNDS; k++)); do
		j=$(parity_get libra "job$k")
		[ -n "$j" ] || continue
		wait_until 60 "job $j's settled record in accounting" sacct_record_final "$j"
		rec=$(sacct_record "$j")
		st=$(sacct_field "$j" State)
		w=$("$LIBRA_PYTHON" -c 'import json, sys
r = json.loads(sys.argv[1]); f = r.get("final", {})
print("%.3f %s %s" % (r.get("start", 1e18) - r["admit"]["time"], f.get("how"), f.get("met")))' "$rec") ||
			{ bad+=("job $j: record unreadable: ${rec:0:200}"); continue; }
		read -r wait how met <<<"$w"
		waits+=("$wait")
		[ "$st" = COMPLETED ] && [ "$how" = COMPLETED ] && [ "$met" = True ] ||
			bad+=("job $j: state $st, settled $how, met $met")
		awk -v w="$wait" 'BEGIN { exit !(w < 2.0) }' ||
			bad+=("job $j started $wait s after its admission (an allocation took its node)")
	done
	note "SLA jobs: $ROUNDS admitted; start after admission (s): $(printf '%s\n' "${waits[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "min %s, median %s, max %s", a[1], a[int((NR + 1) / 2)], a[NR] }')"
	[ "${#bad[@]}" = 0 ] || expect_fail "SLA jobs: ${bad[*]}"
}
on libra check_sla_jobs
parity_stop
expect_done
pass
