# expect: runtime_error
# message: unshare refused
# Tries to make a user namespace of its own (a step towards regaining capabilities inside it).
import ctypes


def softmax(x, dim=-1):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise PermissionError(f"unshare refused: errno {ctypes.get_errno()}")
    return x
