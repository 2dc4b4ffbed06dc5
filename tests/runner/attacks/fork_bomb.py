# expect: runtime_error
# message: runs in this one process
# Forks until something stops it; the children would keep forking too. The judge refuses new processes
# to a submission; behind that, the process limit must hold even though the judge runs as root, and
# nothing may be left running afterwards.
import os


def softmax(x, dim=-1):
    while True:
        os.fork()
