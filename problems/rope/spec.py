"""Inputs, the float64 truth (angles reduced exactly, so that it is more accurate than any float64 code), and
the relative-position check of apply_rope."""
import functools
from decimal import Decimal, localcontext

import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16}
TWO_PI = Decimal("6.28318530717958647692528676655900576839433879875")


def inputs(params, generator):
    batch, seq, dim = params["batch"], params["seq"], params["head_dim"]
    lengths = 1 if params.get("same_vector") else seq

    def draw(heads, length=seq):
        x = (torch.rand(batch, heads, length, dim, generator=generator, dtype=torch.float64) * 2 - 1) * 4
        return x.expand(batch, heads, seq, dim).contiguous().to(DTYPES[params["dtype"]])

    found = {"q": draw(params["heads"], lengths), "k": draw(params["kv_heads"], lengths)}
    if params["grad"]:
        found.update(dq_rot=draw(params["heads"]), dk_rot=draw(params["kv_heads"]))
    return found


@functools.lru_cache(maxsize=8)
def angles(seq, dim, offset, base):
    """(seq, dim) float64: m * theta_i reduced modulo 2 pi with 40 digits, each pair's angle twice."""
    with localcontext() as context:
        context.prec = 40
        freqs = [Decimal(repr(base)) ** (Decimal(-2 * i) / dim) for i in range(dim // 2)]
        table = torch.tensor([[float(m * f % TWO_PI) for f in freqs] for m in range(offset, offset + seq)],
                             dtype=torch.float64)
    return torch.cat((table, table), dim=-1)


def rotate(x, cos, sin):
    x = x.to(torch.float64)
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


def truth(params, inputs):
    table = angles(params["seq"], params["head_dim"], params.get("offset", 0), float(params.get("base", 10000.0)))
    cos, sin = table.cos(), table.sin()
    found = {"q_rot": rotate(inputs["q"], cos, sin), "k_rot": rotate(inputs["k"], cos, sin)}
    if params["grad"]:
        # A rotation's transpose is the rotation by the opposite angle.
        found.update({"q.grad": rotate(inputs["dq_rot"], cos, -sin), "k.grad": rotate(inputs["dk_rot"], cos, -sin)})
    return found


def magnitude(name, params, inputs):
    """The rounding floor's magnitude: an angle m theta_i off by a few units of the angles' dtype at position m moves
    a coordinate by that times m times its size, so the floor is rounding_units x eps_a x (offset + seq) x a, a the
    largest input (q, k, the upstream gradients), in units of the output's eps."""
    dtype = DTYPES[params["dtype"]]
    angles = torch.finfo(torch.promote_types(dtype, torch.float32)).eps / torch.finfo(dtype).eps
    largest = max(x.abs().max().item() for x in inputs.values() if x.numel())
    return angles * (params.get("offset", 0) + params["seq"]) * largest


def check(params, inputs, got, truth):
    """With the same query and key at every position, q_rot[m] . k_rot[n] may depend only on m - n."""
    if not params.get("same_vector"):
        return None
    scores = torch.einsum("bhmd,bgnd->bhgmn", got["q_rot"].to(torch.float64), got["k_rot"].to(torch.float64))
    drift = (scores[..., 1:, 1:] - scores[..., :-1, :-1]).abs()
    last = params.get("offset", 0) + params["seq"]
    allowed = 64 * last * torch.finfo(got["q_rot"].dtype).eps * scores.abs().max().item()
    if drift.max().item() <= allowed:
        return None
    *heads, m, n = (int(i) for i in torch.unravel_index(drift.argmax(), drift.shape))
    return (f"the same query and key at every position give scores q_rot[m] . k_rot[n] that depend on more than "
            f"m - n: query head {heads[1]}, key head {heads[2]} score differently at sequence indices {(m, n)} and "
            f"{(m + 1, n + 1)}. Rotate q and k by the same angles, those of position offset + t, so that "
            "R(m)q . R(n)k = q . R(n - m)k")
