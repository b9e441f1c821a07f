#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Cost-aware power provisioning (doc/design.md decision 24):
# sched/libra powers idle nodes down through Slurm's power saving (their
# slurmd is stopped: libra-cluster's SuspendProgram), admission counts a
# powered-down node from its boot, a job whose deadline cannot wait for a
# boot is refused with why, work with slack is deferred to the tariff's
# cheap hour and its node is powered up before it begins, and every
# admitted job meets its deadline.
#
# Three nodes of one CPU; libra_power=h3, decisions every 10 s; a node
# counts 45 s to boot (libra_power_boot): the cluster boots one in
# LIBRA_POWER_BOOT_DELAY=3 s plus slurmd's start, and slurmctld sees a job's
# nodes ready at its next periodic check (up to 30 s later).  The jobs
# sleep: what is tested is where and when they start, not CPU shares.  The tariff costs 1 per
# node-hour now and 0.2 from the "cheap" minute, 3 to 4 minutes from the
# start, for half an hour.
#
#  1. every node is idle: all three are powered down (sinfo: powered down;
#     their slurmd no longer runs);
#  2. U (60 s by 2 min) cannot wait for the cheap hour: it is admitted on a
#     powered-down node counted from its boot, slurmctld powers the node
#     up when sched/libra starts it, and it meets its deadline;
#  3. T (20 s by 44 s) fits on no powered node (beside U: 0.8 + 0.45 from
#     U's counted begin, which T's window always holds: T comes at least
#     the 3 s boot delay after U, and U counts from 45 s after its own
#     submission), and cannot wait 45 s for a boot: refused, saying so.
#     (With 35 s, as before, a node that booted within 10 s of U's
#     submission left T's whole window before U's counted begin, and T
#     was admitted beside U: a fresh-clone run at 8e713ce.)
#  4. D (20 s by 8 min) is deferred to the cheap minute (Slurm holds it,
#     reason BeginTime); its node is powered up before that minute and D
#     starts then and meets its deadline;
#  5. StateSaveLocation/libra_power has the transitions, and libra-report
#     --power bills them.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=3 LIBRA_POWER=1 LIBRA_POWER_BOOT_DELAY=3

