"""What k0maru keeps per user (#61): the model's optimised copy and the token counter's cut of the
vocabulary, truncated or overwritten, are never loaded: each is made again from the installed
package and gives what it gave before (real onnxruntime, real files)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from k0maru import llm_tokens, usercache
from k0maru.search.embedding import WEIGHTS, Embedder, optimized_copy

TEXTS = ["SQLITE_BUSY during the nightly backup", "a lease renewal that never came"]


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def garbage(path: Path) -> None:
    path.write_bytes(random.Random(3).randbytes(path.stat().st_size))


def flipped(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x01
    path.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": truncated,
    "garbage": garbage,
    "a flipped bit": flipped,
}


def test_a_damaged_rank_cache_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = llm_tokens._cached_ranks(frozenset())
    (cached,) = (tmp_path / "k0maru" / "tokens").glob("*.marshal")
    for kind, damage in DAMAGE.items():
        damage(cached)
        assert usercache.read(cached) is None, kind
        assert llm_tokens._cached_ranks(frozenset()) == first, kind
        assert usercache.read(cached) is not None, kind  # made again, whole


def test_a_damaged_model_copy_is_made_again_from_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = Embedder()
    want = first.embed(TEXTS)
    copy = optimized_copy(first.model_path, ort.__version__)
    assert copy is not None and usercache.intact(copy.parent)
    record = copy.parent.with_name(copy.parent.name + usercache.SOURCE)
    older = lambda _: record.write_text(record.read_text().split(', "files"')[0] + "}")  # noqa: E731
    for kind, damage, name in (
        ("truncated", truncated, WEIGHTS),
        ("garbage", garbage, WEIGHTS),
        ("a flipped bit", flipped, "model.onnx"),
        ("recorded by an older k0maru, without its files' stamps", older, "model.onnx"),
    ):
        damage(copy.with_name(name))
        assert not usercache.intact(copy.parent), kind
        assert np.allclose(Embedder(optimize=False).embed(TEXTS), want, atol=1e-5), kind
        assert np.allclose(Embedder().embed(TEXTS), want, atol=1e-5), kind
        assert usercache.intact(copy.parent), kind  # made again, whole
