# expect: runtime_error
# message: PermissionError
# pid 1 of the sandbox's pid namespace is bubblewrap, still owned by the judge's user.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    with open("/proc/1/environ", "rb") as handle:
        environ = handle.read()
    if b"SECRET" in environ or b"DATABASE_URL" in environ:
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    raise LookupError("read /proc/1/environ but found no secret in it")
