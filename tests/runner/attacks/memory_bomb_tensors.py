# expect: memory_limit_exceeded
# sandbox-memory-mib: 768
import torch

hoard = []


def softmax(x, dim=-1):
    while True:
        hoard.append(torch.ones(64 << 20))  # 256 MiB each, touched
