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


_MAGNITUDES = {}


def magnitude(name, params, inputs):
    """What each output's rounding scales with: its sums' terms added up in magnitude, not the sums' values. A
    weight's gradient sums over every token (4096 in the largest test), and two correct orders of that sum differ
    by rounding units of the terms' total, which the gradient's own value, a sum of signed terms, is far below.
    With h = silu(g) * u, g = x @ w1.T, u = x @ w3.T, a = |dy| @ |w2| (float64): y's terms total |h| @ |w2|.T,
    w2.weight.grad's |dy|.T @ |h|, w1.weight.grad's (a * |u| * |silu'(g)|).T @ |x|, w3.weight.grad's
    (a * |silu(g)|).T @ |x|, and x.grad's the sum of those two against |w1| and |w3|."""
    key = (id(inputs["x"]), id(inputs.get("dy")))
    if key not in _MAGNITUDES:
        x = inputs["x"].double()
        w1, w3, w2 = (inputs[f"module.{name}.weight"].double() for name in WEIGHTS)
        g, u = x @ w1.T, x @ w3.T
        silu = F.silu(g)
        found = {"y": (silu * u).abs() @ w2.abs().T}
        if "dy" in inputs:
            dy = inputs["dy"].double().abs().reshape(-1, w2.shape[0])
            h, xs = (silu * u).abs().reshape(dy.shape[0], -1), x.abs().reshape(dy.shape[0], -1)
            a = dy @ w2.abs()
            sigmoid = torch.sigmoid(g).reshape(a.shape)
            d_gate = a * u.abs().reshape(a.shape) * (sigmoid * (1 + g.reshape(a.shape) * (1 - sigmoid))).abs()
            d_up = a * silu.abs().reshape(a.shape)
            found.update({"w2.weight.grad": dy.T @ h, "w1.weight.grad": d_gate.T @ xs, "w3.weight.grad": d_up.T @ xs,
                          "x.grad": d_gate @ w1.abs() + d_up @ w3.abs()})
        _MAGNITUDES.clear()
        _MAGNITUDES[key] = ({name: value.max().item() for name, value in found.items()}, inputs)
    return _MAGNITUDES[key][0].get(name, 0.0)
