"""The pipe's frame format: what crosses is rebuilt from bytes, checked against limits, never unpickled."""

import io
import json
import pickle
import struct

import pytest
import torch

from runner.harness import wire


def _roundtrip(tensors, blobs=None, header=None):
    stream = io.BytesIO()
    wire.write_frame(stream, header or {"type": "t"}, tensors, blobs)
    stream.seek(0)
    return wire.read_frame(stream)


def _raw_frame(header: dict, payload: bytes = b"") -> io.BytesIO:
    encoded = json.dumps(header).encode()
    return io.BytesIO(wire.MAGIC + struct.pack(">I", len(encoded)) + encoded + payload)


@pytest.mark.parametrize("dtype", list(wire.DTYPES.values()), ids=str)
def test_every_carried_dtype_survives_the_trip(dtype):
    values = (torch.randn(3, 4) * 10).to(dtype) if dtype != torch.bool else torch.rand(3, 4) > 0.5
    frame = _roundtrip({"x": values})
    assert frame.tensors["x"].dtype == dtype
    assert torch.equal(frame.tensors["x"], values)


def test_non_contiguous_empty_and_scalar_tensors_keep_shape_and_values():
    sources = {"t": torch.randn(4, 5).t(), "empty": torch.empty(0, 3), "scalar": torch.tensor(2.5)}
    frame = _roundtrip(sources, blobs={"code": b"\x00\xff raw"})
    for name, tensor in sources.items():
        assert frame.tensors[name].shape == tensor.shape
        assert torch.equal(frame.tensors[name], tensor)
    assert frame.blobs["code"] == b"\x00\xff raw"


def test_header_fields_come_back_as_sent():
    frame = _roundtrip({}, header={"type": "result", "peak_bytes": 12, "forbidden": ["aten::x.default"]})
    assert frame.kind == "result" and frame.header["peak_bytes"] == 12


def test_a_pickle_is_rejected_as_bytes_and_never_loaded(tmp_path):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    with pytest.raises(wire.WireError):
        wire.read_frame(io.BytesIO(pickle.dumps({"type": "result", "x": Payload()})))
    assert not marker.exists()


@pytest.mark.parametrize("header, payload, complaint", [
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [2], "nbytes": 4}]}, b"\0" * 4, "bytes for shape"),
    ({"tensors": [{"name": "x", "dtype": "object", "shape": [1], "nbytes": 8}]}, b"\0" * 8, "unknown dtype"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [-1], "nbytes": 4}]}, b"\0" * 4, "bad shape"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [1] * 9, "nbytes": 4}]}, b"\0" * 4, "bad shape"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [1], "nbytes": True}]}, b"", "byte count"),
    ({"blobs": [{"name": "a", "nbytes": 1}, {"name": "a", "nbytes": 1}]}, b"ab", "duplicate"),
    ({"tensors": "x"}, b"", "must be a list"),
    ({"blobs": [{"name": "a", "nbytes": 10}]}, b"short", "ended"),
    # Sizes that agree (no elements, no bytes) on a shape torch cannot build: past int64, or strides that are.
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [0, 2**64], "nbytes": 0}]}, b"", "bad shape"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [0, 10**18, 10**18], "nbytes": 0}]}, b"", "bad shape"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [0, 1 << 20, 1 << 20], "nbytes": 0}]}, b"", "bad shape"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [1e18], "nbytes": 4}]}, b"\0" * 4, "bad shape"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [True], "nbytes": 4}]}, b"\0" * 4, "bad shape"),
    ({"tensors": [{"name": "x", "dtype": ["float32"], "shape": [1], "nbytes": 4}]}, b"\0" * 4, "unknown dtype"),
    ({"tensors": [{"name": "x", "dtype": {"a": 1}, "shape": [1], "nbytes": 4}]}, b"\0" * 4, "unknown dtype"),
    ({"tensors": [{"name": "x", "nbytes": 0}]}, b"", "unknown dtype"),
    ({"tensors": [{"name": "x", "dtype": "float32", "shape": [1], "nbytes": 10**400}]}, b"", "over the limit"),
    ({"tensors": [{"name": "x" * (wire.MAX_NAME_CHARS + 1), "dtype": "bool", "shape": [], "nbytes": 1}]}, b"\0",
     "malformed"),
    ({"blobs": [{"name": "\ud800", "nbytes": 0}]}, b"", "malformed"),
    ({"blobs": [{"name": ["a"], "nbytes": 0}]}, b"", "malformed"),
    ({"type": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}, b"", "nested deeper"),
])
def test_malformed_frames_are_refused(header, payload, complaint):
    with pytest.raises(wire.WireError, match=complaint):
        wire.read_frame(_raw_frame(header, payload))


def test_a_payload_over_the_limit_is_refused_before_it_is_read():
    header = {"blobs": [{"name": "a", "nbytes": 1 << 40}]}
    with pytest.raises(wire.WireError, match="over the limit"):
        wire.read_frame(_raw_frame(header), max_payload_bytes=1 << 20)


def test_a_header_over_the_limit_is_refused():
    stream = io.BytesIO(wire.MAGIC + struct.pack(">I", wire.MAX_HEADER_BYTES + 1))
    with pytest.raises(wire.WireError, match="header of"):
        wire.read_frame(stream)


@pytest.mark.parametrize("raw", [b"", b"RJW", b"XXXX\0\0\0\0", wire.MAGIC + struct.pack(">I", 2) + b"[]"])
def test_truncated_or_foreign_streams_are_refused(raw):
    with pytest.raises(wire.WireError):
        wire.read_frame(io.BytesIO(raw))


def test_a_dtype_the_format_does_not_carry_is_refused_on_encode():
    with pytest.raises(wire.WireError):
        wire.encode({}, {"q": torch.zeros(2, dtype=torch.float8_e4m3fn)})


def test_a_header_nested_as_deep_as_allowed_is_read():
    nested: list = []
    for _ in range(wire.MAX_NESTING - 2):
        nested = [nested]
    assert wire.read_frame(_raw_frame({"type": "t", "params": nested})).header["params"] == nested


def test_an_empty_tensor_with_wide_dimensions_within_the_limit_is_rebuilt():
    frame = wire.read_frame(_raw_frame({"tensors": [{"name": "x", "dtype": "int64", "shape": [0, 1000, 1000],
                                                      "nbytes": 0}]}), max_payload_bytes=1 << 20)
    assert frame.tensors["x"].shape == (0, 1000, 1000)


def test_a_large_promised_payload_is_asked_for_a_chunk_at_a_time():
    """Memory is spent only as bytes arrive, not on what a header promises."""

    class Recording(io.BytesIO):
        asked: list[int] = []

        def read(self, count=-1):
            self.asked.append(count)
            return super().read(count)

    stream = Recording(_raw_frame({"blobs": [{"name": "a", "nbytes": 64 << 20}]}).getvalue() + b"x" * 10)
    with pytest.raises(wire.WireError, match="ended"):
        wire.read_frame(stream)
    assert max(stream.asked) <= wire.READ_CHUNK_BYTES
