"""Runs inside the sandbox: builds a block (or a stack of blocks, or heads sharing one input) from the test's
seed, wraps it in the submission's CheckpointedBlock, runs it the way training or inference does (forward,
`loss.backward()`, optimiser steps) and reports what it saw; checker.py decides, from these reports, whether
it was right. For call k:

    "out{k}"            the output
    "x.grad{k}"         the input's gradient; absent when x.grad is None
    "requires_grad{k}"  whether the output records a graph (a bool)
    "runs{k}"           with count_calls: how many times the block's forward ran in the call (an int64)

and after the last call "grad:{name}" for every trainable parameter whose gradient is not None,
"frozen_grads" (how many frozen parameters received one) and "rng" (the global streams' next draws).

The submission shares this process and can replace anything in it, so these reports are claims, judged on
the trusted side; what the driver can do is to be no easier to fool than rewriting it. Everything `run` uses
is bound here, when the driver is loaded and before the submission is imported: a name the submission
replaces in this module (sys.modules["judge_driver"]) changes nothing `run` does, and the block's runs are
counted by a hook whose count lives in a closure, not in an attribute the submission could reset.

The checker calls `scenario` too, with no wrapper, to measure the plain model's peak memory the same way.
"""

import torch
from torch import nn


def _driver():
    tensor_type, is_instance, as_tensor, int64 = torch.Tensor, isinstance, torch.tensor, torch.int64

    def run(solution, params, inputs, ctx):
        # The harness registers the package's blocks.py under this name; the checker passes its own copy instead.
        import blocks

        return scenario(blocks, solution.CheckpointedBlock, params, inputs, ctx.WrongAnswer)

    def scenario(blocks, wrap, params, inputs, wrong):
        """Every report the test judges. `wrap` is None for the plain model."""
        seed, device = int(inputs["seed"]), inputs["seed"].device
        torch.manual_seed(seed)
        plain = build(blocks, params).to(device)
        # Named as a state_dict names them: "3.attn.qkv.weight" is block 3's in a stack.
        named = list(plain.named_parameters())
        runs = [0]

        def count_run(module, args):
            runs[0] += 1

        if params.get("count_calls"):
            plain.register_forward_pre_hook(count_run)
        model = wrapped(blocks, plain, wrap, params)
        model.train(params.get("mode", "train") != "eval")
        trainable = [(name, p) for name, p in named if p.requires_grad]
        # Reseeded after construction, so that a wrapper drawing random numbers in __init__ shifts no dropout mask.
        torch.manual_seed(seed + 1)
        observed = {}
        for call in range(len(params["shapes"])):
            x = inputs[f"x{call}"].clone().requires_grad_(params.get("x_requires_grad", True))
            if "sgd_lr" in params:
                for _, p in trainable:
                    p.grad = None
            runs[0] = 0
            out = forward(model, x, params)
            if not is_instance(out, tensor_type):
                raise wrong(f"forward returned {type(out).__name__}, not a torch.Tensor")
            observed[f"out{call}"] = out.detach()
            observed[f"requires_grad{call}"] = as_tensor(bool(out.requires_grad))
            # Without a graph there is no backward to run; the checker says why the graph is missing.
            if params.get("backward", True) and out.requires_grad:
                (out.float() * inputs[f"w{call}"]).sum().backward()
                # A missing gradient is the checker's to report; stepping on it would only raise here.
                if "sgd_lr" in params and all(p.grad is not None for _, p in trainable):
                    sgd_step(trainable, params["sgd_lr"])
            if x.grad is not None:
                observed[f"x.grad{call}"] = x.grad
            if params.get("count_calls"):
                observed[f"runs{call}"] = as_tensor(runs[0], dtype=int64)
        if params.get("backward", True):
            observed.update({f"grad:{name}": p.grad for name, p in trainable if p.grad is not None})
            observed["frozen_grads"] = as_tensor(sum(p.grad is not None for _, p in named if not p.requires_grad),
                                                 dtype=int64)
        # Where the global streams stand decides the next step's dropout masks: both must be where the plain
        # model leaves them.
        streams = [torch.rand(8).to(device)] + ([torch.rand(8, device=device)] if device.type == "cuda" else [])
        observed["rng"] = torch.cat(streams)
        return observed

    def build(blocks, params):
        """The plain model, on the CPU."""
        kind = params["model"]
        if kind == "block":
            return blocks.TransformerBlock(params["d_model"], params["n_heads"], params["d_hidden"], params["dropout"])
        if kind == "stack":
            return blocks.transformer_stack(params["blocks"], params["d_model"], params["n_heads"],
                                            params["d_hidden"], params["dropout"])
        if kind == "heads":
            return blocks.SharedInputHeads([
                blocks.TransformerBlock(params["d_model"], params["n_heads"], params["d_hidden"], params["dropout"])
                for _ in range(params["blocks"])])
        # A block of another shape: it changes the width, and its LayerNorm's scale is frozen.
        plain = nn.Sequential(nn.Linear(params["d_in"], params["d_out"]), nn.Dropout(params["dropout"]), nn.GELU(),
                              nn.LayerNorm(params["d_out"]))
        plain[3].weight.requires_grad_(False)
        return plain

    def wrapped(blocks, plain, wrap, params):
        if wrap is None:
            return plain
        if params["model"] == "stack":
            return nn.Sequential(*(wrap(block) for block in plain))
        if params["model"] == "heads":
            return blocks.SharedInputHeads([wrap(head) for head in plain.heads])
        return wrap(plain)

    def forward(model, x, params):
        mode = params.get("mode")
        if mode == "no_grad":
            with torch.no_grad():
                return model(x)
        if mode == "inference":
            with torch.inference_mode():
                return model(x)
        if "autocast" in params:
            with torch.autocast(x.device.type, dtype=getattr(torch, params["autocast"])):
                return model(x)
        return model(x)

    def sgd_step(trainable, learning_rate):
        """torch.optim.SGD's step without momentum, written out: building an optimiser imports torch._dynamo on
        first use, over a second of CPU time charged to whichever test came first."""
        with torch.no_grad():
            for _, p in trainable:
                p.add_(p.grad, alpha=-learning_rate)

    return run, scenario


run, scenario = _driver()
del _driver
