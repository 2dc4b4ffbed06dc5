# expect: wrong_answer
# mistake: PyTorch's own way, but with find_unused_parameters=True, a reflex where some layers are frozen: DDP then all-reduces a map of the parameters each rank used (one int32 per trainable parameter tensor) besides the gradients, traffic the frozen layer's requires_grad=False already makes needless
# message: find_unused_parameters=True
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Accumulator:
    def __init__(self, model: nn.Module):
        self.ddp = DistributedDataParallel(model, find_unused_parameters=True)

    def accumulate(self, micro_batches, loss_fn) -> None:
        *early, (x_last, y_last) = micro_batches
        scale = 1.0 / len(micro_batches)
        with self.ddp.no_sync():
            for x, y in early:
                (loss_fn(self.ddp(x), y) * scale).backward()
        (loss_fn(self.ddp(x_last), y_last) * scale).backward()
