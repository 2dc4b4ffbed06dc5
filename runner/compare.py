"""Comparison helpers for trusted checkers: messages that say what differed, where, and by how much.

On a hidden test the messages must not carry the values a submission could collect into a table of answers
(the expected values, or the error, from which the expected value follows): the judge runs the checker
inside values_hidden(), and a checker that writes a value into a message of its own asks reveals_values().
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator

import torch

_REVEAL_VALUES = contextvars.ContextVar("reveal_values", default=True)


@contextlib.contextmanager
def values_hidden() -> Iterator[None]:
    """Within it, messages say where and how much differs, never a value (a hidden test is being checked)."""
    token = _REVEAL_VALUES.set(False)
    try:
        yield
    finally:
        _REVEAL_VALUES.reset(token)


def reveals_values() -> bool:
    """Whether a message may show values: true on sample tests, false on hidden ones."""
    return _REVEAL_VALUES.get()


def where(index: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(i) for i in index) + ")"


def headed(*parts: str) -> str:
    """A message: its last part, after the others that are not empty (what was called, on which test), joined."""
    *head, message = [part for part in parts if part]
    return ", ".join(head) + f": {message}" if head else message


def _position(flat: int, shape: torch.Size) -> tuple[int, ...]:
    return tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), shape)) if shape else ()


def layout(name: str, got: torch.Tensor | None, expected: torch.Tensor) -> str | None:
    """None if got has expected's shape and dtype; else which differs."""
    if got is None:
        return f"{name}: missing"
    if got.shape != expected.shape:
        if not reveals_values():
            # The shape a submission returns is its own choice, so on a hidden test it could carry inputs out.
            return f"{name}: not of the expected shape {tuple(expected.shape)}"
        return f"{name}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    if got.dtype != expected.dtype:
        return f"{name}: dtype {str(got.dtype).removeprefix('torch.')}, expected {str(expected.dtype).removeprefix('torch.')}"
    return None


def tensors(name: str, got: torch.Tensor | None, expected: torch.Tensor, *, atol: float, rtol: float) -> str | None:
    """None if got matches expected in shape, dtype and values within atol + rtol * |expected|; else why not."""
    mismatch = layout(name, got, expected)
    if mismatch:
        return mismatch
    if got.numel() == 0:
        return None
    got64, expected64 = got.to(torch.float64), expected.to(torch.float64)
    # Most outputs checked are finite and within the tolerance everywhere: one pass decides those (an error
    # that is NaN or infinite makes the maximum fail the comparison, and the full account below runs).
    error = (got64 - expected64).abs_()
    if rtol == 0 and bool(error.max() <= atol):
        return None
    bad_got = ~torch.isfinite(got64) & torch.isfinite(expected64)
    if bad_got.any():
        first = _position(int(bad_got.reshape(-1).nonzero()[0]), got.shape)
        value = f": {got64[first].item()}" if reveals_values() else ""
        return (f"{name}: {int(bad_got.sum())} non-finite values where the reference is finite "
                f"(first at {where(first)}{value})")
    both_nan = torch.isnan(got64) & torch.isnan(expected64)
    error.nan_to_num_(nan=math.inf, posinf=math.inf)
    error[both_nan | (got64 == expected64)] = 0  # equal infinities included
    # An infinite expected value allows no relative error: the output must equal it.
    allowed = (atol + rtol * expected64.abs().nan_to_num(posinf=0.0) if rtol
               else torch.full_like(error, atol))
    excess = error - allowed
    worst = int(excess.reshape(-1).argmax())
    if excess.reshape(-1)[worst] <= 0:
        return None
    at = _position(worst, got.shape)
    wrong = int((excess > 0).sum())
    if not reveals_values():
        return (f"{name}: {wrong} of {got.numel()} values differ beyond the tolerance, the worst at {where(at)} "
                "(a hidden test: its values are not shown)")
    return (f"{name}: {wrong} of {got.numel()} values differ; largest error {error.reshape(-1)[worst].item():.3g} "
            f"at {where(at)} (expected {expected64[at].item():.6g}, got {got64[at].item():.6g}; "
            f"tolerance {atol:g} + {rtol:g}·|expected|)")
