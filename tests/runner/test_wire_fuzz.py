"""Fuzzing the pipe from the sandbox: whatever bytes arrive, the decoder raises WireError or nothing, and the
trusted side's frame reader, fed through a real pipe by a real process, turns them into frames or a verdict's
cause within the request's time, never into a dead reader and a judge left waiting."""

from __future__ import annotations

import contextlib
import io
import json
import struct
import sys
import threading
import time

import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from runner.harness import wire
from runner.sandbox import Ended
from runner.sandbox.process import MEMORY, PROTOCOL, SandboxProcess, command

LIMIT = 1 << 16
FIELDS = ("name", "dtype", "shape", "nbytes")
# Integers at the edges: past int64, past the payload limit, negative, and a bool (which JSON writes as one).
EDGE_INTS = st.sampled_from([0, 1, 2, -1, LIMIT, LIMIT + 1, 2**31, 2**63 - 1, 2**63, 2**64, 10**18, 10**400, True])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | EDGE_INTS | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
ODD_VALUES = EDGE_INTS | JSON_VALUES | st.lists(EDGE_INTS, max_size=9) | st.sampled_from(sorted(wire.DTYPES))


@st.composite
def frames(draw) -> bytes:
    """A valid frame as the harness writes it: a few small tensors of any carried dtype, blobs, header fields."""
    tensors = {}
    for index in range(draw(st.integers(0, 3))):
        dtype = wire.DTYPES[draw(st.sampled_from(sorted(wire.DTYPES)))]
        shape = draw(st.lists(st.integers(0, 4), max_size=3))
        tensors[f"t{index}"] = torch.zeros(shape, dtype=dtype)
    blobs = {f"b{index}": draw(st.binary(max_size=24)) for index in range(draw(st.integers(0, 2)))}
    header = {"type": draw(st.sampled_from(["result", "timed", "loaded", "ready"])),
              **draw(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3))}
    return b"".join(bytes(piece) for piece in wire.encode(header, tensors, blobs))


def _split(frame: bytes) -> tuple[dict, bytes]:
    (length,) = struct.unpack(">I", frame[4:8])
    return json.loads(frame[8:8 + length]), frame[8 + length:]


def _joined(header: dict, payload: bytes) -> bytes:
    raw = json.dumps(header).encode()
    return wire.MAGIC + struct.pack(">I", len(raw)) + raw + payload


def mutated(frame: bytes, data) -> bytes:
    """frame with one mutation drawn from data: a header field or entry changed, a size, the magic, the end."""
    header, payload = _split(frame)
    kind = data.draw(st.sampled_from(["entry", "drop", "add", "header", "length", "magic", "truncate", "append",
                                      "flip", "shape", "none"]))
    lists = [key for key in ("tensors", "blobs") if header[key]]
    if kind in ("entry", "drop", "shape") and lists:
        entry = data.draw(st.sampled_from(header[data.draw(st.sampled_from(lists))]))
        if kind == "entry":
            entry[data.draw(st.sampled_from(FIELDS) | st.text(max_size=4))] = data.draw(ODD_VALUES)
        elif kind == "drop":
            entry.pop(data.draw(st.sampled_from(FIELDS)), None)
        else:
            entry["shape"] = data.draw(st.lists(EDGE_INTS, max_size=9))
            entry["nbytes"] = data.draw(st.sampled_from([0, entry.get("nbytes", 0)]) | EDGE_INTS)
        return _joined(header, payload)
    if kind == "add":
        header[data.draw(st.sampled_from(["tensors", "blobs"]))].append(
            data.draw(st.fixed_dictionaries({}, optional={field: ODD_VALUES for field in FIELDS})))
        return _joined(header, payload)
    if kind == "header":
        header[data.draw(st.sampled_from(["type", "tensors", "blobs", "error"]) | st.text(max_size=4))] = \
            data.draw(ODD_VALUES)
        return _joined(header, payload)
    if kind == "length":
        return frame[:4] + struct.pack(">I", data.draw(st.integers(0, 2**32 - 1))) + frame[8:]
    if kind == "magic":
        return data.draw(st.binary(min_size=4, max_size=4)) + frame[4:]
    if kind == "truncate":
        return frame[:data.draw(st.integers(0, len(frame)))]
    if kind == "append":
        return frame + data.draw(st.binary(max_size=64) | frames())
    if kind == "flip":
        at = data.draw(st.integers(0, len(frame) - 1))
        return frame[:at] + bytes([frame[at] ^ data.draw(st.integers(1, 255))]) + frame[at + 1:]
    return frame


