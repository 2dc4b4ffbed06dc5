import torch


def inputs(params, generator):
    d_in, d_out, r = params["d_in"], params["d_out"], params["r"]

    def normal(*shape):
        return torch.randn(shape, generator=generator)
    return {"module.base.weight": normal(d_out, d_in), "module.A": normal(r, d_in), "module.B": normal(d_out, r),
            "x": normal(*params["shape"], d_in), "dy": normal(*params["shape"], d_out)}
