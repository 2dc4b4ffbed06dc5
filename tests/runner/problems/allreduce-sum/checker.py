import torch

from runner import compare


def inputs(params, generator):
    return {"x": torch.randn(params["world_size"], params["n"], generator=generator)}


def check(params, inputs, got, expected):
    total = inputs["x"].sum(0)
    for rank in range(params["world_size"]):
        message = compare.tensors(f"rank {rank}'s sum", got.get(f"sum@{rank}"), total, atol=1e-5, rtol=1e-5)
        if message:
            return message
    return None
