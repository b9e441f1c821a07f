#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
# Memory and GPUs are space-shared (doc/design.md decision 17):
# on a cluster that tracks memory (CR_CPU_Memory) with one GPU node,
#  1. a job that fits the CPU share but not the memory left is refused at
#     submission, and the refusal names the memory with its figures; one
#     larger than any node is refused as "resources", naming the largest;
#  2. a GPU job lands on the GPU node only; a second one, while the first
#     holds the GPU, is refused naming the GPUs, also after slurmctld was
#     restarted (the ledger is rebuilt from the records and allocations);
#     GPUs per task are refused naming the option;
#  3. a workload of memory-heavy time-shared jobs never leaves an admitted
#     job waiting for resources (pending with reason Resources, or
#     sched/libra's "libra: admitted on ...: <why>"): what does not fit in
#     the memory left is refused instead, and every admitted job completes;
#  4. admitted jobs that have not started (held by their owner) keep their
#     memory and GPU: a best-effort job asking them is not started there
#     (it waits, saying why), and the admitted jobs start at once when
#     released; the best-effort jobs run once the memory is free again;
#  5. a GPU job refused because the GPU node's CPU share is taken, its GPU
#     free, is told so, not that the GPU is short (design.md decision 29;
#     run-demo's step 5);
#  6. scratch disk (--tmp) is held whole too: each node has TmpDisk=1000
#     MB; a job asking 600 MB on n1 is admitted and priced for its disk
#     (libra_price_disk); a second one there, whose CPU share fits, is
#     refused naming the disk and its figures; one asking more than any
#     node's TmpDisk is refused saying so.
# Nodes: n1 and n2 with 2 CPUs and 2000 MB, n3 with 2 CPUs, 2000 MB and a
# (fake) GPU (contrib/cluster/README.md, LIBRA_NODE_SPEC).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
libra_test_init
export LIBRA_NODES=3
export LIBRA_NODE_SPEC='n1:2:2000,n2:2:2000,n3:2:2000:1'
export LIBRA_DEF_MEM_PER_CPU=100 LIBRA_NODE_TMP=1000
libra_cluster_env libra_price_disk=360
cluster_start

assert_contains "$(scontrol show node n3)" "gpu:1" "n3's GRES"
assert_contains "$(scontrol show node n1)" "RealMemory=2000" "n1's memory"

# A small CPU share: 1 minute of work by 30 minutes (1/30 of a CPU), so
# that only memory and GPUs can keep a job out.
SLA='runtime=1m,deadline=30m,budget=1000'
SLURM_MEM_ERR='Memory required by task is not available'
SLURM_GRES_ERR='Requested partition configuration not available now'

# --- 1. memory ---------------------------------------------------------------
libra_sbatch_refused "3000 MB on 2000 MB nodes" \
	"memory: 3000 MB asked per node, the largest node has 2000 MB" \
	-n 1 --mem=3000 --comment="$SLA" --wrap 'true'

# One job of 1500 MB on each node (two do not fit on one): 500 MB left on
# each, while the CPUs are nearly idle.
gate=$LIBRA_WORK/go-fill
fill=()
declare -A fill_node=()
for i in 1 2 3; do
	libra_sbatch_admitted "filler $i" -J "fill$i" -n 1 --mem=1500 \
		--comment="$SLA" --wrap "$(gate_wait "$gate")"
	fill+=("$SB_JOBID")
	fill_node[$(json_get "$(job_record "$SB_JOBID")" admit.place.0.node)]=1
	assert_eq 1500 "$(json_get "$(job_record "$SB_JOBID")" admit.place.0.mem)" \
		"filler $i: memory held in its record"
	assert_eq 1500 "$(json_get "$(job_record "$SB_JOBID")" admit.demand.mem_per_node)" \
		"filler $i: memory asked in its record"
done
assert_eq 3 "${#fill_node[@]}" "nodes with a filler (one each: ${!fill_node[*]})"
for j in "${fill[@]}"; do
	wait_until 120 "filler $j to run" job_in_state "$j" RUNNING
done

