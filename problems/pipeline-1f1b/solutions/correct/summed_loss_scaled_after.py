# expect: accepted
# style: the schedule chained from its three phases with itertools; activations kept in a FIFO queue (1F1B runs the backwards in the forwards' order); each loss backpropagated whole, every gradient divided by m once at the end
from collections import deque
from itertools import chain

import torch
import torch.distributed as dist


def one_f_one_b(stages, micro_batches):
    schedule = []
    for s in range(stages):
        warm = min(stages - 1 - s, micro_batches)
        forwards = [("F", i) for i in range(micro_batches)]
        backwards = [("B", i) for i in range(micro_batches)]
        steady = chain.from_iterable(zip(forwards[warm:], backwards))
        schedule.append(forwards[:warm] + list(steady) + backwards[micro_batches - warm:])
    return schedule


def pipeline_step(stage, x, target, micro_batches, loss_fn, activation_shape):
    rank, world = dist.get_rank(), dist.get_world_size()
    first, last = rank == 0, rank == world - 1
    in_flight, pending = deque(), []
    for kind, i in one_f_one_b(world, micro_batches)[rank]:
        if kind == "F":
            if first:
                inp = x[i * activation_shape[0]:(i + 1) * activation_shape[0]]
            else:
                inp = torch.zeros(activation_shape)
                dist.recv(inp, src=rank - 1)
                inp.requires_grad = True
            out = stage(inp)
            if last:
                out = loss_fn(out, target[i * activation_shape[0]:(i + 1) * activation_shape[0]])
            else:
                pending.append((out, dist.isend(out, dst=rank + 1)))
            in_flight.append((inp, out))
        else:
            inp, out = in_flight.popleft()
            if last:
                out.backward()
            else:
                grad = torch.zeros(activation_shape)
                dist.recv(grad, src=rank + 1)
                out.backward(grad)
            if not first:
                pending.append((inp.grad, dist.isend(inp.grad, dst=rank - 1)))
    for _, work in pending:
        work.wait()
    # Each loss went back whole, so every gradient here is m times the mean loss's.
    for parameter in stage.parameters():
        parameter.grad /= micro_batches
