# expect: runtime_error
# message: exited with code 3
import os


def softmax(x, dim=-1):
    os._exit(3)
