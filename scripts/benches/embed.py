"""Embedding: throughput and peak memory of k0maru's embedding path against a bare onnxruntime
session making the same model calls, on the same real texts (the tldr, devkb and opskb corpora of
examples/eval, shortest first as `embed_pending` orders them), each in its own process, rounds
alternated. The bare session skips k0maru's tokenising, pooling and normalising.

The FLOPs and onnxruntime-defaults figures of docs/benchmarks.md came from this script's earlier
form: `git show bb736b0:scripts/benches/embed.py`.

    python scripts/bench.py embed [--repeat 2] [--rounds 3] [--batch N] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from functools import partial
from pathlib import Path

from bench import emit, interleave, median

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
    embed = Embedder().embed
    calls = [texts[i:i + batch] for i in range(0, len(texts), batch)]
    run = lambda: [embed(c) for c in calls]
else:  # a bare session fed the very model calls Embedder.embed makes, built here
    import os
    import onnxruntime as ort
    from tokenizers import BertWordPieceTokenizer
    from k0maru.search.embedding import MAX_TOKENS, model_calls, model_file, vocab_path
    tok = BertWordPieceTokenizer(str(vocab_path()), lowercase=True)
    tok.enable_truncation(max_length=MAX_TOKENS)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 1
    opts.enable_mem_pattern = False
    session = ort.InferenceSession(str(model_file(None)), opts, providers=["CPUExecutionProvider"])
    types = "token_type_ids" in {i.name for i in session.get_inputs()}
    feeds = []
    for i in range(0, len(texts), batch):
        enc = tok.encode_batch(texts[i:i + batch])
        feeds.extend(f for _, f in model_calls([e.ids for e in enc], types))
    run = lambda: [session.run(None, f) for f in feeds]
t0 = time.perf_counter()
run()
elapsed = time.perf_counter() - t0
print(json.dumps({"chunks": len(texts), "per_s": len(texts) / elapsed,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


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
        "--batch", type=int, help="chunks per Embedder.embed call (default: embed_batch)"
    )


def run(args: argparse.Namespace) -> None:
    from k0maru.config import Settings

    batch = args.batch or Settings().embed_batch
    got = interleave(args.rounds, {k: partial(child, k, batch, args.repeat) for k in ("bare", "k0maru")})  # fmt: skip
    table = {
        kind: {
            "chunks": rows[0]["chunks"],
            "chunks_per_s_median": median(r["per_s"] for r in rows),
            "peak_rss_mb_median": median(r["peak_rss_mb"] for r in rows),
        }
        for kind, rows in got.items()
    }
    ratio = table["k0maru"]["chunks_per_s_median"] / table["bare"]["chunks_per_s_median"]
    emit({"batch": batch, **table, "ours_vs_bare": round(ratio, 2)}, args.json, 12)
