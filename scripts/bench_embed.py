"""Embedding: throughput and peak memory of k0maru's embedding path against a bare onnxruntime session on
the same real texts (the tldr, devkb and opskb corpora of examples/eval, shortest first as
`embed_pending` orders them), each configuration in its own process, rounds alternated.

- `bare, ort defaults, batch 32`: `InferenceSession` with default options: what k0maru ran until this
  benchmark (memory pattern on, batches of 32);
- `bare, no memory pattern, batch B`: the same session options and batches as k0maru, without its
  tokenising, pooling and normalising;
- `k0maru`: `Embedder.embed` over batches of the configured `embed_batch`.

    python scripts/bench_embed.py [--repeat 2] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
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
    from k0maru.search.embedding import MAX_TOKENS, model_file, vocab_path
    tok = BertWordPieceTokenizer(str(vocab_path()), lowercase=True)
    tok.enable_truncation(max_length=MAX_TOKENS)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 1
    opts.enable_mem_pattern = kind != "defaults"
    session = ort.InferenceSession(str(model_file(None)), opts, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    feeds = []
    for i in range(0, len(texts), batch):
        enc = tok.encode_batch(texts[i:i + batch])
        ids = np.asarray([e.ids for e in enc], dtype=np.int64)
        f = {"input_ids": ids, "attention_mask": np.asarray([e.attention_mask for e in enc], dtype=np.int64)}
        if "token_type_ids" in names:
            f["token_type_ids"] = np.zeros_like(ids)
        feeds.append(f)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=2, help="times each corpus text is embedded")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from k0maru.config import Settings

    batch = Settings().embed_batch
    runs = {"bare, ort defaults, batch 32": ("defaults", 32), f"bare, no memory pattern, batch {batch}": ("bare", batch),
            f"k0maru, batch {batch}": ("k0maru", batch)}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (kind, size) in runs.items():
            out = subprocess.run([sys.executable, "-c", CHILD, kind, str(size), str(args.repeat),
                                  str(REPO / "examples" / "eval")], capture_output=True, text=True, check=True)
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    table = {name: {"chunks": rows[0]["chunks"],
                    "chunks_per_s_median": round(statistics.median(r["per_s"] for r in rows), 1),
                    "peak_rss_mb_median": round(statistics.median(r["peak_rss_mb"] for r in rows), 1)}
             for name, rows in results.items()}
    ours, bare = table[f"k0maru, batch {batch}"], table[f"bare, no memory pattern, batch {batch}"]
    before = table["bare, ort defaults, batch 32"]
    summary = {"ours_vs_bare_same_batches": round(ours["chunks_per_s_median"] / bare["chunks_per_s_median"], 2),
               "ours_vs_ort_defaults_batch_32": round(ours["chunks_per_s_median"] / before["chunks_per_s_median"], 2),
               "peak_rss_ours_vs_ort_defaults": round(ours["peak_rss_mb_median"] / before["peak_rss_mb_median"], 2)}
    if args.json:
        print(json.dumps({"runs": table, **summary}))
    else:
        for name, row in table.items():
            print(f"{name:34s} {row['chunks_per_s_median']:7.1f} chunks/s  peak {row['peak_rss_mb_median']:6.1f} MB")
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
