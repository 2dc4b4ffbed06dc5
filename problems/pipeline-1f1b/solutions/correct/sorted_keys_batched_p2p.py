# expect: accepted
# style: each stage's steps sorted by their position in closed form; every transfer through batch_isend_irecv, receives waited for at once and sends at the end; the gradients taken with torch.autograd.grad and added into .grad by hand
import torch
import torch.distributed as dist


def one_f_one_b(stages, micro_batches):
    def position(stage, kind, i):
        w = min(stages - stage - 1, micro_batches)  # the warm-up
        if kind == "F":
            return i if i < w else 2 * i - w
        return w + 2 * i + 1 if i < micro_batches - w else micro_batches + i
    return [sorted([(kind, i) for kind in "FB" for i in range(micro_batches)], key=lambda step: position(s, *step))
            for s in range(stages)]


def receive(tensor, peer):
    for request in dist.batch_isend_irecv([dist.P2POp(dist.irecv, tensor, peer)]):
        request.wait()
    return tensor


def pipeline_step(stage, x, target, micro_batches, loss_fn, activation_shape):
    rank, stages = dist.get_rank(), dist.get_world_size()
    parameters = list(stage.parameters())
    inputs = x.chunk(micro_batches) if rank == 0 else None
    targets = target.chunk(micro_batches) if rank == stages - 1 else None
    saved, sends = {}, []
    for kind, i in one_f_one_b(stages, micro_batches)[rank]:
        if kind == "F":
            if rank == 0:
                h = inputs[i]
            else:
                h = receive(torch.empty(activation_shape), rank - 1).requires_grad_(True)
            y = stage(h)
            if rank < stages - 1:
                sends.append(dist.P2POp(dist.isend, y.detach(), rank + 1))
                sends += dist.batch_isend_irecv(sends[-1:])
            else:
                y = loss_fn(y, targets[i]) * (1.0 / micro_batches)
            saved[i] = (h, y)
            continue
        h, y = saved.pop(i)
        grad_y = None
        if rank < stages - 1:
            grad_y = receive(torch.empty(activation_shape), rank + 1)
        wrt = parameters + ([h] if rank > 0 else [])
        grads = torch.autograd.grad(y, wrt, grad_y)
        for parameter, grad in zip(parameters, grads):
            parameter.grad = grad.clone() if parameter.grad is None else parameter.grad + grad
        if rank > 0:
            sends.append(dist.P2POp(dist.isend, grads[-1], rank - 1))
            sends += dist.batch_isend_irecv(sends[-1:])
    for request in sends[1::2]:  # each operation (which holds its tensor) is followed by its request
        request.wait()
