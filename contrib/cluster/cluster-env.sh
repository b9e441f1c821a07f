# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Source this file to point Slurm's client commands (sbatch, squeue, sacct,
# scontrol, ...) at the local cluster of contrib/cluster/libra-cluster:
#
#   . contrib/cluster/cluster-env.sh
#
# It exports SLURM_CONF and LIBRA_CLUSTER_DIR; the cluster is the one in
# $LIBRA_CLUSTER_DIR if that is set, else in <project>/_cluster.
# Same as: eval "$(contrib/cluster/libra-cluster env)"
_libra_env=$("$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)/libra-cluster" env) &&
	eval "$_libra_env"
unset _libra_env
