"""Embedding: throughput and peak memory of k0maru's embedding path against a bare onnxruntime
session on the same real texts (the tldr, devkb and opskb corpora of examples/eval, shortest first
as `embed_pending` orders them), each configuration in its own process, rounds alternated.

- `bare, ort defaults, batch 32`: `InferenceSession` with default options: what k0maru ran until
  this benchmark (memory pattern on, batches of 32);
- `bare, no memory pattern, batch B`: the same session options and batches as k0maru, without its
  tokenising, pooling and normalising;
- `k0maru`: `Embedder.embed` over batches of the configured `embed_batch`.

    python scripts/bench.py embed [--repeat 2] [--rounds 3] [--batch N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path

from bench import interleave, median

REPO = Path(__file__).resolve().parents[2]
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
kind, batch, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
texts = []
for name in ("tldr", "devkb", "opskb"):
    for line in (Path(sys.argv[4]) / name / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            texts.append(f"{row.get('title') or ''}\n{row['text']}")
texts = sorted(texts * repeat, key=len)
if kind == "k0maru":
    from k0maru.search.embedding import Embedder
    run = Embedder().embed
else:  # a bare session and the same WordPiece inputs, built here so that no second session is loaded
    import os
    import numpy as np
    import onnxruntime as ort
    from tokenizers import BertWordPieceTokenizer
    from k0maru.search.embedding import MAX_TOKENS, model_calls, model_file, vocab_path
    tok = BertWordPieceTokenizer(str(vocab_path()), lowercase=True)
    tok.enable_truncation(max_length=MAX_TOKENS)
    if kind == "defaults":
        tok.enable_padding(pad_id=0, pad_token="[PAD]")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 1
    opts.enable_mem_pattern = kind != "defaults"
    session = ort.InferenceSession(str(model_file(None)), opts, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    feeds = []
    for i in range(0, len(texts), batch):
        enc = tok.encode_batch(texts[i:i + batch])
        if kind == "defaults":  # fixed batches padded to their longest, as before
            ids = np.asarray([e.ids for e in enc], dtype=np.int64)
            f = {"input_ids": ids, "attention_mask": np.asarray([e.attention_mask for e in enc], dtype=np.int64)}
            if "token_type_ids" in names:
                f["token_type_ids"] = np.zeros_like(ids)
            feeds.append(f)
        else:  # the very model calls Embedder.embed makes
            feeds.extend(f for _, f in model_calls([e.ids for e in enc], "token_type_ids" in names))
    run = None
t0 = time.perf_counter()
if run is not None:
    for i in range(0, len(texts), batch):
        run(texts[i:i + batch])
else:
    for f in feeds:
        session.run(None, f)
elapsed = time.perf_counter() - t0
print(json.dumps({"chunks": len(texts), "per_s": len(texts) / elapsed,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def model_flops(tokens: int) -> float:
    """Forward-pass FLOPs of all-MiniLM-L6-v2 over one chunk of `tokens` tokens (a multiply-add is
    2): per layer and token the Q, K, V and output projections (4 x 384 x 384) and the feed-forward
    (2 x 384 x 1536), plus attention's QK^T and AV (2 x tokens x 384); 6 layers. Embeddings, norms
    and softmax are left out (under 1%)."""
    layers, d, ff = 6, 384, 1536
    return layers * 2 * (tokens * (4 * d * d + 2 * d * ff) + 2 * tokens * tokens * d)


def cpu_peak_gflops() -> tuple[float, str]:
    """The CPUs' fp32 peak, assuming two 256-bit FMA units a core (AVX2: 32 FLOPs a cycle, Zen 2 and
    later, Haswell and later) at the clock /proc/cpuinfo reports."""
    import os

    mhz = [
        float(line.split(":")[1])
        for line in Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("cpu MHz")
    ]
    cores = os.cpu_count() or 1
    clock = statistics.median(mhz) if mhz else 2000.0
    return (
        cores * clock * 32 / 1000,
        f"{cores} cores x {clock:.0f} MHz x 32 fp32 FLOPs/cycle (AVX2, 2 FMA units)",
    )


def corpus_flops(repeat: int) -> tuple[float, float]:
    """FLOPs of one pass over the benchmark's texts (each truncated at the model's 128 tokens), and
    the mean tokens a chunk."""
    from tokenizers import BertWordPieceTokenizer

    from k0maru.search.embedding import MAX_TOKENS, vocab_path

    tok = BertWordPieceTokenizer(str(vocab_path()), lowercase=True)
    tok.enable_truncation(max_length=MAX_TOKENS)
    texts = []
    for name in ("tldr", "devkb", "opskb"):
        for line in (
            (REPO / "examples" / "eval" / name / "corpus.jsonl")
            .read_text(encoding="utf-8")
            .splitlines()
        ):
            if line.strip():
                row = json.loads(line)
                texts.append(f"{row.get('title') or ''}\n{row['text']}")
    lengths = [len(e.ids) for e in tok.encode_batch(texts)]
    return repeat * sum(model_flops(n) for n in lengths), statistics.mean(lengths)


def child(kind: str, batch: int, repeat: int) -> dict[str, float]:
    """One configuration's run in a process of its own."""
    argv = [sys.executable, "-c", CHILD, kind, str(batch), str(repeat), str(REPO / "examples/eval")]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    found: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return found


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--repeat", type=int, default=2, help="times each corpus text is embedded")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--batch",
        type=int,
        help="chunks per Embedder.embed call (default: the embed_batch setting)",
    )


