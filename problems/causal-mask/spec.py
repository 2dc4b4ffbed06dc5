"""causal-mask's own code: the mask by its definition, with the classic mistakes as keywords (problem.toml's
[[mistakes]] name them), and the first wrong entry in the words of queries, positions and keys."""

import torch

from runner import kit


def inputs(params, generator):
    return {}


def sizes(params):
    return params["t_q"], params.get("t_k") or params["t_q"]


def blocked(params, inputs, *, first_position=None, diagonal_visible=True, window_by=0, windowed=True,
            inverted=False):
    """{"mask": True where query i, at position t_k - t_q + i, may not see key j}; the keywords are mistakes."""
    t_q, t_k = sizes(params)
    start = t_k - t_q if first_position is None else first_position
    position, key = torch.arange(start, start + t_q)[:, None], torch.arange(t_k)[None, :]
    hidden = key > position if diagonal_visible else key >= position
    if params.get("window") is not None and windowed:
        hidden |= key <= position - params["window"] - window_by
    return {"mask": hidden != inverted}


def diagnose(name, params, inputs, got, truth):
    """The first wrong entry: which query sees, or is blocked from, which key, and why that is wrong. On a
    hidden test, without the query's position (it tells t_k - t_q) or the keys it sees."""
    query, key = (int(i) for i in (got != truth[name]).nonzero()[0])
    t_q, t_k = sizes(params)
    position, window, shown = t_k - t_q + query, params.get("window"), kit.reveals_values()
    first = 0 if window is None else max(0, position - window + 1)
    sees = (f" ({f'it sees keys {first}..{position}' if first < position else f'it sees key {position} only'})"
            if shown else "")
    where = f"Query {query} (at position {position})" if shown else f"Query {query}"
    if not got[query, key]:
        return f"{where} may see key {key}, which is in its future." if key > position else \
            f"{where} may see key {key}, which has left its window{sees}."
    if key == position:
        return f"{where} is blocked from key {key}, its own position, which a query always sees."
    return f"{where} is blocked from key {key}, which it must see{sees}."
