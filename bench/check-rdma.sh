#!/usr/bin/env bash
# The peer of `railyard doctor` in bench/doctor-startup.sh: the checks people script by hand, reading the same files
# under a root (modules, RDMA devices and their character devices, each port's state, rate and link layer, RoCE GIDs
# and netdev MTUs, memlock). A stand-in written for the benchmark, not a Railyard tool.
#   bench/check-rdma.sh ROOT
root=${1:-/}
for module in ib_core ib_uverbs rdma_cm rdma_ucm mlx5_core mlx5_ib nvidia_peermem; do
  grep -q "^$module " "$root/proc/modules" && echo "module $module loaded" || echo "module $module MISSING"
done
[ -e "$root/dev/infiniband/rdma_cm" ] && echo "rdma_cm present" || echo "rdma_cm MISSING"
for hca in "$root"/sys/class/infiniband/*; do
  name=$(basename "$hca")
  for port in "$hca"/ports/*; do
    echo "$name port $(basename "$port"): $(cat "$port/state") $(cat "$port/phys_state") $(cat "$port/rate") $(cat "$port/link_layer")"
    for gid in "$port"/gid_attrs/types/*; do
      type=$(cat "$gid" 2>/dev/null) || continue
      [ "$type" = "RoCE v2" ] && echo "  RoCE v2 GID index $(basename "$gid") on $(cat "$port/gid_attrs/ndevs/$(basename "$gid")" 2>/dev/null)"
    done
  done
  for net in "$hca"/device/net/*; do
    [ -e "$net/mtu" ] && echo "  netdev $(basename "$net") mtu $(cat "$net/mtu")"
  done
done
grep -i "locked" "$root/proc/self/limits" 2>/dev/null || ulimit -l
