# expect: wrong_answer
# mistake: all-reduce sums the ranks' gradients and nothing divides by the world size
# message: so divide by the world size (2) to average
# fails-on: w2-four-micro-batches
import torch
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
        grads = [p.grad for p in self.model.parameters() if p.grad is not None]
        flat = torch.cat([g.flatten() for g in grads])
        dist.all_reduce(flat)
        for g, part in zip(grads, flat.split([g.numel() for g in grads])):
            g.copy_(part.view_as(g))
