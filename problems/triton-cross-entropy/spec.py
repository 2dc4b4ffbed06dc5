"""triton-cross-entropy's own code: its inputs, its truth, its traffic bounds and why a wrong loss is wrong."""

import math

import torch

from runner import kit

DTYPES = {"float32": torch.float32, "float16": torch.float16}
IGNORE_INDEX = -100


def inputs(params, generator):
    """logits (or with `views` the storage the kit takes their view of) and int64 targets, -100 at the rows
    `ignored` lists; with `edges`, targets alternate between the first and the last class."""
    n, vocab = params["n"], params["vocab"]
    view = params.get("views", {}).get("logits")
    shape = [n, vocab] if view is None else \
        [view.get("offset", 0) + sum((k - 1) * s for k, s in zip(view["size"], view["stride"])) + 1]
    logits = torch.randn(shape, generator=generator, dtype=torch.float64) * params.get("scale", 3.0)
    target = torch.randint(0, vocab, (n,), generator=generator)
    if params.get("edges"):
        target = torch.tensor([0, vocab - 1] * n)[:n]
    target[params.get("ignored", [])] = IGNORE_INDEX
    return {"logits": (logits + params.get("offset", 0.0)).to(DTYPES[params["dtype"]]), "target": target}


def _loss(logits, target, picked):
    """logsumexp of each row less the logit `picked` gives it, 0 where the target is ignored."""
    counted = target != IGNORE_INDEX
    loss = torch.logsumexp(logits.to(torch.float64), dim=1) - picked(target.clamp(min=0)).to(torch.float64)
    return {"loss": torch.where(counted, loss, torch.zeros_like(loss))}


def truth(params, inputs):
    logits = inputs["logits"]
    return _loss(logits, inputs["target"], lambda t: logits[torch.arange(len(t)), t])


def contiguous_target(params, inputs):
    """The target logit read at row × vocab + target from the first logit, as if the logits were contiguous."""
    logits = inputs["logits"]
    flat = torch.as_strided(logits, (logits.numel(),), (1,), logits.storage_offset())
    return _loss(logits, inputs["target"], lambda t: flat[torch.arange(len(t)) * logits.shape[1] + t])


def ignored_counted(params, inputs):
    """An ignored row's loss left at its logsumexp, its target logit masked to 0, instead of 0."""
    logits, target = inputs["logits"], inputs["target"]
    lse = torch.logsumexp(logits.to(torch.float64), dim=1)
    return {"loss": torch.where(target != IGNORE_INDEX, truth(params, inputs)["loss"], lse)}


def traffic(params, inputs):
    n, vocab, size = params["n"], params["vocab"], inputs["logits"].element_size()
    return {"load": (n * vocab * size + n * (8 + size),
                     f"the logits read once, n × vocab × {size} bytes, and per row its target (8 bytes) and its "
                     f"target logit ({size} bytes)"),
            "store": (4 * n, "loss written once, n × 4 bytes")}


def describe(params, inputs):
    logits = inputs["logits"]
    call = f"cross_entropy(logits, target) with {params['n']}×{params['vocab']} {params['dtype']} logits"
    if not logits.is_contiguous():
        call += f" (a strided view: logits.stride() is {tuple(logits.stride())})"
    if params.get("ignored"):
        call += f", rows {params['ignored']} ignored (target -100)"
    if params.get("scale", 3.0) >= 100 or abs(params.get("offset", 0.0)) >= 100:
        call += f", logits of magnitude up to about {max(5 * params.get('scale', 3.0), abs(params.get('offset', 0.0))):g}"
    return call


def diagnose(name, params, inputs, got, truth):
    """Why loss is wrong, in words only: exp overflowing or underflowing, or an error of float16's size."""
    truth = truth[name]
    if got is None or got.shape != truth.shape:
        return ""
    logits, bad = inputs["logits"].to(torch.float64), ~torch.isfinite(got)
    limit = math.log(torch.finfo(torch.float32).max)
    if bad.any() and (logits[bad].amax(dim=1) > limit).any():
        return kit.why_after_colon(
            "exp overflows to inf in float32 above about 88.7: subtract the row's (running) maximum before "
            "exponentiating, logsumexp(x) = m + log(sum(exp(x - m)))")
    if bad.any() and (logits[bad].amax(dim=1) < -limit).any():
        return kit.why_after_colon(
            "exp underflows to 0 for every logit of a row this far below zero, and log(0) is -inf: subtract the "
            "row's maximum, whatever its sign")
    error = ((got.to(torch.float64) - truth).abs() / truth.abs().clamp(min=1)).nan_to_num(nan=math.inf).max()
    if inputs["logits"].dtype == torch.float16 and 1e-5 < error < 1e-2:
        return kit.why_after_colon(
            "The error is of float16's rounding (2^-11 relative): load the logits .to(tl.float32) and keep the "
            "running maximum and sum in float32")
    return ""
