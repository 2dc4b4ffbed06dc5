"""The function kind's words for one call: the call as a user wrote it, and what it did instead of raising."""

from __future__ import annotations

import itertools
from typing import Any

from runner import compare

from .api import Params, Tensors
from .reports import TAMPERED, exception_words, flag, text

AGAIN = "as a later call, after the caller changed every entry of the first result in place"


def describe_function(interface: dict[str, Any], params: Params, inputs: Tensors, tensors: str) -> str:
    """The call as run_function makes it: causal_mask(4, t_k=None, device=torch.device('meta')). A positional
    argument that is a test param shows its value only where values may be shown; keywords always do."""
    given = params.get("explicit_none")

    def value(name, hidden):
        if name in inputs or (hidden and not compare.reveals_values()):
            return name
        if name not in params:
            return "None"
        return f"torch.device({params[name]!r})" if name in params.get("as_device", []) else repr(params[name])
    args = list(itertools.takewhile(lambda name: name in inputs or name in params or given, interface.get("args", [])))
    parts = [f"{name}={value(name, True)}" if params.get("by_name") else value(name, True) for name in args]
    parts += [f"{name}={value(name, False)}" for name in interface.get("kwargs", []) if name in params or given]
    call = f"{interface['call']}({', '.join(parts)})"
    if "default_device" in params:
        call += f" inside `with torch.device({params['default_device']!r})`"
    return f"{call} with {tensors}" if tensors else call


def raise_problem(params: Params, got: Tensors) -> str | None:
    """With `raises`: what the call did instead of raising that built-in exception class, or None."""
    raised, matches = text(got.get("raised"), r"[A-Za-z0-9_.<>]*"), flag(got.get("raised.matches"))
    if raised is None or matches is None or (matches and not raised):
        return TAMPERED
    if matches:
        return None
    did = f"raised {exception_words(raised)}" if raised else "returned a result"
    because = f", since {params['because']}" if "because" in params else ""
    return f"it {did}; it must raise {params['raises']}{because}"


__all__ = ["AGAIN", "describe_function", "raise_problem"]
