#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# test_sched_state: what no job record holds survives a restart of
# slurmctld (doc/design.md decisions 9 and 20): the book of
# binding quotes (StateSaveLocation/libra_quotes) and Libra+$Auto's betas
# (libra_beta).
#
# Two nodes of one CPU, libra+$auto, quotes held 300 s.  Two quotes for
# 1 CPU x 4m by 10m hold 240 / (600 - 300) = 0.8 of a CPU of one node
# each, so half a CPU is refused while they are held.  Then
# slurmctld is killed (SIGKILL) and restarted: both quotes are read back and
# hold their capacity again (half a CPU still refused), the betas are those
# saved before; quote A is taken at exactly its quoted price; after a clean
# restart quote A is still known as taken, and quote B is taken at its
# price; both jobs are settled at their quoted prices in sacct.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2
libra_cluster_env "libra_policy=libra+\$auto" libra_capacity=1 \
	libra_quote_hold=300 libra_quote_max=2
cluster_start
log=$LIBRA_CLUSTER_DIR/log/slurmctld.log
state=$LIBRA_CLUSTER_DIR/state

SLA="runtime=4m,deadline=10m,budget=1000"

# quote WHAT: a binding quote; sets QID and QPRICE.
quote() { libra_quote "$1" "$SLA"; }

# held WHEN: half a CPU is refused while the quotes hold both nodes.
held() {
	libra_sbatch_refused "half a CPU $1" "libra: rejected: " \
		-n 1 --comment="runtime=5m,deadline=10m" --wrap 'sleep 1'
}

# book_price ID: quote ID's price in the saved book, all its digits.
book_price() { sed -n "s/^quote id=$1 .* price=\([^ ]*\) .*/\1/p" "$state/libra_quotes"; }

# same_number A B: A and B are the same double.
same_number() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }'; }

# take ID PRICE EXACT WHAT: quote ID becomes a job at PRICE as the quote
# said it, EXACT to the last digit in its record; sets JOB.
take() {
	libra_sbatch -n 1 --comment="quote=$1" --wrap 'sleep 2'
	[ -n "$SB_JOBID" ] || fail "$4: quote $1 refused: $SB_OUT"
	assert_contains "$SB_OUT" "libra: admitted: quote $1 taken: price $2 " "$4"
	JOB=$SB_JOBID
	local rec
	rec=$(job_record "$JOB")
	assert_eq "$1" "$(json_get "$rec" admit.quote)" "$4: the quote in job $JOB's record"
	same_number "$3" "$(json_get "$rec" admit.price)" ||
		fail "$4: job $JOB admitted at $(json_get "$rec" admit.price), quoted $3"
}

# restarted HOW N: slurmctld back after HOW (kill: SIGKILL; stop: a clean
# stop), the book read back with N quotes holding their capacity.
restarted() {
	local t0=$SECONDS before
	before=$(ctld_log_count "binding quote(s) read from $state/libra_quotes")
	[ "$1" = stop ] || "$LIBRA_CLUSTER" kill slurmctld >/dev/null
	"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
	wait_until 60 "the restarted slurmctld to read the book" \
		test "$(ctld_log_count "binding quote(s) read from $state/libra_quotes")" -gt "$before"
	assert_contains "$(grep -F "binding quote(s) read from" "$log" | tail -n 1)" \
		", $2 holding their capacity again" "the book after the $1"
	note "slurmctld back $((SECONDS - t0)) s after the $1: $(grep -F "binding quote(s) read from" "$log" | tail -n 1 | sed 's/.*sched\/libra: //')"
}

# --- 1. two quotes hold both nodes -----------------------------------------------
quote "quote A"
qa=$QID pa=$QPRICE
quote "quote B"
qb=$QID pb=$QPRICE
held "while the quotes are held"
wait_until 30 "the book on disk with both quotes" grep -q "^quote id=$qb " "$state/libra_quotes"
xa=$(book_price "$qa") xb=$(book_price "$qb")
if [ -z "$xa" ] || [ -z "$xb" ]; then
	fail "no prices in the book: $(cat "$state/libra_quotes")"
fi
# the betas sched/libra writes after its pass
wait_until 30 "Libra+\$Auto's betas on disk" grep -q '^beta ' "$state/libra_beta"
betas=$(grep '^beta ' "$state/libra_beta" | sort)
note "betas before the restart: $(tr '\n' ' ' <<<"$betas")"

# --- 2. SIGKILL: the quotes and their capacity, the betas --------------------------
bmtime=$(stat -c %Y.%y "$state/libra_beta")
restarted kill 2
held "after the restart"
assert_contains "$(grep -F "Libra+\$Auto's beta of" "$log" | tail -n 1)" \
	"beta of $(grep -c . <<<"$betas") node(s) read from $state/libra_beta" "betas read back"
# sched/libra writes the betas of its new ledger; no admission since the
# restart (half a CPU was refused, which leaves them), so those read
wait_until 30 "the betas written again" test "$(stat -c %Y.%y "$state/libra_beta")" != "$bmtime"
assert_eq "$betas" "$(grep '^beta ' "$state/libra_beta" | sort)" "the betas after the restart"
take "$qa" "$pa" "$xa" "quote A after the SIGKILL"
ja=$JOB

# --- 3. a clean stop and start: A known as taken, B taken at its price --------------
restarted stop 1
libra_sbatch_refused "quote A again" "libra: rejected: quote $qa was already taken by a job" \
	-n 1 --comment="quote=$qa" --wrap 'sleep 1'
take "$qb" "$pb" "$xb" "quote B after a clean restart"
jb=$JOB

# --- 4. both settled at their quoted prices ----------------------------------------
for j in "$ja:$xa" "$jb:$xb"; do
	wait_until 120 "job ${j%%:*} to end" job_ended "${j%%:*}"
	wait_until 60 "job ${j%%:*}'s settled record in sacct" sacct_record_final "${j%%:*}"
	final=$(sacct_record "${j%%:*}")
	assert_eq true "$(json_get "$final" final.met)" "job ${j%%:*} met its deadline (sacct)"
	same_number "${j#*:}" "$(json_get "$final" final.charge)" ||
		fail "job ${j%%:*}: charged $(json_get "$final" final.charge) in sacct, quoted ${j#*:}"
done
note "quotes $qa and $qb taken after restarts at $pa and $pb, settled at them"
pass
