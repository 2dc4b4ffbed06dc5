"""The reference cache: keyed by problem version, device type, torch version and seed, bounded, and never a
substitute for timing the reference in the same run as the user's code."""

from __future__ import annotations

import pytest
import torch

from runner import SandboxOptions, seeds
from runner.cache import ENTRY_OVERHEAD_BYTES, ReferenceCache, key
from runner.client import Harness

from .conftest import ROOT, TEST_KEY, judge_for_tests, requires_bubblewrap

BASE = dict(problem_version="v1", device_type="cpu", seed=7, test_name="rows", params={"shape": [4, 7]})


@pytest.mark.parametrize("change", [
    {"problem_version": "v2"}, {"device_type": "cuda"}, {"seed": 8}, {"test_name": "cols"},
    {"params": {"shape": [4, 8]}},
])
def test_a_key_changes_with_each_part_it_is_made_of(change):
    assert key(**{**BASE, **change}) != key(**BASE)
    assert key(**BASE) == key(**dict(BASE))


def test_a_key_changes_with_the_torch_version(monkeypatch):
    before = key(**BASE)
    monkeypatch.setattr(torch, "__version__", "0.0.0")
    assert key(**BASE) != before


def test_the_secret_seeds_of_one_version_make_distinct_keys_that_do_not_show_the_seed():
    keys = {key(**{**BASE, "seed": seeds.hidden_seed(TEST_KEY, "v1", index)}) for index in range(seeds.SEEDS_PER_VERSION)}
    assert len(keys) == seeds.SEEDS_PER_VERSION
    assert all(str(seeds.hidden_seed(TEST_KEY, "v1", 0)) not in found for found in keys)


def _entry(size_bytes: int):
    return {"type": "result"}, {"out": torch.zeros(size_bytes, dtype=torch.uint8)}


def test_the_cache_keeps_the_most_recently_used_entries_within_its_byte_bound():
    entry_bytes = 1000 + ENTRY_OVERHEAD_BYTES + len('{"type": "result"}')
    cache = ReferenceCache(max_bytes=3 * entry_bytes)
    for name in "abc":
        cache.put(name, *_entry(1000))
    assert cache.get("a") is not None
    cache.put("d", *_entry(1000))
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 3
    assert cache.bytes_held <= cache.max_bytes


def test_the_cache_is_bounded_in_entries_however_small_they_are():
    cache = ReferenceCache(max_entries=10)
    for index in range(25):
        cache.put(str(index), *_entry(1))
    assert len(cache) == 10 and cache.get("0") is None and cache.get("24") is not None


def test_an_entry_larger_than_the_whole_cache_is_not_kept():
    cache = ReferenceCache(max_bytes=100)
    cache.put("big", *_entry(1000))
    assert cache.get("big") is None and len(cache) == 0


def test_a_figure_added_to_an_entry_reaches_later_readers_within_the_bounds():
    cache = ReferenceCache(max_bytes=2 * (1000 + ENTRY_OVERHEAD_BYTES + 64))
    cache.put("timed", *_entry(1000))
    before = cache.get("timed")[0]
    cache.annotate("timed", timed_call_ns=123)
    assert cache.get("timed")[0] == {"type": "result", "timed_call_ns": 123}
    assert before == {"type": "result"}  # what a reader was given earlier stays as it was
    cache.annotate("absent", timed_call_ns=1)
    assert cache.get("absent") is None and len(cache) == 1
    cache.put("other", *_entry(1000))
    cache.annotate("timed", note="x" * 100)  # grown past the bound: the least recently used entry goes
    assert cache.bytes_held <= cache.max_bytes and len(cache) == 1


class Counting:
    """start_harness that counts the sandboxes a judge starts."""

    def __init__(self):
        self.started = 0

    def __call__(self, options, **settings):
        self.started += 1
        return Harness(options, **settings)


@pytest.mark.sandbox
@requires_bubblewrap
def test_a_run_starts_the_reference_sandbox_only_when_a_test_needs_it():
    cache = ReferenceCache()
    source = (ROOT / "problems" / "stable-softmax" / "reference.py").read_bytes()
    options = dict(sandbox=SandboxOptions(mode="bubblewrap", require=True), cache=cache)
    first, second = Counting(), Counting()
    assert judge_for_tests("stable-softmax", source, tests="sample", start_harness=first, **options).verdict == "accepted"
    assert judge_for_tests("stable-softmax", source, tests="sample", start_harness=second, **options).verdict == "accepted"
    assert (first.started, second.started) == (2, 1)
    timed = Counting()
    verdict = judge_for_tests("stable-softmax", source, tests="all", start_harness=timed, **options)
    assert verdict.verdict == "accepted" and timed.started == 2
    assert verdict.time.reference_ms is not None and verdict.time.reference_ms > 0
    # Wrong from the first (sample, cached) test on, and stopped there: the reference never starts. (Without
    # the stop, the hidden tests of a secret seed not drawn before would need it.)
    stopped = Counting()
    zeros = b"import torch\n\ndef softmax(x, dim=-1):\n    return torch.zeros_like(x)\n"
    verdict = judge_for_tests("stable-softmax", zeros, tests="all", start_harness=stopped, stop_at_first_failure=True,
                              **options)
    assert verdict.verdict == "wrong_answer" and stopped.started == 1
    assert [test.status for test in verdict.tests][:2] == ["wrong_answer", "skipped"]
