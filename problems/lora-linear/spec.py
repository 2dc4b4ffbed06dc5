"""Trusted: the inputs, and what is wrong after merge() or unmerge() in LoRA's terms."""
import torch

from runner import kit


def inputs(params, generator):
    n_in, n_out, r, shape = params["in_features"], params["out_features"], params["r"], params["shape"]
    draw = lambda *size, scale=1.0: torch.randn(size, generator=generator, dtype=torch.float64) * scale  # noqa: E731
    found = {"x": draw(*shape, n_in), "module.base.weight": draw(n_out, n_in, scale=n_in ** -0.5),
             "module.base.bias": draw(n_out, scale=0.1), "module.lora_A": draw(r, n_in, scale=n_in ** -0.5),
             "module.lora_B": draw(n_out, r, scale=r ** -0.5), **({"dy": draw(*shape, n_out)} if params["grad"] else {})}
    return {name: tensor.to(getattr(torch, params["dtype"])) for name, tensor in found.items()}


def magnitude(name, params, inputs):
    """base.weight after merge() or unmerge() carries the rounding of the merged weight, whatever formula made the
    update: the floor scales with its largest magnitude, max |base.weight + (alpha / r) lora_B @ lora_A|."""
    if not name.startswith("base.weight after "):
        return 0.0
    weight, lora_A, lora_B = (inputs["module." + key].double() for key in ("base.weight", "lora_A", "lora_B"))
    return (weight + params["alpha"] / params["r"] * lora_B @ lora_A).abs().max().item()


def diagnose(name, params, inputs, got, truth):
    """What is wrong after a merge() or unmerge() (`<name> after <method>() #<i>`)."""
    if " after " not in name:
        return ""
    step = name.split(" after ")[1].split("()")[0]
    if name.startswith("learnable"):
        return "write into base.weight in place under torch.no_grad() (a new nn.Parameter is learnable)"
    if got is None:
        return "merge() and unmerge() must keep base.weight, and forward must return a tensor"
    if name.startswith("y"):
        return ("Once merged, forward must be base(x) alone: base.weight holds the update, so adding the low-rank "
                "path too counts it twice" if step == "merge" else "After unmerge(), forward must add the update again")
    if not name.startswith("base.weight"):
        return ""
    scaling, (weight, lora_A, lora_B) = params["alpha"] / params["r"], (
        inputs["module." + key].double() for key in ("base.weight", "lora_A", "lora_B"))
    delta, update = got.double() - weight, scaling * lora_B @ lora_A
    times = ((delta * update).sum() / (update * update).sum()).item()
    if (delta - times * update).abs().max() > 1e-3 * update.abs().max():
        return "base.weight must be the frozen weight plus (alpha / r) * lora_B @ lora_A while merged, and without it after"
    if step == "merge" and abs(times * scaling - 1) < 1e-3:
        return "merge() added lora_B @ lora_A without the alpha / r scaling"
    if step == "unmerge" and round(times) == 1:
        return "unmerge() does not take the update out of base.weight again"
    return kit.with_why(f"base.weight holds the update {round(times)} times where it should hold it "
                        f"{int(step == 'merge')}", "Calling merge() on a merged layer, or unmerge() on an unmerged "
                        "one, must do nothing")
