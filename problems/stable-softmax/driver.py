"""Runs inside the sandbox: calls the submission's softmax as the statement pins it, forward and backward, and
reports what it saw. It decides nothing: checker.py judges every output, and says why one is missing.

Outputs:
    y            softmax(x, dim) (left out when the call returned no tensor)
    returned x   True when that result is x itself or shares x's storage
    grad         x.grad after backward(grad) through softmax of a fresh leaf (left out when that result does
                 not require grad, does not have x's shape and dtype, or leaves x.grad None)
"""

import torch


def run(solution, params, inputs, ctx):
    x = inputs["x"]
    if params.get("layout") == "transposed":
        x = x.transpose(0, -1)
    y = call(solution, x, params)
    outputs = {"returned x": torch.tensor(aliases(y, x), device=ctx.device)}
    if isinstance(y, torch.Tensor):
        outputs["y"] = y.detach().clone()

    # clone() keeps x's strides, so the gradient is taken on the same layout.
    leaf = x.detach().clone().requires_grad_(True)
    y_grad = call(solution, leaf, params)
    if isinstance(y_grad, torch.Tensor) and y_grad.requires_grad and y_grad.shape == x.shape \
            and y_grad.dtype == x.dtype:
        y_grad.backward(inputs["grad"])
        if leaf.grad is not None:
            outputs["grad"] = leaf.grad
    return outputs


def call(solution, x, params):
    """softmax as the test calls it: with dim, or, in the test of the default, without."""
    return solution.softmax(x, dim=params["dim"]) if "dim" in params else solution.softmax(x)


def aliases(y, x):
    """Whether y is x or a view of its storage."""
    if not isinstance(y, torch.Tensor):
        return False
    return y is x or (y.numel() > 0 and y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
