import math

import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    shape = (params["batch"], params["heads"], params["t"], params["d"])
    q, k, v = (torch.randn(shape, generator=generator, dtype=torch.float64) for _ in range(3))
    dtype = DTYPES[params["dtype"]]
    return {"q": (q * params.get("scale", 1.0)).to(dtype), "k": k.to(dtype), "v": v.to(dtype)}


def truth(params, inputs):
    """Exact attention in float64, 256 query rows at a time."""
    q, k, v = (inputs[name].to(torch.float64) for name in ("q", "k", "v"))
    t = q.shape[-2]
    rows = []
    for start in range(0, t, 256):
        scores = q[..., start:start + 256, :] @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if params.get("causal"):
            query = torch.arange(start, min(start + 256, t))[:, None]
            scores = scores.masked_fill(torch.arange(t)[None, :] > query, -math.inf)
        weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
        rows.append(weights @ v / weights.sum(dim=-1, keepdim=True))
    return {"out": torch.cat(rows, dim=-2)}


def memory_limit(params, inputs):
    if params.get("tile_bound"):
        return _tile_limit(params, inputs)
    if not params.get("memory_bound"):
        return None
    b, h, t, _ = inputs["q"].shape
    score_bytes = b * h * t * t * 4
    return score_bytes // 8, f"an eighth ({score_bytes / 2**23:g} MiB) of one {b}×{h}×{t}×{t} float32 score matrix"


def _tile_limit(params, inputs):
    """Room for the output, running statistics for every row and eight block_q × block_k score tiles per head:
    B·H·(4·T·(D + 1) + 8·block_q·block_k) values. With D small beside the tiles, one score tile of a query tile
    against all keys, of all queries against a key tile, or of the default 64 × 64 fills it alone."""
    b, h, t, d = inputs["q"].shape
    size = inputs["q"].element_size()
    block_q, block_k = min(params["block_q"], t), min(params["block_k"], t)
    bound = b * h * (4 * t * (d + 1) + 8 * block_q * block_k) * size
    tiles = {f"{block_q} queries against all {t} keys": b * h * block_q * t * size,
             f"all {t} queries against {block_k} keys": b * h * t * block_k * size,
             "64×64": b * h * 64 * 64 * size}
    if len(set(tiles.values())) == 1:
        sizes = f"{', '.join(list(tiles)[:-1])} or {list(tiles)[-1]} takes {next(iter(tiles.values())) / 1024:g} KiB"
    else:
        sizes = ", ".join(f"{shape} takes {nbytes / 1024:g} KiB" for shape, nbytes in tiles.items())
    return bound, (f"{bound / 1024:g} KiB for the output, running statistics for every row and eight "
                   f"{block_q}×{block_k} score tiles per head, B·H·(4·T·(D + 1) + 8·block_q·block_k) values of "
                   f"{size} bytes; a score tile must be block_q queries against block_k keys, and one tile of "
                   f"{sizes} by itself")


def describe(params, inputs):
    keywords = "".join(f", {k}={params[k]!r}" for k in ("causal", "block_q", "block_k") if k in params)
    note = (f" (scores of standard deviation {params['scale']:g}: exp(s) overflows past 88 in float32 unless the "
            "running maximum is subtracted first)") if params.get("scale", 1.0) > 10 else ""
    return f"flash_attention(q, k, v{keywords}) with q, k, v of shape {tuple(inputs['q'].shape)} {params['dtype']}{note}"
