#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Binding quotes (job_submit_qos(8), "Binding quotes"; doc/design.md
# decision 20): "sbatch --test-only --comment=...,quote=hold"
# returns a quote number, a price and the end of its hold; the quote holds
# its capacity meanwhile; "--comment=quote=N" submitted 60 s later is
# admitted at exactly the quoted price with no second admission, and
# settled at it in sacct; a quote is refused once taken, to another user,
# for another request, and after its hold ("expired at ..."); a user holds
# at most libra_quote_max quotes; an expired quote's capacity is free again;
# a quote given back by its owner (quote=release:N) frees its capacity at
# once, makes no job, and cannot be given back twice or by another user.
#
# Two nodes of one CPU, libra+$, quotes held 75 s, at most 2 per user.  Each
# quote is for 1 CPU x 4m by 8m: as if started at the hold's end, share
# 240 / (480 - 75) = 0.59 of a CPU, so the two quotes take one node each and
# a job that needs half a CPU fits on neither while they are held.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2
HOLD=75
libra_cluster_env libra_capacity=1 libra_quote_hold=$HOLD libra_quote_max=2
libra_add_user
cluster_start

SLA="runtime=4m,deadline=8m,budget=100"

# quote WHAT: ask for a binding quote; sets QID, QPRICE, QAT (when asked).
quote() { libra_quote "$1" "$SLA"; }

# --- 1. two quotes, and the limit ----------------------------------------------
quote "quote A"
qa=$QID pa=$QPRICE ta=$QAT
assert_contains "$SB_OUT" "(1 CPU x 4m, deadline 8m, libra+\$) on n" "quote A: what it is for"
assert_contains "$SB_OUT" "(1m15s); to take it, submit the job with --comment=quote=$qa" "quote A: how to take it"
quote "quote B"
qb=$QID tb=$QAT
[ "$qa" != "$qb" ] || fail "quotes A and B have the same number $qa"
no_jobs_exist || fail "quote=hold with --test-only created a job: $(squeue -h -t all 2>&1)"
libra_sbatch_refused "a third quote" "you hold 2 binding quotes, the most allowed (libra_quote_max=2)" \
	--test-only -n 1 --comment="$SLA,quote=hold" --wrap 'sleep 1'

# --- 2. the quotes hold their capacity -------------------------------------------
libra_sbatch_refused "half a CPU while the quotes are held" "libra: rejected: " \
	-n 1 --comment="runtime=5m,deadline=10m" --wrap 'sleep 1'
note "half a CPU while held: $(sed -n 's/.*\(libra: rejected: .*\)/\1/p' <<<"$SB_OUT")"

# --- 3. refusals that leave the quote as it was ------------------------------------
SB_USER=$LIBRA_USER
libra_sbatch_refused "quote A taken by another user" "libra: rejected: quote $qa: no such quote of yours" \
	-n 1 --comment="quote=$qa" --wrap 'sleep 1'
SB_USER=
libra_sbatch_refused "quote A for 2 CPUs" "libra: rejected: quote $qa: this job asks another CPU count than was quoted" \
	-n 2 --comment="quote=$qa" --wrap 'sleep 1'
libra_sbatch_refused "quote A with a deadline" "quote $qa carries its own SLA; give no deadline with it" \
	-n 1 --comment="quote=$qa,deadline=1h" --wrap 'sleep 1'
libra_sbatch_refused "an unknown quote" "libra: rejected: quote 99: no such quote" \
	-n 1 --comment="quote=99" --wrap 'sleep 1'

# --- 4. quote A taken 60 s after it was given: the quoted price --------------------
while [ $(($(date +%s) - ta)) -lt 60 ]; do sleep 1; done
[ $(($(date +%s) - ta)) -lt "$HOLD" ] ||
	fail "this machine took more than the hold ($HOLD s) to get here; quote A expired"
