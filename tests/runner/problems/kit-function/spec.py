import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    dtype, shape = DTYPES[params["dtype"]], list(params["shape"])
    stored = [shape[-1], *shape[1:-1], shape[0]] if "x" in params.get("transposed", []) else shape
    x = torch.randn(stored, generator=generator, dtype=torch.float64)
    scale = torch.rand(shape[-1:], generator=generator, dtype=torch.float64) + 0.5
    dy = torch.randn(shape, generator=generator, dtype=torch.float64)
    return {"x": x.to(dtype), "scale": scale.to(dtype), "dy": dy.to(dtype)}


def tanh_of(params, inputs, *, scaled=True):
    """A [[mistakes]] entry's function: y in float64, without the scale when scaled is false."""
    y = torch.tanh(inputs["x"].to(torch.float64) + params.get("shift", 0.0))
    return {"y": y * inputs["scale"].to(torch.float64) if scaled else y}
