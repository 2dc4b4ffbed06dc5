"""Trusted: each (p, q) pair's steps against the laws of speculative sampling, computed here in float64."""
import math
from statistics import NormalDist

import torch

from runner import kit


FALSE_REJECTION = 1e-9  # per chi-square or z-test: a judge makes fewer than 1,000, so below 1e-6 in all
Z = NormalDist().inv_cdf(1 - FALSE_REJECTION / 2)  # the two-sided z-test's bound
RULE = "accept draft i with probability min(1, p_i(x_i)/q_i(x_i)) and stop at the first rejection"


def inputs(params, generator):
    rows, k, vocab, draws = params["rows"], params["k"], params["vocab"], params["draws"]
    z, rank, noise = (torch.randn(rows, k + 1, vocab, generator=generator, dtype=torch.float64) * params.get("scale", 1.5),
                      torch.rand(rows, k + 1, vocab, generator=generator).argsort(-1).argsort(-1) / vocab,
                      torch.randn(rows, k + 1, vocab, generator=generator, dtype=torch.float64) * params.get("spread", 1.0))
    p = z.masked_fill(rank >= 1 - params.get("p_zero", 0.0), -math.inf).softmax(-1)
    q = p[:, :k] if params.get("same") else (z + noise).masked_fill(rank < params.get("q_zero", 0.0), -math.inf)[:, :k].softmax(-1)
    p, q = (x.to(getattr(torch, params.get("dtype", "float32"))) for x in (p, q))
    drafts = torch.multinomial(q.double().reshape(-1, vocab), draws, replacement=True, generator=generator)
    return {"draft_probs": q.repeat_interleave(draws, 0), "target_probs": p.repeat_interleave(draws, 0),
            "draft_tokens": drafts.view(rows, k, draws).transpose(1, 2).reshape(rows * draws, k),
            "seed": torch.randint(0, 2 ** 62, (1,), generator=generator)}


def prefix_law(alpha):
    """The law of the accepted count when draft i passes with probability alpha_i, up to the first rejection."""
    reach = torch.cat([torch.ones(1, dtype=alpha.dtype), alpha.cumprod(0)])
    return reach - torch.cat([reach[1:], torch.zeros(1, dtype=alpha.dtype)])


def check(params, inputs, got, expected):
    rows, k, draws, vocab = params["rows"], params["k"], params["draws"], params["vocab"]
    call = f"speculative_step with k = {k} drafts over {vocab} tokens, {draws} steps of each of {rows} (p, q) pairs"
    accepted, token = got.get("accepted"), got.get("next_token")
    if any(t is None or t.shape != (rows * draws,) or t.dtype != torch.int64 for t in (accepted, token)) \
            or ((accepted < 0) | (accepted > k) | (token < 0) | (token >= vocab)).any():
        return f"{call}: return (accepted, next_token), each int64 of shape (batch,), accepted in [0, k] and next_token in [0, vocab)"
    if params.get("twice") and not all(torch.equal(got.get(n + " again", t + 1), t) for n, t in (("accepted", accepted), ("next_token", token))):
        return (f"{call}: two calls with generators seeded alike returned different results: draw every random number "
                "from `generator` (torch.rand(..., generator=generator)), never from torch's global generator")
    for row in range(rows):
        steps, p, q = slice(row * draws, (row + 1) * draws), inputs["target_probs"][row * draws].double(), inputs["draft_probs"][row * draws].double()
        if message := judge_row(k, p / p.sum(-1, keepdim=True), q / q.sum(-1, keepdim=True), accepted[steps], token[steps], inputs["draft_tokens"][steps]):
            return f"{call}, pair {row}: {message}"
    return None


def judge_row(k, p, q, a, y, x):
    alpha, counts, values = torch.minimum(p[:-1], q).sum(-1), torch.bincount(a, minlength=k + 1), torch.arange(k + 1.0).double()
    law, either = prefix_law(alpha), torch.tensor([1.0]).double()
    for passes in alpha:  # each draft counted whether or not one before it was rejected: a sum of Bernoullis
        either = torch.cat([either * (1 - passes), torch.zeros(1)]) + torch.cat([torch.zeros(1), either * passes])
    e, var = (law * values).sum(), (law * values ** 2).sum() - (law * values).sum() ** 2
    far = var > 1e-9 and (a.double().mean() - e).abs() > Z * (var / len(a)).sqrt()  # no spread: the histogram decides
    if far or (message := kit.chi_square(counts, law, false_rejection=FALSE_REJECTION, what="accepted count")):
        shown = f" ({a.double().mean():.3f} against {e:.3f}, alpha = {', '.join(f'{v:.3f}' for v in alpha)})" if kit.reveals_values() else ""
        head = (f"the mean number of accepted drafts is not E = sum_i prod_(j<=i) alpha_j with alpha_j = sum_x min(p_j(x), q_j(x)){shown}"
                if far else f"the number of accepted drafts must follow P(accepted >= i) = alpha_1 ... alpha_i: {message}")
        named = [(torch.eye(k + 1).double()[k], "every step accepted all k drafts: draft i is kept only with probability min(1, p_i(x)/q_i(x))"),
                 (either, "these counts include drafts after a rejection: the count stops at the first rejection"),
                 (prefix_law(torch.nan_to_num(q * (q / p[:-1]).clamp(max=1)).sum(-1)), "these counts are those of accepting with min(1, q/p): the ratio is the target's probability over the draft's, p/q")]
        return f"{head}; " + next((says for law, says in named if kit.chi_square(counts, law, false_rejection=FALSE_REJECTION) is None), RULE)
    residual = (p - torch.cat([q, torch.zeros_like(p[:1])])).clamp(min=0)
    for i, target in enumerate(residual / residual.sum(-1, keepdim=True).clamp(min=1e-300)):
        if message := kit.chi_square(drawn := torch.bincount(y[a == i], minlength=len(p[0])), target, false_rejection=FALSE_REJECTION, what="token"):
            if i == k:
                return f"when all k drafts are accepted the next token is the bonus, drawn from p_(k+1): {message}"
            return (f"after draft {i + 1} is rejected the next token must be drawn from the residual max(0, p_{i + 1} - q_{i + 1}), normalised: {message}"
                    + ". These draws follow p itself: the correction samples the residual, not the target" * (kit.chi_square(drawn, p[i], false_rejection=FALSE_REJECTION) is None))
    for i in range(k):
        emitted = torch.where(a[a >= i] > i, x[a >= i, i], y[a >= i])
        if message := kit.chi_square(torch.bincount(emitted, minlength=len(p[0])), p[i], false_rejection=FALSE_REJECTION, what="token"):
            return f"token {i + 1} of a step, when the step emits one, must follow the target p_{i + 1}: {message}"
    return None
