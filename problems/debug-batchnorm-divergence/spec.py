"""debug-batchnorm-divergence's own code: the judge's data (raw features in the thousands, four classes by the
quadrant of their standardised values along two hidden directions), the initial weights, the model in float64
with batch norm in evaluation mode, and what each failed check means here."""

import torch
import torch.nn.functional as F

# Each feature is an offset in [-2000, 2000] plus a scale in [500, 2000] times a standard normal.
OFFSET, SCALES = 2000.0, (500.0, 2000.0)
# Held-out samples the trained weights are scored on, on this side only: the accuracy's standard error is
# under 0.008 at any accuracy.
HELD_OUT = 4096
EPS = 1e-5
LAYERS = (("fc1", "d_in", "d_hidden"), ("fc2", "d_hidden", "d_hidden"), ("head", "d_hidden", "n_classes"))

LESSONS = {
    "unmoved": "Every parameter must be updated, norm_in's too: a layer defined in __init__ but never called in "
               "forward gets no gradient, and its running statistics never leave 0 and 1",
    "diverged": "Raw inputs in the thousands make the first layer's outputs and gradients huge: they must pass "
                "through norm_in before fc1, in training mode while training (model.train()), so that it "
                "normalises by each batch's statistics and gathers the running ones evaluation uses; in "
                "evaluation mode from the start it divides by its initial running variance, 1, and normalises "
                "nothing",
    "held_out_accuracy": "The model does not learn the task: with norm_in applied, check the learning rate (too "
                         "high, SGD with momentum kills the ReLU units and the accuracy falls to a guess; too low, "
                         "nothing is learned in the steps given)",
    "train_loss": "A model this size memorises 16 samples: when it cannot, the inputs reach fc1 unnormalised or "
                  "the learning rate is far off",
    "evaluation": "Evaluation must run batch norm in evaluation mode, on the running statistics training "
                  "gathered: in training mode it normalises each batch by its own mean and variance, so a "
                  "prediction depends on the rest of the batch (and a batch of one has no variance). Call "
                  "model.eval() before predicting; torch.no_grad() alone does not switch it",
}


def inputs(params, generator):
    config = params["config"]
    d_in = config["d_in"]
    offsets = (torch.rand(d_in, generator=generator, dtype=torch.float64) * 2 - 1) * OFFSET
    scales = SCALES[0] + torch.rand(d_in, generator=generator, dtype=torch.float64) * (SCALES[1] - SCALES[0])
    directions = torch.randn(d_in, 2, generator=generator, dtype=torch.float64)

    def drawn(n):
        z = torch.randn(n, d_in, generator=generator, dtype=torch.float64)
        labels = 2 * (z @ directions[:, 0] > 0).long() + (z @ directions[:, 1] > 0).long()
        return (offsets + scales * z).to(torch.float32), labels

    x, y = drawn(params["samples"])
    held_x, held_y = drawn(HELD_OUT)
    tensors = {"x": x, "y": y, "x_eval": drawn(params.get("evaluated", 64))[0], "held_out.x": held_x,
               "held_out.y": held_y, "model.norm_in.weight": torch.ones(d_in), "model.norm_in.bias": torch.zeros(d_in)}
    for name, fan_in, fan_out in LAYERS:  # nn.Linear's own initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        bound = config[fan_in] ** -0.5
        weight = torch.rand(config[fan_out], config[fan_in], generator=generator)
        tensors[f"model.{name}.weight"] = (weight * 2 - 1) * bound
        tensors[f"model.{name}.bias"] = (torch.rand(config[fan_out], generator=generator) * 2 - 1) * bound
    return tensors


def predict(params, weights, inputs):
    """The model in evaluation mode: norm_in on its running statistics, then the MLP, in float64."""
    h = F.batch_norm(inputs[0], weights["norm_in.running_mean"], weights["norm_in.running_var"],
                     weights["norm_in.weight"], weights["norm_in.bias"], training=False, eps=EPS)
    for name, _, _ in LAYERS[:-1]:
        h = F.relu(F.linear(h, weights[f"{name}.weight"], weights[f"{name}.bias"]))
    return F.linear(h, weights["head.weight"], weights["head.bias"])


def scores(params, inputs, predict):
    held = predict(inputs["held_out.x"])
    return {"held_out_accuracy": (held.argmax(-1) == inputs["held_out.y"]).double().mean().item(),
            "train_loss": F.cross_entropy(predict(inputs["x"]), inputs["y"]).item()}


def describe(params, inputs):
    return f"trained on {params['samples']} samples of {params['config']['d_in']} features for {params['steps']} steps"
