"""Runs inside the sandbox: calls the submission's causal_mask as the statement pins it and reports what each
call did; checker.py decides, from these reports, whether it was right.

A test lists calls: {"t_q", "t_k"?, "window"?, "device"?}, where an absent argument is left out of the call
(or passed as None with "explicit_none"), "keywords" passes t_q and t_k by name, "device_type" passes the
device as a torch.device rather than a string, and "default_device" makes the call inside
`with torch.device(...)`. For call k it reports, with every tensor on the judged device:

    "k"              the mask; a tensor on another device comes as an empty tensor of its shape and dtype
    "k@"             the device type of the result, NUL-padded ASCII; all NUL when it is not a tensor
    "k again"        with "fresh": the same call's result after the caller set the first one to True in place
    "k raised"       with "raises": the qualified name of the exception's class, all NUL when it returned
    "k value_error"  with "raises": whether that exception is a ValueError

The submission shares this process and can replace anything in it, so these reports are claims, judged on
the trusted side; what the driver can do is to be no easier to fool than rewriting it. Everything `run` uses
is bound here, when the driver is loaded and before the submission is imported, so that a name the
submission replaces in this module (sys.modules["judge_driver"]) or in builtins changes nothing it does.
"""

import torch


def _driver():
    value_error, exception, is_instance, class_of = ValueError, Exception, isinstance, type
    tensor_type, device_of, empty = torch.Tensor, torch.device, torch.empty
    frombuffer, as_tensor = torch.frombuffer, torch.tensor
    device_bytes, type_bytes = 16, 64

    def text(value, size):
        """value as NUL-padded ASCII bytes of a fixed size, so every call's report has the reference's shape."""
        raw = value.encode("ascii", "replace")[:size].ljust(size, b"\0")
        return frombuffer(bytearray(raw), dtype=torch.uint8).clone()

    def invoke(solution, call):
        positional, keywords = [call["t_q"]], {}
        if "t_k" in call or call.get("explicit_none"):
            positional.append(call.get("t_k"))
        if call.get("keywords"):
            keywords.update(zip(("t_q", "t_k"), positional))
            positional = []
        for name in ("window", "device"):
            if name in call or call.get("explicit_none"):
                keywords[name] = call.get(name)
        if call.get("device_type") and keywords.get("device") is not None:
            keywords["device"] = device_of(keywords["device"])
        if "default_device" in call:
            with device_of(call["default_device"]):
                return solution.causal_mask(*positional, **keywords)
        return solution.causal_mask(*positional, **keywords)

    def report(key, result, ctx):
        if not is_instance(result, tensor_type):
            return {f"{key}@": text("", device_bytes)}
        kind = result.device.type
        mask = result if kind == ctx.device.type else empty(result.shape, dtype=result.dtype, device=ctx.device)
        return {key: mask, f"{key}@": text(kind, device_bytes)}

    def raised(solution, key, call):
        try:
            invoke(solution, call)
        except exception as error:  # noqa: BLE001 - which class it is, is the observation
            kind = class_of(error)
            return {f"{key} raised": text(f"{kind.__module__}.{kind.__qualname__}", type_bytes),
                    f"{key} value_error": as_tensor(is_instance(error, value_error))}
        return {f"{key} raised": text("", type_bytes), f"{key} value_error": as_tensor(False)}

    def run(solution, params, inputs, ctx):
        observed = {}
        for index, call in enumerate(params["calls"]):
            key = str(index)
            if params.get("raises"):
                observed.update(raised(solution, key, call))
                continue
            result = invoke(solution, call)
            observed.update(report(key, result, ctx))
            if params.get("fresh") and key in observed:
                observed[key] = result.clone()
                # What a caller adding a padding mask does; a later call must not see it.
                result |= True
                observed.update(report(f"{key} again", invoke(solution, call), ctx))
        return observed

    return run


run = _driver()
del _driver
