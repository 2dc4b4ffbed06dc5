# expect: wrong_answer
# mistake: each micro-batch's mean loss is backpropagated as it is, so the window's gradient is the sum over m micro-batches, m times the large batch's
# message: it is 4 times the global batch's gradient: each micro-batch's loss is a mean
# fails-on: w2-four-micro-batches
import torch.distributed as dist


class Accumulator:
    def __init__(self, model):
        self.model = model
        self.trainable = [p for p in model.parameters() if p.requires_grad]

    def accumulate(self, micro_batches, loss_fn):
        for x, y in micro_batches:
            loss = loss_fn(self.model(x), y)
            loss.backward()
        world = dist.get_world_size()
        for parameter in self.trainable:
            dist.all_reduce(parameter.grad)
            parameter.grad.div_(world)