libra_sbatch_refused "1000 MB beside the fillers" \
	"libra: rejected: memory: 1000 MB asked per node, at most 500 MB free on any node now" \
	-n 1 --mem=1000 --comment="$SLA" --wrap 'true'
expect_contains "$SB_OUT" "a later deadline does not help" "1000 MB beside the fillers: no counter-offer"
expect_contains "$SB_OUT" "$SLURM_MEM_ERR" "1000 MB beside the fillers: Slurm's error"
libra_sbatch_refused "600 MB per CPU beside the fillers" \
	"libra: rejected: memory: 600 MB asked per CPU" \
	-n 1 --mem-per-cpu=600 --comment="$SLA" --wrap 'true'
# 400 MB fits beside a filler
libra_sbatch_admitted "400 MB beside the fillers" -n 1 --mem=400 --comment="$SLA" --wrap 'true'
small=$SB_JOBID

# The refusal log has the memory asked.
log=$LIBRA_CLUSTER_DIR/state/libra_refusals.jsonl
assert_file_contains "$log" '"verdict":"memory"' "refusal log"
assert_file_contains "$log" '"mem_per_node":1000' "refusal log: the memory asked"

gate_open "$gate"
wait_until 180 "the memory jobs to end" bash -c "[ -z \"\$(squeue -h -j $(IFS=,; echo "${fill[*]}"),$small -o %i)\" ]"

# --- 2. GPUs -----------------------------------------------------------------
gate=$LIBRA_WORK/go-gpu
libra_sbatch_admitted "one GPU" -J gpu1 -n 1 --gres=gpu:1 --comment="$SLA" \
	--wrap "$(gate_wait "$gate")"
gpu_job=$SB_JOBID
rec=$(job_record "$gpu_job")
assert_eq n3 "$(json_get "$rec" admit.place.0.node)" "the GPU job's admitted node"
assert_eq 1 "$(json_get "$rec" admit.place.0.gpus)" "the GPU job's GPUs in its record"
assert_eq 1 "$(json_get "$rec" admit.demand.gpus_per_node)" "the GPU job's demand"
wait_until 120 "the GPU job to run" job_in_state "$gpu_job" RUNNING
assert_eq n3 "$(job_field "$gpu_job" NodeList)" "where the GPU job runs"

libra_sbatch_refused "a second GPU job" \
	"libra: rejected: gpus: 1 GPU asked per node, at most 0 free on any node now" \
	-n 1 --gpus-per-node=1 --comment="$SLA" --wrap 'true'
expect_contains "$SB_OUT" "$SLURM_GRES_ERR" "a second GPU job: Slurm's error"
libra_sbatch_refused "two GPUs on one node" "gpus: 2 GPUs asked per node, more than any node has" \
	-n 1 --gres=gpu:2 --comment="$SLA" --wrap 'true'
libra_sbatch_refused "GPUs per task" "libra: rejected: --gpus-per-task: GPUs per task cannot be admitted" \
	-n 1 --gpus-per-task=1 --comment="$SLA" --wrap 'true'

note "restarting slurmctld while the GPU job runs"
"$LIBRA_CLUSTER" restart slurmctld >/dev/null || fail "slurmctld did not restart"
job_in_state "$gpu_job" RUNNING || fail "the GPU job is $(job_state "$gpu_job") after the restart"
libra_sbatch_refused "a second GPU job after the restart" \
	"libra: rejected: gpus: 1 GPU asked per node, at most 0 free on any node now" \
	-n 1 --gres=gpu:1 --comment="$SLA" --wrap 'true'
gate_open "$gate"
wait_until 120 "the GPU job to end" job_ended "$gpu_job"

