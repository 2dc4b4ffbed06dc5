"""Trusted checker: inputs from a seed, and comparison against multi-head attention computed here in float64.

Tolerance: per output, the larger of a few times the reference's own error against the float64 result
(measured on these very inputs) and a few float32 or float64 rounding units of the output's magnitude.
Correct styles (batched matmuls, einsum, a loop over heads, scaled_dot_product_attention) land within a
few times the reference's error; a missing scale or a mask off by one key is orders of magnitude off.

When the output is wrong, the message says where (which queries, and which heads once `out` is undone
through its inverse), checks the classic mistakes against the submission's output and names the one
that matches, and, in causal tests, reads from the input gradient which keys each query really saw.

The driver decides nothing: it reports the module's learnable parameters and leaves out an output the call
could not produce, and this checker turns each into a wrong answer with its reason. What it reports is the
submission's to change, so a report can only fail a test; values are always compared here.
"""

import math

import torch
import torch.nn.functional as F

from runner import compare
from runner.problems import load_sibling

driver = load_sibling(__file__, "driver.py")
REFERENCE_ERROR_MULTIPLE = 8.0
ROUNDING_UNITS = 32.0
# A key counts as seen by a query when its influence on the query's output is above this share of the
# largest influence: -inf gives exactly 0, a finite mask such as -1e4 gives far less.
SEEN_SHARE = 1e-6


def inputs(params, generator):
    d = params["d_model"]
    dtype = driver.DTYPES[params["dtype"]]

    def normal(*shape, std):
        return (torch.randn(shape, generator=generator, dtype=torch.float64) * std).to(dtype)

    drawn = {"qkv.weight": normal(3 * d, d, std=d ** -0.5), "qkv.bias": normal(3 * d, std=0.2),
             "out.weight": normal(d, d, std=d ** -0.5), "out.bias": normal(d, std=0.2)}
    for length in driver.lengths(params):
        drawn[f"x{driver.suffix(params, length)}"] = normal(params["batch"], length, d, std=1.0)
        if params["grad"]:
            drawn[f"dy{driver.suffix(params, length)}"] = normal(params["batch"], length, d, std=1.0)
    return drawn


def attention(projected, weights, heads, *, mask=None, fill=-math.inf, order="qkv", scale=None,
              softmax_dim=-1, split=True, merge=True):
    """Attention from the fused projection qkv(x): (y, the concatenated heads before out).

    The keywords describe the classic mistakes; their defaults are the interface.
    """
    batch, seq, three_d = projected.shape
    d = three_d // 3
    d_k = d // heads
    parts = dict(zip(order, projected.split(d, dim=-1)))

    def to_heads(part):
        return part.unflatten(-1, (heads, d_k)).transpose(1, 2) if split else part.reshape(batch, heads, seq, d_k)

    q, k, v = (to_heads(parts[name]) for name in "qkv")
    scores = q @ k.transpose(-2, -1) * (d_k ** -0.5 if scale is None else scale)
    if mask is not None:
        scores = scores.masked_fill(blocked_keys(mask, seq, projected.device), fill)
    per_head = scores.softmax(dim=softmax_dim) @ v
    merged = per_head.transpose(1, 2).reshape(batch, seq, d) if merge else per_head.reshape(batch, seq, d)
    return F.linear(merged, weights["out.weight"], weights["out.bias"]), merged


def blocked_keys(kind, seq, device):
    ones = torch.ones(seq, seq, dtype=torch.bool, device=device)
    return {"future": ones.triu(1), "past": ones.tril(-1), "future and self": ones.triu(0)}[kind]


def exact(params, inputs, suffix):
    """The float64 truth for one length, by output name."""
    def leaf(tensor):
        return tensor.detach().to(torch.float64, copy=True).requires_grad_(params["grad"])

    weights = {name: leaf(inputs[name]) for name in driver.PARAMETERS}
    x = leaf(inputs[f"x{suffix}"])
    projected = F.linear(x, weights["qkv.weight"], weights["qkv.bias"])
    y, _ = attention(projected, weights, params["heads"], mask="future" if params["causal"] else None)
    truth = {f"y{suffix}": y.detach()}
    if params["grad"]:
        grads = torch.autograd.grad(y, [x, *weights.values()], inputs[f"dy{suffix}"].to(torch.float64))
        truth.update({f"{name}.grad{suffix}": g for name, g in zip(("x", *driver.PARAMETERS), grads)})
    return truth