def run(args: argparse.Namespace) -> None:
    from k0maru.config import Settings

    batch = args.batch or Settings().embed_batch
    runs = {
        "bare, ort defaults, batch 32": ("defaults", 32),
        f"bare, no memory pattern, batch {batch}": ("bare", batch),
        f"k0maru, batch {batch}": ("k0maru", batch),
    }
    results = interleave(args.rounds, {n: partial(child, k, s, args.repeat) for n, (k, s) in runs.items()})  # fmt: skip
    table = {
        name: {
            "chunks": rows[0]["chunks"],
            "chunks_per_s_median": median(r["per_s"] for r in rows),
            "peak_rss_mb_median": median(r["peak_rss_mb"] for r in rows),
        }
        for name, rows in results.items()
    }
    ours, bare = table[f"k0maru, batch {batch}"], table[f"bare, no memory pattern, batch {batch}"]
    before = table["bare, ort defaults, batch 32"]
    summary: dict[str, float | str] = {
        "ours_vs_bare_same_batches": round(
            ours["chunks_per_s_median"] / bare["chunks_per_s_median"], 2
        ),
        "ours_vs_ort_defaults_batch_32": round(
            ours["chunks_per_s_median"] / before["chunks_per_s_median"], 2
        ),
        "peak_rss_ours_vs_ort_defaults": round(
            ours["peak_rss_mb_median"] / before["peak_rss_mb_median"], 2
        ),
    }
    flops, mean_tokens = corpus_flops(args.repeat)
    peak, assumed = cpu_peak_gflops()
    achieved = flops / ours["chunks"] * ours["chunks_per_s_median"] / 1e9
    summary.update(
        mean_tokens_per_chunk=round(mean_tokens, 1),
        gflop_per_chunk=round(flops / ours["chunks"] / 1e9, 3),
        ours_gflop_per_s=round(achieved, 1),
        cpu_peak_gflop_per_s=round(peak, 1),
        cpu_peak_assumes=assumed,
        fraction_of_peak=round(achieved / peak, 3),
    )
    if args.json:
        print(json.dumps({"runs": table, **summary}))
    else:
        for name, row in table.items():
            print(
                f"{name:34s} {row['chunks_per_s_median']:7.1f} chunks/s  peak {row['peak_rss_mb_median']:6.1f} MB"
            )
        print(json.dumps(summary))
