"""Trusted checker: inputs from a seed, and comparison against SwiGLU computed here in float64.

Tolerance: per output, the larger of a few times the reference's own error against the float64 result
(measured on these very inputs) and a few rounding units of the output's magnitude, so that fused,
einsum, hand-written-backward and plain styles all pass. When the output is wrong, the message names the
classic mistake it reproduces (another gate activation, the gate and up projections swapped, a weight
applied transposed), when it reproduces one.

The driver decides nothing: it reports each module's learnable parameters and leaves out an output the call
could not produce, and this checker turns each into a wrong answer with its reason. What it reports is the
submission's to change, so a report can only fail a test; values are always compared here.
"""

import math

import torch
import torch.nn.functional as F

from runner import compare
from runner.problems import load_sibling

driver = load_sibling(__file__, "driver.py")
REFERENCE_ERROR_MULTIPLE = 8.0
ROUNDING_UNITS = 32.0
AXES = {"y": "..., feature", "x.grad": "..., feature", "w1.weight.grad": "hidden unit, input feature",
        "w3.weight.grad": "hidden unit, input feature", "w2.weight.grad": "output feature, hidden unit"}


def inputs(params, generator):
    d, hidden = params["d_model"], params["d_hidden"]
    dtype = driver.DTYPES[params["dtype"]]

    def normal(*shape, std):
        return (torch.randn(shape, generator=generator, dtype=torch.float64) * std).to(dtype)

    drawn = {"w1.weight": normal(hidden, d, std=d ** -0.5), "w3.weight": normal(hidden, d, std=d ** -0.5),
             "w2.weight": normal(d, hidden, std=hidden ** -0.5), "x": normal(*params["shape"], d, std=1.0)}
    if params["grad"]:
        drawn["dy"] = normal(*params["shape"], d, std=1.0)
    return drawn


def swiglu(x, weights, *, gate=F.silu, swap_gate_and_up=False, activate_product=False, transposed=()):
    """w2(gate(w1 x) * w3 x); the keywords describe the classic mistakes, their defaults the interface."""
    w = {name: weights[name].T if name in transposed else weights[name] for name in driver.PARAMETERS}
    gate_in, up = F.linear(x, w["w1.weight"]), F.linear(x, w["w3.weight"])
    if swap_gate_and_up:
        gate_in, up = up, gate_in
    hidden = gate(gate_in * up) if activate_product else gate(gate_in) * up
    return F.linear(hidden, w["w2.weight"])


def exact(params, inputs):
    """The float64 truth: y, and with grad tests the gradients, by output name."""
    def leaf(tensor):
        return tensor.detach().to(torch.float64, copy=True).requires_grad_(params["grad"])

    weights = {name: leaf(inputs[name]) for name in driver.PARAMETERS}
    x = leaf(inputs["x"])
    y = swiglu(x, weights)
    truth = {"y": y.detach()}
    if params["grad"]:
        grads = torch.autograd.grad(y, [x, *weights.values()], inputs["dy"].to(torch.float64))
        truth.update({f"{name}.grad": g for name, g in zip(("x", *driver.PARAMETERS), grads)})
    return truth


def tolerance(got_dtype, expected, truth):
    """Allowed absolute error: a multiple of the reference's own error, or a few rounding units."""
    if not truth.numel():
        return 0.0
    reference_error = (expected.to(torch.float64) - truth).abs().nan_to_num(nan=math.inf).max().item()
    magnitude = truth.abs().max().item()
    return max(REFERENCE_ERROR_MULTIPLE * reference_error, ROUNDING_UNITS * torch.finfo(got_dtype).eps * magnitude)


def check(params, inputs, got, expected):
    """None if the output and every gradient are right, else what is wrong and, if known, why."""
    # Only what the reference produced is read: anything else is the submission's invention.
    got = {name: tensor for name, tensor in got.items() if name in expected}
    builds = [(d_model, d_hidden, driver.build_label(d_model, d_hidden))
              for d_model, d_hidden in params.get("builds", [])]
    for d_model, d_hidden, label in [*builds, (params["d_model"], params["d_hidden"], "")]:
        problem = interface_problem(d_model, d_hidden, got.get(f"parameters{label}"), got.get(f"module{label}"))
        if problem:
            return problem
    call = f"SwiGLU({params['d_model']}, {params['d_hidden']}) on x of shape {tuple(inputs['x'].shape)}, " \
           f"{params['dtype']}"
    problem = output_problem(params, got, expected)
    if problem:
        return f"{call}: {problem}"
    truth = exact(params, inputs)
    for name, right in truth.items():
        allowed = tolerance(got[name].dtype, expected[name], right)
        message = compare.tensors(f"{name}[{AXES[name]}]", got[name].to(torch.float64), right, atol=allowed, rtol=0)
        if not message:
            continue
        if name == "y":
            mistake = matching_mistake(params, inputs, got["y"].to(torch.float64), right, allowed)
            return f"{call}: {message}." + (f" This is exactly what {mistake}." if mistake else "")
        return (f"{call}: {message}. The output is right but this gradient is not: check a custom backward, or "
                "anything detached or computed outside autograd.")
    return None


