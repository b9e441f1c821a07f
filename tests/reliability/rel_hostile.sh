#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# rel_hostile: hostile input end to end.
# test_submit_malformed.sh has 70+ hand-written malformed SLAs; here a
# seeded generator (hostile_gen.py: random bytes, huge lengths, nested
# separators, Unicode, format strings, JSON-looking text, 1e308, -0, 0x1p4,
# nan, whitespace soup, odd durations, mutated valid SLAs) feeds
#
#  1. --comment through real sbatch, as an ordinary user;
#  2. the libra SPANK options (--runtime, --budget, ...) through sbatch;
#  3. --comment through the Slurm API (up to 1 MiB, past sbatch's argument
#     limit), and raw SPANK option entries through the API
#     (_SLURM_SPANK_OPTION_libra_<name>=<value>, as sbatch sends them, but
#     without sbatch's own checks of printable ASCII and length);
#
# quick: 400 + 150 + 200 + 400 submissions; long (LIBRA_LONG=1): 10 times
# as many.  LIBRA_SEED picks them (default 1).  Each must be
#  - admitted: a job made, with a well-formed record (the core's decoder),
#    "libra: admitted:" for an SLA and no libra message for best effort; or
#  - refused with a "libra: rejected:" message and no job; or
#  - refused before slurmctld by the SPANK plugin in sbatch ("libra: --X:"),
#    or by Slurm itself for a comment over its 1024-byte limit;
# nothing else.  slurmctld never dies (same pid throughout), no record in
# the job table or in accounting is malformed, every line of the refusal
# log decodes, and libra-report reads it all.
#
#  4. hostile SchedulerParameters through "scontrol reconfigure": each bad
#     value is refused with an error line that names the key ("keeping the
#     previous settings"), and the policy still quotes exactly what it
#     quoted before; a good change takes effect (price base doubled, price
#     doubled), and the original comes back.
# shellcheck source=../integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
libra_test_init
export LC_ALL=C # lengths in bytes, as Slurm counts them
libra_cluster_env 'libra_policy=libra+$' libra_price_base=3600
libra_add_user
user=$LIBRA_USER
cluster_start
ctld=$(slurmctld_pid)
submit=$(libra_rel_tool libra_submit)
libra_rel_tool record_check >/dev/null
gen=${LIBRA_REL_SRC:-$LIBRA_TOP/tests/reliability}/hostile_gen.py
SEED=${LIBRA_SEED:-1}
if libra_long; then k=10; else k=1; fi
N_COMMENT=$((400 * k)) N_SPANK=$((150 * k)) N_API=$((200 * k)) N_RAW=$((400 * k))
note "$(libra_mode) mode, seed $SEED: $N_COMMENT comments and $N_SPANK SPANK options through sbatch, $N_API comments and $N_RAW SPANK entries through the API"
H=$LIBRA_WORK/hostile
rm -rf "$H"
mkdir -p "$H"
chmod 755 "$H"
for kind in comment spank comment-api spank-raw; do
	case $kind in
	comment) n=$N_COMMENT ;;
	spank) n=$N_SPANK ;;
	comment-api) n=$N_API ;;
	spank-raw) n=$N_RAW ;;
	esac
	"$LIBRA_PYTHON" "$gen" "$SEED" "$n" "$kind" "$H/$kind.bin" || fail "hostile_gen.py failed"
