"""The debugging kind's sandbox half, shipped as the module `kit_training`: the submission's training script run
on the judge's data, and what it ends with reported; it decides nothing.

`run(names, solution, params, inputs, ctx)` builds `solution.<model>(**params["config"])`, copies the `model.`
inputs into its parameters and buffers by name (the judge's initial weights), calls
`solution.train(model, *<train inputs>, steps=params["steps"], seed=<the test's seed>)`, reports every parameter
as `parameter.<name>` and every buffer as `buffer.<name>`, and then calls `solution.evaluate(model, *<evaluate
inputs>)` twice, torch's global generator seeded differently before each call, reporting `predictions` and
`predictions again`: an evaluation that still draws dropout masks, or that normalises by the batch, does not
repeat itself. `names` is the problem's `[interface]`: the class (`model`) and the inputs each call takes
(`train`, `evaluate`).

The submission shares this process and can replace anything in it, so these reports are claims: the trusted
side (runner/kit/training.py) evaluates the weights reported with its own model, on held-out data that never
enters the sandbox. What `run` uses is bound here when the module loads, before the submission is imported.
"""

import torch

PARAMETER, BUFFER, MODEL = "parameter.", "buffer.", "model."
PREDICTIONS, AGAIN = "predictions", "predictions again"
# torch's global seed before each evaluation: a dropout mask drawn there differs between the two calls.
EVALUATION_SEEDS = (1, 2)


def _bound():
    is_module, is_tensor = torch.nn.Module.__instancecheck__, torch.Tensor.__instancecheck__
    no_grad, manual_seed, attribute = torch.no_grad, torch.manual_seed, object.__getattribute__
    detach, clone, copy, identity = torch.Tensor.detach, torch.Tensor.clone, torch.Tensor.copy_, id

    def tensors_of(model):
        """{reported name: tensor} of the model's parameters (frozen ones too) and buffers, each once under its
        first name, read from the modules' own dictionaries, never through methods the submission can replace."""
        found, stack, seen = {}, [("", model)], set()
        while stack:
            prefix, module = stack.pop()
            if identity(module) in seen:
                continue
            seen.add(identity(module))
            state = attribute(module, "__dict__")
            for kind, label in (("_parameters", PARAMETER), ("_buffers", BUFFER)):
                for name, tensor in state.get(kind, {}).items():
                    if tensor is not None and identity(tensor) not in seen:
                        seen.add(identity(tensor))
                        found[label + prefix + name] = tensor
            stack += [(f"{prefix}{name}.", child) for name, child in reversed(state.get("_modules", {}).items())
                      if child is not None]
        return found

    def run(names, solution, params, inputs, ctx):
        model = getattr(solution, names.get("model", "Model"))(**params.get("config", {}))
        if not is_module(model):
            return {}
        initial = {name.removeprefix(MODEL): tensor for name, tensor in inputs.items() if name.startswith(MODEL)}
        model.to(device=ctx.device, dtype=next(iter(initial.values())).dtype if initial else None)
        with no_grad():
            for name, tensor in tensors_of(model).items():
                start = initial.get(name.split(".", 1)[1])
                if start is not None and tuple(tensor.shape) == tuple(start.shape):
                    copy(tensor, start)
        solution.train(model, *[inputs[name] for name in names.get("train", [])], steps=params["steps"],
                       seed=int(inputs["seed"][0]))
        reported = {name: clone(detach(tensor)) for name, tensor in tensors_of(model).items() if is_tensor(tensor)}
        for key, seed in zip((PREDICTIONS, AGAIN), EVALUATION_SEEDS):
            manual_seed(seed)
            predictions = solution.evaluate(model, *[inputs[name] for name in names.get("evaluate", [])])
            if is_tensor(predictions):
                reported[key] = clone(detach(predictions))
        return reported

    return run


run = _bound()

__all__ = ["AGAIN", "BUFFER", "EVALUATION_SEEDS", "MODEL", "PARAMETER", "PREDICTIONS", "run"]
