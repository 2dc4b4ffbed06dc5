# expect: time_limit_exceeded
# One autograd node per element: right, differentiable, and thousands of times slower than vectorised code.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    last = x.movedim(dim, -1)
    rows = []
    for row in last.reshape(-1, last.shape[-1]):
        values = list(row.unbind())
        maximum = values[0]
        for value in values[1:]:
            maximum = torch.maximum(maximum, value)
        exps = [torch.exp(value - maximum) for value in values]
        total = exps[0]
        for term in exps[1:]:
            total = total + term
        rows.append(torch.stack([term / total for term in exps]))
    return torch.stack(rows).reshape(last.shape).movedim(-1, dim)
