# expect: wrong_answer
# mistake: gradients packed into buckets of a size cap, each full bucket all-reduced, and the last, partly filled bucket never flushed: those gradients stay each rank's own
# message: fewer than the trainable gradients
# fails-on: w2-four-micro-batches
import torch
import torch.distributed as dist

BUCKET_ELEMENTS = 64


class Accumulator:
    def __init__(self, model):
        self.model = model

    def _reduce(self, bucket):
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        flat /= dist.get_world_size()
        for g, part in zip(bucket, flat.split([g.numel() for g in bucket])):
            g.copy_(part.view_as(g))

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            (loss_fn(self.model(x), y) / len(micro_batches)).backward()
        bucket = []
        for parameter in self.model.parameters():
            if parameter.grad is not None:
                bucket.append(parameter.grad)
                if sum(g.numel() for g in bucket) >= BUCKET_ELEMENTS:
                    self._reduce(bucket)
                    bucket = []
