"""triton-layernorm's own code: inputs, the float64 truth and its classic variants, the traffic bounds."""

import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16}


def inputs(params, generator):
    """x, weight and bias; with `views`, x is the storage the kit takes x's view of (its padding drawn like x)."""
    m, n, dtype = params["m"], params["n"], DTYPES[params["dtype"]]
    view = params.get("views", {}).get("x")
    shape = [m, n] if view is None else \
        [view.get("offset", 0) + sum((size - 1) * stride for size, stride in zip(view["size"], view["stride"])) + 1]
    x = torch.randn(shape, generator=generator, dtype=torch.float64) * params.get("scale", 1.0)
    weight = 1.0 + 0.5 * torch.randn(n, generator=generator, dtype=torch.float64)
    bias = 0.5 * torch.randn(n, generator=generator, dtype=torch.float64)
    return {"x": (x + params.get("offset", 0.0)).to(dtype), "weight": weight.to(dtype), "bias": bias.to(dtype)}


def normalised(params, inputs, correction=0, eps="inside", saves="rstd", rows="strided"):
    """LayerNorm in float64, or one of its classic variants: the unbiased variance (correction=1), eps added
    outside the square root, the standard deviation saved as rstd, or x read as if its rows were contiguous."""
    x = inputs["x"]  # the view the call gets; read as contiguous rows, row r starts r × n past its first element
    x = (x.as_strided(x.shape, (x.shape[1], 1)) if rows == "contiguous" else x).double()
    mean = x.mean(1)
    variance = ((x - mean[:, None]) ** 2).sum(1) / (x.shape[1] - correction)
    std = variance.sqrt() + params["eps"] if eps == "outside" else (variance + params["eps"]).sqrt()
    y = (x - mean[:, None]) / std[:, None] * inputs["weight"].double() + inputs["bias"].double()
    return {"y": y, "mean": mean, "rstd": std if saves == "std" else 1.0 / std}


def truth(params, inputs):
    return normalised(params, inputs)


def traffic(params, inputs):
    m, n, size = params["m"], params["n"], inputs["x"].element_size()
    return {"load": (4 * m * n * size, "x read at most twice and weight and bias once per row: "
                     f"(2 + 2) × m × n × {size} bytes"),
            "store": (m * n * size + 8 * m, f"y stored once, mean and rstd once per row: m × n × {size} + m × 8 bytes")}


def describe(params, inputs):
    call = f"layer_norm(x, weight, bias, eps={params['eps']:g}) of a {params['m']}×{params['n']} {params['dtype']} x"
    view = params.get("views", {}).get("x")
    return call + (f" (a view of strides {tuple(view['stride'])})" if view else "")


def diagnose(name, params, inputs, got, truth):
    """E[x²] - E[x]² on rows whose mean dwarfs their spread: the variance got implies (from rstd, or from y's
    slope against x - mean) is off by float32's rounding of mean², where that rounding exceeds the variance."""
    x = inputs["x"].double()
    mean, variance = x.mean(1), x.var(1, unbiased=False)
    if name == "rstd":
        rstd = got.double()
    elif name == "y":
        slope = (got.double() - inputs["bias"].double()) / inputs["weight"].double() / (x - mean[:, None])
        rstd = slope.nanmedian(1).values
    else:
        return ""
    rounding = mean * mean * 2.0 ** -24
    off = ~((rstd ** -2 - params["eps"] - variance).abs() <= rounding / 4)
    if params["dtype"] != "float32" or not bool((off & (rounding > variance) & (variance > 0)).any()):
        return ""
    return ("These rows' mean is thousands of times their spread: E[x²] - E[x]² subtracts two nearly equal numbers "
            "of about mean², and float32 keeps none of the variance's digits. Subtract the mean before squaring "
            "(Welford, or chunk statistics merged)")
