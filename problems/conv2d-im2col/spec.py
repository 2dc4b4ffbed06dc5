import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def out_size(params):
    (kh, kw), (sh, sw) = pair(params["kernel"]), pair(params.get("stride", 1))
    (ph, pw), (dh, dw) = pair(params.get("padding", 0)), pair(params.get("dilation", 1))
    return ((params["h"] + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (params["w"] + 2 * pw - dw * (kw - 1) - 1) // sw + 1)


def inputs(params, generator):
    dtype, groups = DTYPES[params["dtype"]], params.get("groups", 1)
    n, c_in, c_out, (kh, kw) = params["n"], params["c_in"], params["c_out"], pair(params["kernel"])

    def draw(*shape):
        return torch.randn(shape, generator=generator, dtype=torch.float64).to(dtype)
    drawn = {"x": draw(n, c_in, params["h"], params["w"]), "weight": draw(c_out, c_in // groups, kh, kw)}
    if not params.get("no_bias"):
        drawn["bias"] = draw(c_out)
    if params.get("grad", True):
        drawn["dy"] = draw(n, c_out, *out_size(params))
    return drawn


def describe(params, inputs):
    """The call as the user wrote it, and the output size the usual formula gives."""
    keywords = "".join(f", {k}={params[k]!r}" for k in ("stride", "padding", "dilation", "groups") if k in params)
    bias = "bias" if "bias" in inputs else "None"
    h_out, w_out = out_size(params)
    note = "" if "dy" in inputs else ", forward only"
    return (f"conv2d(x, weight, {bias}{keywords}) with x of shape {tuple(inputs['x'].shape)} and weight "
            f"{tuple(inputs['weight'].shape)} {params['dtype']}{note}: H_out = floor((H + 2·padding − dilation·(kH − 1)"
            f" − 1) / stride) + 1 = {h_out}, and likewise W_out = {w_out}")


_ABSOLUTE = {}


def magnitude(name, params, inputs):
    """What a sum's rounding scales with: the sum of its terms' magnitudes, not its value. That is the same call
    on |x|, |weight| and |bias| with the upstream gradient |dy|, in float64: each output's and each gradient's
    entry is then the sum of the magnitudes of the products that make it, and the floor is rounding_units x eps
    x its largest entry."""
    key = (id(inputs["x"]), id(inputs.get("dy")), repr(sorted(params.items())))
    if key not in _ABSOLUTE:
        leaves = {k: v.double().abs().requires_grad_() for k, v in inputs.items() if k != "dy"}
        keywords = {k: pair(params[k]) for k in ("stride", "padding", "dilation") if k in params}
        y = torch.nn.functional.conv2d(leaves["x"], leaves["weight"], leaves.get("bias"),
                                       groups=params.get("groups", 1), **keywords)
        found = {"y": y.detach()}
        if "dy" in inputs:
            y.backward(inputs["dy"].double().abs())
            found.update({f"{k}.grad": v.grad for k, v in leaves.items()})
        _ABSOLUTE.clear()
        _ABSOLUTE[key] = ({k: v.max().item() for k, v in found.items()}, inputs)
    return _ABSOLUTE[key][0].get(name, 0.0)
