"""Calls layer_norm_backward through the kit's function driver with autograd's saved-tensor hooks set: any
operation that records a graph for autograd saves a tensor, and saving one calls autograd::graph_recorded,
which problem.toml forbids. It decides nothing; the harness reports the forbidden call."""

import torch

import kit

INTERFACE = {"call": "layer_norm_backward", "args": ["dy", "x", "weight"], "kwargs": ["eps"],
             "outputs": ["dx", "dweight", "dbias"]}


@torch.library.custom_op("autograd::graph_recorded", mutates_args=())
def graph_recorded(saved: torch.Tensor) -> torch.Tensor:
    return saved.new_empty(0)


def _pack(saved, _report=graph_recorded):
    _report(saved)
    return saved


def run(solution, params, inputs, ctx, _run=kit.run_function, _hooks=torch.autograd.graph.saved_tensors_hooks):
    with _hooks(_pack, lambda saved: saved):
        return _run(solution, params, inputs, ctx, INTERFACE)
