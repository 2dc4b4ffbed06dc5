"""The kit's sandbox side for problems whose submission wraps blocks the judge builds (a checkpointing or an
offloading wrapper), shipped to every sandbox as the module `kit_wrapper`.

`run(wrap, params, inputs, ctx)` builds the test's model from its seed, passes each block through `wrap`,
runs the model the way training or inference does (forward, `loss.backward()`, optimiser steps) and reports
what it saw; runner/kit/wrapper.py judges the reports against the reference's, and measures the plain model's
peak with `scenario(None, ...)`, the same scenario without a wrapper. The test's params:

    model           "block" (one pre-norm transformer block: d_model, n_heads, d_hidden, dropout), "stack"
                    (`blocks` of them in sequence), "heads" (`blocks` of them reading one input, their outputs
                    summed), "mlp" (a block that changes the width, d_in to d_out, its LayerNorm's scale frozen)
    shapes          the (batch, length) of each call of one model instance
    mode            train (the default), eval, no_grad or inference (both of these in training mode)
    autocast        a dtype name: every forward runs under torch.autocast with it
    x_requires_grad false for a raw input; backward = false for forward only; sgd_lr: a step after each backward
    count_calls     report how many times the blocks' forwards ran (every block's, in every mode)

Reports for call k: "out{k}", "x.grad{k}" (absent when None), "requires_grad{k}" (bool); with count_calls,
"runs{k}" and "norms{k}" (int64: the blocks' forward pre-hooks' count, and how many layer norms the call
dispatched, a second count of the same runs that taking the hooks off the blocks cannot hide). After the last
call: "grad:{name}" for every trainable parameter whose gradient is not None, "frozen_grads" (how many frozen
parameters received one) and "rng" (the global streams' next draws).

The submission shares this process and can replace anything in it, so these reports are claims. What `run`
uses is bound here when the module loads, before the submission is imported, and the runs are counted by
hooks whose count lives in a closure, not in an attribute the submission could reset, and again in the
dispatcher: `counted_run()`, which the driver calls as it loads, gives aten::native_layer_norm a kernel for the
BackendSelect key, visited on every call on every thread, that counts and redispatches. So the count is the
same in checked and timed calls, and on any thread; a dispatch mode would be the calling thread's alone, and
only where the harness runs one.
"""

import math
import warnings

import torch
from torch import nn

# Every model here runs a fixed number of layer norms per forward, and its backward dispatches another operator.
NORM = "native_layer_norm"


class SelfAttention(nn.Module):
    """Attention written out with an explicit score matrix (not a fused kernel), so that each block keeps large,
    dropout-dependent activations: the memory a wrapper saves, and the random stream it replays, are then the
    same on every device."""

    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.attn_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, d_model = x.shape
        head_dim = d_model // self.n_heads
        q, k, v = (t.view(batch, seq, self.n_heads, head_dim).transpose(1, 2)
                   for t in self.qkv(x).split(d_model, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(head_dim)
        blocked = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
        weights = self.attn_dropout(scores.masked_fill(blocked, float("-inf")).softmax(dim=-1))
        return self.out((weights @ v).transpose(1, 2).reshape(batch, seq, d_model))


class TransformerBlock(nn.Module):
    """Pre-norm block: `x + drop(attn(ln1(x)))`, then `h + drop(mlp(ln2(h)))`, mapping (B, T, C) to (B, T, C)."""

    def __init__(self, d_model: int, n_heads: int, d_hidden: int, dropout: float):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, dropout)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(), nn.Linear(d_hidden, d_model))
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.resid_dropout(self.attn(self.ln1(x)))
        return x + self.resid_dropout(self.mlp(self.ln2(x)))


