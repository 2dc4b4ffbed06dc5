"""Runs inside the sandbox: builds the submission's SwiGLU, checks its learnable parameters against the
interface, copies the judge's weights in by name, and runs forward (and, when the test asks, backward).

Outputs: y, and with grad tests x.grad and each weight's gradient of sum(y * dy).
"""

import torch

PARAMETERS = ("w1.weight", "w3.weight", "w2.weight")
DTYPES = {"float32": torch.float32, "float64": torch.float64}


def parameter_shapes(d_model, d_hidden):
    return {"w1.weight": (d_hidden, d_model), "w3.weight": (d_hidden, d_model), "w2.weight": (d_model, d_hidden)}


def run(solution, params, inputs, ctx):
    # The tolerance assumes true float32 matmuls; a submission may not loosen it for itself.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for d_model, d_hidden in params.get("builds", []):
        build(solution, d_model, d_hidden, ctx)
    model = build(solution, params["d_model"], params["d_hidden"], ctx)
    model.to(device=ctx.device, dtype=DTYPES[params["dtype"]])
    weights = dict(model.named_parameters())
    with torch.no_grad():
        for name in PARAMETERS:
            weights[name].copy_(inputs[name])
    x = inputs["x"]
    call = f"SwiGLU({params['d_model']}, {params['d_hidden']}) on x of shape {tuple(x.shape)}"
    if not params["grad"]:
        # x does not require grad here, so writing into it is possible, and the harness sees it.
        return {"y": checked(model(x), x, call, ctx).detach()}
    leaf = x.detach().clone().requires_grad_(True)
    y = checked(model(leaf), x, call, ctx)
    if not y.requires_grad:
        raise ctx.WrongAnswer(f"{call}: the output does not require grad; it must stay connected to x and to "
                              "the weights (no .detach(), .data or torch.no_grad() on the way)")
    grads = torch.autograd.grad(y, [leaf, *(weights[name] for name in PARAMETERS)], inputs["dy"],
                                allow_unused=True)
    outputs = {"y": y.detach()}
    for name, grad in zip(("x", *PARAMETERS), grads):
        if grad is None:
            raise ctx.WrongAnswer(f"{call}: the output does not depend on {name}, so {name}.grad is None")
        outputs[f"{name}.grad"] = grad
    return outputs


def build(solution, d_model, d_hidden, ctx):
    """SwiGLU(d_model, d_hidden), once its learnable parameters are exactly the interface's."""
    model = solution.SwiGLU(d_model, d_hidden)
    if not isinstance(model, torch.nn.Module):
        raise ctx.WrongAnswer(f"SwiGLU(...) built a {type(model).__name__}, not a torch.nn.Module")
    expected = parameter_shapes(d_model, d_hidden)
    found = {name: p for name, p in model.named_parameters() if p.requires_grad}
    problems = [f"{name} is missing" for name in expected if name not in found]
    problems += [f"{name} has shape {tuple(found[name].shape)}, expected {shape}"
                 for name, shape in expected.items() if name in found and tuple(found[name].shape) != shape]
    problems += [f"{name} {tuple(p.shape)} is a learnable parameter the interface does not have"
                 for name, p in found.items() if name not in expected]
    if problems:
        wanted = ", ".join(f"{name} {shape}" for name, shape in expected.items())
        raise ctx.WrongAnswer(f"SwiGLU({d_model}, {d_hidden}): {'; '.join(problems)}. The learnable parameters "
                              f"must be exactly {wanted}: three bias-free nn.Linear layers, whose weight is "
                              "(out_features, in_features).")
    return model


def checked(y, x, call, ctx):
    if not isinstance(y, torch.Tensor):
        raise ctx.WrongAnswer(f"{call} returned a {type(y).__name__}, not a torch.Tensor")
    if y.shape != x.shape or y.dtype != x.dtype:
        raise ctx.WrongAnswer(f"{call} returned a {str(y.dtype).removeprefix('torch.')} tensor of shape "
                              f"{tuple(y.shape)}; expected {str(x.dtype).removeprefix('torch.')} of shape "
                              f"{tuple(x.shape)}, like x")
    return y