# the cheap minute: the first whole minute at least 180 s from now (local
# time, as the plugins read the tariff), for 30 minutes.  D needs it at
# least the boot (45 s) after its submission, which came 75 s after this
# at a load of 20 on 2 cores (240 s, before, cost a minute on every run).
now=$(date +%s)
cheap=$(((now + 180 + 59) / 60 * 60))
libra_find_python
tariff=$("$LIBRA_PYTHON" - "$cheap" <<'PY'
import sys, time
c = int(sys.argv[1]); e = c + 1800
def sod(t):
    lt = time.localtime(t); return lt.tm_hour * 60 + lt.tm_min
rates = {sod(c): 0.2, sod(e): 1.0}
if 0 not in rates:
    rates[0] = 0.2 if sod(e) < sod(c) else 1.0
print(";".join("%02d:%02d=%g" % (m // 60, m % 60, r) for m, r in sorted(rates.items())))
PY
)
libra_cluster_env libra_capacity=1 libra_power=h3 libra_power_interval=10 \
	libra_power_boot=45 libra_power_shutdown=5 "libra_tariff=$tariff"
note "tariff: $tariff (cheap from $(date -d "@$cheap" +%H:%M:%S))"
cluster_start
journal=$LIBRA_CLUSTER_DIR/state/libra_power

powered_down() { # NODE: Slurm has it powered down
	[[ $(sinfo -h -n "$1" -o '%T') == *powered_down* || $(sinfo -h -n "$1" -o '%t') == *'~'* ]]
}
all_down() { powered_down n1 && powered_down n2 && powered_down n3; }
slurmd_stopped() { ! "$LIBRA_CLUSTER" status 2>/dev/null | grep -q "^slurmd:$1 *running"; }

# --- 1. idle nodes are powered down ---------------------------------------------------
wait_until 180 "all three nodes to be powered down" all_down
for n in n1 n2 n3; do
	wait_until 60 "the slurmd of $n to stop" slurmd_stopped "$n"
done
note "sinfo: $(sinfo -h -N -o '%N %T' | tr '\n' ';')"
[ "$(ctld_log_count 'sched/libra: power (h3): powering down')" -ge 1 ] ||
	fail "slurmctld's log has no 'powering down' decision"

# --- 2. a job that cannot wait for the cheap hour: on a node counted from its boot --
gate=$LIBRA_WORK/go-u
libra_sbatch_admitted "urgent U" -n 1 --comment="runtime=60s,deadline=2m" --wrap "$(gate_wait "$gate")"
u=$SB_JOBID
assert_contains "$SB_OUT" "(on powered-down nodes: counted from their boot, " "urgent U: sbatch's message"
note "urgent U: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"

# --- 3. a job that cannot wait for a boot -------------------------------------------
wait_until 120 "U to run" job_in_state "$u" RUNNING
libra_sbatch_refused "tight T" "cannot wait 45s for a powered-down node to boot: libra_power_boot" \
	-n 1 --comment="runtime=20s,deadline=44s" --wrap "sleep 1"
gate_open "$gate"

# --- 4. a job with slack: deferred to the cheap minute --------------------------------
libra_sbatch_admitted "deferrable D" -n 1 --comment="runtime=20s,deadline=8m" --wrap "sleep 5"
d=$SB_JOBID
assert_contains "$SB_OUT" "when power is cheaper)" "deferrable D: sbatch's message"
note "deferrable D: $(sed -n 's/.*\(libra: admitted: .*\)/\1/p' <<<"$SB_OUT")"
begin=$(json_get "$(job_record "$d")" admit.begin)
assert_eq "$cheap" "${begin%.*}" "D's begin is the cheap minute"
assert_eq PENDING "$(job_state "$d")" "D before the cheap minute"
assert_eq BeginTime "$(squeue -h -j "$d" -o %r)" "D's reason before the cheap minute"
dnode=$(json_get "$(job_record "$d")" admit.place.0.node)
note "D placed on $dnode, begins at $(date -d "@$cheap" +%T)"

wait_until 180 "job $u to end" job_ended "$u"
wait_until 400 "D to run" job_in_state "$d" RUNNING
started=$(date -d "$(job_field "$d" StartTime)" +%s)
[ "$started" -ge "$cheap" ] || fail "D started at $started, before its begin $cheap"
# its node was up before it began: a booting or on line for it before then
up_at=$(awk -v n="$dnode" -v c="$cheap" '$2 == n && ($3 == "booting" || $3 == "on") && $1 > s { t = $1 } $2 == n && $3 == "off" { s = $1 } END { print t }' "$journal")
note "libra_power: $(tr '\n' ';' <"$journal")"
[ -n "$up_at" ] && [ "$up_at" -lt "$cheap" ] ||
	fail "D's node $dnode was not powered up before $cheap (last power-up seen: '${up_at:-none}')"
note "D's node powered up $((cheap - up_at)) s before D began; D started $((started - cheap)) s after"
wait_until 180 "job $d to end" job_ended "$d"

# --- 5. deadlines and the journal ----------------------------------------------------
for j in "$u" "$d"; do
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
	assert_eq true "$(json_get "$(sacct_record "$j")" final.met)" "job $j met its deadline (sacct)"
done
# (a boot of a few seconds falls between two passes: "booting" may not be
# seen)
for st in on stopping off; do
	grep -q " $st\$" "$journal" || fail "$journal has no '$st' line"
done
# libra-report bills the powered node-hours: every node powered down at
# least once, U's and D's node up twice
end=$(date -d "@$(($(date +%s) + 1))" +%Y-%m-%dT%H:%M:%S)
report=$("$LIBRA_BUILD/contrib/report/libra-report" --power "$journal" --tariff "$tariff" -P -E "$end") ||
	fail "libra-report --power failed: $report"
note "libra-report --power: $(tr '\n' ';' <<<"$report")"
IFS='|' read -r _ hours cost ups downs <<<"$(grep '^TOTAL|' <<<"$report")"
[ "${ups:-0}" -ge 2 ] && [ "${downs:-0}" -ge 3 ] ||
	fail "libra-report --power: $ups power-ups and $downs power-downs, expected at least 2 and 3: $report"
"$LIBRA_PYTHON" -c 'import sys; h, c = map(float, sys.argv[1:]); sys.exit(not (0 < c <= h))' "$hours" "$cost" ||
	fail "libra-report --power: cost $cost for $hours node-hours (the tariff is at most 1)"
expect_done
cluster_stop
assert_nothing_left
pass
