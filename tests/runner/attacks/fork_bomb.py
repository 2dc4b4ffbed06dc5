# expect: runtime_error
# message: BlockingIOError
# Forks until the process limit stops it; the children keep forking too. The limit must hold even
# though the judge runs as root, and nothing may be left running afterwards.
import os


def softmax(x, dim=-1):
    while True:
        os.fork()
