"""Trusted: every call's output against causal GQA recomputed over the whole sequence in float64, each classic
mistake at each call after right ones; then what the module holds."""
import torch

from runner import kit

MISTAKES = [
    ({"modulo": True}, "key/value head h % n_kv_heads for query head h gives, repeat()'s order: it is h // g"),
    ({"see": "top-left"}, "a causal mask aligned to the top-left corner gives (triu(ones(t, L), 1)): new token i "
     "sits at position L + i and sees every cached position"),
    ({"see": "chunk"}, "no mask among a call's new tokens gives: new token i must not see the new tokens after it"),
    ({"see": "own"}, "attending only to the call's own tokens gives: earlier calls' keys and values stay cached, and "
     "the cache length advances"),
    ({"scale": 1.0}, "unscaled scores give: divide q k^T by sqrt(head_dim)"),
]


def inputs(params, generator):
    batch, total, dim = params["batch"], sum(params["steps"]), params["head_dim"]
    return {name: torch.randn(batch, params["heads" if name == "q" else "kv_heads"], total, dim, generator=generator,
                              dtype=torch.float64).to(getattr(torch, params["dtype"])) for name in "qkv"}


def attend(params, inputs, see="causal", modulo=False, scale=None):
    """Each call's output (out_<i>) of attention over the whole sequence in float64, each position seeing what
    `see` says."""
    q, k, v = (inputs[name].to(torch.float64) for name in "qkv")
    heads, kv = params["heads"], params["kv_heads"]
    index = torch.arange(heads) % kv if modulo else torch.arange(heads) // (heads // kv)
    steps = torch.tensor(params["steps"])
    start, end = (torch.repeat_interleave(edge, steps)[:, None] for edge in (steps.cumsum(0) - steps, steps.cumsum(0)))
    i, j = torch.arange(len(start))[:, None], torch.arange(len(start))[None, :]
    visible = {"causal": j <= i, "top-left": j <= i - start, "chunk": j < end, "own": (j <= i) & (j >= start)}[see]
    scores = q @ k[:, index].transpose(-1, -2) * (scale or q.shape[-1] ** -0.5)
    whole = scores.masked_fill(~visible, float("-inf")).softmax(-1) @ v[:, index]
    return {f"out_{i}": rows for i, rows in enumerate(whole.split(params["steps"], dim=2))}


def truth(params, inputs):
    return attend(params, inputs)


def mistakes(params, inputs):
    for flags, says in MISTAKES:
        yield from ((says, {name: rows}) for name, rows in attend(params, inputs, **flags).items())


def call_of(name, params, inputs):
    i = int(name.removeprefix("out_"))
    start, t = sum(params["steps"][:i]), params["steps"][i]
    return "the prefill" if i == 0 else f"call {i} ({t} new token{'s' * (t > 1)} after {start} cached)"


def diagnose(name, params, inputs, got, truth):
    return "" if name == "out_0" else ("The earlier calls were right: new token i at position L + i attends every "
                                       "cached position and the new ones up to itself, nothing else (no unfilled "
                                       "cache slot).")


def check(params, inputs, got, truth):
    held = got.get("held")
    if held is None or held.dtype != torch.int64 or tuple(held.shape) != (3,):
        return "the driver's report of the module's tensors is missing or malformed (was the driver changed?)"
    bound = 2 * params["batch"] * params["kv_heads"] * params["max_seq"] * params["head_dim"]
    if held[1]:
        return kit.with_why("GQAKVCache has learnable parameters", "The cache has none: the projections are not "
                            "part of it")
    if held[2]:
        return "a tensor is kept outside the buffers (an attribute, a list, a dict): .to() and state_dict() skip it"
    if held[0] == 0:
        return kit.why_after_colon(
            "the module holds no buffers: keep the cache in buffers (register_buffer), so that .to() moves it")
    if held[0] > bound + 64:
        return (f"the module's buffers hold more than 2 * batch * n_kv_heads * max_seq * head_dim = {bound} numbers "
                "(+ 64): cache the keys and values of the n_kv_heads heads only, shared by their query heads when "
                "attending (repeated to n_heads heads they take g times more), and keep no mask or other tensor")
    return None
