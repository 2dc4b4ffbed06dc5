# expect: wrong_answer
# mistake: zero_grad() inside the micro-batch loop, as in a loop without accumulation: only the last micro-batch's gradient survives to the all-reduce
# message: the gradients were zeroed (or replaced) before the last micro-batch
# fails-on: w2-four-micro-batches
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            self.model.zero_grad()
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
        world = dist.get_world_size()
        for parameter in self.model.parameters():
            if parameter.grad is not None:
                dist.all_reduce(parameter.grad)
                parameter.grad /= world
