# expect: time_limit_exceeded
import time


def softmax(x, dim=-1):
    time.sleep(10**9)