class SharedInputHeads(nn.Module):
    """Blocks that all read the same input, their outputs summed: task heads trained on a frozen backbone's
    features, so that every block's input is a raw tensor that does not require grad."""

    def __init__(self, heads: list[nn.Module]):
        super().__init__()
        self.heads = nn.ModuleList(heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.heads[0](x)
        for head in self.heads[1:]:
            out = out + head(x)
        return out


def _bound():
    tensor_type, is_instance, as_tensor, int64, manual_seed = torch.Tensor, isinstance, torch.tensor, torch.int64, \
        torch.manual_seed
    backends, norm = torch.backends, NORM

    def counted_run():
        """`run(wrap, params, inputs, ctx)`, with every layer norm this process computes counted from now on."""
        norms, backend_select = [0], torch._C.DispatchKey.BackendSelect
        overload = torch.ops.aten.native_layer_norm.default

        def counting(keyset, *args, **kwargs):
            norms[0] += 1
            return overload.redispatch(keyset.remove(backend_select), *args, **kwargs)

        library = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():
            # torch warns when a kernel is registered where there was none before, which is the point.
            warnings.simplefilter("ignore")
            library.impl(norm, counting, "BackendSelect", with_keyset=True)

        # The library holds the registration: it lasts while run keeps it.
        def run(wrap, params, inputs, ctx, _library=library):
            # A wrapper computes the plain block's very operations; it may not loosen the float32 matmuls for
            # itself.
            backends.cuda.matmul.allow_tf32 = False
            backends.cudnn.allow_tf32 = False
            return scenario(wrap, params, inputs, ctx.WrongAnswer, lambda: norms[0])

        return run

    def scenario(wrap, params, inputs, wrong, norms=lambda: 0):
        """Every report the test judges. `wrap` is None for the plain model; norms() counts the layer norms
        dispatched so far."""
        seed, device = int(inputs["seed"]), inputs["seed"].device
        manual_seed(seed)
        plain = build(params).to(device)
        # Named as a state_dict names them: "3.attn.qkv.weight" is block 3's in a stack.
        named = list(plain.named_parameters())
        runs = [0]

        def count_run(module, args):
            runs[0] += 1

        if params.get("count_calls"):
            for block in blocks_of(plain, params):
                block.register_forward_pre_hook(count_run)
        model = wrapped(plain, wrap, params)
        model.train(params.get("mode", "train") != "eval")
        trainable = [(name, p) for name, p in named if p.requires_grad]
        # Reseeded after construction, so that a wrapper drawing random numbers in __init__ shifts no dropout mask.
        manual_seed(seed + 1)
        observed = {}
        for call in range(len(params["shapes"])):
            x = inputs[f"x{call}"].clone().requires_grad_(params.get("x_requires_grad", True))
            if "sgd_lr" in params:
                for _, p in trainable:
                    p.grad = None
            runs[0], norms_before = 0, norms()
            out = forward(model, x, params)
            if not is_instance(out, tensor_type):
                raise wrong(f"forward returned {type(out).__name__}, not a torch.Tensor")
            observed[f"out{call}"] = out.detach()
            observed[f"requires_grad{call}"] = as_tensor(bool(out.requires_grad))
            # Without a graph there is no backward to run; the checker says why the graph is missing.
            if params.get("backward", True) and out.requires_grad:
                (out.float() * inputs[f"w{call}"]).sum().backward()
                # A missing gradient is the checker's to report; stepping on it would only raise here.
                if "sgd_lr" in params and all(p.grad is not None for _, p in trainable):
                    sgd_step(trainable, params["sgd_lr"])
            if x.grad is not None:
                observed[f"x.grad{call}"] = x.grad
            if params.get("count_calls"):
                observed[f"runs{call}"] = as_tensor(runs[0], dtype=int64)
                observed[f"norms{call}"] = as_tensor(norms() - norms_before, dtype=int64)
        if params.get("backward", True):
            observed.update({f"grad:{name}": p.grad for name, p in trainable if p.grad is not None})
            observed["frozen_grads"] = as_tensor(sum(p.grad is not None for _, p in named if not p.requires_grad),
                                                 dtype=int64)
        # Where the global streams stand decides the next step's dropout masks: both must be where the plain
        # model leaves them.
        streams = [torch.rand(8).to(device)] + ([torch.rand(8, device=device)] if device.type == "cuda" else [])
        observed["rng"] = torch.cat(streams)
        return observed

    def build(params):
        """The plain model, on the CPU."""
        kind = params["model"]
        if kind == "mlp":
            plain = nn.Sequential(nn.Linear(params["d_in"], params["d_out"]), nn.Dropout(params["dropout"]),
                                  nn.GELU(), nn.LayerNorm(params["d_out"]))
            plain[3].weight.requires_grad_(False)
            return plain
        blocks = [TransformerBlock(params["d_model"], params["n_heads"], params["d_hidden"], params["dropout"])
                  for _ in range(params.get("blocks", 1))]
        return blocks[0] if kind == "block" else nn.Sequential(*blocks) if kind == "stack" else SharedInputHeads(blocks)

    def blocks_of(plain, params):
        """The blocks a wrapper wraps, in the plain model."""
        return list(plain) if params["model"] == "stack" else list(plain.heads) if params["model"] == "heads" else [plain]

    def wrapped(plain, wrap, params):
        if wrap is None:
            return plain
        if params["model"] == "stack":
            return nn.Sequential(*(wrap(block) for block in plain))
        if params["model"] == "heads":
            return SharedInputHeads([wrap(head) for head in plain.heads])
        return wrap(plain)

    def forward(model, x, params):
        mode = params.get("mode")
        if mode == "no_grad":
            with torch.no_grad():
                return model(x)
        if mode == "inference":
            with torch.inference_mode():
                return model(x)
        if "autocast" in params:
            with torch.autocast(x.device.type, dtype=getattr(torch, params["autocast"])):
                return model(x)
        return model(x)

    def sgd_step(trainable, learning_rate):
        """torch.optim.SGD's step without momentum, written out: building an optimiser imports torch._dynamo on
        first use, over a second of CPU time charged to whichever test came first."""
        with torch.no_grad():
            for _, p in trainable:
                p.add_(p.grad, alpha=-learning_rate)

    return counted_run, scenario


counted_run, scenario = _bound()
del _bound
