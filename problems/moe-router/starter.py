import torch


def moe_route(logits: torch.Tensor, k: int, capacity: int):
    """Route N tokens (rows of logits, (N, E)) to their top-k of E experts, each expert taking at most capacity.

    Returns (experts, weights, kept, aux_loss):
        experts   int64 (N, k), largest logits first, ties to the lower expert index
        weights   (N, k), softmax over the k chosen logits, 0 where the assignment was dropped
        kept      bool (N, k), False where the expert was full (later tokens are dropped first)
        aux_loss  0-dim, E * sum_e f_e * P_e (f_e: share of the N*k assignments, P_e: mean softmax probability)
    torch.topk is not allowed here.
    """
    raise NotImplementedError