def tolerance(got_dtype, expected, truth):
    """Allowed absolute error: a multiple of the reference's own error, or a few rounding units."""
    magnitude = truth.abs().max().item() if truth.numel() else 0.0
    reference_error = (expected.to(torch.float64) - truth).abs().nan_to_num(nan=math.inf).max().item() \
        if truth.numel() else 0.0
    return max(REFERENCE_ERROR_MULTIPLE * reference_error, ROUNDING_UNITS * torch.finfo(got_dtype).eps * magnitude)


def check(params, inputs, got, expected):
    """None if every output and gradient is right, else what is wrong, in the model's terms."""
    # Only what the reference produced is read: anything else is the submission's invention.
    got = {name: tensor for name, tensor in got.items() if name in expected}
    problem = interface_problem(params, got)
    if problem:
        return problem
    lengths = driver.lengths(params)
    for index, length in enumerate(lengths):
        suffix = driver.suffix(params, length)
        problem = output_problem(params, got, expected, suffix)
        if problem:
            return f"{describe_call(params, lengths, index)}: {problem}"
        truth = exact(params, inputs, suffix)
        for name, right in truth.items():
            allowed = tolerance(got[name].dtype, expected[name], right)
            label = name.replace(suffix, "") if suffix else name
            message = compare.tensors(f"{label}[{AXES[label]}]", got[name].to(torch.float64), right, atol=allowed,
                                      rtol=0)
            if not message:
                continue
            if label == "y":
                detail = diagnose_output(params, inputs, got, suffix, right, allowed)
            else:
                detail = locate_gradient(params, label, got[name], right)
            return f"{describe_call(params, lengths, index)}: {message}. {detail}".rstrip()
    return None


def interface_problem(params, got):
    """What the driver's report says is wrong with the module's learnable parameters, or None."""
    d_model, heads = params["d_model"], params["heads"]
    module = f"MHSA({d_model}, {heads})"
    expected = driver.parameter_shapes(d_model)
    rows, counts = got.get("parameters"), got.get("module")
    if not (is_report(rows, (len(expected), 3)) and is_report(counts, (3,))):
        return f"{module}: the driver's report of the module's parameters is missing or malformed"
    if int(counts[0]) != 1:
        return f"{module} built something that is not a torch.nn.Module"
    problems = parameter_problems(expected, rows, counts)
    if not problems:
        return None
    wanted = ", ".join(f"{name} {shape}" for name, shape in expected.items())
    return (f"{module}: {'; '.join(problems)}. The learnable parameters must be exactly {wanted}; further "
            "submodules and buffers may hold none.")


def is_report(tensor, shape):
    return tensor is not None and tensor.dtype == torch.int64 and tuple(tensor.shape) == shape


def parameter_problems(expected, rows, counts):
    """How the reported parameters differ from expected ({name: shape}), in words. The sizes and counts are
    the submission's to choose, so a hidden test's message leaves them out."""
    reveal = compare.reveals_values()
    problems = []
    for (name, shape), (ndim, *sizes) in zip(expected.items(), rows.tolist()):
        if ndim < 0:
            problems.append(f"{name} is missing")
        elif ndim != len(shape) or tuple(sizes[:ndim]) != shape:
            seen = f"has shape {tuple(sizes[:ndim])}" if ndim <= len(sizes) else f"has {ndim} dimensions"
            problems.append(f"{name} {seen}, expected {shape}" if reveal else f"{name} does not have the shape {shape}")
    others, elements = counts[1:].tolist()
    if others:
        problems.append(f"{others} further learnable parameter{'s' * (others != 1)} ({elements} "
                        f"number{'s' * (elements != 1)}) the interface does not have" if reveal
                        else "learnable parameters the interface does not have")
    return problems


def output_problem(params, got, expected, suffix):
    """What is wrong with one length's outputs before their values: one missing, or not shaped like the
    reference's. The driver leaves out what the call could not produce, so a missing output says why."""
    y = f"y{suffix}"
    if got.get(y) is None:
        return "forward returned no torch.Tensor"
    mismatch = compare.layout("y", got[y], expected[y])
    if mismatch:
        return f"{mismatch}; forward must return a tensor of x's shape and dtype"
    names = [y]
    if params["grad"]:
        grads = [f"{name}.grad{suffix}" for name in ("x", *driver.PARAMETERS)]
        absent = [name for name in grads if got.get(name) is None]
        if len(absent) == len(grads):
            return ("the output does not require grad; it must stay connected to x and to the weights (no "
                    ".detach(), .data or torch.no_grad() on the way)")
        if absent:
            name = absent[0].removesuffix(suffix).removesuffix(".grad")
            return f"the output does not depend on {name}, so {name}.grad is None"
        names += grads
    if f"reach{suffix}" in expected:
        names.append(f"reach{suffix}")
    for name in names:
        mismatch = compare.layout(name.removesuffix(suffix) if suffix else name, got.get(name), expected[name])
        if mismatch:
            return mismatch
    return None


