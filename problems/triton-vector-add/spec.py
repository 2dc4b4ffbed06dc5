"""triton-vector-add's own code: its inputs, its truth and its traffic bounds."""

import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16}


def inputs(params, generator):
    # A strided test draws stride × n elements; the kit passes the view of every stride-th one (its `views`).
    n, dtype, stride = params["n"], DTYPES[params["dtype"]], params.get("stride", 1)
    x = torch.randn(n * stride, generator=generator, dtype=torch.float64).to(dtype)
    y = torch.randn(n * stride, generator=generator, dtype=torch.float64).to(dtype)
    return {"x": x, "y": y}


def truth(params, inputs):
    return {"out": inputs["x"].double() + inputs["y"].double()}


def traffic(params, inputs):
    size = inputs["x"].element_size() * params["n"]
    return {"load": (2 * size, "x and y read once each: 2 × n × the element size"),
            "store": (size, "out written once: n × the element size")}


def describe(params, inputs):
    words = f"add(x, y) of {params['n']} {params['dtype']} elements"
    if params.get("stride", 1) != 1:
        words += f" (views with stride {params['stride']}, not contiguous)"
    return words
