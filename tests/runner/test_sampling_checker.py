"""The sampling problem's statistical checker, simulated over 10,000 judge seeds (pure torch, no sandbox).

Each simulated judge draws a test's inputs from its seed (400 rows of inputs per test, from 200 seeds or fewer,
each row with its share of the 10,000 sets of draws) and the token counts a sampler would produce, exactly
multinomially. A correct sampler (the exact distribution) must
never be rejected on any test; each known-wrong sampler of the problem's [[mistakes]] (its `filtered`
distribution, drawn by inverse CDF) must be rejected on the test its `# fails-on:` header names, every time.
The rejection rule is the sampler kind's for one row (kit.chi_square at problem.toml's rate, both tails),
vectorised here and checked against it on a few seeds.
"""

from __future__ import annotations

import pytest
import torch

from runner import kit
from runner.check import header_field
from runner.kit import load_sibling
from runner.problems import load_problem

PROBLEM = load_problem("sampling")
CHECKER = PROBLEM.checker
SPEC = CHECKER.spec
TESTS = {test.name: test.params for test in PROBLEM.tests}
JUDGES = 10_000
KEYWORDS = ("temperature", "top_k", "top_p")


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Thousands of tiny tensors: one thread each is far faster than several contending with their neighbours."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def distributions(params, q_of, seeds):
    """For each input seed, the truth and q_of(logits) of every row the checker draws, kept to the tokens
    either can draw (most probable first) and padded with zeros: two (seeds * rows, support) tensors."""
    once, found = {**params, "draws": 1}, []
    for seed in range(seeds):
        logits = CHECKER.inputs(once, torch.Generator().manual_seed(seed))["logits"]
        truth, q = SPEC.probabilities(params, logits)[0], q_of(logits).double()
        order = (truth + q).argsort(-1, descending=True)[:, :int(((truth > 0) | (q > 0)).sum(-1).max())]
        found.append((truth.gather(-1, order), q.gather(-1, order)))
    support = max(truth.shape[-1] for truth, _ in found)
    pad = lambda x: torch.nn.functional.pad(x, (0, support - x.shape[-1]))
    return torch.cat([pad(truth) for truth, _ in found]), torch.cat([pad(q) for _, q in found])


def counts_of(q, draws, sets, generator):
    """(rows, sets, support) multinomial counts of `draws` tokens from each row of q, `sets` times, drawn as
    sequential binomials: token i given the draws left after the tokens before it."""
    rows, support = q.shape
    q = q.repeat_interleave(sets, 0)
    counts, left, rest = torch.zeros_like(q), torch.full((len(q),), float(draws), dtype=q.dtype), q.sum(-1)
    for token in range(support):
        share = (q[:, token] / rest.clamp(min=1e-300)).clamp(0, 1) if token < support - 1 else torch.ones_like(rest)
        counts[:, token] = torch.binomial(left, share, generator=generator)
        left, rest = left - counts[:, token], rest - q[:, token]
    return counts.view(rows, sets, support)


def rejected(counts, p, false_rejection):
    """The sampler kind's verdict on each set of counts (..., vocab) against one row's probabilities p."""
    p = p.double() / p.sum()
    impossible = ((p == 0) & (counts > 0)).any(-1)
    expected = p * counts.sum(-1, keepdim=True)[..., :1, :].mean()
    large, small = expected >= kit.checks.MIN_EXPECTED, (expected < kit.checks.MIN_EXPECTED) & (expected > 0)
    got, want = counts[..., large], expected[large]
    if small.any():
        got = torch.cat([got, counts[..., small].sum(-1, keepdim=True)], -1)
        want = torch.cat([want, expected[small].sum().reshape(1)])
    if want.numel() < 2:
        return impossible
    statistic = ((got - want) ** 2 / want).sum(-1)
    freedom = torch.tensor((want.numel() - 1) / 2, dtype=torch.float64)
    too_far = torch.special.gammaincc(freedom, statistic / 2)
    too_good = torch.special.gammainc(freedom, (statistic.sqrt() + (1 / (4 * want)).sum().sqrt()) ** 2 / 2)
    return impossible | (too_far < false_rejection / 2) | (too_good < false_rejection / 2)


def judge_rejections(params, q_of, generator):
    """How many of the 10,000 simulated judges reject the draws of q_of(logits) on this test."""
    seeds = 400 // params["rows"]
    truth, q = distributions(params, q_of, seeds)
    counts = counts_of(q, params["draws"], JUDGES // seeds, generator)
    verdicts = torch.stack([rejected(counts[row], truth[row], CHECKER.false_rejection) for row in range(len(truth))])
    for row in range(3):  # the vectorised rule is the kind's
        for draw in range(3):
            said = CHECKER.rejection(counts[row, draw], kit.Law(truth[row]))
            assert (said is not None) == bool(verdicts[row, draw])
    # A judge rejects when any row of the test is rejected.
    return int(verdicts.view(seeds, params["rows"], JUDGES // seeds).any(1).sum())


def test_a_judge_rejects_a_correct_sampler_below_one_in_a_million():
    """One chi-square test (both tails) per row, and one of each test's rows together, each at the stated rate."""
    tests = sum(params["rows"] + 1 for params in TESTS.values())
    assert tests <= 100 and tests * CHECKER.false_rejection <= 1e-6


@pytest.mark.parametrize("name", list(TESTS))
def test_a_correct_sampler_is_never_rejected(name):
    params = TESTS[name]
    generator = torch.Generator().manual_seed(1)
    assert judge_rejections(params, lambda logits: SPEC.probabilities(params, logits)[0], generator) == 0


@pytest.mark.parametrize("mistake", PROBLEM.mistakes, ids=lambda mistake: mistake["solution"].split("/")[-1])
def test_each_wrong_sampler_is_rejected_every_time(mistake):
    path = PROBLEM.path / mistake["solution"]
    params = TESTS[header_field(path, "fails-on")]
    filtered = load_sibling(PROBLEM.path / "spec.py", mistake["solution"]).filtered
    keywords = {key: params[key] for key in KEYWORDS if key in params}
    generator = torch.Generator().manual_seed(2)
    rejections = judge_rejections(params, lambda logits: SPEC.inverse_cdf(filtered(logits, **keywords)), generator)
    assert rejections == JUDGES
