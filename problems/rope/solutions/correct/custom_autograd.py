# expect: accepted
# A rotation is orthogonal, so its backward is the rotation by the opposite angle: an autograd.Function that
# saves only cos and sin and rotates the upstream gradient back.
import torch


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)


class Rotate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin):
        ctx.save_for_backward(cos, sin)
        return _rotate(x, cos, sin)

    @staticmethod
    def backward(ctx, grad):
        cos, sin = ctx.saved_tensors
        return _rotate(grad, cos, -sin), None, None


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.float64 if q.dtype == torch.float64 else torch.float32
    i = torch.arange(dim // 2, dtype=dtype, device=q.device)
    m = torch.arange(seq, dtype=dtype, device=q.device) + offset
    angles = m[:, None] * (1.0 / base ** (2 * i / dim))
    cos, sin = angles.cos(), angles.sin()
    return Rotate.apply(q, cos, sin), Rotate.apply(k, cos, sin)
