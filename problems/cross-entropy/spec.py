import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    n, classes = params["n"], params["classes"]
    logits = torch.randn(n, classes, generator=generator, dtype=torch.float64) * params.get("scale", 3.0)
    if params.get("scale", 3.0) >= 1e3 and classes > 1:
        # Keep each row's top two logits 20 apart: a closer tie at 1e4 is decided by float32's rounding of the
        # logsumexp (an ulp of 1e4 is 1e-3), which every correct style may round differently.
        top = logits.topk(2, dim=1).values
        logits[torch.arange(n), logits.argmax(dim=1)] += (20.0 - (top[:, 0] - top[:, 1])).clamp(min=0)
    target = torch.randint(0, classes, (n,), generator=generator)
    if params.get("confident"):
        # Every target its row's largest logit, 21 above the next: each token's loss is about e^-21 = 7.6e-10,
        # far below a rounding unit of the logits, which any formula's log p = x - logsumexp(x) rounds at.
        top = logits.topk(2, dim=1)
        target = top.indices[:, 0]
        logits[torch.arange(n), target] = top.values[:, 1] + 21.0
    pad = params.get("ignore_index", -100)
    # A set number of tokens is ignored, never none where the test says some are (drawn one by one, 16 tokens
    # at a quarter each are all counted under about one seed in a hundred, and a solution that mishandles
    # padding then passes the test meant to catch it), and never the first: at least one token counts.
    ignored = params.get("ignored", 0.0)
    count = min(n - 1, max(1, round(ignored * n))) if ignored else 0
    target[1 + torch.randperm(n - 1, generator=generator)[:count]] = pad
    if target[0] == pad:  # a drawn target can equal an ignore_index inside the class range
        target[0] = (pad + 1) % classes if 0 <= pad < classes else 0
    dtype = DTYPES[params["dtype"]]
    return {"logits": (logits + params.get("offset", 0.0)).to(dtype), "target": target,
            "dloss": torch.randn((), generator=generator, dtype=torch.float64).to(dtype)}


def magnitude(name, params, inputs):
    """log p = x - logsumexp(x) rounds at the logits' magnitude L, however it is computed, so the floor is 32 units
    of L for the loss and of L · |dloss| / counted for logits.grad (softmax as exp(x - logsumexp(x)))."""
    largest = inputs["logits"].abs().max().item()
    if name == "loss":
        return largest
    counted = int((inputs["target"] != params.get("ignore_index", -100)).sum())
    return largest * abs(inputs["dloss"].item()) / max(counted, 1)


def describe(params, inputs):
    keywords = "".join(f", {k}={params[k]!r}" for k in ("ignore_index", "label_smoothing") if k in params)
    ignored = (f", some targets = ignore_index ({params.get('ignore_index', -100)})"
               if params.get("ignored") else "")
    size = max(abs(params.get("offset", 0.0)), params.get("scale", 3.0))
    large = (", logits of magnitude ~1e4 (there exp(x) overflows and softmax(x) can round to 0: stay in log space, "
             "with the row maximum subtracted before exp)") * (size >= 1e3)
    return (f"cross_entropy(logits, target{keywords}) with {params['n']}×{params['classes']} "
            f"{params['dtype']} logits{ignored}{large}")
