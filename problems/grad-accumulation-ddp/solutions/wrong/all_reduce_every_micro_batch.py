# expect: wrong_answer
# mistake: every micro-batch's backward is followed by an all-reduce of the gradients, so each gradient is reduced m times a window (the values come out right: an average of equal tensors changes nothing, but the traffic is m times larger)
# message: reducing on every micro-batch reduces each gradient once per micro-batch
# fails-on: w2-four-micro-batches
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        world = dist.get_world_size()
        for x, y in micro_batches:
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
            for parameter in self.model.parameters():
                if parameter.grad is not None:
                    dist.all_reduce(parameter.grad)
                    parameter.grad /= world
