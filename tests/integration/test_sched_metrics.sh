#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# What a provider watches (doc/design.md decision 44; sched_libra(8),
# "METRICS"): sched/libra writes its metrics file (libra_metrics_file,
# every second here), Debian's node_exporter serves it through its textfile
# collector and a real Prometheus scrapes it, all on loopback.  A small
# workload in two accounts (the user's default account, named by no job,
# and phys):
#   A  default account, met;    B  phys, met;
#   C  phys, soft deadline, 4-5 s late: missed, a penalty;
#   refused: phys over its budget ("budget"), a malformed SLA in the
#   default account ("invalid"); an sbatch --test-only probe, admitted but
#   never a job (not an admission: libra-report does not see it either).
# Read back through Prometheus' query API once everything is settled, the
# counters equal libra-report's figures for the window, account by account
# (admitted, refused, met, missed, revenue, penalties), and sacct's records;
# per node, the CPUs equal slurm.conf's, the committed share and jobs of a
# running job's node are its share and 1, and the reference price of an
# idle node is what an sbatch --test-only of the reference job (1 CPU, 1 h
# by 2 h, -w that node) is quoted.  Every query of the Grafana dashboard
# (contrib/metrics/libra-dashboard.json) runs without error, and promtool
# accepts the alert rules (contrib/metrics/libra-alerts.yml), which this
# Prometheus loads.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
for cmd in prometheus promtool prometheus-node-exporter; do
	command -v "$cmd" >/dev/null || skip "$cmd is not installed (contrib/setup installs prometheus and prometheus-node-exporter)"
done
metrics_dir=$LIBRA_BUILD/_build/metrics-$LIBRA_TEST
rm -rf "$metrics_dir"
mkdir -p "$metrics_dir/textfile" "$metrics_dir/prometheus"
alerts=$abs_top_srcdir/contrib/metrics/libra-alerts.yml
dashboard=$abs_top_srcdir/contrib/metrics/libra-dashboard.json

# --- the rules, checked as a site would ---------------------------------------
out=$(promtool check rules "$alerts" 2>&1) || fail "promtool check rules $alerts: $out"
note "promtool: $(tr '\n' ' ' <<<"$out")"

export LIBRA_NODES=2
libra_cluster_env libra_capacity=1 \
	"libra_metrics_file=$metrics_dir/textfile/libra.prom" libra_metrics_interval=1
cluster_start
t_start=$(date +%Y-%m-%dT%H:%M:%S)	# the window of libra-report and sacct

# --- node_exporter and Prometheus, on free loopback ports, stopped by pid -------
scraper_pids=()
_stop_scrapers() {
	local pid
	for pid in "${scraper_pids[@]}"; do
		kill "$pid" 2>/dev/null || :
		wait "$pid" 2>/dev/null || :
	done
	scraper_pids=()
}
trap 'rc=$?; _stop_scrapers; (exit $rc); _libra_exit' EXIT
free_port() { # a free port from $1 on
	local p=$1
	while _libra_port_taken "$p"; do p=$((p + 1)); done
	echo "$p"
}
ne_port=$(free_port $((LIBRA_PORT_BASE + 900)))
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$metrics_dir/textfile" \
	>"$metrics_dir/node-exporter.log" 2>&1 &
scraper_pids+=("$!")
prom_port=$(free_port $((ne_port + 1)))
cat >"$metrics_dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $alerts
scrape_configs:
  - job_name: slurmctld-host
    static_configs:
      - targets: ['127.0.0.1:$ne_port']
EOF
prometheus --config.file="$metrics_dir/prometheus.yml" \
	--storage.tsdb.path="$metrics_dir/prometheus" \
	--web.listen-address="127.0.0.1:$prom_port" \
	>"$metrics_dir/prometheus.log" 2>&1 &
scraper_pids+=("$!")

# prom QUERY: the result of an instant query, one "LABELS VALUE" line per
# series (LABELS: k=v,... sorted); fails on an error.
prom() {
	"$LIBRA_PYTHON" - "$prom_port" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    r = json.load(urllib.request.urlopen(url, timeout=10))
except Exception as e:
    sys.exit("query %r: %s" % (sys.argv[2], e))
if r.get("status") != "success":
    sys.exit("query %r: %s" % (sys.argv[2], r))
for s in r["data"]["result"]:
    m = ",".join("%s=%s" % kv for kv in sorted(s["metric"].items()) if kv[0] not in ("instance", "job"))
    print(m or "-", s["value"][1])
PY
}
# prom_value QUERY: the single value of a query that sums to one series
prom_value() { prom "$1" | awk 'NR == 1 { print $NF }'; }
prom_ready() { [ "$(prom_value 'up{job="slurmctld-host"}')" = 1 ]; }
wait_until 120 "Prometheus to scrape node_exporter (logs: $metrics_dir)" prom_ready
wait_until 60 "sched/libra to write $metrics_dir/textfile/libra.prom" \
	test -s "$metrics_dir/textfile/libra.prom"

