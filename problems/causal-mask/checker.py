"""Trusted checker: every mask must equal the definition exactly, computed here from positions.

Query i sits at position p = t_k - t_q + i and may see key j if and only if j <= p and, with a window w,
j > p - w. A wrong mask is described by its first wrong entry in those terms, and by the classic mistake
it reproduces, when it reproduces one exactly.
"""

import torch

from runner import compare
from runner.problems import load_sibling

driver = load_sibling(__file__, "driver.py")


def inputs(params, generator):
    return {}


def blocked(t_q, t_k, window, *, first_position=None, diagonal_visible=True):
    """The definition, True where blocked; the keywords describe the classic mistakes."""
    start = t_k - t_q if first_position is None else first_position
    position = torch.arange(start, start + t_q)[:, None]
    key = torch.arange(t_k)[None, :]
    hidden = key > position if diagonal_visible else key >= position
    if window is not None:
        hidden |= key <= position - window
    return hidden


def check(params, inputs, got, expected):
    """None if every mask is exactly right, else the first wrong entry in terms of positions."""
    if params.get("raises") or params.get("devices"):
        # Judged by the driver, the only side that sees an exception's type or a tensor on another device.
        return None
    for call in params["calls"]:
        names = [driver.call_name(call)]
        if params.get("fresh"):
            names.append(f"{driver.call_name(call)} {driver.AGAIN}")
        t_q, window = call["t_q"], call.get("window")
        t_k = call.get("t_k", t_q)
        truth = blocked(t_q, t_k, window)
        for name in names:
            mask = got.get(name)
            mismatch = compare.layout(name, mask, truth)
            if mismatch:
                return f"{mismatch}; the mask is a bool tensor of shape (t_q, t_k), True where attention is blocked"
            if torch.equal(mask, truth):
                continue
            message = f"{name}: {first_wrong_entry(mask, truth, t_q, t_k, window)}"
            if name != names[0]:
                return (f"{message}. The earlier result was right, so this call returned memory the caller had "
                        "already been given: every call must return a new tensor")
            mistake = matching_mistake(mask, t_q, t_k, window)
            return f"{message}. {mistake}" if mistake else message
    return None


def first_wrong_entry(mask, truth, t_q, t_k, window):
    wrong = mask != truth
    query, key = (int(i) for i in wrong.nonzero()[0])
    position = t_k - t_q + query
    where = f"query {query} (at position {position})"
    if mask[query, key]:
        if key == position:
            why = "its own position, which a query always sees"
        else:
            why = f"which it must see ({visible_keys(position, window)})"
        sentence = f"{where} is blocked from key {key}, {why}"
    elif key > position:
        sentence = f"{where} may see key {key}, which is in its future"
    else:
        sentence = f"{where} may see key {key}, which has left its window ({visible_keys(position, window)})"
    return f"{int(wrong.sum())} of {t_q * t_k} entries differ; the first: {sentence}"


def visible_keys(position, window):
    first = 0 if window is None else max(0, position - window + 1)
    return f"it sees keys {first}..{position}" if first < position else f"it sees key {position} only"


def matching_mistake(mask, t_q, t_k, window):
    """The description of the classic mistake this mask is exactly, or None."""
    truth = blocked(t_q, t_k, window)
    candidates = [
        (~truth, "The mask is inverted: True must mean blocked (the masked_fill convention), not visible (the "
                 "convention of a boolean attn_mask for scaled_dot_product_attention)"),
        (blocked(t_q, t_k, window, first_position=0),
         f"The queries sit at positions 0..{t_q - 1}, but they are the last t_q of the t_k positions: query i "
         f"is at position t_k - t_q + i = {t_k - t_q} + i"),
        (blocked(t_q, t_k, window, diagonal_visible=False),
         "Every query is blocked from its own position, but a query always sees itself"),
    ]
    if window is not None:
        candidates += [
            (blocked(t_q, t_k, window + 1),
             f"The window is off by one: each query sees {window + 1} keys, but window={window} means the query "
             f"and the {window - 1} keys before it"),
            (blocked(t_q, t_k, window - 1) if window > 1 else None,
             f"The window is off by one: each query sees {window - 1} keys, but window={window} means the query "
             f"and the {window - 1} keys before it"),
            (blocked(t_q, t_k, None), f"window={window} is ignored: only causality is applied"),
        ]
    for candidate, description in candidates:
        if candidate is not None and not torch.equal(candidate, truth) and torch.equal(mask, candidate):
            return description
    return None
