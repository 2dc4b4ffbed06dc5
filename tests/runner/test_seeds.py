"""The seed key: created once per state directory, whoever asks first, and never read half-written."""

from __future__ import annotations

import multiprocessing
import secrets
import stat
import time

import pytest

from runner import seeds


def _load_when_told(state_dir, go, keys):
    go.wait()
    try:
        keys.put(seeds.load_key(state_dir))
    except ValueError as error:
        keys.put(str(error))


def test_judges_starting_together_all_get_the_one_key_written(tmp_path, monkeypatch):
    draw = secrets.token_bytes

    def slow_draw(count):
        time.sleep(0.2)  # the others look for the key while the first is still writing it
        return draw(count)

    monkeypatch.setattr(secrets, "token_bytes", slow_draw)
    fork = multiprocessing.get_context("fork")
    go, keys = fork.Event(), fork.Queue()
    starters = [fork.Process(target=_load_when_told, args=(tmp_path, go, keys)) for _ in range(8)]
    for starter in starters:
        starter.start()
    go.set()
    found = {keys.get(timeout=30) for _ in starters}
    for starter in starters:
        starter.join(timeout=30)
        assert starter.exitcode == 0
    assert found == {(tmp_path / "seed.key").read_bytes()}
    assert len(found.pop()) == seeds.KEY_BYTES
    assert [path.name for path in tmp_path.iterdir()] == ["seed.key"]
    assert stat.S_IMODE((tmp_path / "seed.key").stat().st_mode) == 0o600


def test_the_key_is_kept_across_loads(tmp_path):
    assert seeds.load_key(tmp_path) == seeds.load_key(tmp_path)


def test_a_truncated_key_is_refused_not_replaced(tmp_path):
    (tmp_path / "seed.key").write_bytes(b"short")
    with pytest.raises(ValueError, match="shorter than 32 bytes"):
        seeds.load_key(tmp_path)
    assert (tmp_path / "seed.key").read_bytes() == b"short"
