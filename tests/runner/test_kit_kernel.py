"""The kernel kind (runner/kit/kernel.py) and its sandbox half (runner/kit/sandbox_kernel.py), judged for real on
triton-vector-add: the rules that keep every value a kernel's, each broken in a way its solution files do not
break it, and the words a hidden test gives for each."""

from __future__ import annotations

import pytest

from runner.problems import load_problem

from .conftest import judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, requires_bubblewrap]
PROBLEM = load_problem("triton-vector-add")

HEAD = '''
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets * sx, mask=mask) + tl.load(y_ptr + offsets * sy, mask=mask),
             mask=mask)


def launch(x, y, out):
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=256)
'''


def first_failure(source: str, tests: str = "all"):
    verdict = judge_for_tests(PROBLEM, HEAD + source, tests=tests, stop_at_first_failure=True)
    return verdict.verdict, next(test for test in verdict.tests if test.status not in ("passed", "skipped"))


def test_an_output_changed_by_the_host_after_the_last_launch_is_refused():
    verdict, test = first_failure('''
def add(x, y):
    out = torch.empty_like(x)
    launch(x, y, out)
    out.numpy()[:] = (x.numpy() + y.numpy())  # NumPy writes behind the kernel's back
    out.numpy()[0] += 1
    return out
''')
    assert verdict == "wrong_answer" and "changed an output after the last launch" in test.message


def test_a_buffer_the_host_filled_is_refused_to_a_kernel_that_reads_it():
    verdict, test = first_failure('''
def add(x, y):
    zeros = torch.zeros_like(x)
    partial = torch.empty_like(x)
    launch(x, zeros, partial)
    out = torch.empty_like(x)
    launch(partial, y, out)
    return out
''')
    assert verdict == "wrong_answer" and "no kernel of this call had stored" in test.message


def test_scratch_a_kernel_stored_may_be_read_by_the_next_launch():
    verdict, test = first_failure('''
@triton.jit
def copy_kernel(source, target, n, stride, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(target + offsets, tl.load(source + offsets * stride, mask=mask), mask=mask)


def add(x, y):
    copied = torch.empty(x.numel(), dtype=x.dtype)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, copied, x.numel(), x.stride(0), BLOCK=256)
    out = torch.empty_like(copied)
    launch(copied, y, out)
    return out
''', tests="sample")
    # The copy is read back without a refusal; it only costs x's bytes twice more than the bound allows.
    assert verdict == "wrong_answer" and "over this test's bound" in test.message
    assert "copy_kernel: 1,024 bytes loaded, 1,024 stored, 1 launch" in test.message


def test_an_illegal_access_the_host_catches_still_decides_the_call():
    verdict, test = first_failure('''
@triton.jit
def unmasked(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))


def add(x, y):
    out = torch.empty_like(x)
    try:
        unmasked[(triton.cdiv(x.numel(), 256),)](x, y, out, BLOCK=256)
    except Exception:
        launch(x, y, out)
    return out
''')
    assert verdict == "runtime_error" and "past its end" in test.message and "solution.py, line" in test.message


def test_atomics_are_refused():
    verdict, test = first_failure('''
@triton.jit
def atomic_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)
    tl.atomic_add(out_ptr + offsets, tl.load(y_ptr + offsets, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    atomic_add[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out
''', tests="sample")
    assert verdict == "runtime_error" and "atomic operations are not judged here" in test.message


def test_a_hidden_test_words_a_refusal_itself_without_the_sandbox_text():
    # Right on the samples (contiguous inputs, where .contiguous() copies nothing), refused on the strided test.
    verdict, test = first_failure('''
def add(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    launch(x, y, out)
    return out
''')
    assert verdict == "wrong_answer" and test.name == "strided-views"
    assert "no kernel of this call had stored" in test.message and "program" not in test.message
