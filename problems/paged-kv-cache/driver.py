"""In the sandbox, deciding nothing: runs params["ops"] on a cache over the pools, reporting raised<i> (0, 1 a
RuntimeError, 2 another, traceback on stderr), gk<i>, gv<i>, out<i>, written (non-NaN slots per pool); refills them."""
import torch

import kit

ARGUMENTS, OUTPUTS = {"append": "kv", "attend": "q"}, {"gather": ["gk", "gv"], "attend": ["out"]}


def run(solution, params, inputs, ctx, error=RuntimeError, exception=Exception, tensor=torch.tensor,
        show=kit.show_exception):
    cache, outputs = solution.PagedKVCache(inputs["k_pool"], inputs["v_pool"]), {}
    try:
        for i, (op, seq, *_) in enumerate(params["ops"]):
            try:
                got, code = getattr(cache, op)(seq, *(inputs[f"{name}{i}"] for name in ARGUMENTS.get(op, ""))), 0
            except exception as raised:
                got, code = show(), 1 if isinstance(raised, error) else 2
            outputs[f"raised{i}"] = tensor(code, device=ctx.device)
            got = got if isinstance(got, tuple) else [got]
            outputs.update({f"{n}{i}": t.clone() for n, t in zip(OUTPUTS.get(op, []), got) if torch.is_tensor(t)})
        outputs["written"] = tensor([sum(int((~pool[j:j + 64, :, 0, 0].isnan()).sum()) for j in range(0, len(pool), 64))
                                     for pool in (inputs["k_pool"], inputs["v_pool"])], device=ctx.device)
    finally:
        [inputs[name].fill_(float("nan")) for name in ("k_pool", "v_pool")]
    return outputs
