# expect: accepted
# Each pair as one complex number x[i] + i*x[i + d/2], multiplied by e^(i m theta_i): a rotation is a product.
import torch


def apply_rope(q, k, offset=0, base=10000.0):
    dim = q.shape[-1]
    real = torch.float64 if q.dtype == torch.float64 else torch.float32
    exponents = torch.arange(0, dim, 2, dtype=real, device=q.device) / dim
    positions = torch.arange(offset, offset + q.shape[-2], dtype=real, device=q.device)
    angles = positions[:, None] * torch.pow(base, -exponents)[None, :]
    rotation = torch.polar(torch.ones_like(angles), angles)

    def rotate(x):
        x1, x2 = x.to(real).chunk(2, dim=-1)
        z = torch.complex(x1, x2) * rotation
        return torch.cat((z.real, z.imag), dim=-1).to(x.dtype)

    return rotate(q), rotate(k)
