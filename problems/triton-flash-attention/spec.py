"""triton-flash-attention's spec: every hook but `inputs` sees q, k and v as the call does (the kit takes `views`)."""

import math

import torch

from runner import kit

BLOCK_M = 32  # the traffic bound's query block: K and V may be read once per 32 queries, no more often


def inputs(params, generator):
    drawn = {}
    for name in ("q", "k", "v"):  # a `views` entry: draw every element the view reaches (torch.as_strided)
        view = params.get("views", {}).get(name)
        drawn[name] = torch.randn([view.get("offset", 0) + 1 + sum((n - 1) * s for n, s in zip(
            view["size"], view["stride"]))] if view else [params[key] for key in ("batch", "heads", "t", "d")],
            generator=generator, dtype=torch.float64)
    drawn["q"] *= params.get("spread", 1.0)
    return {name: x.to(getattr(torch, params["dtype"])) for name, x in drawn.items()}


def _scores(params, q, k, strict=False, extra=0):
    """The scaled, masked scores in float64; `extra` keys past T of score 0 (unless the causal mask hides them)."""
    s = q.to(torch.float64) @ k.to(torch.float64).transpose(-2, -1) * params.get("scale", q.shape[-1] ** -0.5)
    s = torch.cat([s, s.new_zeros(*s.shape[:-1], extra)], -1)
    if params.get("causal"):
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(0 if strict else 1), -math.inf)
    return s


def _attend(s, v):
    v = v.to(torch.float64)
    lse = torch.logsumexp(s, dim=-1)
    v = torch.cat([v, v.new_zeros(*v.shape[:-2], s.shape[-1] - v.shape[-2], v.shape[-1])], -2)
    return {"o": torch.exp(s - lse[..., None]) @ v, "lse": lse}


def truth(params, inputs):
    return _attend(_scores(params, inputs["q"], inputs["k"]), inputs["v"])


def traffic(params, inputs):
    b, h, t, d, size = params["batch"], params["heads"], params["t"], params["d"], inputs["q"].element_size()
    blocks = -(-t // BLOCK_M)
    return {"load": (size * b * h * (t * d + 2 * t * d * blocks), f"q read once, k and v once per {BLOCK_M} "
                     f"queries: element size × B·H·(T·d + 2·T·d·⌈T/{BLOCK_M}⌉) = {size} × {b}·{h}·({t}·{d} + "
                     f"2·{t}·{d}·{blocks})"),
            "store": (size * b * h * t * d + 4 * b * h * t, f"o and lse written once, nothing else: element size × "
                      f"B·H·T·d + 4 × B·H·T = {size} × {b}·{h}·{t}·{d} + 4 × {b}·{h}·{t}")}


def describe(params, inputs):
    keywords = "".join(f", {name}={params[name]!r}" for name in ("causal", "scale") if name in params)
    words = f"flash_attention(q, k, v{keywords}) with q, k, v of shape {tuple(inputs['q'].shape)} {params['dtype']}"
    if params.get("views"):
        words += " (strided views, as a QKV projection leaves them)"
    if params.get("spread", 1.0) > 10:
        words += f" (q scaled by {params['spread']:g}, so that exp(s) overflows float32)"
    return words


def diagnose(name, params, inputs, got, truth):
    """o of float32 inputs off by about float16's rounding: a 16-bit accumulator. Words only, no values."""
    if name != "o" or params["dtype"] != "float32" or not torch.isfinite(got).all():
        return ""
    off = (got.to(torch.float64) - truth["o"]).abs().max().item() / max(1.0, truth["o"].abs().max().item())
    return kit.with_why("It is off by about float16's rounding (2⁻¹¹ of its magnitude) on float32 inputs: something "
                        "on the way to it is held in 16 bits.", "Keep the accumulator, the running sum and the maximum "
                        "in float32, whatever the input's dtype, and cast only when storing o") \
        if 2.0 ** -16 < off < 2.0 ** -8 else ""


# -- classic mistakes (problem.toml's [[mistakes]]), each in float64

def online(params, inputs, block, rescale_acc=True, rescale_sum=True):
    """The online softmax over key blocks of `block`, acc or l left unrescaled when the running maximum grows."""
    s = _scores(params, inputs["q"], inputs["k"])
    v = inputs["v"].to(torch.float64)
    m = torch.full(s.shape[:-1], -math.inf, dtype=torch.float64)
    total, acc = torch.zeros_like(m), torch.zeros_like(v)
    for start in range(0, params["t"], block):
        m_new = torch.maximum(m, s[..., start:start + block].amax(-1))
        alpha, p = torch.exp(m - m_new), torch.exp(s[..., start:start + block] - m_new[..., None])
        total = (total * alpha if rescale_sum else total) + p.sum(-1)
        acc = (acc * alpha[..., None] if rescale_acc else acc) + p @ v[..., start:start + block, :]
        m = m_new
    return {"o": acc / total[..., None], "lse": m + torch.log(total)}


def padded_keys(params, inputs, block):
    """Masked loads with no -inf on the last key block: each key past T scores 0, with value 0."""
    return _attend(_scores(params, inputs["q"], inputs["k"], extra=-(-params["t"] // block) * block - params["t"]),
                   inputs["v"])


def strict_causal(params, inputs):
    """The causal mask j < i: every row misses its own key, and row 0, with no key, is NaN."""
    found = _attend(_scores(params, inputs["q"], inputs["k"], strict=True), inputs["v"])
    found["o"][..., 0, :], found["lse"][..., 0] = math.nan, math.nan
    return found


def base_two_lse(params, inputs):
    return {**(found := truth(params, inputs)), "lse": found["lse"] / math.log(2)}


def contiguous(params, inputs):
    """q, k and v read as contiguous (B, H, T, d) from where each view starts: offsets from sizes, not strides."""
    q, k, v = (x.as_strided(x.shape, torch.empty(x.shape).stride()) for x in (inputs[n] for n in ("q", "k", "v")))
    return _attend(_scores(params, q, k), v)
