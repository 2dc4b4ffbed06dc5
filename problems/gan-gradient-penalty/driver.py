"""In the sandbox, deciding nothing: the judge's D, then the three losses in a training step's order, each one's
value and the gradients its backward leaves, with what only this side sees (flags spec.check reads)."""
import torch
from torch import nn


def build(inputs):  # D: logits (B, 1), the judge's weights copied in by name ("1.weight" is fc1's)
    (hidden, features), x = inputs["D.1.weight"].shape, inputs["x_real"]
    D = nn.Sequential(nn.Flatten(), nn.Linear(features, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                      nn.Linear(hidden, 1)).to(x)
    D.load_state_dict({name[2:]: tensor for name, tensor in inputs.items() if name.startswith("D.")})
    return D


def run(solution, params, inputs, ctx):
    D, source, out, (x_real, eps) = build(inputs), inputs["x_fake"].clone().requires_grad_(True), {}, \
        (inputs["x_real"], inputs["eps"])
    weights, flag = dict(D.named_parameters()), lambda value: torch.tensor(int(bool(value)), device=ctx.device)
    calls = {"generator_loss": lambda fake: (D, fake), "discriminator_loss": lambda fake: (D, x_real, fake),
             "gradient_penalty": lambda fake: (D, x_real, fake, eps)}
    for name, arguments in calls.items():
        source.grad = None  # fresh gradients, D trainable; x_fake as a generator's output (not a leaf)
        for parameter in weights.values():
            parameter.requires_grad_(True).grad = None
        keywords = {"lam": params["lam"]} if "lam" in params and name == "gradient_penalty" else {}
        loss = getattr(solution, name)(*arguments(source.clone()), **keywords)
        if not isinstance(loss, torch.Tensor) or loss.dim() != 0 or not loss.is_floating_point():
            raise ctx.WrongAnswer(f"{name} must return a 0-dim floating tensor, not {type(loss).__name__}")
        out[name], inside = loss.detach().clone(), any(p.grad is not None for p in [source, *weights.values()])
        out[f"{name} ran backward"] = flag(inside)
        if loss.requires_grad and not inside:  # after a backward of its own, the gradients it left are judged
            loss.backward()
        grads = {"x_fake": source} if name == "generator_loss" else {f"D.{key}": p for key, p in weights.items()}
        for key, p in grads.items():
            out[f"{name}: {key}.grad"] = torch.zeros_like(p) if p.grad is None else p.grad.detach().clone()
        out[f"{name} reaches x_fake"] = flag(source.grad is not None and bool((source.grad != 0).any()))
    return out
