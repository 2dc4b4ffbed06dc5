"""Runs inside the sandbox: calls the submission's causal_mask as the statement pins it.

Each test lists calls ({"t_q", "t_k"?, "window"?}); every returned mask comes back under the name of its
call. A test may instead ask for ValueError on each call ("raises"), for masks on other devices
("devices"), or for a mask that must not change when the caller edits an earlier result ("fresh").
"""

import torch

AGAIN = "as a later call, after the caller set every entry of the first result to True in place"


def call_name(call, device=None):
    """The call as a user would write it: causal_mask(2, 5, window=3)."""
    arguments = [str(call["t_q"])] + ([str(call["t_k"])] if "t_k" in call else [])
    if "window" in call:
        arguments.append(f"window={call['window']}")
    if device is not None:
        arguments.append(f"device={device!r}")
    return f"causal_mask({', '.join(arguments)})"


def invoke(solution, call, device=None):
    positional = [call["t_q"]] + ([call["t_k"]] if "t_k" in call else [])
    keywords = {"window": call["window"]} if "window" in call else {}
    if device is not None:
        keywords["device"] = device
    return solution.causal_mask(*positional, **keywords)


def run(solution, params, inputs, ctx):
    if params.get("raises"):
        for call in params["calls"]:
            expect_value_error(solution, call, ctx)
        return {}
    if params.get("devices"):
        for call in params["calls"]:
            expect_devices(solution, call, ctx)
        return {}
    masks = {}
    for call in params["calls"]:
        mask = returned_mask(invoke(solution, call), call, ctx)
        masks[call_name(call)] = mask
        if params.get("fresh"):
            masks[call_name(call)] = mask.clone()
            # What a caller adding a padding mask does; a later call must not see it.
            mask |= True
            masks[f"{call_name(call)} {AGAIN}"] = returned_mask(invoke(solution, call), call, ctx)
    return masks


def returned_mask(mask, call, ctx):
    if not isinstance(mask, torch.Tensor):
        raise ctx.WrongAnswer(f"{call_name(call)} returned a {type(mask).__name__}, not a torch.Tensor")
    return mask


def expect_value_error(solution, call, ctx):
    name = call_name(call)
    try:
        invoke(solution, call)
    except ValueError:
        return
    except Exception as error:  # noqa: BLE001 - any other type is the mistake being judged
        raise ctx.WrongAnswer(f"{name} raised {type(error).__name__} ({error}); it must raise ValueError, since "
                              f"{why_invalid(call)}") from None
    raise ctx.WrongAnswer(f"{name} returned a mask; it must raise ValueError, since {why_invalid(call)}")


def why_invalid(call):
    t_k = call.get("t_k", call["t_q"])
    if call["t_q"] > t_k:
        return f"t_q = {call['t_q']} queries cannot be the last positions of t_k = {t_k} keys"
    return f"window = {call['window']} is below 1 (a query always sees itself)"


def expect_devices(solution, call, ctx):
    """Masks for a device given as a string and as a torch.device, and on CUDA when there is one."""
    wanted = ["meta", torch.device("meta")]
    if torch.cuda.is_available():
        wanted += ["cuda", torch.device("cuda")]
    for device in wanted:
        mask = returned_mask(invoke(solution, call, device), call, ctx)
        if mask.device.type != torch.device(device).type:
            raise ctx.WrongAnswer(f"{call_name(call, device)} returned a mask on {mask.device.type}; it must be "
                                  "created on the requested device")
        t_k = call.get("t_k", call["t_q"])
        if mask.dtype != torch.bool or tuple(mask.shape) != (call["t_q"], t_k):
            raise ctx.WrongAnswer(f"{call_name(call, device)} returned a {mask.dtype} tensor of shape "
                                  f"{tuple(mask.shape)}; expected torch.bool of shape {(call['t_q'], t_k)}")
