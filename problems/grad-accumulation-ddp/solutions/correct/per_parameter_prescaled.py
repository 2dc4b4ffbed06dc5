# expect: accepted
# style: the loss pre-scaled by 1/(micro-batches x world size), so that a plain sum over the ranks is the mean; one all-reduce per gradient tensor after the loop (several all-reduces, each of one parameter's gradient)
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        scale = 1.0 / (len(micro_batches) * dist.get_world_size())
        for x, y in micro_batches:
            loss = loss_fn(self.model(x), y)
            loss.mul(scale).backward()
        for parameter in self.model.parameters():
            if parameter.grad is not None:
                dist.all_reduce(parameter.grad, op=dist.ReduceOp.SUM)
