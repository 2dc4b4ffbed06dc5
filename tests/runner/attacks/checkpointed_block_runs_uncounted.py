# expect: wrong_answer
# problem: checkpointed-block
# tests: all
# message: block ran 0 times
# Checkpoints in eval mode too, so a backward through an eval-mode model runs the block twice, and hides it:
# at import it makes the kit's wrapper scenario (kit_wrapper, which counts the runs) claim a single run for
# every call, and it removes every forward hook from the block it wraps. The driver bound the scenario when it
# loaded, and the checker wants exactly one run reported, so a count that never happened fails as surely as
# two runs do.
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

import kit_wrapper

_scenario = kit_wrapper.scenario


def _claims_one_run(wrap, params, inputs, wrong):
    observed = _scenario(wrap, {name: value for name, value in params.items() if name != "count_calls"}, inputs, wrong)
    return {**observed, **{f"runs{call}": torch.tensor(1) for call in range(len(params["shapes"]))}}


kit_wrapper.scenario = _claims_one_run
kit_wrapper.run = lambda wrap, params, inputs, ctx: _claims_one_run(wrap, params, inputs, ctx.WrongAnswer)


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        block._forward_pre_hooks.clear()
        block._forward_hooks.clear()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self.block, x, use_reentrant=False)
