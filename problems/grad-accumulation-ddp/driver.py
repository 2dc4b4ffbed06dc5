"""Runs on every rank inside the sandbox, deciding nothing: sets up this rank's Accumulator on the judge's model and
runs one window; reports each trainable .grad and the window's collectives (kit_ranks) for the ranks kind to judge."""
import torch
import torch.nn.functional as F
from torch import nn

import kit_ranks


def model(params):  # a frozen first layer, as in fine-tuning, then two trainable ones; spec.py computes the same
    d_in, d_hidden, d_out = params["d_in"], params["d_hidden"], params["d_out"]
    return nn.Sequential(nn.Linear(d_in, d_hidden).requires_grad_(False), nn.Tanh(), nn.Linear(d_hidden, d_hidden),
                         nn.Tanh(), nn.Linear(d_hidden, d_out))


def run(solution, params, inputs, ctx, ranks=kit_ranks.observer(), mse=F.mse_loss):
    net, observed, marks = model(params), ranks.report(), []
    net.load_state_dict({name: inputs[name] for name in net.state_dict()})
    accumulator, start = solution.Accumulator(net), ctx.collective_counts  # set-up: what it issues is not counted
    ranks.during(observed, "window", accumulator.accumulate, list(zip(inputs["x"][ctx.rank], inputs["y"][ctx.rank])),
                 lambda output, target: marks.append(ctx.collective_counts) or mse(output, target))
    if len(marks) != params["micro"]:
        raise ctx.WrongAnswer(f"loss_fn ran {len(marks)} time(s) for {params['micro']} micro-batches, not once each")
    observed["phases"]["early"] = [  # from set-up's end to the last loss_fn call; no sizes, since none may run
        [name, count - start.get(name, 0), 0, 0] for name, count in marks[-1].items() if count > start.get(name, 0)]
    for name, tensor in net.named_parameters():
        if (tensor.grad is None) == tensor.requires_grad:
            raise ctx.WrongAnswer(f"after accumulate, {name}" + (".grad is None" if tensor.requires_grad else
                                  " (frozen: requires_grad=False) has a .grad; it must stay None"))
    return {**{f"grad.{name}": tensor.grad.clone() for name, tensor in net.named_parameters() if tensor.requires_grad},
            "observed": ranks.encoded(observed)}
