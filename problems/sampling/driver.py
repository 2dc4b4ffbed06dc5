"""In the sandbox: sample with a seeded generator (twice when the test asks), the tokens reported; decides nothing."""
import torch


def run(solution, params, inputs, ctx):
    keywords = {k: params[k] for k in ("temperature", "top_k", "top_p") if k in params}
    out = {}
    for name, global_seed in [("tokens", 1), ("tokens again", 2)][:1 + bool(params.get("twice"))]:
        torch.manual_seed(global_seed)
        generator = torch.Generator(device=ctx.device).manual_seed(int(inputs["seed"][0]))
        tokens = solution.sample(inputs["logits"], generator=generator, **keywords)
        if isinstance(tokens, torch.Tensor):
            out[name] = tokens
    return out
