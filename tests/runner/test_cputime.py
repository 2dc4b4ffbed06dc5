"""A sandbox's CPU time read from outside: exact where the clocks are, an upper bound where only ticks kept it."""

import subprocess
import sys
import time

from runner.sandbox import procs
from runner.sandbox.cputime import LAG_NS, TICK_NS, Sample, SandboxClock, seconds_between

MS = 1_000_000


def sample(own=None, threads=None, pids=(1, 2), ticks=0, reaped=0, runnable=0) -> Sample:
    return Sample(own, dict(threads or {}), frozenset(pids), ticks, reaped, runnable)


def test_the_figure_is_the_sum_of_the_exact_clocks_when_nothing_ended():
    before = sample(own=100 * MS, threads={1: 5 * MS, 2: 7 * MS}, ticks=110 * MS)
    after = sample(own=103 * MS, threads={1: 5 * MS, 2: 7 * MS + 250_000}, ticks=110 * MS)
    assert seconds_between(before, after) * 1e9 == 3 * MS + 250_000


def test_a_thread_started_during_the_request_counts_from_zero():
    before = sample(own=0, threads={1: 0})
    after = sample(own=0, threads={1: 0, 9: 4 * MS})
    assert seconds_between(before, after) * 1e9 == 4 * MS


def test_a_thread_of_another_process_that_exited_is_bounded_from_above_by_the_ticks():
    before = sample(own=0, threads={1: 0, 5: 30 * MS}, ticks=30 * MS)
    after = sample(own=0, threads={1: 0}, ticks=90 * MS)
    assert seconds_between(before, after) * 1e9 == 60 * MS + 4 * TICK_NS * 2


def test_a_child_reaped_during_the_request_is_bounded_from_above_by_the_ticks():
    before = sample(own=0, threads={1: 0}, ticks=0, reaped=0)
    after = sample(own=5 * MS, threads={1: 0}, ticks=20 * MS, reaped=20 * MS)
    assert seconds_between(before, after) * 1e9 == 20 * MS + 4 * TICK_NS * 2


def test_a_process_that_appeared_or_vanished_is_bounded_from_above_by_the_ticks():
    before = sample(own=0, pids=(1, 2), ticks=0)
    after = sample(own=MS, pids=(1, 2, 3), ticks=0)
    assert seconds_between(before, after) * 1e9 == 4 * TICK_NS * 3


def test_ticks_beyond_what_rounding_explains_overrule_the_exact_clocks():
    before = sample(own=0, threads={1: 0}, ticks=0)
    after = sample(own=MS, threads={1: 0}, ticks=200 * MS)
    assert seconds_between(before, after) * 1e9 == 200 * MS + 4 * TICK_NS * 2


def test_ticks_within_rounding_change_nothing():
    before = sample(own=0, threads={1: 0}, ticks=0)
    after = sample(own=MS, threads={1: 0}, ticks=4 * TICK_NS * 2)
    assert seconds_between(before, after) * 1e9 == MS


def test_a_lost_own_clock_falls_back_on_the_ticks():
    before = sample(own=0, ticks=0)
    after = sample(own=None, ticks=50 * MS)
    assert seconds_between(before, after) * 1e9 == 50 * MS + 4 * TICK_NS * 2


def test_each_thread_still_runnable_after_settling_adds_a_tick_of_lag():
    before = sample(own=0)
    after = sample(own=MS, runnable=2)
    assert seconds_between(before, after) * 1e9 == MS + 2 * LAG_NS


BURNER = """
import sys, threading, time
def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
sys.stdin.readline()
for _ in range(4):
    thread = threading.Thread(target=burn, args=(0.05,))
    thread.start()
    thread.join()
print("done", flush=True)
sys.stdin.readline()
"""


def test_a_process_clock_counts_threads_that_have_exited_to_the_millisecond():
    child = subprocess.Popen([sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    clock = SandboxClock(lambda: (procs.HOST, [child.pid]), child.pid, child.pid)
    try:
        time.sleep(0.2)
        before = clock.sample()
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline() == "done\n"
        spent = seconds_between(before, clock.sample(settle=True))
    finally:
        child.stdin.close()
        child.wait()
        clock.close()
    # 200 ms burned in threads that had all exited when read, plus the child's own few instructions.
    assert 0.2 <= spent < 0.21


def test_the_process_clock_of_a_process_that_is_gone_is_not_read():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    clock = SandboxClock(lambda: (procs.HOST, [child.pid]), child.pid, child.pid)
    child.wait()
    try:
        assert clock.sample().own_ns is None
    finally:
        clock.close()

