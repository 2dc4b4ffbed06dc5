"""Trusted checker: every mask must equal the definition exactly, computed here from positions, and every
report the driver makes (the device of a result, the exception a call raised) is judged here.

Query i sits at position p = t_k - t_q + i and may see key j if and only if j <= p and, with a window w,
j > p - w. A wrong mask is described by its first wrong entry in those terms, and by the classic mistake
it reproduces, when it reproduces one exactly. The reports come from the submission's own process, so they
are validated first: one that is missing or malformed fails the call. On a hidden test a call is described
by the kind of arguments it had, never their values.
"""

import builtins
import re

import torch

from runner import compare

AGAIN = "as a later call, after the caller set every entry of the first result to True in place"
KNOWN_DEVICES = {"cpu", "cuda", "meta", "mps", "xpu"}
# The judge runs this problem on the CPU only (needs = "cpu"), so a call with no device asks for the CPU.
JUDGED_DEVICE = "cpu"
TAMPERED = "no valid report of what it returned came back: the driver's report was removed or changed"


def inputs(params, generator):
    return {}


def blocked(t_q, t_k, window, *, first_position=None, diagonal_visible=True):
    """The definition, True where blocked; the keywords describe the classic mistakes."""
    start = t_k - t_q if first_position is None else first_position
    position = torch.arange(start, start + t_q)[:, None]
    key = torch.arange(t_k)[None, :]
    hidden = key > position if diagonal_visible else key >= position
    if window is not None:
        hidden |= key <= position - window
    return hidden


def check(params, inputs, got, expected):
    """None if every call did what the definition says, else what the first wrong one did."""
    for index, call in enumerate(params["calls"]):
        key = str(index)
        if params.get("raises"):
            message = raise_message(call, got.get(f"{key} raised"), got.get(f"{key} value_error"))
        else:
            message = mask_message(call, key, got) or (
                params.get("fresh") and mask_message(call, f"{key} again", got, again=True))
        if message:
            return message
    return None


def mask_message(call, key, got, *, again=False):
    what = f"{call_name(call)} {AGAIN}" if again else call_name(call)
    kind = text(got.get(f"{key}@"), r"[a-z0-9_]*")
    mask = got.get(key)
    if kind is None or (kind == "") != (mask is None):
        return f"{what}: {TAMPERED}"
    if kind == "":
        return f"{what} returned something that is not a torch.Tensor; it must return the mask as a torch.bool tensor"
    t_q, window = call["t_q"], call.get("window")
    t_k = call.get("t_k", t_q)
    mismatch = layout_message(mask, t_q, t_k)
    if mismatch:
        return f"{what} returned {mismatch}; the mask is a torch.bool tensor of shape (t_q, t_k), True where " \
               "attention is blocked"
    wanted = torch.device(call.get("device") or call.get("default_device") or JUDGED_DEVICE).type
    if kind != wanted:
        shown = kind if kind in KNOWN_DEVICES else "another device"
        return f"{what} returned a mask on {shown}; it must be created on {device_words(call)}"
    if kind != JUDGED_DEVICE:
        # An empty tensor of the result's shape and dtype came back in its place: a meta tensor has no values.
        return None
    truth = blocked(t_q, t_k, window)
    if torch.equal(mask, truth):
        return None
    message = f"{what}: {first_wrong_entry(mask, truth, t_q, t_k, window)}"
    if again:
        return (f"{message}. The earlier result was right, so this call returned memory the caller had already "
                "been given: every call must return a new tensor")
    mistake = matching_mistake(mask, t_q, t_k, window)
    return f"{message}. {mistake}" if mistake else message


def layout_message(mask, t_q, t_k):
    if mask.dtype != torch.bool:
        return f"a {str(mask.dtype).removeprefix('torch.')} tensor"
    if tuple(mask.shape) == (t_q, t_k):
        return None
    if compare.reveals_values():
        return f"a tensor of shape {tuple(mask.shape)}, not {(t_q, t_k)}"
    return "a tensor of shape (t_k, t_q), transposed" if tuple(mask.shape) == (t_k, t_q) else \
        "a tensor of another shape than (t_q, t_k)"


def device_words(call):
    if call.get("device") is not None:
        return f"the requested device ({call['device']!r})"
    if "default_device" in call:
        return (f"the default device ({call['default_device']!r} inside `with torch.device(...)`), since "
                "device=None means the default device")
    return f"the default device ({JUDGED_DEVICE})"


def raise_message(call, raised, is_value_error):
    what, why = call_name(call), why_invalid(call)
    name = text(raised, r"[A-Za-z0-9_.<>]*")
    flag = bool(is_value_error) if flag_report(is_value_error) else None
    if name is None or flag is None or (flag and not name):
        return f"{what}: {TAMPERED}"
    if flag:
        return None
    if not name:
        return f"{what} returned a mask; it must raise ValueError, since {why}"
    return f"{what} raised {exception_words(name)}; it must raise ValueError, since {why}"


def flag_report(report):
    return report is not None and report.dtype == torch.bool and report.dim() == 0


def text(report, allowed):
    """The ASCII text of a NUL-padded uint8 report whose characters all match allowed, else None."""
    if report is None or report.dtype != torch.uint8 or report.dim() != 1 or report.numel() > 256:
        return None
    value = bytes(report.tolist()).rstrip(b"\0").decode("latin-1")
    return value if re.fullmatch(allowed, value) else None


def exception_words(qualified):
    """A built-in exception by its name; any other class by its name only where values may be shown."""
    module, _, name = qualified.rpartition(".")
    known = getattr(builtins, name, None)
    if module == "builtins" and isinstance(known, type) and issubclass(known, BaseException):
        return name
    return qualified if compare.reveals_values() else "an exception of another class"


