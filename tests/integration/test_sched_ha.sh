#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_sched_ha: a primary and a backup slurmctld on one StateSaveLocation
# (LIBRA_BACKUP=1; HIGH AVAILABILITY in sched_libra(8), design.md decision
# 28).
#
#  1. Two nodes of one CPU, libra_capacity=0.8.  On n1 two admitted jobs run
#     (share 0.3 each, held at gates), on n2 a booking waits for its begin,
#     and a binding quote for n2 is held, untaken.
#  2. The primary is killed (SIGKILL).  The backup takes over: the running
#     jobs run on, the booking still waits, its ledger is rebuilt from the
#     job records: a job of 0.25 on n1 is refused (0.6 + 0.25 > 0.8), one
#     of 0.15 admitted; the quote still holds its capacity on n2 (a job
#     that fits only without it is refused) and is taken at its price.
#  3. The primary, started again, takes control back (the backup goes back
#     to standby); meanwhile one of n1's jobs ends.
#  4. "scontrol takeover": the backup takes control a second time, in the
#     same process.  What it knew from its first time in control is stale:
#     a job of 0.3 on n1 is admitted (0.3 + 0.15 + 0.3 <= 0.8, the ended
#     job's share free again), one of 0.1 more refused.
#  5. The primary takes control back; the gates open.  Every job, admitted
#     by either controller, ran once and met its deadline: one accounting
#     row, one settled record, charged its price; no node drained, no
#     error from the plugins in either controller's log.
# Handing control back takes Slurm 24.11 and 26.05 about 30 s (the
# backup's REQUEST_CONTROL handler waits for itself: "backup not
# completely done relinquishing control").
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2 LIBRA_BACKUP=1
HOLD=150
libra_cluster_env 'libra_policy=libra+$' libra_capacity=0.8 libra_quote_hold=$HOLD
cluster_start
burn=$LIBRA_BUILD/contrib/tools/libra-burn
[ -x "$burn" ] || fail "build contrib/tools first (make)"
logs=("$LIBRA_CLUSTER_DIR"/log/slurmctld.log "$LIBRA_CLUSTER_DIR"/log/slurmctld-backup.log)
gate=$LIBRA_WORK/go
jobs=()

# admit WHAT NODE RUNTIME [GATE]: an admitted job of 1 CPU on NODE, RUNTIME
# seconds of work by 600 s (share RUNTIME / 600), waiting at GATE (gate
# by default) then burning a second; sets SB_JOBID, adds it to jobs.
admit() {
	libra_sbatch_admitted "$1" -J "ha-$1" -w "$2" -n 1 \
		--comment="runtime=${3}s,deadline=600s,budget=100000" --wrap "$(gate_wait "${4:-$gate}" "$burn 1")"
	jobs+=("$SB_JOBID")
}
refuse() { # WHAT NODE RUNTIME
	libra_sbatch_refused "$1" "libra: rejected: not enough free CPU share" -J "$1" -w "$2" -n 1 \
		--comment="runtime=${3}s,deadline=600s,budget=100000" --wrap true
}
in_control() { [ "$("$LIBRA_CLUSTER" control)" = "$1" ]; }
# state_holds NAME...: slurmctld's job state file has the jobs of these
# names (packed strings, so grep finds them).  A job it acknowledged but
# had not written yet (Slurm writes it within seconds) would be lost with
# a killed controller, as with any Slurm scheduler (sched_libra(8),
# DURABILITY).
# shellcheck disable=SC2317 # called by wait_until
state_holds() {
	local name
	for name in "$@"; do
		grep -qaF -- "$name" "$LIBRA_CLUSTER_DIR/state/job_state" || return 1
	done
}
standbys() { grep -c 'slurmctld running in background mode' "${logs[1]}" || :; }

# --- 1. the workload -------------------------------------------------------------
in_control slurmctld || fail "the primary is not in control after the start: $("$LIBRA_CLUSTER" status)"
admit a1 n1 180
a1=$SB_JOBID
admit a2 n1 180 "$LIBRA_WORK/go-a2"
a2=$SB_JOBID
libra_sbatch_admitted "booking b" -J ha-b -w n2 -n 1 --begin=now+40 \
	--comment="runtime=30s,deadline=150s,budget=100000" --wrap "$burn 1"
