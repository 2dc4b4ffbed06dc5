"""In the sandbox, deciding nothing: builds the submission's DDPM, reports its schedule, one q_sample, the loss of
a small linear denoiser with its gradients, and one p_sample per step of params["reverse_steps"]."""
import torch


def _copy(value):
    return value.detach().clone() if isinstance(value, torch.Tensor) else None


def run(solution, params, inputs, ctx):
    options = {name: params[name] for name in ("beta_start", "beta_end") if name in params}
    ddpm, out = solution.DDPM(params["num_steps"], **options), {}
    for name in ("betas", "alphas", "alpha_bars"):
        out[name] = _copy(getattr(ddpm, name, None))
    weight = inputs["model.weight"].clone().requires_grad_()
    embedding = inputs["model.embedding"].clone().requires_grad_()

    def model(x, t):  # eps_theta(x_t, t): a linear map of the flattened x_t plus an embedding of t
        t = torch.as_tensor(t, device=x.device).long().expand(x.shape[0])
        return (x.to(weight.dtype).flatten(1) @ weight + embedding[t]).view(x.shape)

    x0, t, noise = inputs["x0"], inputs["t"], inputs["noise"]
    out["x_t"] = _copy(ddpm.q_sample(x0, t, noise))
    loss = ddpm.loss(model, x0, t, noise)
    out["loss"] = _copy(loss)
    if isinstance(loss, torch.Tensor) and loss.requires_grad:
        grads = torch.autograd.grad(loss, [weight, embedding], allow_unused=True)
        out.update({f"{name}.grad": g for name, g in zip(("model.weight", "model.embedding"), grads) if g is not None})
    with torch.no_grad():
        for step in params["reverse_steps"]:
            out[f"x_prev from t={step}"] = _copy(ddpm.p_sample(model, inputs[f"x@{step}"], step, inputs[f"z@{step}"]))
    return {name: value for name, value in out.items() if value is not None}
