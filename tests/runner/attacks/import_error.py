# expect: compile_error
# message: ModuleNotFoundError
import definitely_not_a_module_here  # noqa: F401


def softmax(x, dim=-1):
    return x
