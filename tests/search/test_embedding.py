"""The real ONNX model: batching by padded tokens, and the optimised copy kept between processes."""

import os
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from k0maru.search.embedding import TOKENS_PER_RUN, WEIGHTS, Embedder, optimized_copy

TEXTS = [
    "SQLITE_BUSY during the nightly backup",
    "",
    "error[E0502]: cannot borrow `v` as mutable because it is also borrowed as immutable " * 6,
    "git rebase --interactive",
    "a lease renewal that never came " * 3,
]


def test_model_calls_stay_within_the_token_budget_and_keep_the_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    embedder = Embedder()
    texts = TEXTS * 8
    calls = embedder.batches(texts)
    assert sorted(i for group, _ in calls for i in group) == list(range(len(texts)))
    for group, feeds in calls:
        rows, width = feeds["input_ids"].shape
        assert rows == len(group) and (rows == 1 or rows * width <= TOKENS_PER_RUN)
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in TEXTS])
    assert np.allclose(together[: len(TEXTS)], alone, atol=1e-5)  # padding changes nothing
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_the_optimised_copy_is_kept_reused_and_remade_when_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = Embedder()
    copy = optimized_copy(first.model_path, ort.__version__)
    assert (
        copy is not None and copy.is_file() and copy.parent.parent == tmp_path / "k0maru" / "models"
    )
    weights = copy.with_name(WEIGHTS)
    assert (
        weights.stat().st_size > 50_000_000 and copy.stat().st_size < 1_000_000
    )  # the weights apart, mapped
    assert [p.name for p in copy.parent.parent.iterdir()] == [
        copy.parent.name
    ]  # no temporary folder left behind
    made = copy.stat().st_mtime_ns
    again = Embedder(
        optimize=False
    )  # a one-shot process loads the copy: optimised, and no slower to load
    assert copy.stat().st_mtime_ns == made
    assert (
        str(weights) in Path("/proc/self/maps").read_text()
    )  # the weights are mapped, not read into the heap
    assert np.allclose(first.embed(TEXTS), again.embed(TEXTS), atol=1e-5)
    for damage in (
        lambda: copy.write_bytes(b"not a model"),
        lambda: os.truncate(weights, 1_000_000),
    ):
        damage()
        remade = Embedder()
        assert weights.stat().st_size > 50_000_000 and copy.stat().st_size > 10_000
        assert np.allclose(remade.embed(TEXTS), first.embed(TEXTS), atol=1e-5)


def test_a_copy_kept_by_an_older_k0maru_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    old = tmp_path / "k0maru" / "models" / "model-0123456789abcdef.onnx"  # one file, weights inside
    old.parent.mkdir(parents=True)
    old.write_bytes(b"x" * 1000)
    Embedder()
    assert not old.exists() and len(list(old.parent.iterdir())) == 1


def test_a_one_shot_process_without_a_copy_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    embedder = Embedder(optimize=False)
    assert embedder.embed(["x"]).shape == (1, 384) and not (tmp_path / "k0maru").exists()
