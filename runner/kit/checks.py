"""The kit's standard comparisons, on the trusted side: floating outputs against a float64 truth with a
tolerance derived from the reference's own error, integer outputs exactly, samplers by a chi-square test.

Every message follows runner.compare: on a hidden test it says where and how much differs, never a value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Fit:
    """How counts fit a law by Pearson's statistic: the statistic, its degrees of freedom (cells after pooling,
    less one; 0 is no test), each cell's count and expected count, and the lattice slack sqrt(sum 1 / (4 e)), how
    far the statistic's root moves when every count moves by half a draw."""

    statistic: float
    freedom: int
    got: list[float]
    expected: list[float]
    slack: float


def fit(counts: torch.Tensor, probabilities: torch.Tensor) -> Fit:
    """counts against probabilities, cells expected fewer than MIN_EXPECTED times pooled into one (the
    statistic's law is only chi-square for large cells)."""
    counts = counts.to(torch.float64).reshape(-1)
    probabilities = probabilities.to(torch.float64).reshape(-1)
    expected = probabilities / probabilities.sum() * counts.sum().item()
    large = expected >= MIN_EXPECTED
    cells_got, cells_expected = counts[large].tolist(), expected[large].tolist()
    if (~large & (expected > 0)).any():
        cells_got.append(counts[~large].sum().item())
        cells_expected.append(expected[~large].sum().item())
    statistic = sum((got - want) ** 2 / want for got, want in zip(cells_got, cells_expected))
    return Fit(statistic, max(len(cells_got) - 1, 0), cells_got, cells_expected,
               math.sqrt(sum(1 / (4 * want) for want in cells_expected)))


def too_good(fits: list[Fit]) -> float:
    """The chance that draws of these laws fit them at least this well: the lower tail of the chi-square law of
    the summed statistics, at the statistic's root widened by the lattice slack. Counts are integers, so a fit
    near perfection is likelier than the continuous law says (a deterministic quota lands on it every time);
    the slack keeps the tail from understating it, so a correct sampler is rejected no more often than
    stated. A deterministic quota or a low-discrepancy sequence has a statistic within the slack of 0."""
    freedom = sum(f.freedom for f in fits)
    if not freedom:
        return 1.0
    root = math.sqrt(sum(f.statistic for f in fits)) + math.sqrt(sum(f.slack ** 2 for f in fits if f.freedom))
    return torch.special.gammainc(torch.tensor(freedom / 2, dtype=torch.float64),
                                  torch.tensor(root ** 2 / 2, dtype=torch.float64)).item()


TOO_GOOD = ("the draws fit the distribution better than random draws do: {detail}; draw each sample at random "
            "from the generator, not by a quota or a low-discrepancy sequence")


def chi_square(counts: torch.Tensor, probabilities: torch.Tensor, *, false_rejection: float = 1e-6,
               what: str = "category") -> str | None:
    """None when counts (draws per category) are consistent with probabilities, else why not.

    A category of probability 0 that was drawn fails at once. Then both tails of the chi-square test (see fit),
    each at half of false_rejection: counts too far from the expected ones, and counts closer to them than
    random draws come (see too_good). Choose the rate, and the number of draws, for a suite that never fails a
    correct sampler and a wrong one that always fails; a law whose cells pool into one is no test (None)."""
    counts = counts.to(torch.float64).reshape(-1)
    probabilities = probabilities.to(torch.float64).reshape(-1)
    impossible = (probabilities == 0) & (counts > 0)
    if impossible.any():
        index = int(impossible.nonzero()[0])
        if not compare.reveals_values():
            return f"drew a {what} whose probability is 0 (a hidden test: its values are not shown)"
        return (f"drew {what} {index} {int(counts[index])} times, whose probability is 0 "
                f"({int(impossible.sum())} impossible {what}{'s' * (int(impossible.sum()) != 1)} drawn)")
    found = fit(counts, probabilities)
    if not found.freedom:
        return None
    p_value = torch.special.gammaincc(torch.tensor(found.freedom / 2, dtype=torch.float64),
                                      torch.tensor(found.statistic / 2, dtype=torch.float64)).item()
    if too_good([found]) < false_rejection / 2:
        return TOO_GOOD.format(detail=f"chi-square {found.statistic:.3g} on {found.freedom} degrees of freedom, "
                               f"rejected below {false_rejection / 2:g}" if compare.reveals_values()
                               else "a hidden test: its values are not shown")
    if p_value >= false_rejection / 2:
        return None
    if not compare.reveals_values():
        return (f"the draws do not follow the distribution: a chi-square test rejects them at p < "
                f"{false_rejection / 2:g} (a hidden test: its values are not shown)")
    got, expected = torch.tensor(found.got), torch.tensor(found.expected)
    worst = int(((got - expected).abs() / expected.sqrt()).argmax())
    return (f"the draws do not follow the distribution: chi-square {found.statistic:.1f} on {found.freedom} degrees "
            f"of freedom, p = {p_value:.2g} (rejected below {false_rejection / 2:g}); the farthest cell got "
            f"{int(found.got[worst])} draws where {found.expected[worst]:.1f} were expected")