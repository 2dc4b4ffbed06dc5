"""Reference results kept on the trusted side, so a judge does not recompute what it computed a minute ago.

A result is keyed by the problem version, the device type, the torch version, the seed the test's inputs
were drawn from (the public seed of a sample test, or one of the version's few secret seeds), the test's
name and its parameters. Those decide the inputs: a checker draws them only from the generator it is given
(problems/README.md), and `runner check` judges several solutions through one cache, so a checker that
broke that rule would fail its own problem's check. The key never leaves this process, and the seed enters
it only through a hash.

Only checked calls are cached. A timed test's reference is timed in the same run as the user's code, always;
the median of its timed calls is added to the test's entry (TIMED_CALL_NS) for planning a later judge's lanes
(runner/judging/plan.py), never to judge a time against.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

import torch

# The field of a timed test's cached answer that holds the reference's median timed call, in nanoseconds.
TIMED_CALL_NS = "timed_call_ns"
# What an entry costs beyond its tensors' bytes (the answer's header, the key, the bookkeeping), roughly.
ENTRY_OVERHEAD_BYTES = 1024


def key(problem_version: str, device_type: str, seed: int, test_name: str, params: dict[str, Any]) -> str:
    """The cache key of one test's reference result."""
    material = [problem_version, device_type, torch.__version__, seed, test_name, params]
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


class ReferenceCache:
    """A thread-safe LRU of (answer header, outputs), bounded by the bytes it holds and by its entry count."""

    def __init__(self, max_bytes: int = 512 << 20, max_entries: int = 4096):
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[dict[str, Any], dict[str, torch.Tensor], int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes_held(self) -> int:
        return self._bytes

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
        size = _size(answer, outputs)
        if size > self.max_bytes:
            return
        with self._lock:
            if cache_key in self._entries:
                return
            self._entries[cache_key] = (answer, outputs, size)
            self._bytes += size
            self._trim()

    def annotate(self, cache_key: str, **fields: Any) -> None:
        """Add fields to a held entry's answer (what was learnt of the reference after its call was cached);
        nothing if the entry is not held. Earlier readers keep the answer they were given."""
        with self._lock:
            entry = self._entries.get(cache_key)
            if entry is None:
                return
            answer, outputs, size = entry
            answer = {**answer, **fields}
            grown = _size(answer, outputs)
            self._entries[cache_key] = (answer, outputs, grown)
            self._bytes += grown - size
            self._trim()

    def _trim(self) -> None:
        while self._bytes > self.max_bytes or len(self._entries) > self.max_entries:
            _, (_, _, dropped) = self._entries.popitem(last=False)
            self._bytes -= dropped


def _size(answer: dict[str, Any], outputs: dict[str, torch.Tensor]) -> int:
    return ENTRY_OVERHEAD_BYTES + len(json.dumps(answer, default=str)) + sum(
        tensor.numel() * tensor.element_size() for tensor in outputs.values())


DEFAULT = ReferenceCache()
