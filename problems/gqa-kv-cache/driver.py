"""In the sandbox, deciding nothing: makes the test's calls in order and reports each call's output (out_0, ...)
and held: the numbers in the module's parameters and buffers, how many are learnable, and those in other tensors."""
import math

import torch

import kit


def run(solution, params, inputs, ctx, read=kit.parameter_reader(), product=math.prod):
    model = solution.GQAKVCache(*(params[name] for name in ("batch", "heads", "kv_heads", "head_dim", "max_seq")))
    model.to(device=ctx.device, dtype=inputs["q"].dtype)
    outputs, start = {}, 0
    with torch.no_grad():
        for i, t in enumerate(params["steps"]):
            out = model(*[inputs[name][:, :, start:start + t] for name in "qkv"])
            if isinstance(out, torch.Tensor):
                outputs[f"out_{i}"] = out.detach().clone()
            start += t
    held = list(read(model).values())
    kept = [v for m in model.modules() for k, v in vars(m).items() if k not in ("_parameters", "_buffers", "_modules")]
    kept += [x for v in kept if isinstance(v, (list, tuple, dict)) for x in (v.values() if isinstance(v, dict) else v)]
    outputs["held"] = torch.tensor([sum(product(shape) for shape, _ in held), sum(1 for _, grad in held if grad),
                                    sum(x.numel() for x in kept if isinstance(x, torch.Tensor))],
                                   dtype=torch.int64, device=ctx.device)
    return outputs
