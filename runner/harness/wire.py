"""Framing for the judge's pipe: a JSON header, then raw tensor and blob bytes, with bounded sizes.

One frame on the pipe:

    b"RJW1" | header length (u32, big-endian) | header (UTF-8 JSON object) | payload bytes

The header's "tensors" list gives, for each tensor in payload order, its name, dtype, shape and byte count;
"blobs" does the same for raw byte strings. Nothing is ever unpickled: the receiver rebuilds tensors from
bytes with torch.frombuffer after checking every field against the limits (names: strings of bounded length;
dtypes: one of DTYPES by name; shapes: at most MAX_DIMS counts, whose product, zeros counted as ones, stays
within the payload limit, so no dimension or stride overflows; nesting: at most MAX_NESTING deep), so a
hostile sender can at worst make a frame rejected: read_frame raises WireError and nothing else. Both sides of
the pipe import this module.
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import torch

MAGIC = b"RJW1"
MAX_HEADER_BYTES = 1 << 20
DEFAULT_MAX_PAYLOAD_BYTES = 1 << 30
MAX_TENSORS = 4096
MAX_DIMS = 8
MAX_NAME_CHARS = 512
# Deeper than any header either side writes (a test's parameters are a few levels), and far from the depth at
# which Python's own recursion limit would stop code that walks or quotes the header.
MAX_NESTING = 32
# A read asks the pipe for at most this much at a time, so a header that promises a large payload costs memory
# only as its bytes arrive.
READ_CHUNK_BYTES = 1 << 20

DTYPES: dict[str, torch.dtype] = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}


class WireError(Exception):
    """A frame that breaks the format or its limits."""


@dataclass
class Frame:
    """A decoded frame: the header's JSON fields, tensors by name, blobs by name."""

    header: dict[str, Any]
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.header.get("type", ""))


def dtype_name(dtype: torch.dtype) -> str:
    """The wire name of a dtype; WireError for one the format does not carry."""
    try:
        return DTYPE_NAMES[dtype]
    except KeyError:
        raise WireError(f"dtype {dtype} cannot cross the pipe") from None


def encode(header: dict[str, Any], tensors: dict[str, torch.Tensor] | None = None,
           blobs: dict[str, bytes] | None = None) -> list[bytes | memoryview]:
    """The pieces of one frame, ready for writelines; tensors are copied to contiguous CPU memory."""
    tensor_entries, payload = [], []
    for name, tensor in (tensors or {}).items():
        plain = tensor.detach()
        if plain.device.type != "cpu":
            plain = plain.cpu()
        plain = plain.contiguous()
        entry = {"name": name, "dtype": dtype_name(plain.dtype), "shape": list(plain.shape)}
        data = tensor_bytes(plain)
        entry["nbytes"] = len(data)
        tensor_entries.append(entry)
        payload.append(data)
    blob_entries = []
    for name, data in (blobs or {}).items():
        blob_entries.append({"name": name, "nbytes": len(data)})
        payload.append(data)
    full_header = dict(header, tensors=tensor_entries, blobs=blob_entries)
    header_bytes = json.dumps(full_header, separators=(",", ":"), allow_nan=True).encode()
    if len(header_bytes) > MAX_HEADER_BYTES:
        raise WireError(f"header of {len(header_bytes)} bytes is over the limit of {MAX_HEADER_BYTES}")
    return [MAGIC, struct.pack(">I", len(header_bytes)), header_bytes, *payload]


def tensor_bytes(tensor: torch.Tensor) -> memoryview:
    if tensor.numel() == 0:
        return memoryview(b"")
    # A byte view of the storage avoids numpy (bfloat16 has no numpy dtype) and copies nothing.
    flat = tensor.reshape(-1).view(torch.uint8)
    return memoryview(flat.numpy()).cast("B")


def write_frame(stream: BinaryIO, header: dict[str, Any], tensors: dict[str, torch.Tensor] | None = None,
                blobs: dict[str, bytes] | None = None) -> None:
    """Encode and write one frame, then flush."""
    stream.writelines(encode(header, tensors, blobs))
    stream.flush()


