"""Runs inside the sandbox: calls the submission's softmax as the statement pins it, forward and backward."""

import torch


def run(solution, params, inputs, ctx):
    x = inputs["x"]
    if params.get("layout") == "transposed":
        x = x.t()
    dim = params["dim"]
    y = solution.softmax(x, dim=dim)
    if not isinstance(y, torch.Tensor):
        raise ctx.WrongAnswer(f"softmax returned {type(y).__name__}, not a torch.Tensor")
    if y is x or (y.numel() and y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()):
        raise ctx.WrongAnswer("softmax returned its input x (or a view of it); it must return a new tensor")
    value = y.detach().clone()

    leaf = x.detach().clone().requires_grad_(True)
    y_grad = solution.softmax(leaf, dim=dim)
    if not isinstance(y_grad, torch.Tensor) or not y_grad.requires_grad:
        raise ctx.WrongAnswer("the output does not require grad: softmax must be differentiable with respect to x "
                              "(no .detach(), .data, .item() or NumPy on the way)")
    y_grad.backward(inputs["grad"])
    if leaf.grad is None:
        raise ctx.WrongAnswer("x.grad is None after backward: the output is not connected to x")
    return {"y": value, "grad": leaf.grad}
