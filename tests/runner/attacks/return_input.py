# expect: wrong_answer
# message: is one of the inputs
def softmax(x, dim=-1):
    return x