def read_exact(stream: BinaryIO, count: int) -> bytes:
    """Exactly count bytes, or WireError at end of stream."""
    chunks, missing = [], count
    while missing:
        chunk = stream.read(min(missing, READ_CHUNK_BYTES))
        if not chunk:
            raise WireError(f"the stream ended {missing} bytes short of a frame")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO, max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES) -> Frame:
    """Read and validate one frame; WireError on anything malformed or over the limits."""
    magic = read_exact(stream, 4)
    if magic != MAGIC:
        raise WireError(f"bad frame start {magic!r}")
    (header_length,) = struct.unpack(">I", read_exact(stream, 4))
    if header_length > MAX_HEADER_BYTES:
        raise WireError(f"header of {header_length} bytes is over the limit of {MAX_HEADER_BYTES}")
    header = _parse_header(read_exact(stream, header_length))
    tensor_entries = [_tensor_entry(name, entry, max_payload_bytes) for name, entry in _entries(header, "tensors")]
    blob_entries = [(name, _byte_count(name, entry, max_payload_bytes)) for name, entry in _entries(header, "blobs")]
    total = sum(entry[3] for entry in tensor_entries) + sum(nbytes for _, nbytes in blob_entries)
    if total > max_payload_bytes:
        raise WireError(f"payload of {total} bytes is over the limit of {max_payload_bytes}")
    frame = Frame(header=header)
    for name, dtype, shape, nbytes in tensor_entries:
        frame.tensors[name] = _rebuild(dtype, shape, read_exact(stream, nbytes))
    for name, nbytes in blob_entries:
        frame.blobs[name] = read_exact(stream, nbytes)
    return frame


def _parse_header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise WireError(f"header is not JSON: {error}") from None
    if not isinstance(header, dict):
        raise WireError("header is not a JSON object")
    if _nesting(header) > MAX_NESTING:
        raise WireError(f"header nested deeper than {MAX_NESTING} levels")
    return header


def _nesting(value: Any) -> int:
    """How deeply lists and objects nest in a parsed header, counted without recursion."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                return deepest
            pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _entries(header: dict[str, Any], key: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, entry) for each entry of the header's list under key, names checked and distinct."""
    entries = header.get(key, [])
    if not isinstance(entries, list) or len(entries) > MAX_TENSORS:
        raise WireError(f"{key!r} must be a list of at most {MAX_TENSORS} entries")
    named = {}
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not _is_name(name):
            raise WireError(f"malformed {key} entry {entry!r:.200}")
        if name in named:
            raise WireError(f"duplicate {key} entry {name!r:.100}")
        named[name] = entry
    return list(named.items())


def _is_name(name: Any) -> bool:
    """A string of bounded length that UTF-8 can carry (no lone surrogates), so it can be quoted anywhere."""
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_count(value: Any, limit: int) -> bool:
    """Whether value is an integer (a bool is not one) from 0 to limit."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit


def _byte_count(name: str, entry: dict[str, Any], max_payload_bytes: int) -> int:
    nbytes = entry.get("nbytes")
    if is_count(nbytes, max_payload_bytes):
        return nbytes
    if isinstance(nbytes, int) and not isinstance(nbytes, bool) and nbytes > 0:
        raise WireError(f"entry {name!r:.100}: its byte count is over the limit of {max_payload_bytes}")
    raise WireError(f"entry {name!r:.100} has no valid byte count")


def _tensor_entry(name: str, entry: dict[str, Any], max_payload_bytes: int) -> tuple[str, torch.dtype, list[int], int]:
    """(name, dtype, shape, byte count) of a tensor entry, each checked, the count against dtype and shape."""
    nbytes = _byte_count(name, entry, max_payload_bytes)
    dtype_name, shape = entry.get("dtype"), entry.get("shape")
    dtype = DTYPES.get(dtype_name) if isinstance(dtype_name, str) else None
    if dtype is None:
        raise WireError(f"tensor {name!r:.100}: unknown dtype {dtype_name!r:.50}")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMS
            or not all(is_count(n, max_payload_bytes) for n in shape)
            or math.prod(max(n, 1) for n in shape) > max_payload_bytes):
        raise WireError(f"tensor {name!r:.100}: bad shape {shape!r:.200}")
    expected = math.prod(shape) * dtype.itemsize
    if expected != nbytes:
        raise WireError(f"tensor {name!r:.100}: {nbytes} bytes for shape {shape} of {dtype_name}")
    return name, dtype, shape, nbytes


def _rebuild(dtype: torch.dtype, shape: list[int], data: bytes) -> torch.Tensor:
    if not data:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype).reshape(shape)


def open_pipe(fd: int, mode: str) -> BinaryIO:
    """A buffered binary stream on an inherited pipe end."""
    return os.fdopen(fd, mode + "b", buffering=1 << 16)
