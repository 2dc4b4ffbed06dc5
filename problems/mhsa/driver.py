"""Runs inside the sandbox: builds the submission's MHSA, reports its learnable parameters, copies the judge's
weights in by name, and runs one instance over each sequence length of the test, forward and (when the test
asks) backward. It decides nothing: checker.py judges every output, and says why one is missing.

Outputs:
    parameters     int64 (4, 3): for qkv.weight, qkv.bias, out.weight and out.bias in this order, the
                   learnable parameter of that name as (number of dimensions, size 0, size 1), sizes past
                   its dimensions 0; (-1, 0, 0) when there is none
    module         int64 (3,): 1 when MHSA(...) built an nn.Module (else 0), and how many other learnable
                   parameters it has and how many numbers they hold
and per length T (the suffix is empty when the test has one length):
    y{suffix}                       the forward output
    x.grad{suffix}, <param>.grad{suffix}   gradients of sum(y * dy), with grad tests
    reach{suffix}                   causal grad tests with short sequences: reach[t, s] is the largest
                                    |d(y_t . dy_t) / dx_s|, so the checker can say which keys query t sees
An output the call could not produce is left out: everything but the reports when the parameters are not
the interface's, y when forward returned no tensor, the gradients when y does not require grad or has not
x's shape and dtype, and one gradient when y does not depend on it.
"""

import math

import torch

PARAMETERS = ("qkv.weight", "qkv.bias", "out.weight", "out.bias")
DTYPES = {"float32": torch.float32, "float64": torch.float64}
# One forward and backward per query position: cheap at these lengths, and only a diagnosis.
REACH_MAX_T = 16


def _parameter_reader():
    """read(model, device) -> ({name: shape} of its learnable parameters, the report outputs).

    Everything it uses is bound here, when the driver is loaded and before the submission is imported, and
    it reads each module's own dictionaries rather than calling its methods: a submission that replaces
    nn.Module.named_parameters, a Parameter's properties or a name of this module (sys.modules["judge_driver"])
    changes nothing it sees. run() holds it the same way.
    """
    attribute, items, is_instance, identity, product = object.__getattribute__, dict.items, isinstance, id, math.prod
    size, requires_grad = torch._C.TensorBase.size, torch._C.TensorBase.requires_grad.__get__
    module_type, tensor, int64 = torch.nn.Module, torch.tensor, torch.int64
    names = PARAMETERS

    def learnable(model):
        """{name: shape} as named_parameters() names them: each parameter once, under its first name."""
        found, seen, stack = {}, set(), [("", model)]
        while stack:
            prefix, module = stack.pop()
            if identity(module) in seen:
                continue
            seen.add(identity(module))
            state = attribute(module, "__dict__")
            for name, parameter in items(state["_parameters"]):
                if parameter is not None and identity(parameter) not in seen and requires_grad(parameter):
                    seen.add(identity(parameter))
                    found[prefix + name] = tuple(size(parameter))
            stack += [(f"{prefix}{name}.", child) for name, child in reversed(items(state["_modules"]))
                      if child is not None]
        return found

    def row(shape):
        """(number of dimensions, size 0, size 1), or (-1, 0, 0) for no parameter."""
        if shape is None:
            return [-1, 0, 0]
        return [len(shape), *[*shape[:2], 0, 0][:2]]

    def read(model, device):
        is_module = is_instance(model, module_type)
        found = learnable(model) if is_module else {}
        others = [shape for name, shape in items(found) if name not in names]
        report = {"parameters": tensor([row(found.get(name)) for name in names], dtype=int64, device=device),
                  "module": tensor([int(is_module), len(others), sum(product(shape) for shape in others)],
                                   dtype=int64, device=device)}
        return found, report

    return read


def parameter_shapes(d_model):
    return {"qkv.weight": (3 * d_model, d_model), "qkv.bias": (3 * d_model,),
            "out.weight": (d_model, d_model), "out.bias": (d_model,)}


def lengths(params):
    return params.get("lengths", [params.get("seq")])


def suffix(params, length):
    return f"[T={length}]" if "lengths" in params else ""


def run(solution, params, inputs, ctx, *, read_parameters=_parameter_reader()):
    # The tolerance assumes true float32 matmuls; a submission may not loosen it for itself.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = solution.MHSA(params["d_model"], params["heads"], causal=params["causal"])
    found, report = read_parameters(model, ctx.device)
    if any(found.get(name) != shape for name, shape in parameter_shapes(params["d_model"]).items()):
        return report
    model.to(device=ctx.device, dtype=DTYPES[params["dtype"]])
    weights = dict(model.named_parameters())
    with torch.no_grad():
        for name in PARAMETERS:
            weights[name].copy_(inputs[name])
    parameters = [weights[name] for name in PARAMETERS]
    outputs = {}
    for index, length in enumerate(lengths(params)):
        try:
            outputs.update(forward_backward(model, parameters, params, inputs, suffix(params, length), ctx))
        except Exception as error:
            if index:
                earlier = ", ".join(str(t) for t in lengths(params)[:index])
                error.add_note(f"This MHSA instance had already run on T = {earlier}; it failed on T = {length}.")
            raise
    # Read again once forward has run: a parameter made on the first call (a lazy module) counts too.
    _, report = read_parameters(model, ctx.device)
    return {**report, **outputs}


def forward_backward(model, parameters, params, inputs, tag, ctx):
    """The outputs of one length; those the call could not produce are left out."""
    x = inputs[f"x{tag}"]
    if not params["grad"]:
        # x does not require grad here, so writing into it is possible, and the harness sees it.
        y = model(x)
        return {f"y{tag}": y.detach()} if isinstance(y, torch.Tensor) else {}
    leaf = x.detach().clone().requires_grad_(True)
    y = model(leaf)
    if not isinstance(y, torch.Tensor):
        return {}
    outputs = {f"y{tag}": y.detach()}
    if not y.requires_grad or y.shape != x.shape or y.dtype != x.dtype:
        return outputs
    grads = torch.autograd.grad(y, [leaf, *parameters], inputs[f"dy{tag}"], allow_unused=True)
    outputs.update({f"{name}.grad{tag}": grad for name, grad in zip(("x", *PARAMETERS), grads) if grad is not None})
    if params["causal"] and x.size(1) <= REACH_MAX_T:
        outputs[f"reach{tag}"] = reach(model, x, inputs[f"dy{tag}"])
    return outputs


def reach(model, x, dy):
    """(T, T): how strongly query t's output depends on the input at position s."""
    rows = []
    for query in range(x.size(1)):
        leaf = x.detach().clone().requires_grad_(True)
        (grad,) = torch.autograd.grad(model(leaf)[:, query], leaf, dy[:, query])
        rows.append(grad.abs().amax(dim=(0, 2)))
    return torch.stack(rows)
