"""Runs inside the sandbox: builds the submission's SwiGLU, reports its learnable parameters, copies the
judge's weights in by name, and runs forward (and, when the test asks, backward). It decides nothing:
checker.py judges every output, and says why one is missing.

Outputs:
    parameters     int64 (3, 3): for w1.weight, w3.weight and w2.weight in this order, the learnable
                   parameter of that name as (number of dimensions, size 0, size 1), sizes past its
                   dimensions 0; (-1, 0, 0) when there is none
    module         int64 (3,): 1 when SwiGLU(...) built an nn.Module (else 0), and how many other learnable
                   parameters it has and how many numbers they hold
    parameters of SwiGLU(d, h), module of SwiGLU(d, h)   the same for each further size the test builds
    y, and with grad tests x.grad and each weight's gradient of sum(y * dy)
An output the call could not produce is left out: everything but the reports when the parameters are not
the interface's, y when forward returned no tensor, the gradients when y does not require grad or has not
x's shape and dtype, and one gradient when y does not depend on it.
"""

import math

import torch

PARAMETERS = ("w1.weight", "w3.weight", "w2.weight")
DTYPES = {"float32": torch.float32, "float64": torch.float64}


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

    def read(model, device, label=""):
        is_module = is_instance(model, module_type)
        found = learnable(model) if is_module else {}
        others = [shape for name, shape in items(found) if name not in names]
        report = {f"parameters{label}": tensor([row(found.get(name)) for name in names], dtype=int64,
                                               device=device),
                  f"module{label}": tensor([int(is_module), len(others), sum(product(shape) for shape in others)],
                                           dtype=int64, device=device)}
        return found, report

    return read


def parameter_shapes(d_model, d_hidden):
    return {"w1.weight": (d_hidden, d_model), "w3.weight": (d_hidden, d_model), "w2.weight": (d_model, d_hidden)}


def build_label(d_model, d_hidden):
    """The suffix of a further build's reports."""
    return f" of SwiGLU({d_model}, {d_hidden})"


def run(solution, params, inputs, ctx, *, read_parameters=_parameter_reader()):
    # The tolerance assumes true float32 matmuls; a submission may not loosen it for itself.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    outputs = {}
    for d_model, d_hidden in params.get("builds", []):
        outputs.update(read_parameters(solution.SwiGLU(d_model, d_hidden), ctx.device,
                                       build_label(d_model, d_hidden))[1])
    model = solution.SwiGLU(params["d_model"], params["d_hidden"])
    found, report = read_parameters(model, ctx.device)
    expected = parameter_shapes(params["d_model"], params["d_hidden"])
    if any(found.get(name) != shape for name, shape in expected.items()):
        return {**outputs, **report}
    model.to(device=ctx.device, dtype=DTYPES[params["dtype"]])
    weights = dict(model.named_parameters())
    with torch.no_grad():
        for name in PARAMETERS:
            weights[name].copy_(inputs[name])
    outputs.update(forward_backward(model, [weights[name] for name in PARAMETERS], params, inputs))
    # Read again once forward has run: a parameter made on the first call (a lazy module) counts too.
    return {**outputs, **read_parameters(model, ctx.device)[1]}


def forward_backward(model, weights, params, inputs):
    """y and, with grad tests, the gradients; those the call could not produce are left out."""
    x = inputs["x"]
    if not params["grad"]:
        # x does not require grad here, so writing into it is possible, and the harness sees it.
        y = model(x)
        return {"y": y.detach()} if isinstance(y, torch.Tensor) else {}
    leaf = x.detach().clone().requires_grad_(True)
    y = model(leaf)
    if not isinstance(y, torch.Tensor):
        return {}
    outputs = {"y": y.detach()}
    if not y.requires_grad or y.shape != x.shape or y.dtype != x.dtype:
        return outputs
    grads = torch.autograd.grad(y, [leaf, *weights], inputs["dy"], allow_unused=True)
    outputs.update({f"{name}.grad": grad for name, grad in zip(("x", *PARAMETERS), grads) if grad is not None})
    return outputs
