"""pid 1 and pid 2 of a sandbox forked from the zygote (zygote.py), as bubblewrap's init is: reap every child,
and once none is left exit as the first one did (128 + the signal that killed it, as a shell reports it).

Run with -I -S, so that the process holding the place is small: the copy of the zygote it replaces held all
of torch, and the sandbox's memory is counted by resident sets."""

import os
import sys

first = int(sys.argv[1])
status = 1
while True:
    try:
        pid, wait_status = os.wait()
    except ChildProcessError:
        break
    if pid == first:
        code = os.waitstatus_to_exitcode(wait_status)
        status = 128 - code if code < 0 else code
sys.exit(status)
