"""Trusted-side procfs views: what one thread lists is whole while others list the same view."""

import os
import threading

from runner.sandbox import procs
from runner.sandbox.process import ProportionalSets


def test_a_view_lists_every_process_while_other_threads_list_it_too():
    # The memory watch and the CPU samples list one sandbox's view at once; a listing that missed the harness
    # made a sample count its whole lifetime of CPU as one request's, or none of it.
    view, me, misses = procs.ProcView(), os.getpid(), []

    def list_repeatedly():
        for _ in range(5000):
            if me not in view.pids() or str(threading.get_native_id()) not in view.tasks(me):
                misses.append(1)

    threads = [threading.Thread(target=list_repeatedly) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not misses, f"{len(misses)} of 15000 listings missed a process or thread that was there"


def test_proportional_sets_are_read_when_they_could_decide_a_kill_and_otherwise_at_most_a_tenth_of_the_time():
    pids, resident = [os.getpid()], procs.rss_bytes([os.getpid()])
    watched = ProportionalSets()
    first = watched.bytes(pids, procs.HOST, resident, limit=1 << 50)
    assert 0 < first <= resident
    read_at = watched.next_read
    # Soon after, well under the limit: the last figure plus the resident growth, nothing read.
    assert watched.bytes(pids, procs.HOST, resident + 1000, limit=1 << 50) == first + 1000
    assert watched.next_read == read_at
    # Growth that would pass the limit is read afresh at once: only a fresh figure may kill.
    fresh = watched.bytes(pids, procs.HOST, resident + (1 << 40), limit=first + (1 << 30))
    assert fresh <= resident and watched.resident_then == resident + (1 << 40)  # read now, with that figure
