import torch


def inputs(params, generator):
    """Logits on a grid of 1/8: distinct in each row (a random choice of `levels` values), or with `ties`, drawn
    from only a few values."""
    n, e, levels = params["tokens"], params["experts"], params.get("levels", 256)
    if params.get("ties"):
        grid = torch.randint(0, levels, (n, e), generator=generator)
    else:
        grid = torch.rand(n, levels, generator=generator, dtype=torch.float64).argsort(-1)[:, :e]
    found = {"logits": (grid - levels // 2).to(torch.float64) / 8}
    if params["grad"]:
        found.update(dweights=torch.randn(n, params["k"], generator=generator, dtype=torch.float64),
                     daux_loss=torch.randn((), generator=generator, dtype=torch.float64))
    return {name: tensor.to(getattr(torch, params["dtype"])) for name, tensor in found.items()}


def diagnose(name, params, inputs, got, truth):
    """Why `experts` is wrong when it picked the right logits: the ties went to another expert."""
    if name == "experts" and ((got >= 0) & (got < inputs["logits"].shape[-1])).all():
        logits = inputs["logits"].double()
        if torch.equal(logits.gather(-1, got), logits.gather(-1, truth["experts"])):
            return ("The chosen logits are the right ones, but not the experts among equal logits: ties go to the "
                    "lower expert index (a stable descending sort keeps equal values in index order).")
    return None
