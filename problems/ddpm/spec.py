"""Trusted: the inputs, and the words of messages; the truth is the reference run here in float64."""
import torch


def inputs(params, generator):
    shape, steps = params["shape"], params["num_steps"]
    batch, features = shape[0], shape[1] * shape[2] * shape[3]

    def normal(*size, scale=1.0):
        return torch.randn(*size, generator=generator, dtype=torch.float64) * scale
    t = torch.randint(0, steps, (batch,), generator=generator)
    t[0], t[-1] = 0, steps - 1  # both ends of the schedule in every test
    drawn = {"x0": 2 * torch.rand(*shape, generator=generator, dtype=torch.float64) - 1, "t": t,
             "noise": normal(*shape), "model.weight": normal(features, features, scale=0.5 / features ** 0.5),
             "model.embedding": normal(steps, features, scale=0.5)}
    for step in params["reverse_steps"]:
        drawn[f"x@{step}"], drawn[f"z@{step}"] = normal(*shape), normal(*shape)
    dtype = getattr(torch, params["dtype"])
    return {name: value if name == "t" else value.to(dtype) for name, value in drawn.items()}


def describe(params, inputs):
    options = "".join(f", {name}={params[name]:g}" for name in ("beta_start", "beta_end") if name in params)
    shape = "×".join(map(str, params["shape"]))
    return f"DDPM({params['num_steps']}{options}) on {shape} {params['dtype']} images"


def call_of(name, params, inputs):
    last = params["num_steps"] - 1
    if name in ("betas", "alphas", "alpha_bars"):
        return "the schedule the constructor built"
    if name == "x_t":
        return f"q_sample(x0, t, noise), t holding 0 and {last} among its timesteps"
    if name.endswith(".grad"):
        return f"the gradient of loss(model, x0, t, noise) with respect to the denoiser's {name[6:-5]}"
    if name == "loss":
        return "loss(model, x0, t, noise)"
    step = int(name.rpartition("=")[2])
    where = " (the last step, to the clean sample)" if step == 0 else " (the first reverse step)" * (step == last)
    return f"p_sample(model, x, {step}, z){where}"
