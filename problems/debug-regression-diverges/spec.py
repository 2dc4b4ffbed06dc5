"""debug-regression-diverges's own code: the judge's data (eight features of scales from 1 to 1000 and offsets
up to ±500, a smooth target of about unit variance), the initial weights, the model in float64, and what each
failed check means here."""

import math

import torch
import torch.nn.functional as F

HELD_OUT = 4096  # samples the trained weights are scored on, on this side only
EVALUATED = 64  # inputs the submission's evaluate is called on
TEACHER_WIDTH, NOISE = 16, 0.05
LAYERS = (("net.0", "d_in", "d_hidden"), ("net.2", "d_hidden", "d_hidden"), ("net.4", "d_hidden", 1))

LESSONS = {
    "diverged": "Look at the loss of the first steps: it starts in the hundreds of thousands and each step "
                "overshoots. Features a thousand times larger than others, or a loss that grows with the batch, "
                "make every step far too long for this learning rate",
    "held_out_relative_mse": "The model does not learn the function: check that each prediction is compared with "
                             "its own target (print the loss's shape), and that evaluation sees inputs "
                             "standardised exactly as training did, by statistics the model itself holds",
    "train_relative_mse": "A model this size fits 16 points: when it cannot, the loss does not pair each "
                          "prediction with its target, or the inputs it sees are not standardised",
    "evaluation": "evaluate must return the model's own predictions, in evaluation mode",
}


def inputs(params, generator):
    config = params["config"]
    d_in = config["d_in"]
    scale = torch.exp(torch.rand(d_in, generator=generator, dtype=torch.float64) * math.log(1000))
    offset = (torch.rand(d_in, generator=generator, dtype=torch.float64) * 2 - 1) * 500
    directions = torch.randn(d_in, TEACHER_WIDTH, generator=generator, dtype=torch.float64) / d_in ** 0.5
    weights = torch.randn(TEACHER_WIDTH, generator=generator, dtype=torch.float64) / TEACHER_WIDTH ** 0.5

    def drawn(n):
        z = torch.randn(n, d_in, generator=generator, dtype=torch.float64)
        y = torch.tanh(1.5 * z @ directions) @ weights + NOISE * torch.randn(n, generator=generator, dtype=torch.float64)
        return (z * scale + offset).to(torch.float32), y.to(torch.float32)

    x, y = drawn(params["samples"])
    held_x, held_y = drawn(HELD_OUT)
    tensors = {"x": x, "y": y, "x_eval": drawn(EVALUATED)[0], "held_out.x": held_x, "held_out.y": held_y,
               "model.x_mean": torch.zeros(d_in), "model.x_std": torch.ones(d_in)}
    for name, fan_in, fan_out in LAYERS:  # nn.Linear's own initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        fan_in, fan_out = config[fan_in], config.get(fan_out, fan_out)
        bound = fan_in ** -0.5
        tensors[f"model.{name}.weight"] = (torch.rand(fan_out, fan_in, generator=generator) * 2 - 1) * bound
        tensors[f"model.{name}.bias"] = (torch.rand(fan_out, generator=generator) * 2 - 1) * bound
    return tensors


def predict(params, weights, inputs):
    """The model, in float64: standardise by its buffers, then the MLP; predictions (n, 1)."""
    h = (inputs[0] - weights["x_mean"]) / weights["x_std"]
    for name, _, _ in LAYERS[:-1]:
        h = F.relu(F.linear(h, weights[f"{name}.weight"], weights[f"{name}.bias"]))
    return F.linear(h, weights["net.4.weight"], weights["net.4.bias"])


def relative_mse(predictions, targets):
    targets = targets.to(torch.float64)
    return (((predictions.squeeze(-1) - targets) ** 2).mean() / targets.var()).item()


def scores(params, inputs, predict):
    return {"held_out_relative_mse": relative_mse(predict(inputs["held_out.x"]), inputs["held_out.y"]),
            "train_relative_mse": relative_mse(predict(inputs["x"]), inputs["y"])}


def describe(params, inputs):
    return f"trained on {params['samples']} samples of {params['config']['d_in']} features for {params['steps']} steps"
