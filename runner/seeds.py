"""Seeds for test inputs: public ones for sample tests, secret ones for hidden tests.

Hidden inputs come from one of SEEDS_PER_VERSION seeds per problem version, one drawn per judgement (or
given, so a re-judge sees the same inputs), each an HMAC of the version under a server-side key that lives
outside the repository: passed in by the caller, who reads it from configuration that every judge of a
deployment shares, or else created on first use in the state directory, which serves the judges of one
machine only. A fixed set rather than one seed per run, so reference results can be cached; enough of them
that a submission judged a few times has not met every hidden input; a key outside git, so reading the
repository does not reveal the hidden inputs.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

import torch

SEEDS_PER_VERSION = 64
KEY_BYTES = 32


def load_key(state_dir: Path) -> bytes:
    """The key in state_dir/seed.key, created (readable by its owner only) if missing.

    Judges that start together (a worker's pool processes, two workers on one host) may all find it missing:
    each writes a whole key to a file of its own and links it into place, so one wins and none reads a key
    that is still being written."""
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = state_dir / "seed.key"
    if not path.exists():
        draft = state_dir / f"seed.key.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(KEY_BYTES))
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_bytes()
    if len(key) < KEY_BYTES:
        raise ValueError(f"{path} is shorter than {KEY_BYTES} bytes")
    return key


def key_from_hex(text: str) -> bytes:
    """A key written as hex (`openssl rand -hex 32`), as configuration holds one; ValueError if it is not hex or
    is shorter than KEY_BYTES."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError("the seed key is not hex (make one with `openssl rand -hex 32`)") from None
    if len(key) < KEY_BYTES:
        raise ValueError(f"the seed key is {len(key)} bytes, fewer than {KEY_BYTES} ({2 * KEY_BYTES} hex digits)")
    return key


def _derive(*parts: bytes, key: bytes = b"public") -> int:
    digest = hmac.new(key, b"\0".join(parts), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


def draw_index() -> int:
    """The index of a hidden seed, drawn at random."""
    return secrets.randbelow(SEEDS_PER_VERSION)


def hidden_seed(key: bytes, problem_version: str, index: int) -> int:
    """The version's secret seed number index (0 <= index < SEEDS_PER_VERSION)."""
    if not 0 <= index < SEEDS_PER_VERSION:
        raise ValueError(f"a hidden seed's index is from 0 to {SEEDS_PER_VERSION - 1}, not {index}")
    return _derive(problem_version.encode(), str(index).encode(), key=key)


def sample_seed(slug: str) -> int:
    """The public seed of a problem's sample tests: the same on every run, so "Run" is reproducible."""
    return _derive(b"sample", slug.encode())


def generator(seed: int, *purpose: object) -> torch.Generator:
    """A CPU generator for one use of a seed (a test's inputs, a timing round...)."""
    gen = torch.Generator()
    gen.manual_seed(_derive(str(seed).encode(), *(str(p).encode() for p in purpose)))
    return gen
