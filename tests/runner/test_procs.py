"""Trusted-side procfs views: what one thread lists is whole while others list the same view."""

import os
import threading

from runner.sandbox import procs


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