AXES = {"y": "batch, query, feature", "x.grad": "batch, position, feature", "qkv.weight.grad": "row, column",
        "qkv.bias.grad": "row", "out.weight.grad": "row, column", "out.bias.grad": "feature"}


def describe_call(params, lengths, index):
    module = f"MHSA(d_model={params['d_model']}, n_heads={params['heads']}, causal={params['causal']})"
    shape = (params["batch"], lengths[index], params["d_model"])
    where = f"{module} on x of shape {shape}, {params['dtype']}"
    if len(lengths) > 1:
        where += f", call {index + 1} of one instance" + (
            f" (it ran on T = {', '.join(map(str, lengths[:index]))} before)" if index else "")
    return where


def diagnose_output(params, inputs, got, suffix, right, allowed):
    """Where the output is wrong, and why, as far as the classic mistakes and the mask probe tell."""
    y = got[f"y{suffix}"].to(torch.float64)
    weights = {name: inputs[name].to(torch.float64) for name in driver.PARAMETERS}
    projected = F.linear(inputs[f"x{suffix}"].to(torch.float64), weights["qkv.weight"], weights["qkv.bias"])
    notes = []
    dead = (~torch.isfinite(y)).any(dim=-1).any(dim=0)
    if params["causal"] and dead.any():
        first = int(dead.nonzero()[0])
        notes.append(f"Query {first}'s output is non-finite, as when the causal mask leaves it no key to see (a "
                     "softmax over a row of scores that are all -inf is 0/0); every query must see at least its "
                     "own key")
    else:
        _, merged = attention(projected, weights, params["heads"], mask="future" if params["causal"] else None)
        notes.append(locate_output(params, weights, y, right, merged, allowed))
        # check() kept reach only where the reference has one, and output_problem checked its layout.
        if f"reach{suffix}" in got:
            notes.append(read_reach(got[f"reach{suffix}"]))
    named = matching_mistake(params, weights, projected, y, right, allowed)
    if named:
        notes.append(f"This is exactly what {named}")
    return ". ".join(note for note in notes if note) + "."


def locate_output(params, weights, y, right, merged, allowed):
    """Which queries are off, and which heads, seen through the inverse of the output projection."""
    error = (y - right).abs().nan_to_num(nan=math.inf)
    queries = spans(((error > allowed).any(dim=-1).any(dim=0)).nonzero().flatten().tolist())
    where = f"Wrong at queries {queries}"
    heads = params["heads"]
    if heads == 1:
        return where
    inverse = torch.linalg.inv(weights["out.weight"])
    recovered = (y - weights["out.bias"]) @ inverse.T
    head_error = (recovered - merged).abs().nan_to_num(nan=math.inf).unflatten(-1, (heads, -1)).amax(dim=(0, 1, 3))
    noise = allowed * inverse.abs().sum(dim=1).max().item()
    wrong = (head_error > max(noise, 0.01 * head_error.max().item())).nonzero().flatten().tolist()
    if not wrong:
        return where
    which = "every head" if len(wrong) == heads else f"head{'s' if len(wrong) > 1 else ''} {spans(wrong)}"
    return f"{where}, in {which} (seen through the inverse of out)"


def read_reach(reach):
    """What the input gradient says about which keys each query saw, if that breaks causality."""
    reach = reach.to(torch.float64)
    seen = reach > SEEN_SHARE * reach.nan_to_num(nan=0.0, posinf=0.0).max()
    future = seen & torch.ones_like(seen).triu(1)
    hidden = ~seen & torch.ones_like(seen).tril(-1)
    notes = []
    if future.any():
        query, key = (int(i) for i in future.nonzero()[0])
        notes.append(f"that query {query} attends to future key {key} ({int(future.sum())} such (query, key) "
                     "pairs), which the causal mask must hide")
    if hidden.any():
        query, key = (int(i) for i in hidden.nonzero()[0])
        notes.append(f"that query {query} does not see past key {key} ({int(hidden.sum())} such pairs), which the "
                     "causal mask must leave visible")
    return "The input gradient shows " + ", and ".join(notes) if notes else ""


