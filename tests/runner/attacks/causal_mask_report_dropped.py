# expect: wrong_answer
# problem: causal-mask
# tests: all
# message: no valid report
# Never raises, and at import patches the problem's driver (sys.modules["judge_driver"]): the helper that once
# decided the exception test is made a no-op, and run answers that test with no report at all, as if nothing
# had been wrong. The checker decides the test from the reports, and a missing one fails it.
import sys

import torch

driver = sys.modules["judge_driver"]
driver.expect_value_error = lambda *args, **kwargs: None
_run = driver.run


def _run_without_exception_tests(solution, params, inputs, ctx):
    return {} if params.get("raises") else _run(solution, params, inputs, ctx)


driver.run = _run_without_exception_tests


def causal_mask(t_q, t_k=None, *, window=None, device=None):
    t_k = t_q if t_k is None else t_k
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
