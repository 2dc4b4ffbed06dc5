"""Reference results kept on the trusted side, so a judge does not recompute what it computed a minute ago.

A result is keyed by the problem version, the device type, the torch version and a hash of the request's
parameters and input bytes: inputs come from a few secret seeds per version, so the same requests recur.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

import torch

from .harness import wire


def key(problem_version: str, device_type: str, params: dict[str, Any], inputs: dict[str, torch.Tensor]) -> str:
    """The cache key of one reference request."""
    digest = hashlib.sha256()
    digest.update(json.dumps([problem_version, device_type, torch.__version__, params], sort_keys=True).encode())
    for name in sorted(inputs):
        tensor = inputs[name].contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(wire.tensor_bytes(tensor))
    return digest.hexdigest()


class ReferenceCache:
    """A thread-safe LRU of (answer header, outputs), bounded by the bytes of the outputs it holds."""

    def __init__(self, max_bytes: int = 512 << 20):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, tuple[dict[str, Any], dict[str, torch.Tensor], int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, cache_key: str) -> tuple[dict[str, Any], dict[str, torch.Tensor]] | None:
        with self._lock:
            entry = self._entries.get(cache_key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(cache_key)
            self.hits += 1
            return entry[0], entry[1]

    def put(self, cache_key: str, answer: dict[str, Any], outputs: dict[str, torch.Tensor]) -> None:
        size = sum(tensor.numel() * tensor.element_size() for tensor in outputs.values())
        if size > self.max_bytes:
            return
        with self._lock:
            if cache_key in self._entries:
                return
            self._entries[cache_key] = (answer, outputs, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, _, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped


DEFAULT = ReferenceCache()
