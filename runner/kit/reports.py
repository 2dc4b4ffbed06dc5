"""Reading what a driver reports besides its outputs (flags, short texts, names), as hostile input.

The submission shares the driver's process, so a report is a claim: each reader returns None for anything
that is not exactly what the kit's drivers write, and the caller fails the test on None.
"""

from __future__ import annotations

import builtins
import re

import torch

from runner import compare

from .api import Tensors

TAMPERED = "no valid report of what it returned came back: the driver's report was removed or changed"
MALFORMED = "the driver's report is missing or malformed (was the driver changed?)"


def flag(report: torch.Tensor | None) -> bool | None:
    """A driver's 0/1 report as a bool; None when it is missing or malformed."""
    if report is None or report.dtype != torch.int64 or report.shape != () or int(report) not in (0, 1):
        return None
    return bool(report)


def scalar(report: torch.Tensor | None, dtype: torch.dtype) -> bool | int | None:
    """The value of a reported scalar of dtype, or None when the report is not one."""
    if report is None or report.dtype != dtype or report.dim() != 0:
        return None
    return bool(report) if dtype == torch.bool else int(report)


def text(report: torch.Tensor | None, allowed: str) -> str | None:
    """The ASCII text of a NUL-padded uint8 report whose characters all match allowed, else None."""
    if report is None or report.dtype != torch.uint8 or report.dim() != 1 or report.numel() > 256:
        return None
    value = bytes(report.tolist()).rstrip(b"\0").decode("latin-1")
    return value if re.fullmatch(allowed, value) else None


def device_of(name: str, outputs: Tensors) -> str | None:
    """The device type a driver reported output `name` was created on (`<name>.device`), or None."""
    return text(outputs.get(f"{name}.device"), r"[a-z0-9_]*")


def without_values(name: str, expected: Tensors) -> bool:
    """Whether the reference made output `name` on the meta device, where a tensor has no values to judge."""
    return device_of(name, expected) == "meta"


def exception_words(qualified: str) -> str:
    """A built-in exception by its name; any other class by its qualified name only where values may be shown
    (the name is the submission's to choose)."""
    module, _, name = qualified.rpartition(".")
    known = getattr(builtins, name, None)
    if module == "builtins" and isinstance(known, type) and issubclass(known, BaseException):
        return name
    return qualified if compare.reveals_values() else "an exception of another class"


def names_reported(report: torch.Tensor | None) -> list[str]:
    """Names a driver joined by commas into UTF-8 bytes, on a sample test only (a name is the submission's to
    choose, so on a hidden test it could carry inputs out); [] otherwise."""
    if not compare.reveals_values() or report is None or report.dtype != torch.uint8 or report.dim() != 1:
        return []
    return [part for part in bytes(report.tolist()).decode("utf-8", "replace").split(",") if part]


__all__ = ["MALFORMED", "TAMPERED", "device_of", "exception_words", "flag", "names_reported", "scalar", "text",
           "without_values"]