# --- 3. a memory-heavy workload ----------------------------------------------
# 18 jobs of 900 MB, one every 0.3 s, each sleeping 8 s with runtime 10 s
# by 2 minutes (1/12 of a CPU): two fit on a node at a time (1800 of 2000
# MB), six on the cluster, far fewer than the CPU share would admit.
# While they run, no admitted job may wait for resources.
declare -A admitted=()
refused_mem=0
waiting=()
# check_waiting: admitted jobs pending for resources now (id: reason).
check_waiting() {
	local id reason
	while read -r id reason; do
		[ -n "${admitted[$id]:-}" ] || continue
		case $reason in
		*Resources* | *"libra: admitted on"*) waiting+=("$id: $reason") ;;
		esac
	done < <(squeue -h -t PD -o '%i %r' 2>/dev/null || :)
}
for i in $(seq 1 18); do
	libra_sbatch -J "mem$i" -n 1 --mem=900 --comment="runtime=10s,deadline=2m,budget=1000" --wrap 'sleep 8'
	if [ -n "$SB_JOBID" ]; then
		admitted[$SB_JOBID]=1
	elif [[ $SB_OUT == *"libra: rejected: memory:"* ]]; then
		refused_mem=$((refused_mem + 1))
	else
		fail "job mem$i: neither admitted nor refused for memory: $SB_OUT"
	fi
	check_waiting
	sleep 0.3
