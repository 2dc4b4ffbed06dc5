import torch

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    shape, dtype = list(params["shape"]), DTYPES[params["dtype"]]
    x = torch.randn(shape, generator=generator, dtype=torch.float64) * params["scale"]
    for row in params.get("zero_rows", []):
        x.view(-1, shape[-1])[row] = 0
    weight = 1 + 0.5 * torch.randn(shape[-1], generator=generator, dtype=torch.float64)
    drawn = {"x": x.to(dtype), "weight": weight.to(dtype)}
    if params.get("grad", True):
        drawn["dy"] = torch.randn(shape, generator=generator, dtype=torch.float64).to(dtype)
    return drawn


def describe(params, inputs):
    """The call as the user wrote it, and what makes this test's input hard."""
    eps = f", eps={params['eps']:g}" if "eps" in params else ""
    shape = "×".join(map(str, params["shape"]))
    call = f"rms_norm(x, weight{eps}) of a {shape} {params['dtype']} x"
    if "eps" not in params:
        call += " (eps left at its default, 1e-6)"
    if params.get("zero_rows"):
        call += " with a row of zeros"
    if inputs["x"].dtype == torch.float16 and inputs["x"].abs().max().item() > 256:
        call += (" whose entries exceed 256 in magnitude, so their squares overflow float16 (largest finite value "
                 "65504) unless they are computed in float32")
    if not params.get("grad", True):
        call += ", forward only"
    return call
