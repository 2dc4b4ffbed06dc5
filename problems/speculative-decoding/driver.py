"""In the sandbox: one batched step with the test's seeded generator (twice when it asks), reported; decides nothing."""
import kit_sampler


def run(solution, params, inputs, ctx, _draw=kit_sampler.draw):
    def step(generator):
        return solution.speculative_step(inputs["draft_probs"], inputs["target_probs"], inputs["draft_tokens"],
                                         generator=generator)
    return _draw(step, ["accepted", "next_token"], params, inputs, ctx)
