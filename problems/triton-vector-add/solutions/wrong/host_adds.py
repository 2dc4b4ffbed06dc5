# expect: wrong_answer
# message: never passed to a kernel
# The host function adds with PyTorch and launches nothing: the problem is the kernel.
import torch


def add(x, y):
    return x + y
