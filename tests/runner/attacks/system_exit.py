# expect: runtime_error
# message: SystemExit
def softmax(x, dim=-1):
    raise SystemExit(0)
