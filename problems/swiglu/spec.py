"""swiglu's own code: the weights and inputs, and the classic mistakes no solution file shows."""

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float64": torch.float64}
WEIGHTS = ("w1", "w3", "w2")
GATE_IS_SILU = "SwiGLU's gate is SiLU(z) = z * sigmoid(z)"
OTHER_GATES = [
    (f"a tanh-approximated GELU gate gives, which makes GeGLU: {GATE_IS_SILU}", lambda z: F.gelu(z, approximate="tanh")),
    (f"a ReLU gate gives, which makes ReGLU: {GATE_IS_SILU}", F.relu),
    ("a gate without activation gives, a bilinear layer: SwiGLU's gate is SiLU(w1(x))", lambda z: z),
]


def inputs(params, generator):
    d, hidden = params["d_model"], params["d_hidden"]
    dtype = DTYPES[params["dtype"]]

    def normal(*shape, std):
        return (torch.randn(shape, generator=generator, dtype=torch.float64) * std).to(dtype)

    drawn = {"module.w1.weight": normal(hidden, d, std=d ** -0.5), "module.w3.weight": normal(hidden, d, std=d ** -0.5),
             "module.w2.weight": normal(d, hidden, std=hidden ** -0.5), "x": normal(*params["shape"], d, std=1.0)}
    if params["grad"]:
        drawn["dy"] = normal(*params["shape"], d, std=1.0)
    return drawn


def mistakes(params, inputs):
    """Other gates, and, where the weights are square so that the shapes cannot tell, a weight transposed."""
    x = inputs["x"].to(torch.float64)
    weights = {name: inputs[f"module.{name}.weight"].to(torch.float64) for name in WEIGHTS}
    found = [(says, gate, ()) for says, gate in OTHER_GATES]
    if params["d_model"] == params["d_hidden"]:
        found += [(f"applying {name}.weight transposed gives: nn.Linear computes x @ weight.T, with the weight stored "
                   "as (out_features, in_features)", F.silu, (name,)) for name in WEIGHTS]
    for says, gate, transposed in found:
        w = {name: weight.T if name in transposed else weight for name, weight in weights.items()}
        yield says, {"y": F.linear(gate(F.linear(x, w["w1"])) * F.linear(x, w["w3"]), w["w2"])}
