import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps,
                      stride_xm, stride_xn, stride_ym, BLOCK: tl.constexpr):
    """One program per row: the row's mean and rstd (float32, saved), then y = (x - mean) * rstd * w + b."""
    row = tl.program_id(0)
    # TODO: walk the row in chunks of BLOCK columns (mask the last one), x read at most twice.


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float):
    """(y, mean, rstd) of LayerNorm over the last dimension of the 2-D x. Allocate and launch only."""
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    raise NotImplementedError  # launch layer_norm_kernel[(m,)](...) and return (y, mean, rstd)
