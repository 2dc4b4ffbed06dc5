"""The kit's wrapper scenario (kit_wrapper), every block wrapped in the submission's CheckpointedBlock."""
import kit_wrapper


def run(solution, params, inputs, ctx, _run=kit_wrapper.run):
    return _run(solution.CheckpointedBlock, params, inputs, ctx)
