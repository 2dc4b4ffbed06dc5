# expect: accepted
# torch's own pieces composed: SequentialLR hands over from a linear warmup (LambdaLR: LinearLR's start_factor
# must be positive, and one factor cannot serve groups with different peaks) to CosineAnnealingLR over
# total_steps - warmup_steps steps (eta_min = min_lr), then to a LambdaLR that holds min_lr. Phases of no steps
# are left out. SequentialLR's state_dict() holds every piece's.
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, SequentialLR


def constant(value):
    return lambda t: value


class WarmupCosine(SequentialLR):
    def __init__(self, optimizer, warmup_steps, total_steps, min_lr=0.0, warmup_start_lr=0.0):
        peaks = [group["lr"] for group in optimizer.param_groups]
        pieces, milestones = [], []
        if warmup_steps > 0:
            ramps = [(lambda start: lambda t: start + (1.0 - start) * t / warmup_steps)(warmup_start_lr / peak)
                     for peak in peaks]
            pieces.append(LambdaLR(optimizer, ramps))
            milestones.append(warmup_steps)
        if total_steps > warmup_steps:
            pieces.append(CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps, eta_min=min_lr))
            milestones.append(total_steps + 1)
        else:  # no decay steps: the peak at total_steps, then the floor
            pieces.append(LambdaLR(optimizer, [constant(1.0) for _ in peaks]))
            milestones.append(total_steps + 1)
        pieces.append(LambdaLR(optimizer, [constant(min_lr / peak) for peak in peaks]))
        super().__init__(optimizer, pieces, milestones[:len(pieces) - 1])
