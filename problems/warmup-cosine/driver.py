"""WarmupCosine over SGD's param groups, stepped after each optimizer step; checkpointed after step resume_at and
resumed by a fresh optimizer and scheduler. Reports every group's lr and get_last_lr() after each step, in both."""
import io
import re

import torch


def build(solution, params, inputs):
    optimizer = torch.optim.SGD([{"params": [inputs[f"w{g}"].clone().requires_grad_()], "lr": peak}
                                 for g, peak in enumerate(params["peaks"])], lr=params["peaks"][0])
    options = {key: params[key] for key in ("min_lr", "warmup_start_lr") if key in params}
    return optimizer, solution.WarmupCosine(optimizer, params["warmup_steps"], params["total_steps"], **options)


def row(optimizer, scheduler):
    return [float(group["lr"]) for group in optimizer.param_groups], [float(lr) for lr in scheduler.get_last_lr()]


def checkpoint(optimizer, scheduler, ctx, _save=torch.save, _load=torch.load,
               _find=re.compile(r"Unsupported global: GLOBAL ([\w.]+)").search):
    """Both state_dicts through torch.save and torch.load(weights_only=True), as a checkpoint takes them."""
    try:
        states = []
        for state in (optimizer.state_dict(), scheduler.state_dict()):
            buffer = io.BytesIO()
            _save(state, buffer)
            states.append(_load(io.BytesIO(buffer.getvalue()), weights_only=True))
        return states
    except Exception as error:  # noqa: BLE001 - whatever the submission's state_dict() holds
        found = _find(str(error))
        held = f"it holds a {found.group(1)}, which" if found else f"{type(error).__name__}: what it holds"
        raise ctx.WrongAnswer(f"the state_dict() did not come back through torch.save and torch.load(checkpoint, "
                              f"weights_only=True): {held} weights_only loading refuses. A state_dict() holds only "
                              "numbers, strings, lists, tuples, dicts, None and tensors, and never the optimizer, "
                              "which is checkpointed by its own state_dict()") from None


def drive(optimizer, scheduler, first, last, ctx, at=None):
    rows = [row(optimizer, scheduler)]
    saved = checkpoint(optimizer, scheduler, ctx) if at == first else None
    for t in range(first + 1, last + 1):
        optimizer.step()
        scheduler.step()
        rows.append(row(optimizer, scheduler))
        saved = checkpoint(optimizer, scheduler, ctx) if t == at else saved
    return rows, saved


def run(solution, params, inputs, ctx):
    steps, at = params["steps"], params["resume_at"]
    optimizer, scheduler = build(solution, params, inputs)
    rows, saved = drive(optimizer, scheduler, 0, steps, ctx, at)
    optimizer, scheduler = build(solution, params, inputs)
    optimizer.load_state_dict(saved[0])
    scheduler.load_state_dict(saved[1])
    resumed, _ = drive(optimizer, scheduler, at, steps, ctx)
    return {f"{name}{when}": torch.tensor([r[i] for r in got], dtype=torch.float64, device=ctx.device)
            .view(len(got), -1) for when, got in (("", rows), (" after resuming", resumed))
            for i, name in enumerate(("lr", "get_last_lr()"))}
