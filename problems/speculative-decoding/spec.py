"""Trusted: each (p, q) pair's steps against the laws of speculative sampling, computed here in float64."""
import math

import torch

from runner import kit

ACCEPTED = ("the number of accepted drafts must follow P(accepted >= i) = alpha_1 ... alpha_i with alpha_j = sum_x "
            "min(p_j(x), q_j(x)) (accept draft i with probability min(1, p_i(x_i)/q_i(x_i)), up to the first rejection)")
RESIDUAL = "after draft {i} is rejected the next token must be drawn from the residual max(0, p_{i} - q_{i}), normalised"
BONUS = "when all k drafts are accepted the next token is the bonus, drawn from p_(k+1)"
EMITTED = "token {i} of a step, when the step emits one, must follow the target p_{i}"

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
            "draft_tokens": drafts.view(rows, k, draws).transpose(1, 2).reshape(rows * draws, k)}


def describe(params, inputs):
    k, vocab, draws, rows = params["k"], params["vocab"], params["draws"], params["rows"]
    return f"speculative_step with k = {k} drafts over {vocab} tokens, {draws} steps of each of {rows} (p, q) pairs"


def names(row, k):
    """A pair's laws: of its accepted count, of the next token after each count, of each emitted token."""
    return (f"pair {row}: {ACCEPTED}", [f"pair {row}: {RESIDUAL.format(i=i)}" for i in range(1, k + 1)] + [f"pair {row}: {BONUS}"],
            [f"pair {row}: {EMITTED.format(i=i)}" for i in range(1, k + 1)])


def pairs(params, inputs):
    """Each pair's p (k + 1, vocab) and q (k, vocab), normalised in float64."""
    for row in range(params["rows"]):
        p, q = (inputs[name][row * params["draws"]].double() for name in ("target_probs", "draft_probs"))
        yield row, p / p.sum(-1, keepdim=True), q / q.sum(-1, keepdim=True)


def prefix_law(alpha):
    """The law of the accepted count when draft i passes with probability alpha_i, up to the first rejection."""
    reach = torch.cat([torch.ones(1, dtype=alpha.dtype), alpha.cumprod(0)])
    return reach - torch.cat([reach[1:], torch.zeros(1, dtype=alpha.dtype)])


def laws(params, inputs):
    found = {}
    for row, p, q in pairs(params, inputs):
        accepted, next_token, emitted = names(row, params["k"])
        n = params["draws"]  # the accepted count and the first emitted token are drawn at every step
        found[accepted] = kit.Law(prefix_law(torch.minimum(p[:-1], q).sum(-1)), "accepted count", ordinal=True, draws=n)
        residual = (p - torch.cat([q, torch.zeros_like(p[:1])])).clamp(min=0)  # p_(k+1) itself after all k
        found.update({name: kit.Law(law, "token") for name, law in zip(next_token, residual)})
        found.update({name: kit.Law(law, "token", draws=n if i == 0 else None) for i, (name, law) in enumerate(zip(emitted, p))})
    return found


def draws(params, inputs, got):
    found, k, n = {}, params["k"], params["draws"]
    for row in range(params["rows"]):
        a, y, x = (t[row * n:(row + 1) * n] for t in (got["accepted"], got["next_token"], inputs["draft_tokens"]))
        accepted, next_token, emitted = names(row, k)
        found[accepted] = a
        found.update({name: y[a == i] for i, name in enumerate(next_token)})
        found.update({name: torch.where(a[a >= i] > i, x[a >= i, i], y[a >= i]) for i, name in enumerate(emitted)})
    return found


def accepted_law(params, inputs, rule):
    """The accepted count's law under a wrong rule: every draft kept ("all"), every draft that passes its own
    test counted, after a rejection too ("each"), or draft i kept with probability min(1, q_i/p_i) ("inverted")."""
    found = {}
    for row, p, q in pairs(params, inputs):
        law = torch.eye(len(p), dtype=torch.float64)[-1]
        if rule == "inverted":
            law = prefix_law(torch.nan_to_num(q * (q / p[:-1]).clamp(max=1)).sum(-1))
        elif rule == "each":  # a sum of independent Bernoullis
            law = torch.ones(1, dtype=torch.float64)
            for passes in torch.minimum(p[:-1], q).sum(-1):
                law = torch.cat([law * (1 - passes), torch.zeros(1)]) + torch.cat([torch.zeros(1), law * passes])
        found[names(row, len(q))[0]] = law
    return found


def next_from_target(params, inputs):
    """The next token's law after each rejection when it is drawn from p itself."""
    return {name: law for row, p, q in pairs(params, inputs) for name, law in zip(names(row, len(q))[1], p[:-1])}
