# expect: runtime_error
# message: shared mappings
# problem: ring-allreduce
# tests: sample
# Sends zeros around a real ring, so each rank writes exactly a ring's bytes, while the sum travels through
# files the ranks map shared in their common /tmp: a store into a mapping is no write(2), so the kernel's count
# of the bytes each rank wrote, which the judge holds the traffic to, never sees it. Shared mappings are
# refused on the CPU, of a file as of anonymous memory.
import mmap

import torch
import torch.distributed as dist


def _mapped(rank: int, nbytes: int) -> mmap.mmap:
    path = f"/tmp/ring-{rank}"
    with open(path, "a+b") as handle:
        handle.truncate(max(nbytes, 1))
        return mmap.mmap(handle.fileno(), max(nbytes, 1))


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    nbytes = tensor.numel() * tensor.element_size()
    mine = _mapped(rank, nbytes)
    mine[:nbytes] = tensor.numpy().tobytes()
    # The ring's own traffic, with zeros: after it every rank has heard from every other, so each has written
    # its mapping by then.
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = torch.zeros_like(tensor).tensor_split(world)
    for step in range(2 * (world - 1)):
        outgoing, incoming = chunks[(rank - step) % world], torch.empty_like(chunks[(rank - step - 1) % world])
        sent, received = dist.isend(outgoing, right), dist.irecv(incoming, left)
        sent.wait()
        received.wait()
    total = torch.zeros_like(tensor)
    for other in range(world):
        view = _mapped(other, nbytes)
        total += torch.frombuffer(bytearray(view[:nbytes]), dtype=tensor.dtype).view_as(tensor)
    tensor.copy_(total)