done
chmod 644 "$H"/*.bin
log=$LIBRA_CLUSTER_DIR/log/slurmctld.log
declare -A outcome=()

# classify WHAT LEN CLIENT RC OUTPUT JOBID: one line of results.
#   CLIENT: "sbatch-spank" when sbatch's SPANK checks may refuse first
results=$H/results
: >"$results"
classify() {
	local what=$1 len=$2 client=$3 rc=$4 out=$5 jid=$6 kind
	if [ -n "$jid" ]; then
		kind=created
	elif [[ $out == *"libra: rejected:"* ]]; then
		kind=refused
	elif [ "$client" = sbatch-spank ] && [[ $out == *"error: libra: --"* ]]; then
		kind=refused-by-sbatch
	elif [ "$len" -gt 1024 ] && [[ $out == *"Pathname of a file, directory or other parameter too long"* ]]; then
		kind=refused-by-slurm
	else
		kind=other
	fi
	outcome[$kind]=$((${outcome[$kind]:-0} + 1))
	printf '%s|%s|%s|%s|%s\n' "$what" "$kind" "$jid" "$len" "$(printf '%s' "$out" | tr '\n|' '  ' | cut -c1-300)" >>"$results"
	if [ "$kind" = other ]; then
		expect_fail "$what (rc $rc, $len bytes): neither admitted nor refused by libra: $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-300)"
	fi
}

# --- 1 and 2: through sbatch, as the user ---------------------------------
sb() { # sbatch as the user; at most 60 s (a retried refusal, 2 minutes of retries, is a failure)
	runuser -u "$user" -- timeout 60 sbatch -D "$LIBRA_WORK" -o /dev/null --wrap true "$@" 2>&1
}
t0=$SECONDS
i=0
while IFS= read -r -d '' c; do
	i=$((i + 1))
	rc=0
	out=$(sb -J "hc$i" --comment="$c") || rc=$?
	jid=
	[[ $out =~ Submitted\ batch\ job\ ([0-9]+) ]] && jid=${BASH_REMATCH[1]}
	classify "comment $i" "${#c}" sbatch "$rc" "$out" "$jid"
	if ((i % 50 == 0)); then
		assert_slurmctld_up "$ctld"
	fi
done <"$H/comment.bin"
note "sbatch --comment: $i submissions in $((SECONDS - t0)) s"
t0=$SECONDS
i=0
while IFS= read -r -d '' opt && IFS= read -r -d '' val; do
	i=$((i + 1))
	rc=0
	out=$(sb -J "hs$i" --comment="runtime=1m,deadline=1h" "--$opt=$val") || rc=$?
	jid=
	[[ $out =~ Submitted\ batch\ job\ ([0-9]+) ]] && jid=${BASH_REMATCH[1]}
	classify "--$opt $i" "${#val}" sbatch-spank "$rc" "$out" "$jid"
done <"$H/spank.bin"
note "sbatch SPANK options: $i submissions in $((SECONDS - t0)) s"
assert_slurmctld_up "$ctld"

# --- 3: through the Slurm API, as the user --------------------------------
# api KIND FLAG: libra_submit over the items of KIND.bin, one at a time, so
# that each RESULT line follows the error line libslurm printed for it.
api() {
	local kind=$1 flag=$2
	local err=$H/$kind.err line idx rc jid msg prev='' len
	runuser -u "$user" -- "$submit" "$flag" "$H/$kind.bin" -w 1 -D "$LIBRA_WORK" -x true \
		>"$H/$kind.sum" 2>"$err" || :
	note "API $kind: $(cat "$H/$kind.sum")"
	mapfile -d '' items <"$H/$kind.bin"
	while IFS= read -r line; do
		if [[ $line =~ ^RESULT\ ([0-9]+)\ (-?[0-9]+)\ ([0-9]+)\ (.*)$ ]]; then
			idx=${BASH_REMATCH[1]} rc=${BASH_REMATCH[2]} jid=${BASH_REMATCH[3]} msg=${BASH_REMATCH[4]}
			[ "$jid" != 0 ] || jid=
			len=${#items[idx]}
			[ "$kind" = spank-raw ] && len=0 # the comment is empty
			classify "API $kind $((idx + 1))" "$len" api "$rc" "$prev $msg" "$jid"
			prev=
		else
			prev+=" $line"
		fi
	done <"$err"
}
t0=$SECONDS
api comment-api -C
api spank-raw -S
note "API submissions in $((SECONDS - t0)) s"
assert_slurmctld_up "$ctld"
note "outcomes: $(for k in "${!outcome[@]}"; do printf '%s=%s ' "$k" "${outcome[$k]}"; done)"
[ "${outcome[created]:-0}" -gt 0 ] || expect_fail "no hostile submission was admitted: the mix has no valid SLA?"
[ "${outcome[refused]:-0}" -gt 0 ] || expect_fail "no hostile submission was refused by libra"

# Admitted: "libra: admitted:" exactly for the jobs with an SLA; every record
# in the job table well formed (squeue --json has them as slurmctld does).
squeue --json >"$H/squeue.json" 2>/dev/null || fail "squeue --json failed"
"$LIBRA_PYTHON" - "$H/squeue.json" >"$H/table" <<'EOF'
import json, sys
# Slurm writes the users' comments into its JSON byte for byte
for j in json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape"))["jobs"]:
    print("%s|%s" % (j["job_id"], j.get("admin_comment") or ""))
EOF
note "job table now: $(records_check "$H/table" 2)"
# libra-report reads the records of jobs that have not ended from squeue's
# JSON, hostile comments and all
"$LIBRA_BUILD/contrib/report/libra-report" --refusals "$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl" -P -n \
	>"$H/report-live" 2>&1 || expect_fail "libra-report fails on the job table with hostile comments: $(head -c 300 "$H/report-live")"
wait_until 300 "the hostile jobs to end" no_jobs_active
wait_until 120 "slurmctld's messages to slurmdbd to be sent" dbd_queue_empty
maxid=$(cut -d'|' -f3 "$results" | sort -n | tail -n 1)
sacct_dump "$H/sacct" "$(seq -s, 1 $((${maxid:-0} + 5)))"
note "accounting: $(records_check "$H/sacct" 7)"
"$LIBRA_PYTHON" - "$results" "$H/sacct" <<'EOF' || expect_fail "admitted jobs and their messages disagree (above)"
import json, sys
recs = {}
for l in open(sys.argv[2]):
    f = l.rstrip("\n").split("|", 6)
    recs[f[0]] = f[6]
bad = 0
for l in open(sys.argv[1], encoding="utf-8", errors="surrogateescape", newline="\n"):
    what, kind, jid, n, out = l.rstrip("\n").split("|", 4)
    if kind != "created":
        continue
    rec = recs.get(jid)
    if rec is None:
        print("%s: job %s is not in accounting" % (what, jid)); bad += 1; continue
    r = json.loads(rec) if rec else None
    if r is None:
        print("%s: job %s has no record" % (what, jid)); bad += 1; continue
    sla = not r.get("best_effort")
    said = "libra: admitted: price " in out
    if sla != said:
        print("%s: job %s: record %s an SLA, sbatch's message %s: %s" % (what, jid, "has" if sla else "has no",
              "says admitted" if said else "says nothing", out[:200])); bad += 1
    if "final" not in r:
        print("%s: job %s: record not settled: %s" % (what, jid, rec[:200])); bad += 1
sys.exit(1 if bad else 0)
EOF
refusals=$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl
note "refusal log: $(records_check <(sed 's/^/refusal|/' "$refusals") 2 --refusals)"
"$LIBRA_BUILD/contrib/report/libra-report" --sacct-file <(sacct -n -X -a -P -S 2000-01-01 -E now --noconvert \
	-o JobID,Account,User,State,Submit,Start,End,AdminComment%65535) --refusals "$refusals" --no-squeue -P -n \
	>"$H/report" || expect_fail "libra-report cannot read the records and refusals of the hostile run"
assert_slurmctld_up "$ctld"

# --- 4: hostile SchedulerParameters ------------------------------------------
conf=$SLURM_CONF
good=$(sed -n 's/^SchedulerParameters=//p' "$conf")
[ -n "$good" ] || fail "no SchedulerParameters line in $conf"
set_params() { # rewrite the line, reconfigure
	local esc
	esc=$(printf '%s' "$1" | sed 's/[&|\\]/\\&/g')
	sed -i "s|^SchedulerParameters=.*|SchedulerParameters=$esc|" "$conf"
	scontrol reconfigure || fail "scontrol reconfigure failed for SchedulerParameters=$1"
}
# quote: the price of the same request on the idle cluster, from sbatch's
# admission message (held, then cancelled, so that it commits nothing
# afterwards).
quote() {
	local out id
	out=$(sbatch -D "$LIBRA_WORK" -o /dev/null -J quote --hold --comment="runtime=10m,deadline=1h,budget=1000000" --wrap true 2>&1) ||
		fail "the reference job was not admitted: $out"
	[[ $out =~ libra:\ admitted:\ price\ ([0-9.]+) ]] || fail "no price in: $out"
	printf '%s' "${BASH_REMATCH[1]}"
	id=$(sed -n 's/.*Submitted batch job \([0-9]*\).*/\1/p' <<<"$out")
	scancel "$id"
	wait_until 120 "job $id to end" job_ended "$id"
}
base=$(quote)
[[ $base =~ ^[0-9.]+$ ]] || fail "no reference quote"
note "reference quote with '$good': price $base"
# Each bad set is applied in a new second: the plugins notice a new
# configuration by slurm_conf.last_update, which counts seconds (the
# same-second case is checked on its own below).
bad_params=(
	'libra_alpha=-1' 'libra_alpha=nan' 'libra_beta=1e309' 'libra_beta=0x1p4' 'libra_alpha=-0'
	'libra_price_base=0' 'libra_capacity=1.5' 'libra_policy=bogus' 'libra_policy=' 'libra_unknown=1'
	'libra_alpha=1,libra_alpha=2' 'libra_alpha' 'libra_alpha=%s%n' "libra_beta=$(printf '9%.0s' $(seq 2000))"
)
if libra_long; then
	bad_params+=(
		'libra_alpha=inf' 'libra_beta=1e-400' 'libra_interval=0' 'libra_peak_hours=25-3' 'libra_tolerance=1'
		'libra_beta_min=5,libra_beta_max=1' 'libra_no_sla=REJECT' 'libra_alpha=+1' 'libra_alpha=1e3x'
		'libra_alpha=0.5.5' 'libra_alpha==1' 'libra_enforce=maybe' 'libra_share_min=0'
		'libra_resfree=WINDOW' 'libra_charge=' 'libra_alpha=１'
	)
