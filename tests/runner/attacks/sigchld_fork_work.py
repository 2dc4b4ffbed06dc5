# expect: runtime_error
# message: runs in this one process
# problem: mhsa
# tests: all
# Ignores SIGCHLD and does every call's work, forward and backward, in forked children: the kernel reaps
# them at once, so their CPU time reaches no process's count of its children and their memory is in no
# process the judge reads; the calling thread only waits for the bytes. Any solution, however slow or
# large, would be timed as a pipe read.
import math
import os
import signal

import torch
from torch import nn

signal.signal(signal.SIGCHLD, signal.SIG_IGN)


def _attention(x, w_qkv, b_qkv, w_out, b_out, heads, causal):
    batch, seq, d_model = x.shape
    q, k, v = (part.view(batch, seq, heads, d_model // heads).transpose(1, 2)
               for part in nn.functional.linear(x, w_qkv, b_qkv).split(d_model, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model // heads)
    if causal:
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, seq, d_model)
    return nn.functional.linear(y, w_out, b_out)


def _in_child(compute, like):
    """compute() run in a forked child; its tensors, shaped as like, read back through a pipe."""
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        try:
            os.close(read_end)
            for tensor in compute():
                data = tensor.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes()
                while data:
                    data = data[os.write(write_end, data):]
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 1 << 20):
        chunks.append(chunk)
    os.close(read_end)
    blob, results, offset = b"".join(chunks), [], 0
    for tensor in like:
        size = tensor.numel() * tensor.element_size()
        results.append(torch.frombuffer(bytearray(blob[offset:offset + size]), dtype=tensor.dtype).view(tensor.shape))
        offset += size
    return results


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w_qkv, b_qkv, w_out, b_out, heads, causal):
        ctx.save_for_backward(x, w_qkv, b_qkv, w_out, b_out)
        ctx.heads, ctx.causal = heads, causal
        with torch.no_grad():
            return _in_child(lambda: [_attention(x, w_qkv, b_qkv, w_out, b_out, heads, causal)], [x])[0]

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors

        def gradients():
            leaves = [t.detach().requires_grad_() for t in saved]
            with torch.enable_grad():
                y = _attention(*leaves, ctx.heads, ctx.causal)
            return torch.autograd.grad(y, leaves, grad)

        return (*_in_child(gradients, saved), None, None)


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.heads, self.causal = n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _Attention.apply(x, self.qkv.weight, self.qkv.bias, self.out.weight, self.out.bias, self.heads,
                                self.causal)
