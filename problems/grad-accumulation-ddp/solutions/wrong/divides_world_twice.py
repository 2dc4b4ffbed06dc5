# expect: wrong_answer
# mistake: two conventions mixed: the loss pre-scaled by 1/(micro-batches x world size), as for a plain sum over the ranks, and the sum then averaged as well: the world size is divided out twice
# message: the world size was divided out twice
# fails-on: w2-four-micro-batches
import torch
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model
        self.world = dist.get_world_size()

    def accumulate(self, micro_batches, loss_fn):
        scale = 1.0 / (len(micro_batches) * self.world)
        for x, y in micro_batches:
            (loss_fn(self.model(x), y) * scale).backward()
        grads = [p.grad for p in self.model.parameters() if p.grad is not None]
        flat = torch.cat([g.reshape(-1) for g in grads])
        dist.all_reduce(flat)
        torch._foreach_copy_(grads, [part.view_as(g) / self.world for g, part in
                                     zip(grads, flat.split([g.numel() for g in grads]))])