fi
next_second() { sleep "$(date +%N | awk '{ printf "%.3f", 1.02 - $1 / 1e9 }')"; }
n=0
for bp in "${bad_params[@]}"; do
	n=$((n + 1))
	key=${bp%%=*}
	# the entry of the good set with the same key is replaced; the rest kept
	bad_set=$(printf '%s' "$good" | tr ',' '\n' | grep -v "^${key}=" | paste -sd, -)
	bad_set+=",$bp"
	lines=$(wc -l <"$log")
	next_second
	set_params "$bad_set"
	# the plugins read the new configuration at once (sched/libra's
	# reconfigure hook); the refusal names the key
	# shellcheck disable=SC2317 # called by wait_until
	logged() { tail -n +"$((lines + 1))" "$log" | grep -F "SchedulerParameters: $1" | grep -qF "keeping the previous settings"; }
	want=$key
	[ "$bp" != 'libra_beta_min=5,libra_beta_max=1' ] || want=libra_beta_min
	[ "$bp" != 'libra_alpha=1,libra_alpha=2' ] || want=libra_alpha=2
	if ! wait_until_ok 60 logged "$want"; then
		expect_fail "SchedulerParameters with '${bp:0:60}': no error line naming '$want' ('keeping the previous settings'); new lines: $(tail -n +"$((lines + 1))" "$log" | grep -i 'libra\|SchedulerParameters' | head -n 3 | paste -sd';' -)"
	fi
	got=$(quote)
	[ "$got" = "$base" ] || expect_fail "after the refused '${bp:0:60}', the quote is $got, was $base: the old values were not kept"
	assert_slurmctld_up "$ctld"
