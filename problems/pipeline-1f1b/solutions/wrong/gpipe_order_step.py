# expect: wrong_answer
# mistake: one_f_one_b returns 1F1B's lists, but pipeline_step runs every forward, then every backward (GPipe's order): the gradients are right, and every stage holds the activations of all m micro-batches at once
# message: held on the stage at once
# fails-on: two-stages
import torch
import torch.distributed as dist


def one_f_one_b(stages, micro_batches):
    """Stage s: a warm-up of p - s - 1 forwards, then one forward and one backward in turn, then the backwards left."""
    schedule = []
    for stage in range(stages):
        warm_up = min(stages - stage - 1, micro_batches)
        steps = [("F", i) for i in range(warm_up)]
        for i in range(micro_batches - warm_up):
            steps += [("F", warm_up + i), ("B", i)]
        steps += [("B", i) for i in range(micro_batches - warm_up, micro_batches)]
        schedule.append(steps)
    return schedule


def pipeline_step(stage, x, target, micro_batches, loss_fn, activation_shape):
    rank, stages = dist.get_rank(), dist.get_world_size()
    first, last = rank == 0, rank == stages - 1
    kept = {}  # micro-batch -> (the stage's input, its output or loss): the activations in flight
    # Sends do not wait: a stage that blocked sending F(i + 1) to the next stage while the next stage blocked
    # sending it B(i)'s gradient would deadlock. Each send's tensor stays alive until it is waited for.
    sending = []
    # Every forward first, then every backward.
    for kind, i in [("F", i) for i in range(micro_batches)] + [("B", i) for i in range(micro_batches)]:
        if kind == "F":
            if first:
                received = x.chunk(micro_batches)[i]
            else:
                received = torch.empty(activation_shape)
                dist.recv(received, rank - 1)
                received.requires_grad_()
            out = stage(received)
            if last:
                # The mean over the micro-batches of each one's mean loss: the whole batch's mean loss.
                out = loss_fn(out, target.chunk(micro_batches)[i]) / micro_batches
            else:
                sent = out.detach()
                sending.append((sent, dist.isend(sent, rank + 1)))
            kept[i] = received, out
        else:
            received, out = kept.pop(i)
            if last:
                out.backward()
            else:
                grad = torch.empty(activation_shape)
                dist.recv(grad, rank + 1)
                out.backward(grad)
            if not first:
                sending.append((received.grad, dist.isend(received.grad, rank - 1)))
    for _, request in sending:
        request.wait()
