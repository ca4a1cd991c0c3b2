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
    assert sorted(p.name for p in copy.parent.parent.iterdir()) == [
        copy.parent.name,
        copy.parent.name + ".source",  # what it was made from
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


def test_copies_of_models_gone_or_replaced_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Making a copy removes the copies whose model file is gone (a deleted virtual environment),
    made by another onnxruntime from the same file, or kept in an older layout; a copy of a model
    file still there stays (another environment uses it)."""
    from k0maru import usercache
    from k0maru.search.embedding import model_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    models = tmp_path / "cache" / "k0maru" / "models"
    made = {}
    for name, source, runtime in (
        ("model-gone", tmp_path / "venv-gone" / "model.onnx", "onnxruntime 1.0"),
        ("model-live", tmp_path / "venv-live" / "model.onnx", "onnxruntime 1.0"),
        ("model-older", model_file(None), "onnxruntime 0.1"),
    ):
        source.parent.mkdir(parents=True, exist_ok=True)
        if not source.exists():
            source.write_bytes(b"a model")
        (models / name).mkdir(parents=True)
        (models / name / "model.onnx").write_bytes(b"x" * 1000)
        usercache.remember(models / name, source, runtime)
        made[name] = source
    made["model-gone"].unlink()
    legacy = models / "model-0123456789abcdef.onnx"  # k0maru's first layout: one file
    legacy.write_bytes(b"x" * 1000)
    copy = optimized_copy(model_file(None), ort.__version__)
    assert copy is not None
    Embedder()
    assert sorted(p.name for p in models.iterdir()) == sorted(
        [copy.parent.name, copy.parent.name + ".source", "model-live", "model-live.source"]
    )


def test_a_one_shot_process_without_a_copy_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    embedder = Embedder(optimize=False)
    assert embedder.embed(["x"]).shape == (1, 384) and not (tmp_path / "k0maru").exists()
