# expect: runtime_error
# problem: triton-vector-add
# A kernel problem on the CPU runs every kernel through the interpreter in the sandbox's one process: starting a
# compiler (or any process) from the host function is refused as it is for every other problem.
import subprocess

import torch


def add(x, y):
    subprocess.run(["/bin/true"], check=True)
    return torch.empty_like(x)
