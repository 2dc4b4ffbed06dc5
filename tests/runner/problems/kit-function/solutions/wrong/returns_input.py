# expect: wrong_answer
# message: is one of the inputs
import torch


def scaled_tanh(x, scale, shift=0.0):
    return x
