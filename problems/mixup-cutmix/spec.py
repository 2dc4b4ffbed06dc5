"""Trusted: a batch, perm, lam and centre, or a test of draws' seed; the draws judged by chi-square at RATE."""
import torch

from runner import kit

RATE, EDGES = 1e-8, torch.linspace(0, 1, 11, dtype=torch.float64)  # lam's bins: tenths of [0, 1]
DRAWN = ("batch", "height", "width", "alpha")


def inputs(params, generator):
    if "draws" in params:
        return {"seed": torch.randint(2 ** 62, (1,), generator=generator)}
    (b, c, h, w), lam = params["shape"], params.get("lam")
    perm = torch.randperm(b, generator=generator)
    while b > 2 and bool((perm[perm] == torch.arange(b)).all()):  # perm equal to its inverse: no direction to see
        perm = torch.randperm(b, generator=generator)
    while lam is None:  # redrawn within 1e-3 of a lam where int(size * sqrt(1 - lam)) changes
        lam = 0.05 + 0.9 * float(torch.rand((), generator=generator, dtype=torch.float64))
        lam = None if min(abs(s * (1 - lam) ** 0.5 - round(s * (1 - lam) ** 0.5)) for s in (h, w)) < 1e-3 else lam
    y = torch.rand(b, params["classes"], generator=generator, dtype=torch.float64)
    y = y / y.sum(1, keepdim=True) if params.get("soft") else torch.nn.functional.one_hot(y.argmax(1), y.shape[1])
    cy, cx = params.get("centre") or [int(torch.randint(s, (), generator=generator)) for s in (h, w)]
    x, dtype = torch.randn(b, c, h, w, generator=generator, dtype=torch.float64), getattr(torch, params["dtype"])
    return {"x": x.to(dtype), "y": y.to(dtype), "perm": perm,
            "lam": torch.tensor(float(lam), dtype=torch.float64), "cy": torch.tensor(cy), "cx": torch.tensor(cx)}


def describe(params, inputs):
    if "draws" in params:
        return f"{params['draws']} calls of sample_params({', '.join(f'{k}={params[k]}' for k in DRAWN)}, generator)"
    return f"{params['dtype']} x of shape {tuple(params['shape'])}, {params['classes']} classes"


def call_of(name, params, inputs):
    lam, centre = (f"{float(inputs['lam']):.6g}", f"{int(inputs['cy'])}, {int(inputs['cx'])}") \
        if kit.reveals_values() else ("lam", "cy, cx")
    return f"mixup(x, y, {lam}, perm)" if name.startswith("mixup") else f"cutmix(x, y, {lam}, perm, {centre})"


def beta_cdf(alpha, x):  # of Beta(alpha, alpha): by symmetry from [0, 1/2], in u = x^alpha, where it is smooth
    part = lambda top: torch.trapezoid((1 - (u := torch.linspace(0, top, 20001, dtype=torch.float64)) ** (1 / alpha))
                                       ** (alpha - 1), u)  # noqa: E731
    return 1.0 - beta_cdf(alpha, 1.0 - x) if x > 0.5 else float(part(x ** alpha) / (2 * part(0.5 ** alpha)))


def check(params, inputs, got, truth):
    if "draws" not in params:
        return None
    n, b, h, w, head = params["draws"], params["batch"], params["height"], params["width"], describe(params, inputs)
    lam, perm, centre = (got.get(k, torch.empty(0)) for k in ("lam", "perm", "centre"))
    if (lam.shape, perm.shape, centre.shape, perm.dtype, centre.dtype) != ((n,), (n, b), (n, 2), *[torch.int64] * 2):
        return f"{head}: the driver's reports of the draws are missing or malformed (was the driver changed?)"
    if not bool(((lam >= 0) & (lam <= 1)).all()) or (centre < 0).any() or (centre >= torch.tensor([h, w])).any():
        return f"{head}: a draw is out of range: lam is in [0, 1], cy in range(height) and cx in range(width)"
    if not bool((perm.sort(1).values == torch.arange(b)).all()):
        return f"{head}: perm is not a permutation of range(batch) in every draw (torch.randperm(batch, generator=...))"
    if any(not torch.equal(got.get(f"{k} again", torch.empty(0)), got[k][:8]) for k in ("lam", "perm", "centre")):
        return (f"{head}: a generator seeded alike gave other draws: draw every number from the generator passed in "
                "(not torch's global generator, NumPy's or Python's random)")
    uniform, cdf = lambda n: torch.full((n,), 1 / n), torch.tensor([beta_cdf(params["alpha"], float(e)) for e in EDGES])
    for what, drawn, p in (("lam, which follows Beta(alpha, alpha), not U(0, 1) unless alpha = 1 (in tenths of [0, 1])",
                            (lam * 10).long().clamp(max=9), cdf.diff()), ("cy", centre[:, 0], uniform(h)),
                           ("cx", centre[:, 1], uniform(w)), ("perm[0]", perm[:, 0], uniform(b))):
        wrong = kit.chi_square(torch.bincount(drawn, minlength=len(p)), p, false_rejection=RATE, what="value")
        if wrong:
            return f"{head}: {what}: {wrong}"
    return None