def interface_problem(d_model, d_hidden, rows, counts):
    """What the driver's report says is wrong with SwiGLU(d_model, d_hidden)'s learnable parameters, or None."""
    module = f"SwiGLU({d_model}, {d_hidden})"
    expected = driver.parameter_shapes(d_model, d_hidden)
    if not (is_report(rows, (len(expected), 3)) and is_report(counts, (3,))):
        return f"{module}: the driver's report of the module's parameters is missing or malformed"
    if int(counts[0]) != 1:
        return f"{module} built something that is not a torch.nn.Module"
    problems = parameter_problems(expected, rows, counts)
    if not problems:
        return None
    wanted = ", ".join(f"{name} {shape}" for name, shape in expected.items())
    return (f"{module}: {'; '.join(problems)}. The learnable parameters must be exactly {wanted}: three bias-free "
            "nn.Linear layers, whose weight is (out_features, in_features).")


def is_report(tensor, shape):
    return tensor is not None and tensor.dtype == torch.int64 and tuple(tensor.shape) == shape


def parameter_problems(expected, rows, counts):
    """How the reported parameters differ from expected ({name: shape}), in words. The sizes and counts are
    the submission's to choose, so a hidden test's message leaves them out."""
    reveal = compare.reveals_values()
    problems = []
    for (name, shape), (ndim, *sizes) in zip(expected.items(), rows.tolist()):
        if ndim < 0:
            problems.append(f"{name} is missing")
        elif ndim != len(shape) or tuple(sizes[:ndim]) != shape:
            seen = f"has shape {tuple(sizes[:ndim])}" if ndim <= len(sizes) else f"has {ndim} dimensions"
            problems.append(f"{name} {seen}, expected {shape}" if reveal else f"{name} does not have the shape {shape}")
    others, elements = counts[1:].tolist()
    if others:
        problems.append(f"{others} further learnable parameter{'s' * (others != 1)} ({elements} "
                        f"number{'s' * (elements != 1)}) the interface does not have" if reveal
                        else "learnable parameters the interface does not have")
    return problems


def output_problem(params, got, expected):
    """What is wrong with the outputs before their values: one missing, or not shaped like the reference's.
    The driver leaves out what the call could not produce, so a missing output says why."""
    if got.get("y") is None:
        return "forward returned no torch.Tensor"
    mismatch = compare.layout("y", got["y"], expected["y"])
    if mismatch:
        return f"{mismatch}; forward must return a tensor of x's shape and dtype"
    if not params["grad"]:
        return None
    grads = [f"{name}.grad" for name in ("x", *driver.PARAMETERS)]
    absent = [name for name in grads if got.get(name) is None]
    if len(absent) == len(grads):
        return ("the output does not require grad; it must stay connected to x and to the weights (no .detach(), "
                ".data or torch.no_grad() on the way)")
    if absent:
        name = absent[0].removesuffix(".grad")
        return f"the output does not depend on {name}, so {name}.grad is None"
    for name in grads:
        mismatch = compare.layout(name, got[name], expected[name])
        if mismatch:
            return mismatch
    return None


def mistakes(params):
    """(description, swiglu keywords) for each classic mistake, in the order they are tried."""
    found = [
        ("SiLU on w3(x) with w1(x) as the linear branch gives: w1 is the gate, the projection that goes through "
         "SiLU, and w3 the up projection", {"swap_gate_and_up": True}),
        ("a GELU gate gives, which makes GeGLU: SwiGLU's gate is SiLU(z) = z * sigmoid(z)", {"gate": F.gelu}),
        ("a tanh-approximated GELU gate gives, which makes GeGLU: SwiGLU's gate is SiLU(z) = z * sigmoid(z)",
         {"gate": lambda z: F.gelu(z, approximate="tanh")}),
        ("a sigmoid gate gives, the original GLU: SwiGLU's gate is SiLU(w1(x)) = w1(x) * sigmoid(w1(x))",
         {"gate": torch.sigmoid}),
        ("a ReLU gate gives, which makes ReGLU: SwiGLU's gate is SiLU(z) = z * sigmoid(z)", {"gate": F.relu}),
        ("a gate without activation gives, a bilinear layer: SwiGLU's gate is SiLU(w1(x))",
         {"gate": lambda z: z}),
        ("SiLU applied to the product w1(x) * w3(x) gives: SiLU belongs on the gate w1(x) alone, which then "
         "multiplies w3(x)", {"activate_product": True}),
    ]
    if params["d_model"] == params["d_hidden"]:
        found += [(f"applying {name} transposed gives: nn.Linear computes x @ weight.T, with the weight stored "
                   "as (out_features, in_features)", {"transposed": (name,)}) for name in driver.PARAMETERS]
    return found


def matching_mistake(params, inputs, y, right, allowed):
    """The description of the classic mistake whose output the submission reproduces, or None."""
    weights = {name: inputs[name].to(torch.float64) for name in driver.PARAMETERS}
    x = inputs["x"].to(torch.float64)
    off_by = (y - right).abs().nan_to_num(nan=math.inf).max().item()
    close = max(4 * allowed, 0.01 * off_by if math.isfinite(off_by) else 0.0)
    for description, keywords in mistakes(params):
        candidate = swiglu(x, weights, **keywords)
        if (candidate - right).abs().max().item() > allowed and (y - candidate).abs().max().item() <= close:
            return description
    return None
