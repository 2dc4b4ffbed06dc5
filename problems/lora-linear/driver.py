"""The kit's module driver; after each merge() or unmerge() of `steps`: the parameters, base.weight and y."""
import torch
import kit

INTERFACE = {"call": "LoRALinear", "args": ["x"], "outputs": ["y"], "grad": ["x"], "frozen": ["base.weight", "base.bias"],
             "init": ["in_features", "out_features", "r", "alpha"]}


def run(solution, params, inputs, ctx, _read=kit.parameter_reader(), _run=kit.run_standard):
    built = []
    build = type("Built", (), {"LoRALinear": staticmethod(lambda *a: built.append(solution.LoRALinear(*a)) or built[-1])})
    outputs = _run("module", INTERFACE, build, params, inputs, ctx)
    for i, step in enumerate(params.get("steps", []) if "y" in outputs else [], 1):
        getattr(built[0], step)()
        after, found = f" after {step}() #{i}", _read(built[0])
        kept = {name for name, (_, learnable) in found.items() if learnable} == {"lora_A", "lora_B"} \
            and all(name in found and not found[name][1] for name in INTERFACE["frozen"])
        outputs["parameters" + after] = torch.tensor(int(kept), device=ctx.device)
        weight, y = getattr(getattr(built[0], "base", None), "weight", None), built[0](inputs["x"])
        outputs.update({name + after: value.detach().clone() for name, value in (("base.weight", weight), ("y", y))
                        if isinstance(value, torch.Tensor)})
    return outputs