# --- the accounts: the default one, and phys ------------------------------------
acct=$(sacctmgr -n -P show user root format=defaultaccount)
cluster=$(scontrol show config | sed -n 's/^ClusterName *= *//p')
sacctmgr -i add account phys cluster="$cluster" >/dev/null ||
	fail "sacctmgr add account phys"
sacctmgr -i add user root account=phys cluster="$cluster" >/dev/null ||
	fail "sacctmgr add user root account=phys"
phys_known() { scontrol show assoc_mgr accounts=phys flags=assoc 2>/dev/null | grep -q 'Account=phys'; }
wait_until 60 "slurmctld to know account phys" phys_known

# --- the workload -----------------------------------------------------------------
libra_sbatch_admitted "A (account $acct)" -n 1 \
	--comment="runtime=2s,deadline=120s,budget=100" --wrap 'sleep 2'
a=$SB_JOBID
libra_sbatch_admitted "B (phys)" -A phys -n 1 \
	--comment="runtime=2s,deadline=120s,budget=100" --wrap 'sleep 2'
b=$SB_JOBID
libra_sbatch_admitted "C (phys, soft, late)" -A phys -n 1 \
	--comment="runtime=2s,deadline=6s,type=soft,penalty=3600,budget=100" --wrap 'sleep 10'
c=$SB_JOBID
libra_sbatch_refused "phys over budget" "libra: rejected: price" -A phys -n 1 \
	--comment="runtime=1m,deadline=5m,budget=0.0001" --wrap 'sleep 1'
libra_sbatch_refused "a malformed SLA" "libra: rejected:" -n 1 \
	--comment="runtime=soon,deadline=5m" --wrap 'sleep 1'
libra_sbatch --test-only -n 1 --comment="runtime=1s,deadline=1m" --wrap 'sleep 1'
assert_contains "$SB_OUT" "libra: admitted: price " "a --test-only probe"

