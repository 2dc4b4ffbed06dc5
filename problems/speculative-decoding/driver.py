"""In the sandbox: one batched step with a seeded generator (twice when the test asks), reported; decides nothing."""
import torch


def run(solution, params, inputs, ctx):
    out = {}
    for suffix, global_seed in [("", 1), (" again", 2)][:1 + bool(params.get("twice"))]:
        torch.manual_seed(global_seed)
        generator = torch.Generator(device=ctx.device).manual_seed(int(inputs["seed"][0]))
        result = solution.speculative_step(inputs["draft_probs"], inputs["target_probs"], inputs["draft_tokens"],
                                           generator=generator)
        if isinstance(result, (tuple, list)) and len(result) == 2:
            out.update({name + suffix: value for name, value in zip(("accepted", "next_token"), result)
                        if isinstance(value, torch.Tensor)})
    return out