def why_invalid(call):
    t_q, t_k = call["t_q"], call.get("t_k", call["t_q"])
    if t_q > t_k:
        if compare.reveals_values():
            return f"t_q = {t_q} queries cannot be the last positions of t_k = {t_k} keys"
        return "t_q > t_k: the queries cannot be the last positions of fewer keys"
    shown = f"window = {call['window']}" if compare.reveals_values() else "w"
    return f"{shown} is below 1 (a query always sees itself)"


def call_name(call):
    """The call as a user would write it: causal_mask(2, 5, window=3); on a hidden test, the kind of call:
    causal_mask(t_q, t_k, window=w) with t_q < t_k and 1 < w < t_k."""
    values = compare.reveals_values()
    leading = [("t_q", str(call["t_q"]) if values else "t_q")]
    if "t_k" in call:
        leading.append(("t_k", str(call["t_k"]) if values else "t_k"))
    elif call.get("explicit_none"):
        leading.append(("t_k", "None"))
    arguments = [f"{name}={value}" if call.get("keywords") else value for name, value in leading]
    if "window" in call:
        arguments.append(f"window={call['window'] if values else 'w'}")
    elif call.get("explicit_none"):
        arguments.append("window=None")
    if call.get("device") is not None:
        device = f"torch.device({call['device']!r})" if call.get("device_type") else repr(call["device"])
        arguments.append(f"device={device}")
    elif call.get("explicit_none"):
        arguments.append("device=None")
    name = f"causal_mask({', '.join(arguments)})"
    if "default_device" in call:
        name += f" inside `with torch.device({call['default_device']!r})`"
    return name if values else f"{name} with {call_kind(call)}"


def call_kind(call):
    """What a hidden call's arguments are like, in the statement's words, without their values."""
    t_q, window = call["t_q"], call.get("window")
    t_k = call.get("t_k", t_q)
    if t_q > t_k:
        sizes = "t_q > t_k"
    elif t_q == t_k:
        sizes = "t_q = t_k = 1" if t_q == 1 else "t_q = t_k"
    else:
        sizes = "t_q = 1 < t_k" if t_q == 1 else "t_q < t_k"
    if window is None:
        return sizes
    if window < 1:
        return f"{sizes} and w {'= 0' if window == 0 else '< 0'}"
    if window == 1:
        return f"{sizes} and w = 1"
    return f"{sizes} and {'1 < w < t_k' if window < t_k else 'w = t_k' if window == t_k else 'w > t_k'}"


def first_wrong_entry(mask, truth, t_q, t_k, window):
    wrong = mask != truth
    query, key = (int(i) for i in wrong.nonzero()[0])
    position = t_k - t_q + query
    if not compare.reveals_values():
        return f"{int(wrong.sum())} of the t_q × t_k entries differ; the first, at (query, key) = ({query}, " \
               f"{key}): {wrong_entry_words(bool(mask[query, key]), key, position)}"
    where = f"query {query} (at position {position})"
    if mask[query, key]:
        if key == position:
            why = "its own position, which a query always sees"
        else:
            why = f"which it must see ({visible_keys(position, window)})"
        sentence = f"{where} is blocked from key {key}, {why}"
    elif key > position:
        sentence = f"{where} may see key {key}, which is in its future"
    else:
        sentence = f"{where} may see key {key}, which has left its window ({visible_keys(position, window)})"
    return f"{int(wrong.sum())} of {t_q * t_k} entries differ; the first: {sentence}"


def wrong_entry_words(is_blocked, key, position):
    if is_blocked:
        return "the query is blocked from its own position, which a query always sees" if key == position else \
            "the query is blocked from a key it must see, neither in its future nor out of its window"
    if key > position:
        return "the query may see a key in its future"
    return "the query may see a key that has left its window"


def visible_keys(position, window):
    first = 0 if window is None else max(0, position - window + 1)
    return f"it sees keys {first}..{position}" if first < position else f"it sees key {position} only"


def matching_mistake(mask, t_q, t_k, window):
    """The description of the classic mistake this mask is exactly, or None."""
    truth = blocked(t_q, t_k, window)
    values = compare.reveals_values()
    positions = f"0..{t_q - 1}" if values else "0..t_q - 1"
    offset = f" = {t_k - t_q} + i" if values else ""
    candidates = [
        (~truth, "The mask is inverted: True must mean blocked (the masked_fill convention), not visible (the "
                 "convention of a boolean attn_mask for scaled_dot_product_attention)"),
        (blocked(t_q, t_k, window, first_position=0),
         f"The queries sit at positions {positions}, but they are the last t_q of the t_k positions: query i is "
         f"at position t_k - t_q + i{offset}"),
        (blocked(t_q, t_k, window, diagonal_visible=False),
         "Every query is blocked from its own position, but a query always sees itself"),
    ]
    if window is not None:
        before = f"window={window} means the query and the {window - 1} keys before it" if values else \
            "window=w means the query and the w - 1 keys before it"
        candidates += [
            (blocked(t_q, t_k, window + 1), "The window is off by one: each query sees "
             f"{window + 1 if values else 'w + 1'} keys, but {before}"),
            (blocked(t_q, t_k, window - 1) if window > 1 else None, "The window is off by one: each query sees "
             f"{window - 1 if values else 'w - 1'} keys, but {before}"),
            (blocked(t_q, t_k, None), f"window={window if values else 'w'} is ignored: only causality is applied"),
        ]
    for candidate, description in candidates:
        if candidate is not None and not torch.equal(candidate, truth) and torch.equal(mask, candidate):
            return description
    return None
