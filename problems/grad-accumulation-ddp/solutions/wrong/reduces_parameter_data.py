# expect: wrong_answer
# mistake: the all-reduce is applied to the parameters' data instead of their gradients: the weights (equal on every rank) are averaged to themselves and each rank keeps its own local gradient
# message: it is this rank's own micro-batches' gradient: it was never all-reduced
# fails-on: w2-four-micro-batches
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
        for parameter in self.model.parameters():
            if parameter.requires_grad:
                dist.all_reduce(parameter.data)
                parameter.data /= dist.get_world_size()