libra_sbatch -n 1 --comment="quote=$qa" --wrap 'sleep 2'
[ -n "$SB_JOBID" ] || fail "quote A taken after $(($(date +%s) - ta)) s: refused: $SB_OUT"
ja=$SB_JOBID
assert_contains "$SB_OUT" "libra: admitted: quote $qa taken: price $pa (1 CPU x 4m, deadline" \
	"quote A taken after $(($(date +%s) - ta)) s"
rec=$(job_record "$ja")
assert_eq "$qa" "$(json_get "$rec" admit.quote)" "job $ja: the quote in its record"
price=$(json_get "$rec" admit.price)
note "quote A: quoted $pa, job $ja admitted at $price, $(($(date +%s) - ta)) s after the quote"
libra_sbatch_refused "quote A taken twice" "libra: rejected: quote $qa was already taken by a job" \
	-n 1 --comment="quote=$qa" --wrap 'sleep 1'
wait_until 120 "job $ja to end" job_ended "$ja"
wait_until 60 "job $ja's settled record in sacct" sacct_record_final "$ja"
final=$(sacct_record "$ja")
assert_eq true "$(json_get "$final" final.met)" "job $ja met its deadline (sacct)"
assert_eq "$price" "$(json_get "$final" final.charge)" "job $ja: charged the quoted price (sacct)"

# --- 5. quote B after its hold ------------------------------------------------------
while [ $(($(date +%s) - tb)) -le $((HOLD + 1)) ]; do sleep 1; done
libra_sbatch_refused "quote B after its hold" "libra: rejected: quote $qb expired at " \
	-n 1 --comment="quote=$qb" --wrap 'sleep 1'
# ... and its capacity is free again: the scheduler's first pass 3 s after
# the hold's end releases it (sched_libra(8)); each refused try leaves
# nothing behind.
half_admitted() {
	libra_sbatch -n 1 --comment="runtime=5m,deadline=10m" --wrap 'sleep 1'
	[ -n "$SB_JOBID" ] || { sleep 1; return 1; }
}
wait_until 120 "half a CPU to be admitted once quote B's capacity is released" half_admitted
note "half a CPU admitted $(($(date +%s) - tb)) s after quote B was given"
wait_until 120 "job $SB_JOBID to end" job_ended "$SB_JOBID"

# --- 6. quotes given back (quote=release:N) ------------------------------------------
# C and D hold one node each again (0.59 of its CPU); C given back by its
# owner frees its node at once for half a CPU; no job is made of a
# release; a release of a quote gone, or of another user's, is refused
# as no such quote of the user's.
quote "quote C"
qc=$QID
quote "quote D"
qd=$QID
libra_sbatch_refused "half a CPU while C and D are held" \
	"libra: rejected: not enough free CPU share to meet the deadline" \
	-n 1 --comment="runtime=5m,deadline=10m" --wrap 'sleep 1'
release() { libra_sbatch --test-only --comment="quote=release:$1" --wrap true; }
release "$qc"
assert_contains "$SB_OUT" "libra: quote $qc released: the capacity it held on n" "quote C given back"
assert_eq "" "$SB_JOBID" "a job made of a release"
libra_sbatch_admitted "half a CPU once quote C is given back" \
	-n 1 --comment="runtime=5m,deadline=10m" --wrap 'sleep 1'
half=$SB_JOBID
release "$qc"
assert_contains "$SB_OUT" "libra: rejected: quote $qc: no such quote of yours" "quote C given back twice"
SB_USER=$LIBRA_USER
release "$qd"
SB_USER=
assert_contains "$SB_OUT" "libra: rejected: quote $qd: no such quote of yours" "quote D given back by another user"
# a release submitted as a job (without --test-only) makes none either
libra_sbatch --comment="quote=release:$qd" --wrap true
assert_contains "$SB_OUT" "libra: quote $qd released" "quote D given back by its owner, without --test-only"
assert_eq "" "$SB_JOBID" "a job made of a release without --test-only"
libra_sbatch_refused "a release with an SLA" "release:$qd gives a quote back and makes no job; give no runtime with it" \
	--test-only --comment="quote=release:$qd,runtime=1m" --wrap true
wait_until 120 "job $half to end" job_ended "$half"
expect_done
pass
