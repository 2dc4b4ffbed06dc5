# expect: accepted
# style: PyTorch's own pipelining (PipelineStage wrapping this rank's stage, run by Schedule1F1B); the schedule built by stepping through the ticks, every stage taking a ready backward first, else a forward while it holds fewer than p - s
import torch
import torch.distributed as dist
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe


def one_f_one_b(stages, micro_batches):
    """Each tick, every stage takes a backward if one is ready, else a forward while it holds fewer than p - s."""
    schedule = [[] for _ in range(stages)]
    done, forwards, backwards = set(), [0] * stages, [0] * stages
    while any(backwards[s] < micro_batches for s in range(stages)):
        taken = []
        for s in range(stages):
            b, f = backwards[s], forwards[s]
            if b < f and (s == stages - 1 or ("B", s + 1, b) in done):
                taken.append(("B", s, b))
                backwards[s] += 1
            elif f < micro_batches and f - b < stages - s and (s == 0 or ("F", s - 1, f) in done):
                taken.append(("F", s, f))
                forwards[s] += 1
        for kind, s, i in taken:
            schedule[s].append((kind, i))
        done.update(taken)
    return schedule


def pipeline_step(stage, x, target, micro_batches, loss_fn, activation_shape):
    rank, stages = dist.get_rank(), dist.get_world_size()
    # Schedule1F1B refuses fewer micro-batches than stages; then 1F1B's warm-up takes every forward before the
    # first backward, which is GPipe's schedule. scale_grads (the default) divides the summed gradients by the
    # number of micro-batches: the gradients of the mean loss.
    kind = Schedule1F1B if micro_batches >= stages else ScheduleGPipe
    schedule = kind(PipelineStage(stage, rank, stages, torch.device("cpu")), micro_batches, loss_fn=loss_fn)
    if rank == 0:
        schedule.step(x)
    elif rank == stages - 1:
        schedule.step(target=target)
    else:
        schedule.step()
