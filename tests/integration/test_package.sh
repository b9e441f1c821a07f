#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Installing like a site: contrib/setup --deb builds the Debian
# packages (lintian: no error), apt-get installs them, and a cluster that
# loads only the installed files (an empty build plugin directory before
# Slurm's, the SPANK plugin by its installed path) admits, refuses with a
# counter-offer, runs and settles jobs; the installed libra-report sums
# them up and the installed libra-check finds the cluster's configuration
# correct.  The packages are purged at the end, so the machine is left as
# it was; a machine where they were installed already is left alone (SKIP).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=2

if dpkg-query -W -f='${db:Status-Status}\n' slurm-libra-ctld slurm-libra-node slurm-libra-tools 2>/dev/null | grep -qx installed; then
	skip "slurm-libra packages are installed on this machine already; not touching them"
fi

# --- 1. build ----------------------------------------------------------------
out=$("$abs_top_srcdir/contrib/setup" --deb 2>&1) || fail "contrib/setup --deb failed: $out"
note "$(grep -E 'lintian errors|finished in' <<<"$out" | tr '\n' ' ')"
assert_contains "$out" "deb: 0 lintian errors" "lintian on the packages"
debs=()
for p in slurm-libra-ctld slurm-libra-node slurm-libra-tools; do
	f=$(grep -E "/${p}_[^/]*_[a-z0-9]+\.deb$" <<<"$out" | tail -n 1)
	[ -n "$f" ] && [ -f "$f" ] || fail "no $p package in: $out"
	debs+=("$f")
done

# each plugin package depends on the Slurm release it was built for
rel=$(dpkg-query -W -f='${Version}' slurmctld | sed 's/-[^-]*$//')
assert_contains "$(dpkg-deb -f "${debs[0]}" Depends)" "slurmctld (>= $rel), slurmctld (<< " \
	"slurm-libra-ctld's Depends"
assert_contains "$(dpkg-deb -f "${debs[1]}" Depends)" "slurmd (>= $rel), slurmd (<< " \
	"slurm-libra-node's Depends"

# --- 2. install ------------------------------------------------------------------
purge() {
	apt-get purge -y -q slurm-libra-ctld slurm-libra-node slurm-libra-tools >/dev/null 2>&1 || :
}
libra_at_exit purge
if ! inst=$(apt-get install -y -q --no-install-recommends "${debs[@]}" 2>&1); then
	fail "apt-get install ${debs[*]} failed: $inst"
fi
plugdir=$(dirname "$(dpkg -L slurm-libra-ctld | grep '/sched_libra\.so$')")
for so in sched_libra.so job_submit_qos.so jobcomp_libra.so libslurm_libra.so libra_spank.so; do
	[ -f "$plugdir/$so" ] || fail "$so is not in $plugdir after the install"
done
for tool in /usr/sbin/libra-check /usr/bin/libra-report /usr/bin/libra-sim /usr/bin/libra-tender; do
	[ -x "$tool" ] || fail "$tool is not installed"
done
note "installed: $(dpkg-query -W -f='${Package} ${Version}, ' slurm-libra-ctld slurm-libra-node slurm-libra-tools)in $plugdir"

# --- 3. a cluster of the installed files -------------------------------------------
libra_find_python
export LIBRA_PLUGIN_DIR=$LIBRA_CLUSTER_DIR/no-plugins
rm -rf "$LIBRA_PLUGIN_DIR"
mkdir -p "$LIBRA_PLUGIN_DIR"
export LIBRA_SCHEDULER_TYPE=sched/libra
LIBRA_SCHEDULER_PARAMETERS=$(IFS=,; printf '%s' "${LIBRA_SCHED_DEFAULTS[*]}")
export LIBRA_SCHEDULER_PARAMETERS
export LIBRA_JOB_SUBMIT_PLUGINS=qos LIBRA_JOBCOMP_TYPE=jobcomp/libra
export LIBRA_PLUGSTACK="required $plugdir/libra_spank.so pin=yes interval=1"
libra_free_port_base
cluster_start
ctld=$(slurmctld_pid)
for so in sched_libra.so job_submit_qos.so jobcomp_libra.so libslurm_libra.so; do
	grep -q " $plugdir/$so\$" "/proc/$ctld/maps" ||
		fail "slurmctld (pid $ctld) has not mapped $plugdir/$so: $(grep -o '/[^ ]*libra[^ ]*' "/proc/$ctld/maps" | sort -u | tr '\n' ' ')"
done
note "slurmctld runs the installed plugins"

# --- 4. the installed configuration check ------------------------------------------
conf=$LIBRA_CLUSTER_DIR/etc/slurm.conf
if ! chk=$(/usr/sbin/libra-check --running -f "$conf" 2>&1); then
	fail "libra-check finds errors in the cluster's configuration: $chk"
fi
assert_contains "$chk" "libra-check: OK: 0 errors" "libra-check on the cluster"
note "libra-check: $(tail -n 1 <<<"$chk")"

# --- 5. admission, refusal, settlement ----------------------------------------------
libra_sbatch_admitted "an admitted job" -n 1 --comment="runtime=5s,deadline=2m,budget=50" --wrap 'sleep 2'
job=$SB_JOBID
libra_sbatch_refused "a job over its budget" "libra: rejected: price " \
	-n 1 --comment="runtime=1h,deadline=2h,budget=0.0001" --wrap true
assert_match '(feasible with|or) budget [0-9.]+' "$SB_OUT" "the refusal's counter-offer"
libra_sbatch_admitted "an admitted job with the installed SPANK options" -n 1 \
	--runtime=5s --deadline=now+2minutes --budget=50 --wrap 'sleep 2'
job2=$SB_JOBID
for j in "$job" "$job2"; do
	wait_until 180 "job $j to end" job_ended "$j"
	wait_until 120 "job $j's settled record in sacct" sacct_record_final "$j"
	final=$(sacct_record "$j")
	assert_eq true "$(json_get "$final" final.met)" "job $j met its deadline (sacct)"
	assert_eq COMPLETED "$(json_get "$final" final.how)" "job $j settled as completed"
done

# --- 6. the installed report ---------------------------------------------------------
rep=$(/usr/bin/libra-report -S now-1hours 2>&1) || fail "libra-report failed: $rep"
total=$(grep -E '^ *TOTAL ' <<<"$rep") || fail "no TOTAL line in libra-report's output: $rep"
note "libra-report: $total"
assert_match '^ *TOTAL +3 +2 +1 ' "$total" "libra-report: 3 submitted, 2 admitted, 1 refused"

cluster_stop
assert_nothing_left
purge
dpkg-query -W -f='${db:Status-Status}\n' slurm-libra-ctld 2>/dev/null | grep -qx installed &&
	fail "slurm-libra-ctld still installed after the purge"
pass
