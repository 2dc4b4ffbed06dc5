"""The kit's standard comparisons, on the trusted side: floating outputs against a float64 truth with a
tolerance derived from the reference's own error, integer outputs exactly, samplers by a chi-square test.

Every message follows runner.compare: on a hidden test it says where and how much differs, never a value.
"""

from __future__ import annotations

import math

import torch

from runner import compare

REFERENCE_MULTIPLE = 8.0
ROUNDING_UNITS = 32.0
# Below this expected count a chi-square cell's statistic is far from its limiting distribution.
MIN_EXPECTED = 5.0


def tolerance(got_dtype: torch.dtype, expected: torch.Tensor, truth: torch.Tensor, *,
              reference_multiple: float = REFERENCE_MULTIPLE, rounding_units: float = ROUNDING_UNITS,
              magnitude: float = 1.0) -> float:
    """The absolute error allowed in an output of got_dtype: a multiple of the reference's own error against
    the float64 truth (measured on these very inputs), or a few rounding units of the magnitude (the truth's,
    or the given one where the inputs' magnitude decides the rounding, as in a softmax of large logits),
    whichever is larger. So every correct style passes, and a missing term or a low-precision accumulation
    does not."""
    if not got_dtype.is_floating_point or truth.numel() == 0:
        return 0.0
    finite = torch.isfinite(truth)
    if bool(finite.all()):  # the usual case, without the copies that selecting the finite entries makes
        difference, magnitudes = expected.to(torch.float64) - truth, truth
    elif not finite.any():
        return 0.0
    else:
        # Where the truth is infinite the output must equal it (runner.compare counts equal values as no error).
        difference, magnitudes = (expected.to(torch.float64) - truth)[finite], truth[finite]
    # In place on the difference, a tensor of its own: an output of a large vocabulary is tens of MiB a copy.
    reference_error = difference.abs_().nan_to_num_(nan=math.inf).max().item()
    lowest, highest = torch.aminmax(magnitudes)
    magnitude = max(1.0, magnitude, -lowest.item(), highest.item())
    return max(reference_multiple * reference_error, rounding_units * torch.finfo(got_dtype).eps * magnitude)


def check_close(name: str, got: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor, **allowance) -> str | None:
    """None when got (of expected's layout) is within tolerance() of the float64 truth, else what differs."""
    mismatch = compare.layout(name, got, expected)
    if mismatch:
        return mismatch
    allowed = tolerance(got.dtype, expected, truth, **allowance)
    return compare.tensors(name, got.to(torch.float64), truth.to(torch.float64), atol=allowed, rtol=0)


def check_exact(name: str, got: torch.Tensor, expected: torch.Tensor, *, off_by: int = 0) -> str | None:
    """None when got equals expected (integer or bool), or differs by at most off_by in each entry."""
    mismatch = compare.layout(name, got, expected)
    if mismatch:
        return mismatch
    if off_by and got.dtype != torch.bool:
        return compare.tensors(name, got.to(torch.float64), expected.to(torch.float64), atol=off_by, rtol=0)
    wrong = got != expected
    if not wrong.any():
        return None
    first = tuple(int(i) for i in wrong.nonzero()[0])
    values = (f" (expected {expected[first].item()}, got {got[first].item()})" if compare.reveals_values()
              else " (a hidden test: its values are not shown)")
    return f"{name}: {int(wrong.sum())} of {got.numel()} entries differ, the first at {compare.where(first)}{values}"


def chi_square(counts: torch.Tensor, probabilities: torch.Tensor, *, false_rejection: float = 1e-6,
               what: str = "category") -> str | None:
    """None when counts (draws per category) are consistent with probabilities, else why not.

    A category of probability 0 that was drawn fails at once. Categories whose expected count is below 5 are
    pooled into one (the statistic's distribution is only chi-square for large cells). The test rejects a
    correct sampler with probability false_rejection, so choose it, and the number of draws, for a suite that
    never fails a correct sampler and a wrong one that always fails."""
    counts = counts.to(torch.float64).reshape(-1)
    probabilities = probabilities.to(torch.float64).reshape(-1)
    impossible = (probabilities == 0) & (counts > 0)
    if impossible.any():
        index = int(impossible.nonzero()[0])
        if not compare.reveals_values():
            return f"drew a {what} whose probability is 0 (a hidden test: its values are not shown)"
        return (f"drew {what} {index} {int(counts[index])} times, whose probability is 0 "
                f"({int(impossible.sum())} impossible {what}{'s' * (int(impossible.sum()) != 1)} drawn)")
    total = counts.sum().item()
    expected = probabilities / probabilities.sum() * total
    large = expected >= MIN_EXPECTED
    cells_got = [*counts[large].tolist()]
    cells_expected = [*expected[large].tolist()]
    if (~large & (expected > 0)).any():
        cells_got.append(counts[~large].sum().item())
        cells_expected.append(expected[~large].sum().item())
    if len(cells_got) < 2:
        return None
    got_t, expected_t = torch.tensor(cells_got, dtype=torch.float64), torch.tensor(cells_expected, dtype=torch.float64)
    statistic = ((got_t - expected_t) ** 2 / expected_t).sum()
    freedom = torch.tensor((len(cells_got) - 1) / 2, dtype=torch.float64)
    p_value = torch.special.gammaincc(freedom, statistic / 2).item()
    if p_value >= false_rejection:
        return None
    if not compare.reveals_values():
        return (f"the draws do not follow the distribution: a chi-square test rejects them at p < {false_rejection:g} "
                "(a hidden test: its values are not shown)")
    worst = int(((got_t - expected_t).abs() / expected_t.sqrt()).argmax())
    return (f"the draws do not follow the distribution: chi-square {statistic.item():.1f} on {len(cells_got) - 1} "
            f"degrees of freedom, p = {p_value:.2g} (rejected below {false_rejection:g}); the farthest cell got "
            f"{int(cells_got[worst])} draws where {cells_expected[worst]:.1f} were expected")
