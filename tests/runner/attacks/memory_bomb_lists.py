# expect: memory_limit_exceeded
hoard = []


def softmax(x, dim=-1):
    while True:
        hoard.append([0.5] * (16 << 20))
