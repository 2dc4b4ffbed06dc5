# expect: wrong_answer
# problem: checkpointed-block
# tests: all
# message: no valid report
# Checkpoints in eval mode too, and at import patches the problem's driver (sys.modules["judge_driver"]) so
# that its run is never asked to count the block's runs: a driver that decided from its own parameters
# whether to count would count nothing and find nothing wrong. The checker knows from the test's own
# parameters which reports must come back, and a missing one fails the test.
import sys

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

driver = sys.modules["judge_driver"]
_run = driver.run


def _run_uncounted(solution, params, inputs, ctx):
    return _run(solution, {name: value for name, value in params.items() if name != "count_calls"}, inputs, ctx)


driver.run = _run_uncounted


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self.block, x, use_reentrant=False)
