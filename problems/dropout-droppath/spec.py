"""Trusted: the keep masks' laws, read from where the output is 0, then the output and x's gradient exactly."""
import torch

from runner import kit

GROUP, FIXED = 4, 256  # elements per group; the fewest draws of a law whose count the test fixes
AGREE = "{}: all kept or all dropped together (1) or not (0), where each is kept with probability 1 - p on its own"
COUNT = "the number kept among {}: binomial, each kept with probability 1 - p independently"
WHOLE = "each sample's branch output, partly dropped (1) or not (0): DropPath keeps or drops a sample whole"


def inputs(params, generator):  # magnitudes in [0.5, 2] of either sign: a 0 in the output is a dropped element
    size, dtype = torch.Size(params["shape"]), getattr(torch, params.get("dtype", "float32"))
    draw = (lambda: ((torch.rand(size, generator=generator) < 0.5).double() * 2 - 1) * (0.5 + 1.5 * torch.rand(
        size, generator=generator, dtype=torch.float64)))
    return {"x": draw().to(dtype), "dy": draw().to(dtype)}


def describe(params, inputs):
    return (f"{params['op']}(x, p={params['p']}, training={params.get('training', True)}) of x of shape "
            f"{tuple(inputs['x'].shape)} ({str(inputs['x'].dtype).removeprefix('torch.')})")


def sizes(params):  # samples, the elements of one the laws see (DropPath: 1, the sample), samples in a group
    n, m = params["shape"][0], torch.Size(params["shape"]).numel() // params["shape"][0]
    return (n, m if params["op"] == "dropout" else 1, min(GROUP, n)) if params.get("training", True) and \
        0 < params["p"] < 1 else None


