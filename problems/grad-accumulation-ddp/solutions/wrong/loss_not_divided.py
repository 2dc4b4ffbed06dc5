# expect: wrong_answer
# mistake: each micro-batch's mean loss is backpropagated as it is, so the window's gradient is the sum over m micro-batches, m times the large batch's
# message: it is 4 times the global batch's gradient: each micro-batch's loss is a mean
# fails-on: w2-four-micro-batches
from contextlib import nullcontext

from torch.nn.parallel import DistributedDataParallel


class Accumulator:
    def __init__(self, model):
        self.ddp = DistributedDataParallel(model)

    def accumulate(self, micro_batches, loss_fn):
        last = len(micro_batches) - 1
        for i, (x, y) in enumerate(micro_batches):
            with self.ddp.no_sync() if i < last else nullcontext():
                loss_fn(self.ddp(x), y).backward()
