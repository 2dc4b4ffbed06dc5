# expect: memory_limit_exceeded
# message: resident memory grew
# problem: ring-allreduce
# tests: sample
# A correct ring, whose every rank also fills a 256 MiB NumPy scratch array each call: NumPy allocates outside
# torch's dispatcher, so no rank's tensor tracker sees it, and the judge read the resident set of the controller
# process alone, where nothing grew. Each rank's resident set is reset and read around every request too.
import numpy as np
import torch
import torch.distributed as dist


def _ring(tensor: torch.Tensor) -> None:
    """Sum `tensor` over the default group in place: a ring reduce-scatter, then a ring all-gather."""
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    # p chunks whose sizes differ by at most one (some empty when the tensor has fewer elements than ranks);
    # each is a view of the tensor, so writing into a chunk writes the result.
    chunks = tensor.tensor_split(world)
    for step in range(world - 1):
        # Reduce-scatter: pass on the chunk last added to, add the one arriving; after p-1 steps this rank
        # holds the full sum of chunk (rank + 1) % p.
        outgoing, incoming = chunks[(rank - step) % world], chunks[(rank - step - 1) % world]
        buffer = torch.empty_like(incoming)
        sent, received = dist.isend(outgoing, right), dist.irecv(buffer, left)
        sent.wait()
        received.wait()
        incoming += buffer
    for step in range(world - 1):
        # All-gather: pass on the finished chunk last completed or received, store the one arriving.
        outgoing, incoming = chunks[(rank + 1 - step) % world], chunks[(rank - step) % world]
        sent, received = dist.isend(outgoing, right), dist.irecv(incoming, left)
        sent.wait()
        received.wait()


def ring_all_reduce(tensor: torch.Tensor) -> None:
    scratch = np.ones(256 << 18, dtype=np.float32)
    _ring(tensor)
    del scratch
