"""In the sandbox, deciding nothing: mixup and cutmix on given randomness, or sample_params drawing (spec.check)."""
import torch


def draw(solution, params, seed, count, global_seed):
    torch.manual_seed(global_seed)
    generator = torch.Generator().manual_seed(seed)
    rows = [solution.sample_params(params["batch"], params["height"], params["width"], params["alpha"], generator)
            for _ in range(count)]
    return {"lam": torch.tensor([float(lam) for lam, _, _, _ in rows], dtype=torch.float64),
            "perm": torch.stack([torch.as_tensor(perm).to("cpu", torch.int64).reshape(-1) for _, perm, _, _ in rows]),
            "centre": torch.tensor([[int(cy), int(cx)] for _, _, cy, cx in rows], dtype=torch.int64)}


def run(solution, params, inputs, ctx):
    if "draws" not in params:
        x, y, perm, lam, cy, cx = (inputs[k] for k in ("x", "y", "perm", "lam", "cy", "cx"))
        (mixed_x, mixed_y), (cut_x, cut_y, cut_lam) = solution.mixup(x, y, float(lam), perm), \
            solution.cutmix(x, y, float(lam), perm, int(cy), int(cx))
        return {"mixup x": mixed_x, "mixup y": mixed_y, "cutmix x": cut_x, "cutmix y": cut_y,
                "cutmix lam": torch.tensor(float(cut_lam), dtype=torch.float64, device=ctx.device)}
    try:
        first, again = (draw(solution, params, int(inputs["seed"]), count, global_seed)
                        for count, global_seed in ((params["draws"], 1), (8, 2)))
    except (TypeError, ValueError, RuntimeError) as error:
        raise ctx.WrongAnswer("sample_params returns (lam: float, perm: int64 tensor of shape (batch,), cy: int, "
                              f"cx: int): {type(error).__name__}") from None
    return {**first, **{f"{name} again": value for name, value in again.items()}}
