"""Runs inside the sandbox: builds a block (or a stack) from the test's seed, wraps it in the submission's
CheckpointedBlock, and runs it the way training or inference does: forward, `loss.backward()`, optimiser steps.

The checker runs `scenario` too, with no wrapper, to measure the plain model's peak memory the same way.
"""

import torch
from torch import nn


def run(solution, params, inputs, ctx):
    # The harness registers the package's blocks.py under this name; the checker passes its own copy instead.
    import blocks

    return scenario(blocks, solution.CheckpointedBlock, params, inputs, ctx.WrongAnswer)


def scenario(blocks, wrap, params, inputs, wrong):
    """Every output the test compares: each call's output and input gradient, the parameters' gradients and
    the random-number stream's next draws. `wrap` is None for the plain model."""
    seed, device = int(inputs["seed"]), inputs["seed"].device
    torch.manual_seed(seed)
    plain = build(blocks, params).to(device)
    # Named as a state_dict names them: "3.attn.qkv.weight" is block 3's in a stack.
    named = list(plain.named_parameters())
    counter = blocks.CallCounter(plain) if params.get("count_calls") else None
    model = wrapped(plain if counter is None else counter, wrap, params)
    model.train(params.get("mode", "train") != "eval")
    trainable = [(name, p) for name, p in named if p.requires_grad]
    # Reseeded after construction, so that a wrapper drawing random numbers in __init__ shifts no dropout mask.
    torch.manual_seed(seed + 1)
    outputs = {}
    for call in range(len(params["shapes"])):
        x = inputs[f"x{call}"].clone().requires_grad_(params.get("x_requires_grad", True))
        if "sgd_lr" in params:
            for _, p in trainable:
                p.grad = None
        if counter is not None:
            counter.calls = 0
        out = forward(model, x, params)
        expect_graph(out, x, trainable, params, wrong)
        outputs[f"out{call}"] = out.detach()
        if params.get("backward", True):
            (out.float() * inputs[f"w{call}"]).sum().backward()
            if x.requires_grad:
                if x.grad is None:
                    raise wrong("the input gradient x.grad is None after backward, but the plain block's is not: "
                                "the output is not connected to x")
                outputs[f"x.grad{call}"] = x.grad
            expect_parameter_gradients(named, wrong)
            if "sgd_lr" in params:
                sgd_step(trainable, params["sgd_lr"])
        if counter is not None and counter.calls != 1:
            raise wrong(calls_message(counter.calls, params))
    if params.get("backward", True):
        outputs.update({f"grad:{name}": p.grad for name, p in trainable})
    # Where the global streams stand decides the next step's dropout masks: both must be where the plain model
    # leaves them.
    streams = [torch.rand(8).to(device)] + ([torch.rand(8, device=device)] if device.type == "cuda" else [])
    outputs["rng"] = torch.cat(streams)
    return outputs


def build(blocks, params):
    """The plain model, on the CPU."""
    kind = params["model"]
    if kind == "block":
        return blocks.TransformerBlock(params["d_model"], params["n_heads"], params["d_hidden"], params["dropout"])
    if kind == "stack":
        return blocks.transformer_stack(params["blocks"], params["d_model"], params["n_heads"], params["d_hidden"],
                                        params["dropout"])
    # A block of another shape: it changes the width, and its LayerNorm's scale is frozen.
    plain = nn.Sequential(nn.Linear(params["d_in"], params["d_out"]), nn.Dropout(params["dropout"]), nn.GELU(),
                          nn.LayerNorm(params["d_out"]))
    plain[3].weight.requires_grad_(False)
    return plain


def wrapped(plain, wrap, params):
    if wrap is None:
        return plain
    if params["model"] == "stack":
        return nn.Sequential(*(wrap(block) for block in plain))
    return wrap(plain)


def forward(model, x, params):
    if params.get("mode") == "no_grad":
        with torch.no_grad():
            return model(x)
    if "autocast" in params:
        with torch.autocast(x.device.type, dtype=getattr(torch, params["autocast"])):
            return model(x)
    return model(x)


def expect_graph(out, x, trainable, params, wrong):
    """The output records a graph exactly when the plain block's would."""
    if not isinstance(out, torch.Tensor):
        raise wrong(f"forward returned {type(out).__name__}, not a torch.Tensor")
    should = torch.is_grad_enabled() and params.get("mode") != "no_grad" and (x.requires_grad or bool(trainable))
    if out.requires_grad == should:
        return
    if not should:
        raise wrong("under no_grad the output requires grad, but the plain block's does not: nothing may be "
                    "recorded for a backward pass that cannot happen")
    if params.get("mode") == "eval":
        raise wrong("in eval mode with grad enabled the output does not require grad, but the plain block's does: "
                    "eval() is not no_grad(); it only switches dropout off, and gradients with respect to the input "
                    "and the parameters (saliency maps, adversarial examples) must still flow")
    if not x.requires_grad:
        raise wrong("x does not require grad, and the output does not either, but the plain block's does (its "
                    "parameters require grad): the block's parameter gradients would be lost")
    raise wrong("the output does not require grad, but the plain block's does: it must stay connected to x and to "
                "the block's parameters")


def expect_parameter_gradients(named, wrong):
    for name, p in named:
        if p.requires_grad and p.grad is None:
            raise wrong(f"the gradient of parameter {name} is None after backward, but the plain block's is not: "
                        "autograd never delivered the block's parameter gradients through the checkpoint")
        if not p.requires_grad and p.grad is not None:
            raise wrong(f"the frozen parameter {name} (requires_grad=False) received a gradient")


def sgd_step(trainable, learning_rate):
    """torch.optim.SGD's step without momentum, written out: building an optimiser imports torch._dynamo on
    first use, over a second of CPU time charged to whichever test came first."""
    with torch.no_grad():
        for _, p in trainable:
            p.add_(p.grad, alpha=-learning_rate)


def calls_message(calls, params):
    if params.get("mode") == "no_grad":
        return (f"in training mode under no_grad the block ran {calls} times for one forward; it must run once, as "
                "the plain block does: without a graph there is nothing to save and nothing to recompute")
    return (f"in eval mode with grad enabled the block ran {calls} times for one forward and backward; it must run "
            "once, as the plain block does: recomputing pays for itself only in training")