def mistakes(params):
    """(description, attention keywords) for each classic mistake, in the order they are tried."""
    d, heads = params["d_model"], params["heads"]
    d_k = d // heads
    causal = {"mask": "future"} if params["causal"] else {}
    found = [
        (f"leaving the scores unscaled gives: q·k must be multiplied by the scale 1/sqrt(d_k) = 1/sqrt({d_k})",
         {**causal, "scale": 1.0}),
        (f"dividing the scores by d_k = {d_k} gives: the scale is 1/sqrt(d_k)", {**causal, "scale": 1 / d_k}),
        (f"a scale of 1/sqrt(d_model) gives: the scale is 1/sqrt(d_k), with d_k = d_model / n_heads = {d_k}",
         {**causal, "scale": d ** -0.5}),
        ("a softmax over the queries (dim=-2) gives: each query's scores must be normalised over the keys "
         "(dim=-1)", {**causal, "softmax_dim": -2}),
    ]
    for order in ("kqv", "qvk", "vkq", "kvq", "vqk"):
        found.append((f"reading q, k, v from qkv's output features in the order {', '.join(order)} gives: "
                      "the interface puts q first, then k, then v", {**causal, "order": order}))
    found += [
        ("splitting and merging the heads with a reshape and no transpose gives: (B, T, d_model) must become "
         "(B, T, n_heads, d_k) and then be transposed to (B, n_heads, T, d_k)", {**causal, "split": False,
                                                                                  "merge": False}),
        ("splitting the heads with a reshape and no transpose gives: (B, T, d_model) must become "
         "(B, T, n_heads, d_k) and then be transposed to (B, n_heads, T, d_k)", {**causal, "split": False}),
        ("merging the heads with a reshape and no transpose gives: (B, n_heads, T, d_k) must be transposed "
         "back to (B, T, n_heads, d_k) before the reshape to (B, T, d_model)", {**causal, "merge": False}),
    ]
    if params["causal"]:
        found += [
            ("a causal mask on the wrong side of the diagonal gives: it must block the keys after the query "
             "(triu with diagonal=1), not those before it", {"mask": "past"}),
            ("a causal mask that also hides the diagonal gives: a query must see its own key (triu with "
             "diagonal=1, not 0)", {"mask": "future and self"}),
            ("a causal mask filled with 0 instead of -inf gives: after the softmax a masked key still gets "
             "weight exp(0); fill with -inf so that it gets none", {"mask": "future", "fill": 0.0}),
            ("causal attention without its mask gives: with causal=True query t may see keys 0..t only", {}),
        ]
    else:
        found.append(("a causal mask gives, but causal=False here: every query sees every key",
                      {"mask": "future"}))
    return found


def matching_mistake(params, weights, projected, y, right, allowed):
    """The description of the classic mistake whose output the submission reproduces, or None."""
    # Each classic mistake treats every sequence of the batch alike, so the first one tells, at 1/B the cost.
    projected, y, right = projected[:1], y[:1], right[:1]
    off_by = (y - right).abs().nan_to_num(nan=math.inf).max().item()
    for description, keywords in mistakes(params):
        candidate, _ = attention(projected, weights, params["heads"], **keywords)
        if same(candidate, right, allowed):
            continue
        if same(y, candidate, max(4 * allowed, 0.01 * off_by if math.isfinite(off_by) else 0.0)):
            return description
    return None


def same(a, b, allowed):
    """Equal within allowed where both are finite, and non-finite at the same places."""
    finite_a, finite_b = torch.isfinite(a), torch.isfinite(b)
    if not torch.equal(finite_a, finite_b):
        return False
    return bool(((a - b).abs()[finite_a] <= allowed).all())


def locate_gradient(params, label, got, right):
    """The worst gradient entry in the model's terms."""
    error = (got.to(torch.float64) - right).abs().nan_to_num(nan=math.inf)
    worst = torch.unravel_index(error.argmax(), error.shape)
    d, heads = params["d_model"], params["heads"]
    d_k = d // heads
    if label.startswith("qkv"):
        row = int(worst[0])
        part = "qkv"[row // d]
        where = f"row {row}, {part} of head {row % d // d_k}"
    elif label == "out.weight.grad":
        column = int(worst[1])
        where = f"column {column}, which reads head {column // d_k}"
    elif label == "x.grad":
        where = f"the input at batch {int(worst[0])}, position {int(worst[1])}"
    else:
        where = f"feature {int(worst[0])}"
    return (f"The output is right but this gradient is not (worst at {where}): check a custom backward, or "
            "anything detached or computed outside autograd")


def spans(indices):
    """[0, 1, 2, 5] -> '0–2, 5'."""
    parts, start = [], None
    for position, value in enumerate(indices):
        if start is None:
            start = value
        if position + 1 == len(indices) or indices[position + 1] != value + 1:
            parts.append(str(start) if start == value else f"{start}–{value}")
            start = None
    return ", ".join(parts) if parts else "none"
