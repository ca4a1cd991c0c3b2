"""Retrieval quality: nDCG@10 and Recall@10 for bm25 / vector / hybrid / hybrid+graph.

Datasets are BEIR-formatted folders (queries.jsonl, qrels/test.tsv and either corpus.jsonl or a
vault given with --vault, in which case corpus ids are vault paths). With no arguments it runs the
shipped sets: examples/eval/tidewater (the demo vault), examples/eval/opskb, examples/eval/devkb and
examples/eval/tldr (502 tldr-pages, judged before any tuning on it). "plain bm25s, whole notes" is the
baseline the lexical channel must match: bm25s with its own tokenizer over whole notes.

    python scripts/eval_retrieval.py [--set DIR [--vault VAULT]] [--sweep] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from k0maru.index.vault import Vault

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SETS = [
    (REPO / "examples/eval/tidewater", REPO / "examples/vault"),
    (REPO / "examples/eval/opskb", None),
    (REPO / "examples/eval/devkb", None),
    (REPO / "examples/eval/tldr", None),
]
SWEEP = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3]
FLOOR_SWEEP = [0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4]


def load_set(folder: Path) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    queries = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            queries[row["_id"]] = row["text"]
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, score = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(score)
    return queries, qrels


def materialise(folder: Path, vault: Path | None, work: Path) -> tuple[Path, dict[str, str]]:
    """A private copy of the vault (or one built from corpus.jsonl) and path -> corpus id."""
    target = work / "vault"
    if vault is not None:
        shutil.copytree(vault, target, ignore=shutil.ignore_patterns(".k0maru"))
        return target, {
            p.relative_to(target).as_posix(): p.relative_to(target).as_posix()
            for p in target.rglob("*.md")
        }
    target.mkdir()
    mapping = {}
    for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        name = f"{row['_id']}.md"
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(
            f"# {row.get('title') or row['_id']}\n\n{row['text']}\n", encoding="utf-8"
        )
        mapping[name] = row["_id"]
    return target, mapping


def ndcg_at(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** rels.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum((2**r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def plain_bm25s(root: Path) -> Callable[[str], list[str]]:
    """The baseline: bm25s with its own English tokenizer and stop words over whole notes, no k0maru parts."""
    import bm25s

    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    corpus = [(root / p).read_text(encoding="utf-8") for p in paths]
    index = bm25s.BM25()
    index.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)

    def search(query: str) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = index.retrieve(tokens, k=min(10, len(paths)), show_progress=False)
        return [paths[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return search


def evaluate(folder: Path, vault: Path | None, sweep: bool) -> dict:
    queries, qrels = load_set(folder)
    with tempfile.TemporaryDirectory() as tmp:
        root, mapping = materialise(folder, vault, Path(tmp))
        with Vault.open(root) as v:
            v.index()
            default_boost, default_floor = v.settings.graph_boost, v.settings.min_cosine
            runs = {
                "bm25": ("bm25", 0.0, default_floor),
                "vector": ("vector", 0.0, default_floor),
                "hybrid, no graph": ("hybrid", 0.0, default_floor),
                "hybrid (default)": ("hybrid", default_boost, default_floor),
                "hybrid, no cosine floor": ("hybrid", 0.0, -1.0),
            }
            if sweep:
                runs.update({f"hybrid+graph@{b:g}": ("hybrid", b, default_floor) for b in SWEEP})
                runs.update({f"hybrid min_cosine@{f:g}": ("hybrid", 0.0, f) for f in FLOOR_SWEEP})
            table = {}
            baseline = plain_bm25s(root)
            ndcgs, recalls = [], []
            for qid, text in queries.items():
                ranked = [mapping.get(p, p) for p in baseline(text)]
                ndcgs.append(ndcg_at(ranked, qrels.get(qid, {})))
                recalls.append(recall_at(ranked, qrels.get(qid, {})))
            table["plain bm25s, whole notes"] = {
                "ndcg@10": round(sum(ndcgs) / len(ndcgs), 4),
                "recall@10": round(sum(recalls) / len(recalls), 4),
            }
            for name, (mode, boost, floor) in runs.items():
                ndcgs, recalls = [], []
                for qid, text in queries.items():
                    hits = v.recall.search(
                        text, limit=10, mode=mode, graph_boost=boost, min_cosine=floor
                    ).hits
                    ranked = [mapping.get(h.path, h.path) for h in hits]
                    ndcgs.append(ndcg_at(ranked, qrels.get(qid, {})))
                    recalls.append(recall_at(ranked, qrels.get(qid, {})))
                table[name] = {
                    "ndcg@10": round(sum(ndcgs) / len(ndcgs), 4),
                    "recall@10": round(sum(recalls) / len(recalls), 4),
                }
    return {
        "set": folder.name,
        "queries": len(queries),
        "docs": len(mapping),
        "graph_boost": default_boost,
        "min_cosine": default_floor,
        "results": table,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--set", type=Path, help="BEIR folder (default: both shipped sets)")
    ap.add_argument("--vault", type=Path, help="vault whose paths are the corpus ids of --set")
    ap.add_argument(
        "--sweep",
        action="store_true",
        help="also evaluate ranges of graph boosts and cosine floors",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sets = [(args.set, args.vault)] if args.set else DEFAULT_SETS
    reports = [evaluate(folder, vault, args.sweep) for folder, vault in sets]
    if args.json:
        print(json.dumps(reports))
        return
    for rep in reports:
        print(
            f"\n{rep['set']}: {rep['queries']} queries, {rep['docs']} docs "
            f"(defaults: graph_boost={rep['graph_boost']}, min_cosine={rep['min_cosine']})"
        )
        print(f"{'run':<26}{'nDCG@10':>10}{'Recall@10':>11}")
        for name, row in rep["results"].items():
            print(f"{name:<26}{row['ndcg@10']:>10.4f}{row['recall@10']:>11.4f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