done
note "$n hostile SchedulerParameters refused with the key named, quotes unchanged ($base)"
# Two reconfigurations in one second (an administrator fixing a typo at
# once): the second one counts.  A bad value, then at once a good one with
# the price base tripled: the quote must be three times the reference.
pb=$(printf '%s' "$good" | tr ',' '\n' | sed -n 's/^libra_price_base=//p')
tripled=$(printf '%s' "$good" | sed "s/libra_price_base=$pb/libra_price_base=$((pb * 3))/")
for try in $(seq 10); do
	next_second
	t1=$(date +%s)
	set_params "$good,libra_alpha=-1"
	# a submission in between: both plugins have read the bad set now
	sbatch -D "$LIBRA_WORK" -o /dev/null -J between --hold --comment="runtime=1m,deadline=1h,budget=1000000" --wrap true >/dev/null 2>&1 || :
	set_params "$tripled"
	t2=$(date +%s)
	[ "$t1" != "$t2" ] || break
done
# (on a slow machine the three commands can take more than a second each
# time: then the later configuration is simply the newer one, and the
# same-second case went unobserved)
[ "$t1" = "$t2" ] ||
	note "not observed: two reconfigurations in one second (10 tries, each took $((t2 - t1)) s or so: the machine is slow); the check below then shows only that the newer one counts"
scancel -n between 2>/dev/null || :
wait_until 120 "the job in between to end" no_jobs_active
got=$(quote)
"$LIBRA_PYTHON" -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(b - 3 * a) > 0.011)" "$base" "$got" ||
	expect_fail "two reconfigurations in one second ($t1, $t2): bad libra_alpha=-1, then libra_price_base=$((pb * 3)): the quote is $got, expected 3 x $base (the plugins kept the first configuration: they compare slurm_conf.last_update, in whole seconds)"
next_second
set_params "$good"
# A case-variant key is not a libra_ key for the parser: reported, not failed.
lines=$(wc -l <"$log")
next_second
set_params "$good,Libra_alpha=-1"
if ! tail -n +"$((lines + 1))" "$log" | grep -qi "Libra_alpha"; then
	note "observation: 'Libra_alpha=-1' (a libra key in other case) is ignored without a log line; quote $(quote)"
fi
# A good change takes effect, then the original comes back.
next_second
set_params "$(printf '%s' "$good" | sed "s/libra_price_base=$pb/libra_price_base=$((pb * 2))/")"
doubled=$(quote)
"$LIBRA_PYTHON" -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(b - 2 * a) > 0.011)" "$base" "$doubled" ||
	expect_fail "with libra_price_base doubled the quote is $doubled, expected 2 x $base"
next_second
set_params "$good"
again=$(quote)
[ "$again" = "$base" ] || expect_fail "with the original SchedulerParameters again the quote is $again, was $base"
note "price base x2: quote $doubled; restored: $again"
assert_slurmctld_up "$ctld"
errs=$(ctld_plugin_errors | grep -v "SchedulerParameters: .*keeping the previous settings" || :)
[ -z "$errs" ] || expect_fail "slurmctld logged other errors from our plugins: $(head -n 5 <<<"$errs")"

expect_done
cluster_stop
assert_nothing_left
pass
