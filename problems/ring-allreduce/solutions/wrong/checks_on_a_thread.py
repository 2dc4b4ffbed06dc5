# expect: wrong_answer
# mistake: a correct ring, then a "check" that sends the whole result to the next rank on a helper thread, where
# a count of the calling thread's collectives would not see it: the judge counts every thread's, and every rank
# sends N elements more than a ring's share
# message: every rank sent more than a ring all-reduce sends
import threading

import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = tensor.tensor_split(world)
    for step in range(world - 1):
        incoming = torch.empty_like(chunks[(rank - step - 1) % world])
        sent = dist.isend(chunks[(rank - step) % world], right)
        dist.recv(incoming, left)
        sent.wait()
        chunks[(rank - step - 1) % world].add_(incoming)
    for step in range(world - 1):
        sent = dist.isend(chunks[(rank + 1 - step) % world], right)
        dist.recv(chunks[(rank - step) % world], left)
        sent.wait()

    def compare_with_neighbour():
        theirs = torch.empty_like(tensor)
        sent = dist.isend(tensor, right)
        dist.recv(theirs, left)
        sent.wait()
        assert torch.equal(theirs, tensor)

    helper = threading.Thread(target=compare_with_neighbour)
    helper.start()
    helper.join()
