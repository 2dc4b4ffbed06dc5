# expect: wrong_answer
# message: returned its input
def softmax(x, dim=-1):
    return x