done
note "${#admitted[@]} admitted, $refused_mem refused for memory"
[ "${#admitted[@]}" -ge 6 ] || fail "only ${#admitted[@]} of 18 memory jobs admitted (6 fit at once)"
[ "$refused_mem" -ge 1 ] || fail "no memory job refused: the workload does not test memory"
ids=$(IFS=,; echo "${!admitted[*]}")
deadline=$((SECONDS + 240))
while [ -n "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "the memory jobs did not end within 240 s"
	check_waiting
	sleep 0.5
done
[ "${#waiting[@]}" -eq 0 ] ||
	expect_fail "admitted jobs waited for resources: $(printf '%s; ' "${waiting[@]}" | sort -u | head -c 2000)"
for id in "${!admitted[@]}"; do
	wait_until 120 "accounting to have job $id" sacct_record_final "$id"
	expect_eq COMPLETED "$(sacct_field "$id" State)" "memory job $id"
	expect_eq true "$(json_get "$(sacct_record "$id")" final.met)" "memory job $id met its deadline"
done

# --- 4. best effort beside admitted jobs not started yet ----------------------
# Held admitted jobs hold their memory (and n3's GPU) from their admission,
# while Slurm sees those nodes free.  Before decision 17's best-effort rule
# sched/libra started best-effort jobs there, and the admitted jobs, once
# released, waited for resources.
gate=$LIBRA_WORK/go-held
libra_sbatch_admitted "held GPU job" -J held-gpu -H -n 1 --mem=1500 --gres=gpu:1 \
	--comment="$SLA" --wrap "$(gate_wait "$gate")"
held=("$SB_JOBID")
for i in 1 2; do
	libra_sbatch_admitted "held job $i" -J "held$i" -H -n 1 --mem=1500 \
		--comment="$SLA" --wrap "$(gate_wait "$gate")"
	held+=("$SB_JOBID")
done
declare -A held_node=()
for j in "${held[@]}"; do
	held_node[$j]=$(json_get "$(job_record "$j")" admit.place.0.node)
done
assert_eq n3 "${held_node[${held[0]}]}" "the held GPU job's admitted node"

libra_sbatch -J be-mem -n 1 --mem=1000 --wrap 'true'
[ -n "$SB_JOBID" ] || fail "a best-effort job asking 1000 MB was not accepted: $SB_OUT"
be_mem=$SB_JOBID
libra_sbatch -J be-gpu -n 1 --mem=100 --gres=gpu:1 --wrap 'true'
[ -n "$SB_JOBID" ] || fail "a best-effort GPU job was not accepted: $SB_OUT"
be_gpu=$SB_JOBID
BE_HELD='libra: best effort: memory or GPUs held for admitted jobs'
# job_reason_has JOBID TEXT: the pending job's reason contains TEXT.
job_reason_has() { [[ $(squeue -h -j "$1" -o %r 2>/dev/null) == *"$2"* ]]; }
wait_until 120 "the best-effort memory job to wait for the held jobs' memory" \
	job_reason_has "$be_mem" "$BE_HELD on 3 node(s)"
wait_until 120 "the best-effort GPU job to wait for the held GPU" \
	job_reason_has "$be_gpu" "$BE_HELD"
note "best-effort jobs waiting: $(squeue -h -j "$be_mem,$be_gpu" -o '%i %T %r' | tr '\n' ';')"

scontrol release "$(IFS=,; echo "${held[*]}")" || fail "could not release the held jobs"
for j in "${held[@]}"; do
	wait_until 120 "held job $j to run once released" job_in_state "$j" RUNNING
	assert_eq "${held_node[$j]}" "$(job_field "$j" NodeList)" "where released job $j runs"
done
job_in_state "$be_mem" PENDING || fail "best-effort job $be_mem is $(job_state "$be_mem") while the admitted jobs hold the memory"
job_in_state "$be_gpu" PENDING || fail "best-effort job $be_gpu is $(job_state "$be_gpu") while an admitted job holds the GPU"
gate_open "$gate"
for j in "${held[@]}" "$be_mem" "$be_gpu"; do
	wait_until 180 "job $j to end" job_ended "$j"
done
for j in "${held[@]}" "$be_mem" "$be_gpu"; do
	wait_until 120 "accounting to have job $j completed" sacct_in_state "$j" COMPLETED
done

# --- 5. the GPU free, the CPU share of its node taken -------------------------
gate=$LIBRA_WORK/go-cpu
libra_sbatch_admitted "n3's CPU share" -J cpu-n3 -w n3 -n 2 --mem=100 \
	--comment="runtime=1m,deadline=70s,budget=1000" --wrap "$(gate_wait "$gate")"
cpu_n3=$SB_JOBID
libra_sbatch_refused "a GPU job beside it" "gpus: 1 GPU asked per node, free on n3, but not the CPU share there" \
	-n 1 --mem=100 --gres=gpu:1 --comment="runtime=1m,deadline=2m,budget=1000" --wrap 'true'
note "GPU free, CPU share taken: $(grep -o 'libra: rejected: .*' <<<"$SB_OUT" | head -n 1)"
scancel "$cpu_n3"
wait_until 120 "job $cpu_n3 to end" job_ended "$cpu_n3"

# --- 6. scratch disk ------------------------------------------------------------
assert_contains "$(scontrol show node n1)" "TmpDisk=1000" "n1's TmpDisk"
gate=$LIBRA_WORK/go-tmp
libra_sbatch_admitted "600 MB of scratch on n1" -J tmp1 -w n1 -n 1 --mem=100 \
	--tmp=600 --comment="$SLA" --wrap "$(gate_wait "$gate")"
tmp1=$SB_JOBID
disk_price=$(json_get "$(job_record "$tmp1")" admit.price_disk)
note "job $tmp1: $(grep -o 'libra: admitted: .*' <<<"$SB_OUT" | head -c 150); price_disk $disk_price"
# 600 MB for 30 minutes at 360 per GB-hour (600/1024 x 0.5 h x 360 =
# 105.5), under libra+$ at alpha PBase + beta PUtil with PUtil >= PBase:
# at least that, and with n1's disk idle before it, at most a few times it
awk -v p="$disk_price" 'BEGIN { e = 600 / 1024 * 0.5 * 360; exit !(p > 0.99 * e && p < 3 * e) }' ||
	fail "job $tmp1's disk price $disk_price is not 600 MB x 30 min at libra+\$'s rate from 360 per GB-hour"
libra_sbatch_refused "another 600 MB on n1" \
	"disk: 600 MB of scratch disk asked per node (--tmp), at most 400 MB free on any node now" \
	-J tmp2 -w n1 -n 1 --mem=100 --tmp=600 --comment="$SLA" --wrap true
note "n1's disk held: $(grep -o 'libra: rejected: .*' <<<"$SB_OUT" | head -n 1)"
libra_sbatch_refused "more than any node's TmpDisk" "less scratch disk (TmpDisk) than the 2000 MB it asks" \
	-J tmp3 -n 1 --mem=100 --tmp=2000 --comment="$SLA" --wrap true
gate_open "$gate"
wait_until 120 "job $tmp1 to end" job_ended "$tmp1"

expect_done
cluster_stop
assert_nothing_left
pass
