# expect: accepted
# style: PyTorch's own way: the model wrapped in DistributedDataParallel at set-up (its broadcast is set-up), every micro-batch but the last under no_sync(), the last one's backward all-reducing DDP's buckets (averaged over the ranks)
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Accumulator:
    def __init__(self, model: nn.Module):
        self.ddp = DistributedDataParallel(model)

    def accumulate(self, micro_batches, loss_fn) -> None:
        *early, (x_last, y_last) = micro_batches
        scale = 1.0 / len(micro_batches)
        with self.ddp.no_sync():
            for x, y in early:
                (loss_fn(self.ddp(x), y) * scale).backward()
        (loss_fn(self.ddp(x_last), y_last) * scale).backward()
