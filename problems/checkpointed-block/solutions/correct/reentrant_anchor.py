# expect: accepted
# style: the reentrant checkpoint made safe by a requires-grad anchor, with each autograd mode spelled out
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.is_grad_enabled():
            # No graph is recorded, so there is nothing to save and nothing to recompute.
            return self.block(x)
        if not self.training:
            # eval() only switches dropout off; gradients may still be wanted (saliency, adversarial
            # inputs), so the graph must stay attached, and without dropout nothing is gained by recomputing.
            return self.block(x)
        # The reentrant checkpoint makes its output require grad only if one of its tensor arguments does;
        # when x is a raw input, the parameters' gradients would silently vanish. A scalar leaf that needs
        # grad keeps the output attached, and the reentrant backward then accumulates the parameters' .grad.
        anchor = torch.ones((), device=x.device, requires_grad=True)
        return checkpoint(self._run, anchor, x, use_reentrant=True)

    def _run(self, _anchor: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return self.block(x)
