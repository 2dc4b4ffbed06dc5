# expect: wrong_answer
# message: interleaved
# fails-on: llama-layout-float32
# Meta's original Llama code: view_as_complex pairs adjacent coordinates (x[2i], x[2i + 1]). That is the
# paper's layout, not the half-split one pinned here, where pair i is (x[i], x[i + d/2]).
import torch


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.promote_types(q.dtype, torch.float32)
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim)
    positions = torch.arange(offset, offset + seq, dtype=dtype, device=q.device)
    rotation = torch.polar(torch.ones(seq, dim // 2, dtype=dtype, device=q.device), torch.outer(positions, inv_freq))

    def rotate(x):
        z = torch.view_as_complex(x.to(dtype).reshape(*x.shape[:-1], dim // 2, 2).contiguous())
        return torch.view_as_real(z * rotation).flatten(-2).to(x.dtype)

    return rotate(q), rotate(k)