b=$SB_JOBID
jobs+=("$b")
libra_sbatch --test-only -w n2 -n 1 --comment="runtime=30s,deadline=400s,budget=100000,quote=hold" --wrap "$burn 1"
[[ $SB_OUT =~ libra:\ quote\ ([0-9]+):\ price\ ([0-9.]*[0-9]) ]] || fail "no binding quote: $SB_OUT"
qid=${BASH_REMATCH[1]} qprice=${BASH_REMATCH[2]}
for j in "$a1" "$a2"; do
	wait_until 120 "job $j to run" job_in_state "$j" RUNNING
done
assert_eq PENDING "$(job_state "$b")" "booking b before its begin"
wait_until 60 "the job state file to hold every job" state_holds ha-a1 ha-a2 ha-b

# --- 2. the primary killed: the backup takes over ------------------------------------
t0=$SECONDS
"$LIBRA_CLUSTER" kill slurmctld >/dev/null
wait_until 180 "the backup to take control" in_control slurmctld:backup
wait_until 60 "the backup to answer for jobs" job_in_state "$a1" RUNNING
note "the backup in control $((SECONDS - t0)) s after the SIGKILL of the primary"
assert_eq RUNNING "$(job_state "$a2")" "job $a2 after the takeover"
case $(job_state "$b") in
PENDING | RUNNING | COMPLETED) ;;
*) fail "booking b is $(job_state "$b") after the takeover" ;;
esac
refuse over1 n1 150
admit fits1 n1 90
fits1=$SB_JOBID
# the quote still holds its capacity on n2 (0.2 booked + 0.12 held + 0.5
# > 0.8; without the hold 0.5 would fit), and is taken at its price
refuse overq n2 300
libra_sbatch -w n2 -n 1 --comment="quote=$qid" --wrap "$burn 1"
[ -n "$SB_JOBID" ] || fail "quote $qid taken after the takeover: refused: $SB_OUT"
jobs+=("$SB_JOBID")
assert_contains "$SB_OUT" "libra: admitted: quote $qid taken: price $qprice " "quote $qid taken after the takeover"
note "quote $qid taken after the takeover at its price $qprice"

# --- 3. the primary takes control back; a2 ends meanwhile ----------------------------
t0=$SECONDS
n=$(standbys)
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "the primary did not start again"
wait_until 60 "the primary to be in control" in_control slurmctld
wait_until 60 "the backup to go back to standby" test "$(standbys)" -gt "$n"
note "the primary in control again $((SECONDS - t0)) s after its start"
gate_open "$LIBRA_WORK/go-a2"
wait_until 120 "job $a2 to end" job_ended "$a2"

# --- 4. scontrol takeover: the backup in control a second time ------------------------
t0=$SECONDS
"$LIBRA_CLUSTER" takeover >/dev/null || fail "libra-cluster takeover failed"
note "the backup in control again $((SECONDS - t0)) s after scontrol takeover"
admit fits2 n1 180
refuse over2 n1 60
for j in "$a1" "$fits1"; do
	assert_eq RUNNING "$(job_state "$j")" "job $j after the second takeover"
done

# --- 5. the primary back; every job ends as admitted ------------------------------
# (Slurm 26.05.3's backup in control sends nothing to slurmdbd: the jobs
# that ended meanwhile reach accounting once the primary is back)
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "the primary did not start again"
wait_until 60 "the primary to be in control" in_control slurmctld
gate_open "$gate"
assert_ran_once_and_met "the takeovers" "${jobs[@]}"
drained=$(sinfo -h -N -o '%N %t' | grep -E 'drain|drng|down|fail' || :)
assert_eq "" "$drained" "nodes drained or down"
assert_eq 0 "$(cat "${logs[@]}" | grep -c 'Duplicate jobid' || :)" "'Duplicate jobid' in the controllers' logs"
assert_eq "" "$(ctld_plugin_errors)" "errors of the plugins in the controllers' logs"
note "${#jobs[@]} jobs, each ran once and met its deadline; no node drained"
pass
