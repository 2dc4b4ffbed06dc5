# expect: wrong_answer
# problem: causal-mask
# tests: all
# message: AssertionError
# Checks its arguments with assert, and at import rebinds the name ValueError in builtins to AssertionError: a
# driver that looks ValueError up when a call raises would take the AssertionError for the ValueError asked
# for. The driver binds the class before the submission is imported, and the checker judges what it reports.
import builtins

import torch

builtins.ValueError = AssertionError


def causal_mask(t_q, t_k=None, *, window=None, device=None):
    t_k = t_q if t_k is None else t_k
    assert t_q <= t_k and (window is None or window >= 1), "invalid arguments"
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
