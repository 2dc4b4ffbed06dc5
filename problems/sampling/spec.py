"""Trusted: each row's draws against its filtered distribution in float64 (kit.chi_square); mistakes named."""
import tomllib
from pathlib import Path

import torch

from runner import kit


FALSE_REJECTION = 1e-8  # per row: a judge makes at most 100 chi-square tests, so below 1e-6 in all
MISTAKES = tomllib.loads((Path(__file__).parent / "problem.toml").read_text()).get("mistakes", [])


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
    return {"logits": logits.repeat_interleave(params["draws"], 0),
            "seed": torch.randint(0, 2 ** 62, (1,), generator=generator)}


def check(params, inputs, got, expected):
    given = "".join(f", {k}={params[k]}" for k in ("temperature", "top_k", "top_p") if k in params)
    call = f"sample(logits{given}), {params['draws']} draws from each of {params['rows']} rows"
    tokens, vocab = got.get("tokens"), inputs["logits"].shape[-1]
    if tokens is None or tokens.shape != expected["tokens"].shape or tokens.dtype != torch.int64 \
            or ((tokens < 0) | (tokens >= vocab)).any():
        return f"{call}: the result must be int64 of shape (batch,): one token id in [0, vocab) per row of logits"
    if params.get("twice") and not torch.equal(got.get("tokens again", tokens + 1), tokens):
        return (f"{call}: two calls with generators seeded alike drew different tokens: draw every random number "
                "from `generator` (torch.rand(..., generator=generator)), never from the global generator")
    logits = inputs["logits"][::params["draws"]]
    truth, counts = probabilities(params, logits)[0], torch.stack([torch.bincount(row, minlength=vocab) for row in
                                                                  tokens.view(params["rows"], -1)])
    for row in range(params["rows"]):
        message = kit.chi_square(counts[row], truth[row], false_rejection=FALSE_REJECTION, what="token")
        if message:
            return f"{call}, row {row}: {message}{diagnosis(params, logits, counts)}"
    return None


def diagnosis(params, logits, counts):
    keywords = {k: params[k] for k in ("temperature", "top_k", "top_p") if k in params}
    for mistake in MISTAKES:  # the first whose distribution explains every row's draws
        try:
            q = inverse_cdf(kit.load_sibling(__file__, mistake["solution"]).filtered(logits.clone(), **keywords))
        except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
            continue
        if all(kit.chi_square(c, p, false_rejection=FALSE_REJECTION) is None for c, p in zip(counts, q)):
            return f". These draws are what {mistake['says']}."
    return ""
