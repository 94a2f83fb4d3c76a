# Railyard's all-reduce benchmark (railyard speedup --collectives), run by torchrun on every rank.
# Rank 0 prints one line per message size, in this stable format:
#   railyard-allreduce start ranks=<world> nodes=<nodes> nccl=<version> NCCL_IB_DISABLE=<v> NCCL_NET_GDR_LEVEL=<v>
#   railyard-allreduce size=<bytes> ranks=<world> iters=<n> time_us=<mean of the slowest rank> algbw_gbs=<GB/s> busbw_gbs=<GB/s>
# Bus bandwidth as nccl-tests computes it for all-reduce: algbw * 2 * (ranks - 1) / ranks.
import argparse
import os
import time

import torch
import torch.distributed as dist

MARK = "railyard-allreduce"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--min-bytes", type=int, default=1 << 20)
    parser.add_argument("--max-bytes", type=int, default=1 << 30)
    parser.add_argument("--factor", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    if rank == 0:
        version = ".".join(str(v) for v in torch.cuda.nccl.version())
        print(f"{MARK} start ranks={world} nodes={os.environ.get('PET_NNODES', '?')} nccl={version}"
              f" NCCL_IB_DISABLE={os.environ.get('NCCL_IB_DISABLE', '')} NCCL_NET_GDR_LEVEL={os.environ.get('NCCL_NET_GDR_LEVEL', '')}",
              flush=True)
    size = args.min_bytes
    while size <= args.max_bytes:
        data = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(args.warmup):
            dist.all_reduce(data)
        torch.cuda.synchronize()
        dist.barrier()
        start = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(data)
        torch.cuda.synchronize()
        elapsed = torch.tensor([(time.perf_counter() - start) / args.iters], device="cuda")
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        seconds = elapsed.item()
        if rank == 0:
            algbw = size / seconds / 1e9
            busbw = algbw * 2 * (world - 1) / world
            print(f"{MARK} size={size} ranks={world} iters={args.iters} time_us={seconds * 1e6:.1f}"
                  f" algbw_gbs={algbw:.2f} busbw_gbs={busbw:.2f}", flush=True)
        del data
        size *= args.factor
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