def laws(params, inputs, keep=None, mistake=None):
    """Each law by its words, in the order judged (a classic mistake's with keep or mistake set): the agreement
    laws first, as one mask where there should be several makes every group agree, which names the mistake."""
    if not sizes(params):
        return {}
    (n, m, across), p = sizes(params), params["p"]
    keep = 1 - p if keep is None else keep
    agree = lambda g, one: kit.Law(torch.tensor([0.0, 1.0] if one else [1 - keep ** g - (1 - keep) ** g,
                                                keep ** g + (1 - keep) ** g], dtype=torch.float64), "result")
    group = ("units at one position of " if params["op"] == "dropout" else "") + f"{across} different samples"
    found = {}
    if params["op"] == "drop_path":
        size = torch.Size(params["shape"]).numel() // n
        found[WHOLE] = kit.Law(torch.tensor([p ** size + keep ** size, 1 - p ** size - keep ** size]
                                            if mistake == "per_element" else [1.0, 0.0], dtype=torch.float64), "result")
    if across > 1:
        found[AGREE.format(group)] = agree(across, mistake == "shared")
    binomial = torch.distributions.Binomial(across, torch.tensor(keep, dtype=torch.float64))
    found[COUNT.format(group)] = kit.Law(binomial.log_prob(torch.arange(across + 1.0)).exp(), "kept count",
                                         ordinal=True, draws=n // across * m if n // across * m >= FIXED else None)
    return found


def draws(params, inputs, got):
    if not sizes(params):
        return {}
    (n, m, across), names = sizes(params), iter(laws(params, inputs))
    kept = (got["y"] != 0).reshape(n, -1).long()
    found = {next(names): (kept.amin(1) != kept.amax(1)).long()} if params["op"] == "drop_path" else {}
    kept = kept if params["op"] == "dropout" else kept.max(1, keepdim=True).values  # a sample kept anywhere
    counts = kept[:n // across * across].view(n // across, across, m).sum(1)
    if across > 1:
        found[next(names)] = ((counts == 0) | (counts == across)).long()
    return {**found, next(names): counts}


def mistaken(params, inputs, mask):
    """A classic mistake's laws that differ from the truth's: keep probability p, one mask shared by the batch
    ("shared"), one per element for drop_path ("per_element")."""
    truth, wrong = laws(params, inputs), laws(params, inputs, **({"keep": params["p"]} if mask == "swapped"
                                                                 else {"mistake": mask}))
    return {name: law for name, law in wrong.items() if not torch.equal(law.probabilities, truth[name].probabilities)}


NOT_SCALED = kit.with_why("is not rescaled", "Inverted dropout divides kept units by 1 - p in training, so the "
                          "expected output is x and evaluation the identity (scaling by 1 - p at evaluation instead "
                          "is non-inverted dropout)")
BY_P = kit.with_why("is divided by p, the drop probability", "Kept units are divided by the keep probability, 1 - p")
DETACHED = kit.with_why("is 0: the output is not connected to x by autograd",
                        "The output must stay connected to x: no detach, no torch.no_grad, no .data")
REDRAWN = kit.with_why("x's gradient is not 0 at {unit}s the output dropped{count}", "The backward must use the "
                       "forward's own mask (never draw a new one), so a dropped unit gets no gradient")
NAN = kit.with_why("at p = 1 the output or x's gradient holds NaN, where x * mask / (1 - p) divides 0 by 0",
                   "At p = 1 every unit is dropped, so the output and its gradient are all zeros: the masked x, "
                   "undivided")


def exact(p, training, x, dy, y, grad):
    """What is wrong where nothing is random: the identity (training=False or p = 0), or zeros at p = 1."""
    why = "with p = 0" if training else "with training=False"
    if training and p == 1:
        return None if (y == 0).all() and (grad == 0).all() else NAN if (y.isnan().any() or grad.isnan().any()) \
            else kit.with_why("at p = 1 the output or x's gradient is not all zeros",
                              "At p = 1 every unit is dropped, and nothing is left to scale")
    if (y == 0).any():
        return kit.with_why(f"{why} the output has zeros", f"Nothing is dropped {why}: the output is x unchanged" +
                            " (dropout is off in evaluation: model.eval() passes training=False)" * (not training))
    if not torch.equal(y, x):
        return kit.with_why(f"{why} the output is x times 1 - p", "Inverted dropout already divided by 1 - p in "
                            "training, so evaluation is the identity, exactly x") if p and torch.allclose(y, x * (1 - p)) \
            else kit.with_why(f"{why} the output is not exactly x", f"Nothing is dropped {why}")
    return None if torch.equal(grad, dy) else kit.with_why(f"{why} x's gradient is not exactly dy",
                                                           "The identity's gradient is dy itself")


def check(params, inputs, got, laws):
    """Exactly x where nothing is random (zeros at p = 1); else x / (1 - p) where the output kept a unit (to 4
    rounding units) and 0 where it dropped one, and x's gradient the same of dy, through the output's own mask."""
    p, training = params["p"], params.get("training", True)
    x, dy, y, grad = (t.double() for t in (inputs["x"], inputs["dy"], got["y"], got["grad"]))
    head, unit = describe(params, inputs) + ": ", "unit" if params["op"] == "dropout" else "sample"
    count = (lambda wrong: f" ({int(wrong.sum())} of {wrong.numel()})" if kit.reveals_values() else "")
    if not sizes(params):
        message = exact(p, training, x, dy, y, grad)
        return message and head + message
    kept, scale, rounding = y != 0, 1 / (1 - p), 4 * torch.finfo(inputs["x"].dtype).eps
    if (grad[~kept] != 0).any():
        return head + REDRAWN.format(unit=unit, count=count(~kept & (grad != 0)))
    for name, got_, want, called in (("the output", y, x, "x"), ("x's gradient", grad, dy, "dy")):
        off = kept & ~((got_ - want * scale).abs() <= rounding * (want * scale).abs())
        if off.any():
            ratio = got_[kept] / want[kept]
            says = next((says for factor, says in ((1.0, NOT_SCALED), (1 / p, BY_P), (0.0, DETACHED))
                         if ((ratio - factor).abs() <= 1e-5 * max(factor, 1)).all()), None)
            return head + f"{name} at kept {unit}s " + (says or f"is not {called} / (1 - p){count(off)}")
    return None
