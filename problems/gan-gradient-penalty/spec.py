"""Trusted: the batch, eps and D's weights; what a wrong loss or gradient shows; then the driver's flags."""
import torch

from runner import kit

DRIVER, CALLS = kit.load_sibling(__file__, "driver.py"), ("generator_loss", "discriminator_loss", "gradient_penalty")
FLAGS = {"ran backward": "{} called backward() itself: return the loss, still attached to D's weights, and leave "
                         "every .grad alone; the training step adds the losses up and runs one backward",
         "reaches x_fake": "{} sends a gradient into x_fake, the generator's output: detach the fakes "
                           "(x_fake.detach()), so that the discriminator's step does not train the generator"}
NOT_FINITE = ("Not finite where the float64 value is: log(sigmoid(l)) is -inf once sigmoid(l) rounds to 0 (float32 "
              "logits under about -88), log(1 - sigmoid(l)) once it is 1 (over 17): write -softplus(-l), -softplus(l).")
ZERO = {"gradient_penalty": "The penalty has no gradient with respect to D's weights: the input gradient must keep its "
        "graph (torch.autograd.grad(..., create_graph=True)) so that the penalty can be differentiated again.",
        "generator_loss": "generator_loss gives x_fake no gradient: the generator learns only through D(x_fake), so "
        "x_fake must stay attached here."}


def inputs(params, generator):
    (batch, *rest), hidden, n = params["shape"], params["hidden"], int(torch.tensor(params["shape"][1:]).prod())
    randn = lambda *size: torch.randn(*size, generator=generator, dtype=torch.float64)  # noqa: E731
    drawn = {"x_real": randn(batch, *rest) + 0.5, "x_fake": 0.8 * randn(batch, *rest) - 0.3,
             "eps": torch.rand(batch, generator=generator, dtype=torch.float64),
             "D.1.weight": randn(hidden, n) / n ** 0.5, "D.1.bias": 0.1 * randn(hidden),
             "D.3.weight": randn(hidden, hidden) / hidden ** 0.5, "D.3.bias": 0.1 * randn(hidden),
             "D.5.weight": randn(1, hidden) * params.get("logit_scale", 2) / hidden ** 0.5, "D.5.bias": 0.1 * randn(1)}
    if params.get("eps_ends"):  # x_hat is exactly x_fake for the first sample, x_real for the last
        drawn["eps"][0], drawn["eps"][-1] = 0.0, 1.0
    if params["dtype"] == "float64":  # logits within 16, where F.softplus is exact in float64 too
        top = max(DRIVER.build(drawn)(drawn[x]).abs().max().item() for x in ("x_real", "x_fake"))
        drawn.update({f"D.5.{k}": drawn[f"D.5.{k}"] * min(1.0, 16 / top) for k in ("weight", "bias")})
    return {name: tensor.to(getattr(torch, params["dtype"])) for name, tensor in drawn.items()}


def describe(params, inputs):
    lam = f"lam={params['lam']:g}" if "lam" in params else "lam left at its default"
    return f"{params['dtype']} x_real, x_fake of shape {tuple(params['shape'])}, D of width {params['hidden']}, {lam}"


def call_of(name, params, inputs):
    return {"generator_loss": "generator_loss(D, x_fake)", "discriminator_loss": "discriminator_loss(D, x_real, x_"
            "fake)"}.get(name.split(":")[0], f"gradient_penalty(D, x_real, x_fake, eps{', lam' * ('lam' in params)})")


def diagnose(name, params, inputs, got, truth):
    if got is None or got.shape != truth[name].shape:
        return ""
    if not bool(torch.isfinite(got).all()) and bool(torch.isfinite(truth[name]).all()):
        return kit.why_after_colon(NOT_FINITE)
    zero = bool((got == 0).all()) and not bool((truth[name] == 0).all())
    return kit.why_after_colon(ZERO.get(name.split(":")[0], "")) if zero and ".grad" in name else ""


def check(params, inputs, got, truth):
    for call, what in [(c, w) for c in CALLS for w in FLAGS if (c, w) != (CALLS[0], "reaches x_fake")]:
        seen = kit.flag(got.get(f"{call} {what}"))
        if seen is None or seen:
            return kit.why_after_colon(FLAGS[what].format(call)) if seen else \
                f"the driver's report '{call} {what}' is malformed"
    return None