# while C runs (after A and B): its node's committed share and jobs
c_running() { job_in_state "$c" RUNNING && job_ended "$a" && job_ended "$b"; }
wait_until 120 "job $c to run alone" c_running
c_node=$(squeue -h -j "$c" -o %N)
other=n1
[ "$c_node" != n1 ] || other=n2
c_seen() {
	[ "$(prom_value "libra_node_jobs{node=\"$c_node\"}")" = 1 ] &&
		[ "$(prom_value 'libra_admitted_jobs')" = 1 ]
}
wait_until 30 "Prometheus to see job $c on $c_node" c_seen
# its share (past its estimate: share_min) is all its node holds, and the
# other node holds nothing
got=$(prom_value "libra_node_committed_cpus{node=\"$c_node\"}")
"$LIBRA_PYTHON" -c 'import sys; a = float(sys.argv[1]); sys.exit(not 0 < a <= 1)' "$got" ||
	expect_fail "libra_node_committed_cpus{node=$c_node} is $got while job $c runs there: not in (0, 1]"
assert_eq 0 "$(prom_value "libra_node_committed_cpus{node=\"$other\"}")" "libra_node_committed_cpus{node=$other}, with no job"
note "while job $c runs: $c_node committed $got CPUs, 1 job; $other 0"

for j in "$a" "$b" "$c"; do
	wait_until 120 "job $j to end" job_ended "$j"
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
done

# --- the counters, through Prometheus, against libra-report -------------------------
report=$("$LIBRA_BUILD/contrib/report/libra-report" -S "$t_start" --json 2>&1) ||
	fail "libra-report: $report"
# the report's figures as the metrics name them, per account and in all
expected=$("$LIBRA_PYTHON" - "$report" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
keys = [("libra_admissions_total", "admitted"), ("libra_refusals_total", "refused"),
        ("libra_deadlines_met_total", "met"), ("libra_deadlines_missed_total", "missed"),
        ("libra_revenue_total", "revenue"), ("libra_penalties_total", "penalties")]
for a in r["accounts"] + [dict(r["total"], account="")]:
    for m, k in keys:
        print(m, a["account"] or "-", repr(float(a[k])))
PY
) || fail "libra-report's JSON: $report"
# Prometheus' figures in the same form, once the last settlement is scraped
actual_figures() {
	local m
	for m in libra_admissions_total libra_refusals_total libra_deadlines_met_total \
		libra_deadlines_missed_total libra_revenue_total libra_penalties_total; do
		prom "sum by (account) ($m)" | sed "s/^account=\([^ ]*\) /$m \1 /"
		prom "sum($m)" | sed "s/^- /$m - /"
	done
}
figures_match() {
	"$LIBRA_PYTHON" - "$expected" "$(actual_figures)" <<'PY'
import sys
def read(text):
    d = {}
    for line in text.splitlines():
        m, a, v = line.split()
        d[(m, a)] = float(v)
    return d
want, got = read(sys.argv[1]), read(sys.argv[2])
bad = ["%s{account=%s}: report %r, Prometheus %r" % (m, a, v, got.get((m, a)))
       for (m, a), v in sorted(want.items())
       if (v or (m, a) in got) and not (abs(got.get((m, a), float("nan")) - v) <= 1e-9 * max(1.0, abs(v)))]
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
# (a scrape a second: the last settlement is in Prometheus within seconds)
for _ in $(seq 30); do
	figures_match >/dev/null && break
	sleep 1
done
why=$(figures_match) || fail "the metrics differ from libra-report: $why"
note "Prometheus = libra-report: $(grep -- ' - ' <<<"$expected" | awk '{ printf "%s %s; ", $1, $3 }')"
assert_eq 3 "$(prom_value 'sum(libra_admissions_total)')" "admissions (A, B, C; not the --test-only probe)"
assert_eq 1 "$(prom_value "libra_refusals_total{account=\"phys\",reason=\"budget\"}")" "phys' budget refusal"
assert_eq 1 "$(prom_value "libra_refusals_total{account=\"$acct\",reason=\"invalid\"}")" "the malformed SLA's refusal, in the default account $acct"
assert_eq 1 "$(prom_value "libra_deadlines_missed_total{account=\"phys\"}")" "phys' missed deadline (C)"

# ... and against sacct's records themselves
sacct_sums=$(sacct -n -X -P -a -S "$t_start" -o AdminComment%8000 | "$LIBRA_PYTHON" -c '
import json, sys
n = met = 0; revenue = penalties = 0.0
for line in sys.stdin:
    line = line.strip()
    if not line.startswith("{"):
        continue
    f = json.loads(line)["final"]
    n += 1; met += f["met"]; revenue += f["charge"] + f["penalty"]; penalties += f["penalty"]
print(n, met, repr(revenue), repr(penalties))')
read -r s_n s_met s_rev s_pen <<<"$sacct_sums"
assert_eq 3 "$s_n" "settled jobs in sacct"
assert_eq "$s_met" "$(prom_value 'sum(libra_deadlines_met_total)')" "met: sacct against Prometheus"
"$LIBRA_PYTHON" -c 'import sys; a, b, c, d = map(float, sys.argv[1:]); sys.exit(abs(a - b) > 1e-9 * max(1, a) or abs(c - d) > 1e-9 * max(1, c))' \
	"$s_rev" "$(prom_value 'sum(libra_revenue_total)')" "$s_pen" "$(prom_value 'sum(libra_penalties_total)')" ||
	fail "revenue/penalties: sacct $s_rev/$s_pen, Prometheus $(prom_value 'sum(libra_revenue_total)')/$(prom_value 'sum(libra_penalties_total)')"
note "sacct: $s_n settled, $s_met met, revenue $s_rev, penalties $s_pen: as Prometheus"

# --- the nodes ------------------------------------------------------------------------
for n in n1 n2; do
	assert_eq "$(sinfo -h -n "$n" -o %c)" "$(prom_value "libra_node_cpus{node=\"$n\"}")" "libra_node_cpus{node=$n}"
done
idle_everywhere() { [ "$(prom_value 'sum(libra_node_jobs)')" = 0 ]; }
wait_until 30 "no admitted job left on any node" idle_everywhere
ref=$(prom_value 'libra_node_reference_price{node="n2"}')
[ -n "$ref" ] || fail "no libra_node_reference_price for the idle n2: $(prom 'libra_node_reference_price')"
libra_sbatch --test-only -w n2 -n 1 --comment="runtime=1h,deadline=2h" --wrap 'sleep 1'
[[ $SB_OUT =~ libra:\ admitted:\ price\ ([0-9.]+) ]] ||
	fail "the reference job's quote on n2: $SB_OUT"
quoted=${BASH_REMATCH[1]}
assert_eq "$quoted" "$(printf '%.2f' "$ref")" "n2's reference price (Prometheus $ref) against sbatch's quote"
note "reference job on n2: Prometheus $ref, sbatch --test-only $quoted"

# --- the dashboard's queries run --------------------------------------------------------
while IFS= read -r q; do
	q=${q//\$__rate_interval/10s}
	q=${q//\$partition/.*}
	prom "$q" >/dev/null || expect_fail "the dashboard's query fails: $q"
done < <("$LIBRA_PYTHON" -c 'import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p["targets"]:
        print(t["expr"])' "$dashboard")
rules=$("$LIBRA_PYTHON" -c 'import json, sys, urllib.request
r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/rules" % sys.argv[1], timeout=10))
print(sum(len(g["rules"]) for g in r["data"]["groups"]))' "$prom_port")
assert_eq 4 "$rules" "alert rules Prometheus loaded from $alerts"

# --- the cost: one write a second, logged as nothing -----------------------------------------
[ "$(ctld_log_count 'cannot write the metrics file')" = 0 ] ||
	fail "slurmctld could not write the metrics file: $(grep 'metrics file' "$LIBRA_CLUSTER_DIR/log/slurmctld.log" | head -3)"
expect_done
_stop_scrapers
cluster_stop
assert_nothing_left
rm -rf "$metrics_dir"
pass
