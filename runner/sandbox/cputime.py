"""The CPU time of a whole sandbox, read from outside it: every thread of every process, exited ones included.

procfs offers three clocks, none enough alone:

- a process's own CPU clock (clock_gettime on its clock id, by host pid): nanoseconds, exited threads
  included. The harness process, where the submission runs, is read this way.
- each live thread's schedstat: nanoseconds, but a thread that exits takes its clock along. The sandbox's
  other processes (its bubblewrap inits, anything the submission forks) are read this way.
- /proc/<pid>/stat's user and system times, the process's own and its reaped children's: complete, but in
  10 ms ticks, each of the four rounded down.

A figure between two samples is therefore exact unless something ended in between that only the ticks kept:
a thread of another process, a process (reaped or not), a child reaped; or the ticks saw more than rounding
explains. Then the figure is the ticks' total rounded up by every field's tick, an upper bound, so work hidden
in a short-lived thread or process costs more than it hides. A running thread's clock lags by up to one
scheduler tick, so the sample after a request first waits for the sandbox to settle (no thread runnable),
and adds a lag for each thread still runnable when it stops waiting.
"""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass
from typing import Callable

from . import procs

TICK_NS = 1_000_000_000 // procs.CLOCK_TICKS
# The most a running thread's clock lags behind: one scheduler tick, 10 ms at the slowest kernel setting.
LAG_NS = 10_000_000
SETTLE_S = 0.05
SETTLE_POLL_S = 0.0005


@dataclass(frozen=True)
class Sample:
    """One reading of a sandbox's clocks."""

    own_ns: int | None  # the harness process's clock; None where it is not read or could not be
    threads: dict[int, int]  # every other live thread's clock, by thread id (the harness's too without own_ns)
    pids: frozenset[int]
    ticks_ns: int  # every process's own and reaped children's time, tick-grained
    reaped_ns: int  # the reaped children's part of it
    runnable: int  # threads running or waiting for a CPU when read


class SandboxClock:
    """The clocks of one sandbox: its procfs view, and the harness process's own clock by host pid."""

    def __init__(self, processes: Callable[[], tuple[procs.ProcView, list[int]]], harness_pid: int | None,
                 harness_host_pid: int | None):
        """processes(): the sandbox's view and its pids; harness_pid as the view numbers it."""
        self._processes = processes
        self._harness = harness_pid
        self._host_pid = harness_host_pid
        # Held so that a pid reused after the harness exits is never read as the harness's.
        self._pidfd = None
        if harness_host_pid is not None:
            try:
                self._pidfd = os.pidfd_open(harness_host_pid)
            except OSError:
                self._host_pid = None

    def sample(self, *, settle: bool = False) -> Sample:
        """The clocks now; settle: first wait (briefly) until no thread of the sandbox is runnable."""
        deadline = time.monotonic() + SETTLE_S
        while True:
            reading = self._read()
            if not settle or not reading.runnable or time.monotonic() > deadline:
                return reading
            time.sleep(SETTLE_POLL_S)

    def _read(self) -> Sample:
        view, pids = self._processes()
        own = self._own_clock()
        threads, runnable, ticks, reaped = {}, 0, 0, 0
        for pid in pids:
            for tid, (ns, running) in procs.thread_clocks(pid, view).items():
                runnable += running
                if own is None or pid != self._harness:
                    threads[tid] = ns
            clocks = procs.stat_clocks_ns(pid, view)
            if clocks:
                ticks += clocks[0] + clocks[1]
                reaped += clocks[1]
        return Sample(own, threads, frozenset(pids), ticks, reaped, runnable)

    def _own_clock(self) -> int | None:
        if self._host_pid is None:
            return None
        value = procs.process_clock_ns(self._host_pid)
        # Read before the check: a process that has not exited by then is the one the clock belonged to.
        if select.select([self._pidfd], [], [], 0)[0]:
            return None
        return value

    def close(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


def seconds_between(before: Sample, after: Sample) -> float:
    """The sandbox's CPU time from one sample to a later one (see the module's notes)."""
    exact = sum(max(0, ns - before.threads.get(tid, 0)) for tid, ns in after.threads.items())
    own_read = before.own_ns is not None and after.own_ns is not None
    if own_read:
        exact += max(0, after.own_ns - before.own_ns)
    processes = len(before.pids | after.pids)
    rounding = 4 * TICK_NS * processes
    ticks = after.ticks_ns - before.ticks_ns
    ended = (not own_read and (before.own_ns is not None or after.own_ns is not None)
             or before.pids != after.pids or after.reaped_ns != before.reaped_ns
             or not before.threads.keys() <= after.threads.keys())
    total = exact
    if ended or exact < ticks - rounding:
        total = max(exact, ticks + rounding)
    return (total + LAG_NS * after.runnable) / 1e9
