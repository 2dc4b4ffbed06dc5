# expect: wrong_answer
# mistake: DistributedDataParallel without no_sync(): every backward all-reduces DDP's buckets, once per micro-batch instead of once per window
# message: run every micro-batch but the last under no_sync()
# fails-on: w2-four-micro-batches
from torch.nn.parallel import DistributedDataParallel


class Accumulator:
    def __init__(self, model):
        self.ddp = DistributedDataParallel(model)

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            (loss_fn(self.ddp(x), y) / len(micro_batches)).backward()
