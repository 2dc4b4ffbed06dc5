"""debug-mlp-classifier's own code: the judge's data (four classes, the quadrant an input falls in along two
hidden directions), the initial weights, the model in float64, and what each failed check means here."""

import torch
import torch.nn.functional as F

# Held-out samples the trained weights are scored on, on this side only: the accuracy's standard error is
# under 0.008 at any accuracy.
HELD_OUT = 4096
# Inputs the submission's evaluate is called on, to compare with the model's evaluation.
EVALUATED = 64
LAYERS = (("net.0", "d_in", "d_hidden"), ("net.3", "d_hidden", "d_hidden"), ("head", "d_hidden", "n_classes"))

LESSONS = {
    "unmoved": "Every parameter of the model must be updated: an optimizer built over part of the model, or "
               "gradients zeroed between backward and step, leave the rest where it started",
    "held_out_accuracy": "The model does not learn the task: overfit a tiny batch first, then check that each "
                         "label stays with its input and that gradients do not pile up from step to step",
    "train_loss": "A model this size memorises 16 examples: when it cannot, the labels it is trained on are not "
                  "its inputs', or the updates do not follow this step's gradient alone",
    "evaluation": "Evaluation must be deterministic and use the whole trained network: dropout is active until "
                  "model.eval() switches it off (torch.no_grad() alone does not)",
}


def inputs(params, generator):
    config = params["config"]
    d_in = config["d_in"]
    directions = torch.randn(d_in, 2, generator=generator, dtype=torch.float64)

    def drawn(n):
        x = torch.randn(n, d_in, generator=generator, dtype=torch.float64)
        return x.to(torch.float32), 2 * (x @ directions[:, 0] > 0).long() + (x @ directions[:, 1] > 0).long()

    x, y = drawn(params["samples"])
    held_x, held_y = drawn(HELD_OUT)
    tensors = {"x": x, "y": y, "x_eval": drawn(EVALUATED)[0], "held_out.x": held_x, "held_out.y": held_y}
    for name, fan_in, fan_out in LAYERS:  # nn.Linear's own initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        bound = config[fan_in] ** -0.5
        tensors[f"model.{name}.weight"] = (torch.rand(config[fan_out], config[fan_in], generator=generator) * 2 - 1) * bound
        tensors[f"model.{name}.bias"] = (torch.rand(config[fan_out], generator=generator) * 2 - 1) * bound
    return tensors


def predict(params, weights, inputs):
    """The model in evaluation mode (dropout off), in float64."""
    h = inputs[0]
    for name, _, _ in LAYERS[:-1]:
        h = F.relu(F.linear(h, weights[f"{name}.weight"], weights[f"{name}.bias"]))
    return F.linear(h, weights["head.weight"], weights["head.bias"])


def scores(params, inputs, predict):
    held = predict(inputs["held_out.x"])
    return {"held_out_accuracy": (held.argmax(-1) == inputs["held_out.y"]).double().mean().item(),
            "train_loss": F.cross_entropy(predict(inputs["x"]), inputs["y"]).item()}


def describe(params, inputs):
    return f"trained on {params['samples']} samples of {params['config']['d_in']} features for {params['steps']} steps"
