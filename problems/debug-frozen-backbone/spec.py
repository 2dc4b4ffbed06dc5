"""debug-frozen-backbone's own code: a pretrained backbone (the judge's own network, its batch-norm statistics
measured on the data), labels its features decide linearly, a fresh head, the model in float64, and what each
failed check means here."""

import torch
import torch.nn.functional as F

HELD_OUT = 4096  # samples the trained weights are scored on, on this side only
EVALUATED = 64  # inputs the submission's evaluate is called on
MEASURED = 16384  # samples the pretrained batch-norm statistics are measured on
EPS = 1e-5  # nn.BatchNorm1d's

LESSONS = {
    "unmoved": "The head is what fine-tuning trains: check which module requires_grad_(False) was called on",
    "frozen": "A frozen backbone must not change at all: requires_grad_(False) stops its weights, and only "
              "eval mode stops batch norm from updating its running statistics, and model.train() switches "
              "every submodule back to training mode",
    "held_out_accuracy": "The pretrained features decide these labels linearly: a head trained on them reaches "
                         "the target unless the features it is trained on are not the ones it is evaluated on",
    "evaluation": "evaluate must return the model's logits in evaluation mode: batch norm with its running "
                  "statistics, not the batch's",
}


def _layer(generator, fan_in, fan_out):
    bound = fan_in ** -0.5
    return ((torch.rand(fan_out, fan_in, generator=generator, dtype=torch.float64) * 2 - 1) * bound * 3 ** 0.5,
            (torch.rand(fan_out, generator=generator, dtype=torch.float64) * 2 - 1) * bound)


def inputs(params, generator):
    config = params["config"]
    d_in, d_hidden, classes = config["d_in"], config["d_hidden"], config["n_classes"]
    backbone = {}
    measured = torch.randn(MEASURED, d_in, generator=generator, dtype=torch.float64)
    h = measured
    for linear, norm, fan_in in (("0", "1", d_in), ("3", "4", d_hidden)):
        weight, bias = _layer(generator, fan_in, d_hidden)
        h = F.linear(h, weight, bias)
        gamma = 1 + 0.1 * torch.randn(d_hidden, generator=generator, dtype=torch.float64)
        beta = 0.1 * torch.randn(d_hidden, generator=generator, dtype=torch.float64)
        mean, var = h.mean(0), h.var(0)
        backbone.update({f"{linear}.weight": weight, f"{linear}.bias": bias, f"{norm}.weight": gamma,
                         f"{norm}.bias": beta, f"{norm}.running_mean": mean, f"{norm}.running_var": var})
        h = F.relu((h - mean) / (var + EPS).sqrt() * gamma + beta)
    teacher = torch.randn(classes, d_hidden, generator=generator, dtype=torch.float64)

    def drawn(n):
        x = torch.randn(n, d_in, generator=generator, dtype=torch.float64)
        return x.to(torch.float32), F.linear(features(backbone, x), teacher).argmax(-1)

    x, y = drawn(params["samples"])
    held_x, held_y = drawn(HELD_OUT)
    tensors = {"x": x, "y": y, "x_eval": drawn(EVALUATED)[0], "held_out.x": held_x, "held_out.y": held_y}
    tensors.update({f"model.backbone.{name}": value.to(torch.float32) for name, value in backbone.items()})
    tensors.update({"model.backbone.1.num_batches_tracked": torch.tensor(1000),
                    "model.backbone.4.num_batches_tracked": torch.tensor(1000)})
    bound = d_hidden ** -0.5  # a fresh nn.Linear head
    tensors["model.head.weight"] = (torch.rand(classes, d_hidden, generator=generator) * 2 - 1) * bound
    tensors["model.head.bias"] = (torch.rand(classes, generator=generator) * 2 - 1) * bound
    return tensors


def features(weights, x):
    """The backbone in evaluation mode: each batch norm with its running statistics."""
    h = x
    for linear, norm in (("0", "1"), ("3", "4")):
        h = F.linear(h, weights[f"{linear}.weight"], weights[f"{linear}.bias"])
        h = F.batch_norm(h, weights[f"{norm}.running_mean"], weights[f"{norm}.running_var"],
                         weights[f"{norm}.weight"], weights[f"{norm}.bias"], training=False, eps=EPS)
        h = F.relu(h)
    return h


def predict(params, weights, inputs):
    backbone = {name.removeprefix("backbone."): value for name, value in weights.items()
                if name.startswith("backbone.")}
    return F.linear(features(backbone, inputs[0]), weights["head.weight"], weights["head.bias"])


def scores(params, inputs, predict):
    return {"held_out_accuracy": (predict(inputs["held_out.x"]).argmax(-1) == inputs["held_out.y"]).double()
            .mean().item()}


def describe(params, inputs):
    return f"fine-tuned on {params['samples']} samples for {params['steps']} steps"
