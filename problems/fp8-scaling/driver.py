"""In the sandbox: one DelayedScaler stepped over the script's tensors; reports each call's results and decides
nothing. The fp8 tensor crosses as its float32 values (exact: every e4m3fn value is a float32), with its dtype
reported as text beside it."""
import torch

def _value(result, device):
    """A returned tensor as a detached copy (an fp8 one as float32 values), a number as a 0-dim tensor."""
    if isinstance(result, torch.Tensor):
        fp8 = result.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
        return result.detach().float() if fp8 else result.detach().clone()
    return torch.tensor(result, device=device) if isinstance(result, (bool, int, float)) else None


def _dtype(result, device):
    words = str(result.dtype if isinstance(result, torch.Tensor) else type(result).__name__).encode("ascii")
    return torch.tensor(list(words[:32].ljust(32, b"\0")), dtype=torch.uint8, device=device)


def run(solution, params, inputs, ctx, _value=_value, _dtype=_dtype):
    options = {name: params[name] for name in ("history_len", "margin") if name in params}
    scaler, out = solution.DelayedScaler(**options), {}
    for t in range(1, len(params["script"]) + 1):
        result = scaler.cast(inputs[f"x@{t}"])
        if not isinstance(result, tuple) or len(result) != 3:
            raise ctx.WrongAnswer(f"cast() at step {t} must return a tuple (x_fp8, scale_inv, scale)")
        for name, value in zip((f"x_fp8 at step {t}", f"scale_inv at step {t}", f"scale after step {t}"), result):
            reported = _value(value, ctx.device)
            out.update({name: reported} if reported is not None else {})
        out[f"x_fp8 dtype at step {t}"] = _dtype(result[0], ctx.device)
    return out
