# expect: wrong_answer
# mistake: one flat bucket of every parameter, with zeros standing in for the frozen layer's missing gradients: the values come out right, but the all-reduce moves the frozen parameters' zeros too
# message: more than the trainable gradients
# fails-on: w2-four-micro-batches
import torch
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
        parameters = list(self.model.parameters())
        flat = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).reshape(-1) for p in parameters])
        dist.all_reduce(flat)
        flat /= dist.get_world_size()
        offset = 0
        for p in parameters:
            if p.grad is not None:
                p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
