"""A submission's outputs for one call, checked against the reference's before a problem's checker judges them.

The driver reports its outputs from inside the sandbox, where the submission can replace them, so the trusted
side first holds them to the one structure it knows is right: the reference's outputs for the same call, under
the same driver. Every name the reference produced must be there with the reference's shape and dtype (what
`compare.layout` says about one output, and what every checker asks before it reads an output's values); a
name the reference did not produce is dropped, so a checker's diagnosis never reads an output nothing checked.

Outputs that break that structure are a wrong answer. The checker is still asked to word it, since its message
names the call and what the output should be; whatever else it does with them (accepts them, raises) changes
nothing, and the structure's own message is given instead.

A checker that raises on outputs of the right structure is the judge's own bug (an internal error), unless the
submission's outputs provably caused it: the same checker, on the same inputs, with the reference's outputs in
place of the submission's, does not raise. Then only the outputs differed, and the test is a wrong answer that
says the outputs could not be judged (naming the exception's type only, since its text may hold values).
"""

from __future__ import annotations

from typing import Callable

import torch

from . import compare

Outputs = dict[str, torch.Tensor]


def judged(check: Callable[[Outputs], str | None], got: Outputs, expected: Outputs) -> str | None:
    """The message of a wrong answer, or None: check (a problem's checker bound to one call's parameters,
    inputs and expected outputs) applied to got once its structure is the expected one's."""
    named = {name: tensor for name, tensor in got.items() if name in expected}
    mismatch = structure_mismatch(named, expected)
    if mismatch:
        try:
            worded = check(named)
        except Exception:  # noqa: BLE001 - outputs already judged wrong; the checker only words it
            worded = None
        return worded if isinstance(worded, str) and worded else mismatch
    try:
        return check(named)
    except Exception as error:
        if _raises(check, expected):
            raise
        return (f"the outputs could not be judged: the checker raised {type(error).__name__} on them, and not on "
                "the reference's outputs for the same call")


def structure_mismatch(got: Outputs, expected: Outputs) -> str | None:
    """The first output, in the reference's order, that is missing or differs in shape or dtype; None if none."""
    for name, tensor in expected.items():
        mismatch = compare.layout(name, got.get(name), tensor)
        if mismatch:
            return f"{mismatch} (each output must have the shape and dtype of the reference's)"
    return None


def _raises(check: Callable[[Outputs], str | None], outputs: Outputs) -> bool:
    try:
        # Copies: the reference's outputs may be the cache's own tensors.
        check({name: tensor.clone() for name, tensor in outputs.items()})
    except Exception:  # noqa: BLE001 - any exception at all is the checker's own, not the submission's
        return True
    return False
