"""Calls the three functions with the test's sizes, on the judged device, in the test's dtype; decides nothing."""
import torch


def run(solution, params, inputs, ctx):
    dtype = getattr(torch, params["dtype"])
    options = {"offset": params["offset"]} if "offset" in params else {}
    return {
        "pe": solution.sinusoidal_encoding(params["seq_len"], params["d_model"], **options, dtype=dtype,
                                           device=ctx.device),
        "slopes": solution.alibi_slopes(params["n_heads"], dtype=dtype, device=ctx.device),
        "bias": solution.alibi_bias(params["n_heads"], params["t_q"], params["t_k"], dtype=dtype, device=ctx.device),
    }
