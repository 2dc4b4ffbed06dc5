# expect: wrong_answer
# message: all-reduced exactly once
# problem: grad-accumulation-ddp
# tests: all
# all_reduce_every_micro_batch.py's mistake, an all-reduce of every gradient after each micro-batch, with all but
# the last window's issued on a helper thread: a dispatch mode held by the calling thread counted one all-reduce
# per gradient, as a correct window issues. The judge counts collectives in the dispatcher, on every thread.
import threading

import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model

    def accumulate(self, micro_batches, loss_fn):
        world = dist.get_world_size()
        for index, (x, y) in enumerate(micro_batches):
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
            grads = [parameter.grad for parameter in self.model.parameters() if parameter.grad is not None]

            def reduce():
                for grad in grads:
                    dist.all_reduce(grad)
                    grad /= world

            if index < len(micro_batches) - 1:
                worker = threading.Thread(target=reduce)
                worker.start()
                worker.join()
            else:
                reduce()
