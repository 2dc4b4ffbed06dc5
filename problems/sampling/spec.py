"""Trusted: each row's draws against its filtered distribution, computed in float64; mistakes by their laws."""
import torch

from runner import kit

KEYWORDS = ("temperature", "top_k", "top_p")


def probabilities(params, logits):
    """The distribution to draw from, per row (float64), and how close a token comes to a filter's boundary
    (a tie at the top-k boundary does not count)."""
    t, k, p_top = params.get("temperature", 1.0), params.get("top_k", 0), params.get("top_p", 1.0)
    if t == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).double(), 1.0
    descending = (z := logits.double() / t).sort(-1, descending=True).values
    gaps = descending[..., k - 1] - descending[..., k] if 0 < k < z.shape[-1] else torch.ones(1)
    p = (z.masked_fill(z < descending[..., min(k, z.shape[-1]) - 1, None], -torch.inf) if k else z).softmax(-1)
    ascending = p.sort(-1).values  # the mass of the tokens strictly more probable than each token:
    above = 1 - ascending.cumsum(-1).gather(-1, torch.searchsorted(ascending, p, right=True) - 1)
    margin = torch.cat([(above - p_top).abs()[(p > 0) & (p_top < 1)], gaps[gaps > 0], torch.ones(1)]).min().item()
    p = p * (above < p_top)
    return p / p.sum(-1, keepdim=True), margin


def inverse_cdf(f):
    """The distribution of searchsorted(cumsum(f), u, right=True).clamp(max=V - 1) for u uniform in [0, 1)."""
    cdf = f.double().cumsum(-1).clamp(0, 1)
    return torch.cat([cdf[..., :1], cdf[..., 1:-1] - cdf[..., :-2], 1 - cdf[..., -2:-1]], -1)


def inputs(params, generator):
    rows, vocab = params["rows"], params.get("vocab", len(params.get("values", [])))
    for _ in range(100):  # random logits are redrawn until no token is within 1e-4 of a filter's boundary
        if "values" in params:  # the pattern's values, ascending in row 0 and shuffled in the others
            logits = torch.tensor(params["values"], dtype=torch.float64).sort().values.repeat(rows, 1)
            logits[1:] = logits[1:].gather(-1, torch.rand(rows - 1, vocab, generator=generator).argsort(-1))
        else:
            logits = torch.randn(rows, vocab, generator=generator, dtype=torch.float64) * params.get("scale", 1.0)
        logits = logits.to(getattr(torch, params.get("dtype", "float32")))
        if probabilities(params, logits)[1] > 1e-4:
            break
    return {"logits": logits.repeat_interleave(params["draws"], 0)}


def describe(params, inputs):
    given = "".join(f", {k}={params[k]}" for k in KEYWORDS if k in params)
    return f"sample(logits{given}), {params['draws']} draws from each of {params['rows']} rows"


def laws(params, inputs):
    truth = probabilities(params, inputs["logits"][::params["draws"]])[0]
    return {f"row {row}": kit.Law(p, "token", draws=params["draws"]) for row, p in enumerate(truth)}


def draws(params, inputs, got):
    return {f"row {row}": tokens for row, tokens in enumerate(got["tokens"].view(params["rows"], -1))}


def law_of(solution, params, inputs):
    """A [[mistakes]] file's `filtered` distribution, drawn by inverse CDF."""
    keywords = {k: params[k] for k in KEYWORDS if k in params}
    filtered = solution.filtered(inputs["logits"][::params["draws"]].clone(), **keywords)
    return {f"row {row}": q for row, q in enumerate(inverse_cdf(filtered))}
