"""In the sandbox: the call on a leaf of x with the test's seeded generator, its output and x.grad; decides nothing."""
import kit_sampler
import torch


def run(solution, params, inputs, ctx, _draw=kit_sampler.draw, _tensor=torch.Tensor, _zeros=torch.zeros_like):
    function = getattr(solution, params["op"])

    def call(generator):
        x = inputs["x"].detach().requires_grad_(True)
        y = function(x, params["p"], training=params.get("training", True), generator=generator)
        if not isinstance(y, _tensor):
            return None
        if y.requires_grad and y.shape == x.shape and y.dtype == x.dtype:
            y.backward(inputs["dy"])
        return y.detach().clone(), (x.grad if x.grad is not None else _zeros(x))  # no gradient: zeros
    return _draw(call, ["y", "grad"], params, inputs, ctx)
