"""In the sandbox: quantize(w), dequantize of given codes and scales, and the round trip; decides nothing."""
import kit

QUANTIZE = {"call": "quantize", "args": ["w"], "kwargs": ["group_size", "bits"], "outputs": ["codes", "scales"]}
DEQUANTIZE = {"call": "dequantize", "args": ["codes", "scales"], "kwargs": ["group_size", "bits"], "outputs": ["w_hat"]}
OUTPUTS = ("codes", "scales", "w_hat", "round trip")


def run(solution, params, inputs, ctx):
    out = kit.run_function(solution, params, {"w": inputs["w"]}, ctx, QUANTIZE)
    out.update(kit.run_function(solution, params, {"codes": inputs["codes_to_dequantize"],
                                                   "scales": inputs["scales_to_dequantize"]}, ctx, DEQUANTIZE))
    if "codes" in out and "scales" in out:  # the round trip of the submission's own codes
        trip = kit.run_function(solution, params, {"codes": out["codes"], "scales": out["scales"]}, ctx, DEQUANTIZE)
        out.update({"round trip": trip["w_hat"]} if "w_hat" in trip else {})
    return {name: out[name] for name in OUTPUTS if name in out}  # without run_function's reports on each
