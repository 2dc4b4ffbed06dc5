"""The in-sandbox operator watch, exercised in-process: aliases of a forbidden kernel, memory, tampering; and
the allocator settings that keep the resident set the judge reads close to the live tensors."""

import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import _pop_mode, _push_mode

from runner.harness.measure import OperatorWatch, forbids, tampering

from .conftest import ROOT

SOFTMAX = ["aten::_softmax", "aten::_log_softmax"]


@pytest.mark.parametrize("call", [
    lambda x: torch.softmax(x, -1), lambda x: F.softmax(x, dim=0), lambda x: x.softmax(-1),
    lambda x: torch.special.softmax(x, -1), lambda x: F.log_softmax(x, -1), lambda x: F.softmin(x, -1),
    lambda x: torch.ops.aten._softmax.default(x, -1, False), lambda x: torch.ops.aten.softmax.int(x, 0),
], ids=["torch", "functional", "method", "special", "log", "softmin", "aten-kernel", "aten-composite"])
def test_every_route_to_a_forbidden_kernel_is_caught(call):
    watch = OperatorWatch(SOFTMAX)
    with watch:
        with pytest.raises(RuntimeError, match="forbidden"):
            call(torch.randn(3, 4))
    assert watch.forbidden_calls and watch.forbidden_calls[0].split(".")[0] in SOFTMAX


def test_allowed_operators_are_counted_not_stopped():
    watch = OperatorWatch(SOFTMAX)
    with watch:
        x = torch.randn(3, 4)
        (x - x.amax(-1, keepdim=True)).exp()
    assert not watch.forbidden_calls
    assert watch.counts["aten::exp.default"] == 1


def test_a_forbidden_operator_is_stopped_every_time_it_is_called_not_only_the_first():
    watch = OperatorWatch(SOFTMAX)
    with watch:
        for _ in range(3):
            with pytest.raises(RuntimeError, match="forbidden"):
                torch.softmax(torch.randn(3, 4), -1)
        torch.randn(3).exp().exp()
    assert watch.counts["aten::_softmax.default"] == 3 and watch.counts["aten::exp.default"] == 2
    assert watch.forbidden_calls == ["aten::_softmax.default"]


def test_an_overload_pattern_matches_only_that_overload():
    matches = forbids(["aten::softmax.int", "aten::_softmax"])
    assert matches("aten::softmax.int") and not matches("aten::softmax.Dimname")
    assert matches("aten::_softmax.default") and matches("aten::_softmax.out")


def test_the_peak_counts_live_tensors_including_what_autograd_saves():
    x = torch.randn(256, 1024, requires_grad=True)
    watch = OperatorWatch([], track_memory=True)
    with watch:
        e = (x - x.amax(-1, keepdim=True)).exp()
        y = e / e.sum(-1, keepdim=True)
        del e  # still held by autograd for the division's backward
        live_after_forward = watch.live_bytes
        y.backward(torch.ones_like(y))
    one = 256 * 1024 * 4
    assert live_after_forward >= 2 * one
    assert watch.peak_bytes >= 3 * one


def test_freed_tensors_leave_the_live_count():
    watch = OperatorWatch([], track_memory=True)
    with watch:
        big = torch.ones(1 << 20)
        del big
    assert watch.live_bytes == 0 and watch.peak_bytes >= 4 << 20


def test_views_of_storages_older_than_the_watch_allocate_nothing():
    layer = torch.nn.Linear(512, 256)
    x = torch.randn(8, 512)
    watch = OperatorWatch([], track_memory=True)
    with watch:
        y = layer(x)  # aten::t views the weight; only addmm's output is new
        x.mul_(2)
        x.t().unsqueeze(0)
    assert watch.counts["aten::t.default"] == 2 and y.shape == (8, 256)
    assert (watch.peak_bytes, watch.live_bytes) == (8 * 256 * 4, 8 * 256 * 4)


def test_views_of_storages_made_under_the_watch_are_counted_once():
    watch = OperatorWatch([], track_memory=True)
    with watch:
        base = torch.ones(1 << 18)
        halves = base.view(2, -1).unbind(0)
        del base
    assert watch.peak_bytes == 1 << 20
    assert watch.live_bytes == 1 << 20  # the views keep the storage alive
    del halves
    assert watch.live_bytes == 0


def test_an_unannotated_alias_of_a_storage_older_than_the_watch_allocates_nothing():
    # aten::_unsafe_view's schema promises a new tensor, and it returns a view (matmul reshapes its result with it).
    x = torch.randn(64, 64)
    watch = OperatorWatch([], track_memory=True)
    with watch:
        view = torch.ops.aten._unsafe_view(x, [4096])
        fresh = torch.ops.aten._unsafe_view(x * 2, [4096])
    assert view.untyped_storage()._cdata == x.untyped_storage()._cdata
    assert watch.live_bytes == fresh.nbytes


def test_a_storage_grown_in_place_counts_its_growth():
    a = torch.randn(256, 256)
    watch = OperatorWatch([], track_memory=True)
    with watch:
        out = torch.empty(0)
        torch.mm(a, a, out=out)
        out.resize_(16)
    assert watch.peak_bytes == watch.live_bytes == 256 * 256 * 4
    del out
    assert watch.live_bytes == 0


def test_popping_the_watch_is_noticed():
    watch = OperatorWatch([])
    with watch:
        popped = _pop_mode()
        found = tampering(watch)
        _push_mode(popped)
    assert found == ["removed the judge's operator watch from the dispatch stack"]


def test_replacing_the_watch_method_is_noticed():
    watch = OperatorWatch([])
    with watch:
        original = OperatorWatch.__torch_dispatch__
        OperatorWatch.__torch_dispatch__ = lambda self, func, types, args=(), kwargs=None: func(*args, **kwargs)
        try:
            found = tampering(watch)
        finally:
            OperatorWatch.__torch_dispatch__ = original
    assert "replaced the judge's operator watch" in found


ALLOCATOR_PROBE = """
import torch
from runner.harness.measure import allocator_for, release_free_memory

def resident():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmRSS:"))

def kept_after_free(size):
    block = torch.ones(size, dtype=torch.uint8)
    before_free = resident()
    del block
    return before_free - resident()

torch.ones(8 << 20, dtype=torch.uint8)  # glibc raises its threshold past 8 MiB once that block is freed
allocator_for(checked=True)
returned_exact = kept_after_free(8 << 20)
allocator_for(checked=False)
returned_fast = kept_after_free(8 << 20)
before_trim = resident()
release_free_memory()
print(returned_exact >> 20, returned_fast >> 20, (before_trim - resident()) >> 20)
"""


def test_checked_calls_return_freed_blocks_and_timed_ones_keep_them_until_the_trim():
    done = subprocess.run([sys.executable, "-c", ALLOCATOR_PROBE], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=True)
    returned_exact, returned_fast, trimmed = map(int, done.stdout.split())
    assert returned_exact >= 7
    assert returned_fast <= 1 and trimmed >= 7
