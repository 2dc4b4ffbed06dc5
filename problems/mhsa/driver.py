"""Runs inside the sandbox: builds the submission's MHSA, copies the judge's weights in by name, and runs
one instance over each sequence length of the test, forward and (when the test asks) backward.

Outputs, per length T (the suffix is empty when the test has one length):
    y{suffix}                       the forward output
    x.grad{suffix}, <param>.grad{suffix}   gradients of sum(y * dy), with grad tests
    reach{suffix}                   causal grad tests with short sequences: reach[t, s] is the largest
                                    |d(y_t . dy_t) / dx_s|, so the checker can say which keys query t sees
"""

import torch

PARAMETERS = ("qkv.weight", "qkv.bias", "out.weight", "out.bias")
DTYPES = {"float32": torch.float32, "float64": torch.float64}
# One forward and backward per query position: cheap at these lengths, and only a diagnosis.
REACH_MAX_T = 16


def parameter_shapes(d_model):
    return {"qkv.weight": (3 * d_model, d_model), "qkv.bias": (3 * d_model,),
            "out.weight": (d_model, d_model), "out.bias": (d_model,)}


def lengths(params):
    return params.get("lengths", [params.get("seq")])


def suffix(params, length):
    return f"[T={length}]" if "lengths" in params else ""


def run(solution, params, inputs, ctx):
    # The tolerance assumes true float32 matmuls; a submission may not loosen it for itself.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = build(solution, params, ctx)
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
    return outputs


def build(solution, params, ctx):
    """MHSA(d_model, n_heads, causal), once its learnable parameters are exactly the interface's."""
    d_model, heads = params["d_model"], params["heads"]
    model = solution.MHSA(d_model, heads, causal=params["causal"])
    if not isinstance(model, torch.nn.Module):
        raise ctx.WrongAnswer(f"MHSA(...) built a {type(model).__name__}, not a torch.nn.Module")
    expected = parameter_shapes(d_model)
    found = {name: p for name, p in model.named_parameters() if p.requires_grad}
    problems = [f"{name} is missing" for name in expected if name not in found]
    problems += [f"{name} has shape {tuple(found[name].shape)}, expected {shape}"
                 for name, shape in expected.items() if name in found and tuple(found[name].shape) != shape]
    problems += [f"{name} {tuple(p.shape)} is a learnable parameter the interface does not have"
                 for name, p in found.items() if name not in expected]
    if problems:
        wanted = ", ".join(f"{name} {shape}" for name, shape in expected.items())
        raise ctx.WrongAnswer(f"MHSA({d_model}, {heads}): {'; '.join(problems)}. The learnable parameters must be "
                              f"exactly {wanted}.")
    return model


def forward_backward(model, parameters, params, inputs, tag, ctx):
    x, call = inputs[f"x{tag}"], f"forward(x) with x of shape {tuple(inputs[f'x{tag}'].shape)}"
    if not params["grad"]:
        # x does not require grad here, so writing into it is possible, and the harness sees it.
        return {f"y{tag}": checked(model(x), x, call, ctx).detach()}
    leaf = x.detach().clone().requires_grad_(True)
    y = checked(model(leaf), x, call, ctx)
    if not y.requires_grad:
        raise ctx.WrongAnswer(f"{call}: the output does not require grad; it must stay connected to x and to "
                              "the weights (no .detach(), .data or torch.no_grad() on the way)")
    grads = torch.autograd.grad(y, [leaf, *parameters], inputs[f"dy{tag}"], allow_unused=True)
    outputs = {f"y{tag}": y.detach()}
    for name, grad in zip(("x", *PARAMETERS), grads):
        if grad is None:
            raise ctx.WrongAnswer(f"{call}: the output does not depend on {name}, so {name}.grad is None")
        outputs[f"{name}.grad{tag}"] = grad
    if params["causal"] and x.size(1) <= REACH_MAX_T:
        outputs[f"reach{tag}"] = reach(model, x, inputs[f"dy{tag}"])
    return outputs


def checked(y, x, call, ctx):
    if not isinstance(y, torch.Tensor):
        raise ctx.WrongAnswer(f"{call} returned a {type(y).__name__}, not a torch.Tensor")
    if y.shape != x.shape or y.dtype != x.dtype:
        raise ctx.WrongAnswer(f"{call} returned a {str(y.dtype).removeprefix('torch.')} tensor of shape "
                              f"{tuple(y.shape)}; expected {str(x.dtype).removeprefix('torch.')} of shape "
                              f"{tuple(x.shape)}, like x")
    return y


def reach(model, x, dy):
    """(T, T): how strongly query t's output depends on the input at position s."""
    rows = []
    for query in range(x.size(1)):
        leaf = x.detach().clone().requires_grad_(True)
        (grad,) = torch.autograd.grad(model(leaf)[:, query], leaf, dy[:, query])
        rows.append(grad.abs().amax(dim=(0, 2)))
    return torch.stack(rows)
