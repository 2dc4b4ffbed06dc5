# expect: accepted
# style: PyTorch's own ZeroRedundancyOptimizer around torch.optim.AdamW: whole parameters assigned to ranks greedily by size, each rank's local AdamW steps its own, then one broadcast per parameter from its owner
import torch
from torch.distributed.optim import ZeroRedundancyOptimizer


def ZeroAdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    return ZeroRedundancyOptimizer(params, optimizer_class=torch.optim.AdamW, lr=lr, betas=betas, eps=eps,
                                   weight_decay=weight_decay)
