# expect: accepted
# style: DDP by hand: post-accumulate-grad hooks armed only for the last micro-batch fill small buckets as gradients become ready and launch an asynchronous all-reduce per full bucket, overlapping communication with the rest of backward; the handles are waited on, and the averages copied back, at the end
import torch
import torch.distributed as dist

BUCKET_ELEMENTS = 40  # tiny, so that even this model fills several buckets


class Accumulator:
    def __init__(self, model):
        self.model = model
        self.armed = False
        self.bucket, self.launched = [], []
        for parameter in model.parameters():
            if parameter.requires_grad:
                parameter.register_post_accumulate_grad_hook(self._ready)

    def _ready(self, parameter):
        if not self.armed:
            return  # an earlier micro-batch: the gradient just accumulates locally
        self.bucket.append(parameter)
        if sum(p.numel() for p in self.bucket) >= BUCKET_ELEMENTS:
            self._launch()

    def _launch(self):
        if self.bucket:
            flat = torch.cat([p.grad.reshape(-1) for p in self.bucket])
            self.launched.append((dist.all_reduce(flat, async_op=True), flat, self.bucket))
            self.bucket = []

    def accumulate(self, micro_batches, loss_fn):
        m = len(micro_batches)
        for i, (x, y) in enumerate(micro_batches):
            self.armed = i == m - 1
            (loss_fn(self.model(x), y) / m).backward()
        self.armed = False
        self._launch()  # the last, partly filled bucket
        world = dist.get_world_size()
        for work, flat, parameters in self.launched:
            work.wait()
            offset = 0
            for p in parameters:
                p.grad.copy_(flat[offset:offset + p.numel()].view_as(p.grad) / world)
                offset += p.numel()
        self.launched = []
