"""Trusted: inputs from a seed and the truth from autograd through F.layer_norm in float64; the kit names the
classic mistake (problem.toml's [[mistakes]], run here in float64) an output reproduces."""
import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    shape, dtype = list(params["shape"]), DTYPES[params["dtype"]]
    x = torch.randn(shape, generator=generator, dtype=torch.float64) * params.get("scale", 1.0)
    x = x + params.get("offset", 0.0)
    for row in params.get("constant_rows", []):
        x.view(-1, shape[-1])[row] = x.view(-1, shape[-1])[row, 0].clone()
    weight = 1 + 0.5 * torch.randn(shape[-1], generator=generator, dtype=torch.float64)
    dy = torch.randn(shape, generator=generator, dtype=torch.float64)
    return {"dy": dy.to(dtype), "x": x.to(dtype), "weight": weight.to(dtype)}


def truth(params, inputs):
    """dx, dweight, dbias by autograd through PyTorch's own LayerNorm, in float64."""
    x, weight = (inputs[name].to(torch.float64).requires_grad_() for name in ("x", "weight"))
    bias = torch.zeros_like(weight, requires_grad=True)
    with torch.enable_grad():
        y = F.layer_norm(x, x.shape[-1:], weight, bias, params.get("eps", 1e-5))
        grads = torch.autograd.grad(y, (x, weight, bias), inputs["dy"].to(torch.float64))
    return dict(zip(("dx", "dweight", "dbias"), grads))


def describe(params, inputs):
    eps = f", eps={params['eps']:g}" if "eps" in params else ""
    call = f"layer_norm_backward(dy, x, weight{eps}) of a {'×'.join(map(str, params['shape']))} {params['dtype']} x"
    if "eps" not in params:
        call += " (eps left at its default, 1e-5)"
    if params.get("offset"):
        call += (f" whose rows have a mean near {params['offset']:g} and a spread near {params.get('scale', 1.0):g}, "
                 "where mean(x²) - mean(x)² cancels catastrophically in float32")
    return call + (" with a constant row (variance 0)" if params.get("constant_rows") else "")
