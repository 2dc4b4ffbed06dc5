"""In the sandbox: the submission's tokens, drawn with the test's seeded generator (twice when it asks); decides nothing."""
import kit_sampler


def run(solution, params, inputs, ctx, _draw=kit_sampler.draw):
    keywords = {k: params[k] for k in ("temperature", "top_k", "top_p") if k in params}
    return _draw(lambda generator: solution.sample(inputs["logits"], generator=generator, **keywords), ["tokens"],
                 params, inputs, ctx)
