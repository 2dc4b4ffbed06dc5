# expect: wrong_answer
# problem: causal-mask
# tests: all
# message: must raise ValueError
# Raises an AssertionError whose class carries the attribute __class__ = ValueError: isinstance honours that
# attribute, so a check by isinstance takes it for the ValueError asked for, while a caller's
# `except ValueError` never catches it. The kit judges the class the exception really has.
import torch


class InvalidArguments(AssertionError):
    __class__ = ValueError


def causal_mask(t_q, t_k=None, *, window=None, device=None):
    t_k = t_q if t_k is None else t_k
    if t_q > t_k or (window is not None and window < 1):
        raise InvalidArguments("invalid arguments")
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
