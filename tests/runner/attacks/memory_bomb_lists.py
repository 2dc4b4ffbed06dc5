# expect: memory_limit_exceeded
# sandbox-memory-mib: 768
hoard = []


def softmax(x, dim=-1):
    while True:
        hoard.append([0.5] * (16 << 20))
