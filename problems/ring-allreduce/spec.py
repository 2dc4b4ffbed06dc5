"""Trusted: each rank's sum against float64; its sends and receives as its observer counted them (hostile) and its
bytes as the kernel counted them (check_sent) against a ring's; classic mistakes named in problem.toml's words."""
import itertools
import math

import torch

from runner import kit

SAYS = kit.declared(__file__)["ranks"]["says"]
LARGE = 1 << 18  # from here on a 1/p chunk dwarfs the framing of the messages in the process's count


def inputs(params, generator):
    return {"x": torch.randn(params["world_size"], params["n"], generator=generator)}


def truth(params, inputs):
    return {"out": inputs["x"].double().sum(0)}


def steps(params):
    return [kit.RanksStep("", {"out": "the tensor"}, {"call": None})]


def unchanged(params, inputs):
    return {f"out@{rank}": row for rank, row in enumerate(inputs["x"].double())}


def mean(params, inputs):
    return {"out": inputs["x"].double().mean(0)}


def sent_bounds(params, counted):
    """(fewest, most) bytes: a ring's share, less 5 % (on large tensors, where chunks are even), and at most
    2(p-1)/p·N + ⌈N/p⌉ elements of float32."""
    p, n = params["world_size"], params["n"]
    if counted == "process" and n < LARGE:
        return None
    return (math.ceil(0.95 * 4 * 2 * (p - 1) * n / p) if n >= LARGE else 0, 4 * (2 * (p - 1) * n // p - (-n // p)))


def check(params, inputs, got, truth, reports):
    p = params["world_size"]
    wrong = [rank for rank, seen in reports.items() if not seen.calls("send") == seen.calls("recv") == 2 * (p - 1)]
    if wrong:
        return SAYS["steps"].format(rank=wrong[0], p=p, steps=2 * (p - 1))
    return None if all(torch.equal(got[f"out@{rank}"], got["out@0"]) for rank in range(p)) else SAYS["differ"]


def diagnose(name, rank, params, inputs, got, truth):
    """The remainder left unreduced, or a chunk summed over only some ranks, in a rank's wrong tensor."""
    x, out = inputs["x"].double(), got.get(f"out@{rank}")
    if out is None or out.shape != x[0].shape:
        return ""
    p, n, out, atol = params["world_size"], params["n"], out.double(), len(x) * 2.0 ** -22 * x.abs().sum(0).max().item()
    close = lambda got, want: got.numel() == 0 or (got - want).abs().max().item() <= atol  # noqa: E731
    tail = p * (n // p)
    if n % p and close(out[:tail], truth["out"][:tail]):
        return SAYS["floor"].format(tail=tail, last=n - 1, left=n % p)
    chunks = list(zip(out.tensor_split(p), x.tensor_split(p, dim=1)))
    full, subsets = sum(close(mine, parts.sum(0)) for mine, parts in chunks), [
        some for size in range(1, p) for some in itertools.combinations(range(p), size)]
    for (chunk, (mine, parts)), some in itertools.product(enumerate(chunks), subsets):
        if mine.numel() and close(mine, parts[list(some)].sum(0)):
            lesson = SAYS["scatter_only" if full == 1 and rank in some else "early_chunk"]
            return SAYS["partial"].format(chunk=chunk, p=p, ranks=", ".join(map(str, some))) + lesson
    return ""