@settings(max_examples=3000, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=frames(), data=st.data())
def test_the_decoder_raises_nothing_but_wire_errors_whatever_the_bytes(frame, data):
    raw = mutated(frame, data)
    try:
        decoded = wire.read_frame(io.BytesIO(raw), max_payload_bytes=LIMIT)
    except wire.WireError:
        event("refused")
        return
    event("decoded")
    assert sum(t.numel() * t.element_size() for t in decoded.tensors.values()) <= LIMIT


# Writes the bytes given in hex to its response pipe, then waits the seconds given before it exits.
CHILD = """import os, sys, time
with os.fdopen(int(sys.argv[2]), "wb") as out:
    out.write(bytes.fromhex(sys.argv[3]))
    out.flush()
    time.sleep(float(sys.argv[4]))
"""
RECEIVE_S = 10.0


def _sender(data: bytes, linger_s: float = 0.0) -> SandboxProcess:
    """A plain process that sends data up a real pipe to a SandboxProcess, as a harness would."""
    return SandboxProcess(command(lambda request_fd, response_fd: [sys.executable, "-I", "-S", "-c", CHILD,
                                                                   str(request_fd), str(response_fd), data.hex(),
                                                                   str(linger_s)]),
                          memory_limit_bytes=1 << 30, max_payload_bytes=LIMIT)


@contextlib.contextmanager
def _no_thread_dies():
    died = []
    previous, threading.excepthook = threading.excepthook, died.append
    try:
        yield
    finally:
        threading.excepthook = previous
    assert not died, f"a thread raised: {died[0].exc_value!r}"


def _ended(process: SandboxProcess, frames_allowed: int = 100) -> Ended:
    """Receive until the process's end, and how it ended; each receive must end well before its deadline."""
    for _ in range(frames_allowed + 1):
        started = time.monotonic()
        try:
            process.receive(timeout_s=RECEIVE_S)
        except Ended as ended:
            assert time.monotonic() - started < RECEIVE_S, "the reader left the judge waiting for the deadline"
            return ended
    raise AssertionError("more frames than were sent")


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(sent=st.lists(frames(), min_size=1, max_size=3), data=st.data())
def test_the_frame_reader_turns_whatever_a_sandbox_sends_into_frames_or_an_end(sent, data):
    raw = b"".join(sent[:-1]) + mutated(sent[-1], data)
    with _no_thread_dies():
        process = _sender(raw)
        try:
            ended = _ended(process)
        finally:
            process.close()
    event(f"ended with cause {ended.cause}")
    assert ended.cause in (None, PROTOCOL), ended.detail


def test_a_malformed_frame_from_a_process_that_waits_on_is_a_protocol_break_at_once():
    entry = {"name": "y", "dtype": "float32", "shape": [0, 2**64], "nbytes": 0}
    with _no_thread_dies():
        process = _sender(_joined({"type": "result", "tensors": [entry], "blobs": []}, b""), linger_s=60)
        try:
            ended = _ended(process)
        finally:
            process.close()
    assert ended.cause == PROTOCOL and "not a judge frame" in ended.detail


def test_any_exception_of_the_decoder_is_a_protocol_break(monkeypatch):
    def broken_decoder(stream, max_payload_bytes):
        raise RuntimeError("a bug of the decoder's own")

    monkeypatch.setattr(wire, "read_frame", broken_decoder)
    with _no_thread_dies():
        process = _sender(_joined({"type": "result", "tensors": [], "blobs": []}, b""), linger_s=60)
        try:
            ended = _ended(process)
        finally:
            process.close()
    assert ended.cause == PROTOCOL and "RuntimeError" in ended.detail


def test_a_frame_sent_before_the_last_was_read_is_a_protocol_break():
    answer = _joined({"type": "result", "tensors": [], "blobs": []}, b"")
    process = _sender(answer * 3, linger_s=60)
    try:
        time.sleep(1.0)  # the reader takes all three meanwhile
        assert process.receive(timeout_s=RECEIVE_S).kind == "result"
        ended = _ended(process, frames_allowed=0)
    finally:
        process.close()
    assert ended.cause == PROTOCOL and "before the judge had read" in ended.detail


def test_a_frame_cut_short_by_the_judges_kill_ends_as_the_kill_says():
    promised = _joined({"type": "result", "blobs": [{"name": "a", "nbytes": 1000}], "tensors": []}, b"x" * 10)
    process = _sender(promised, linger_s=60)
    try:
        time.sleep(0.5)
        process.kill(MEMORY)
        ended = _ended(process, frames_allowed=0)
    finally:
        process.close()
    assert ended.cause == MEMORY
