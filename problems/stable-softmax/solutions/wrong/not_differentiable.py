# expect: wrong_answer
# message: does not require grad
# Goes through NumPy, which autograd cannot follow: the values are right, the gradient is lost.
import numpy as np
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    values = x.detach().cpu().numpy()
    e = np.exp(values - values.max(axis=dim, keepdims=True))
    return torch.from_numpy(e / e.sum(axis=dim, keepdims=True)).to(x.device)
