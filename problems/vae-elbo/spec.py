import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    b, d, k = params["batch"], params["pixels"], params["latent"]

    def uniform(shape, low, high):
        return low + (high - low) * torch.rand(shape, generator=generator, dtype=torch.float64)
    x = torch.rand(b, d, generator=generator, dtype=torch.float64)
    x = (x < 0.5).double() if params.get("pixels_are", "binary") == "binary" else x
    mu_max = params.get("mu_max", 2.0)
    mu = uniform((b, k), -mu_max, mu_max)
    logvar = uniform((b, k), *params.get("logvar", [-3.0, 1.0]))
    eps = torch.randn(b, k, generator=generator, dtype=torch.float64)
    weight = torch.randn(d, k, generator=generator, dtype=torch.float64) / k ** 0.5
    bias = torch.randn(d, generator=generator, dtype=torch.float64)
    # The decoder's largest logit is exactly max_logit where the test sets one, and never above 1e3.
    peak = (mu + (0.5 * logvar).exp() * eps) @ weight.T + bias
    target = params.get("max_logit", min(999.0, peak.abs().max().item()))
    scale = target / peak.abs().max().item()
    dtype = DTYPES[params["dtype"]]
    return {"x": x.to(dtype), "mu": mu.to(dtype), "logvar": logvar.to(dtype), "eps": eps.to(dtype),
            "decoder_weight": (weight * scale).to(dtype), "decoder_bias": (bias * scale).to(dtype),
            "dloss": torch.randn((), generator=generator, dtype=torch.float64).to(dtype)}


def describe(params, inputs):
    beta = f", beta={params['beta']:g})" if "beta" in params else ") (beta left at its default, 1)"
    pixels = "binary" if params.get("pixels_are", "binary") == "binary" else "grey-level"
    call = (f"vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias{beta} with B = {params['batch']}, "
            f"{params['pixels']} {pixels} pixels, K = {params['latent']} latent dims, {params['dtype']}")
    if params.get("max_logit", 0) >= 50:
        call += (", a confident decoder whose logits reach magnitudes of ~1e2 to 1e3 (there sigmoid(l) rounds to "
                 "exactly 0 or 1 and exp(l) overflows: stay with logits)")
    return call


def diagnose(name, params, inputs, got, truth):
    if bool(torch.isfinite(got).all()):
        return ""
    return (f"{name} is not finite although every input is. A reconstruction term computed from probabilities, "
            "x·log(sigmoid(l)) + (1 - x)·log(1 - sigmoid(l)), takes log(0) = -inf once sigmoid(l) rounds to 0 or "
            "1 (|l| above about 17 in float32, 37 in float64), and 0·(-inf) is NaN; log(1 + exp(l)) overflows "
            "past l ≈ 88 (float32) or 709 (float64). Use the logits form: BCE = softplus(l) - x·l = max(l, 0) - "
            "x·l + log1p(exp(-|l|)).")
