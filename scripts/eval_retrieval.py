"""Retrieval quality (issue #26): nDCG@10 of k0maru beside three naive baselines, on held-out sets.

The held-out sets are real text nobody in the project wrote, labelled by the text itself
(scripts/build_eval_sets.py builds their corpora at run time into .cache-data/eval/). Every set is
split into a fixed dev half and test half (qrels/dev.tsv, qrels/test.tsv, committed before any
tuning): defaults are tuned on dev only, and the report gives the test half first. Each half is
broken down by query kind (natural language, code symbol/message, keywords, deep section). Intervals
are paired-bootstrap 95% (2,000 resamples of the half's queries): one for each run's mean, one for
k0maru hybrid minus that run.

Baselines, always printed: plain bm25s over whole documents (its own tokenizer and English stop
words), the bundled model over heading sections (a document scores its best section's cosine), and
naive RRF(k=60) of the two. The project's own sets (tidewater, opskb, devkb, tldr) run with --smoke.

Each set's vault and index are kept under .cache-data/eval/<set>/ between runs (delete it to
rebuild), so a rerun pays for embeddings only when the corpus changed.

    python scripts/eval_retrieval.py [--set NAME ...] [--smoke] [--sweep] [--pending]
        [--markdown FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from k0maru.config import Settings
from k0maru.search.recall import Recall
from k0maru.wiring.vault import Vault

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO / "examples" / "eval"
CACHE = REPO / ".cache-data" / "eval"
HELD_OUT = ["ruff", "clippy", "tldr-pages", "man", "mypy-docs", "rust-by-example"]
# vault-shaped: short pages, hubs, translations
VAULTS = ["obsidian-help", "obsidian-help-es", "dendron-site"]
SMOKE = {"tidewater": REPO / "examples/vault", "opskb": None, "devkb": None, "tldr": None}
KINDS = ("natural", "code", "keywords", "deep")
K = 10
DEPTH = 100  # how deep the baselines rank before RRF fuses them
# runs of k0maru: name -> (mode, settings overrides)
RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "k0maru hybrid": ("hybrid", {}),
    "k0maru bm25": ("bm25", {}),
    "k0maru vector": ("vector", {}),
}
NO_FLOOR = {"relevance_cosine": -1.0}
SWEEP: dict[str, tuple[str, dict[str, Any]]] = {
    "hybrid, no floor": ("hybrid", NO_FLOOR),
    **{
        f"w_words {w:g}": ("hybrid", {**NO_FLOOR, "bm25_weight_words": w})
        for w in (0.05, 0.2, 0.35, 0.5)
    },
    **{f"w_code {w:g}": ("hybrid", {**NO_FLOOR, "bm25_weight_code": w}) for w in (0.5, 0.9)},
    **{f"graph {b:g}": ("hybrid", {**NO_FLOOR, "graph_boost": b}) for b in (0.1, 0.3)},
    # BM25's weight when its best note holds every query word in one chunk (0.2: no raise)
    **{f"matched {w:g}": ("hybrid", {**NO_FLOOR, "bm25_weight_matched": w}) for w in (0.2, 0.5)},
    # ... and when it holds under a third of them (0.2: no fall)
    **{
        f"unmatched {w:g}": ("hybrid", {**NO_FLOOR, "bm25_weight_unmatched": w})
        for w in (0.05, 0.2)
    },
    # a note's BM25 evidence: its best chunk and the whole note mixed (issue #41)
    **{
        f"{mode} note {w:g}": (mode, {**NO_FLOOR, f"{key}_whole_note": w})
        for mode, key in (("bm25", "bm25"), ("hybrid", "hybrid"))
        for w in (0.0, 0.25, 0.5, 0.75, 1.0)
    },
}
# off-topic queries for a set: the dev queries of a set from another domain, and two from issue #26
OFF_TOPIC_FROM = {"ruff": "man", "clippy": "tldr-pages", "tldr-pages": "clippy", "man": "ruff",
                  "mypy-docs": "tldr-pages", "rust-by-example": "man"}  # fmt: skip
OFF_TOPIC_EXTRA = ["recipe for banana bread", "kubernetes ingress annotations"]
BASELINES = ["bm25s whole docs", "model over sections", "naive RRF(60)"]


@dataclass
class LabelledSet:
    name: str
    queries: dict[str, tuple[str, str]]  # id -> (text, kind)
    halves: dict[str, dict[str, dict[str, int]]]  # half -> query id -> doc id -> grade
    corpus: Path | None  # corpus.jsonl, or None when the set is a vault
    vault: Path | None = None
    runs: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # run -> qid -> ranking
    # (best cosine, best share of query words in a chunk) of each query, and of off-topic ones by
    # half
    signals: dict[str, tuple[float, float]] = field(default_factory=dict)
    off_topic: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, score = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(score)
    return qrels


def load_labelled(folder: Path) -> LabelledSet:
    """A BEIR folder: its queries, its halves (dev/test, or one "all" half for a set without a
    split) and where its corpus is (corpus.jsonl beside it, built into .cache-data, or a vault)."""
    queries = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            kind = (row.get("metadata") or {}).get("kind", "natural")
            queries[row["_id"]] = (row["text"], kind)
    if (folder / "qrels" / "dev.tsv").exists():
        halves = {h: read_qrels(folder / "qrels" / f"{h}.tsv") for h in ("test", "dev")}
    else:
        halves = {"all": read_qrels(folder / "qrels" / "test.tsv")}
    vault = SMOKE.get(folder.name) if folder.parent == EVAL else None
    corpus = folder / "corpus.jsonl"
    if vault is None and not corpus.exists():
        corpus = CACHE / folder.name / "corpus.jsonl"
        if not corpus.exists():
            build = REPO / "scripts" / "build_eval_sets.py"
            subprocess.run([sys.executable, str(build), "--set", folder.name], check=True)
    return LabelledSet(folder.name, queries, halves, None if vault else corpus, vault)


# ---- the project's own sets, as tests/search/test_lexical.py and bench_lexical.py read them ----
DEFAULT_SETS = [(EVAL / name, vault) for name, vault in SMOKE.items()]


def load_set(folder: Path) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    ls = load_labelled(folder)
    qrels = {q: r for half in ls.halves.values() for q, r in half.items()}
    return {q: text for q, (text, _) in ls.queries.items()}, qrels


def materialise(folder: Path, vault: Path | None, work: Path) -> tuple[Path, dict[str, str]]:
    """A private copy of the set's documents under `work` and path -> corpus id."""
    ls = load_labelled(folder)
    docs = documents(ls)
    return write_vault(work / "vault", ls, docs), {file_path(ls, d): d for d in docs}


def ndcg_at(ranked: list[str], rels: dict[str, int], k: int = K) -> float:
    dcg = sum((2 ** rels.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum((2**r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def plain_bm25s(root: Path) -> Callable[[str], list[str]]:
    """The lexical baseline over the Markdown files of a vault (paths as ids), top 10."""
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    search = bm25s_whole({p: (root / p).read_text(encoding="utf-8") for p in paths})
    return lambda query: search(query)[:K]


def documents(ls: LabelledSet) -> dict[str, str]:
    """Corpus id -> the Markdown file's text (a title heading, then the text)."""
    if ls.vault is not None:
        return {
            p.relative_to(ls.vault).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(ls.vault.rglob("*.md"))
        }
    assert ls.corpus is not None
    docs = {}
    for line in ls.corpus.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("vault"):  # a vault-shaped set: the file as it is, at its path
                docs[row["_id"]] = row["text"]
            else:
                docs[row["_id"]] = f"# {row.get('title') or row['_id']}\n\n{row['text']}\n"
    return docs


def file_path(ls: LabelledSet, doc: str) -> str:
    """Where a corpus document is written in the set's vault."""
    return doc if ls.vault is not None or doc.endswith(".md") else f"{doc}.md"


def cached_vault(ls: LabelledSet, docs: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """The set's vault under .cache-data (rewritten when the corpus changed) and path -> corpus
    id."""
    root = CACHE / ls.name / "vault"
    stamp = CACHE / ls.name / "vault.stamp"
    digest = hashlib.sha1(json.dumps(docs, sort_keys=True).encode()).hexdigest()
    if not stamp.exists() or stamp.read_text() != digest:
        shutil.rmtree(root, ignore_errors=True)
        write_vault(root, ls, docs)
        stamp.write_text(digest)
    return root, {file_path(ls, doc): doc for doc in docs}


def write_vault(root: Path, ls: LabelledSet, docs: dict[str, str]) -> Path:
    for doc, text in docs.items():
        path = root / file_path(ls, doc)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def bm25s_whole(docs: dict[str, str]) -> Callable[[str], list[str]]:
    """Plain bm25s with its own English tokenizer and stop words over whole documents."""
    import bm25s

    ids = list(docs)
    index = bm25s.BM25()
    index.index(
        bm25s.tokenize([docs[d] for d in ids], stopwords="en", show_progress=False),
        show_progress=False,
    )

    def search(query: str) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        found, scores = index.retrieve(tokens, k=min(DEPTH, len(ids)), show_progress=False)
        return [ids[int(d)] for d, s in zip(found[0], scores[0], strict=True) if s > 0]

    return search


def sections(text: str) -> list[str]:
    """A Markdown document's heading sections, each with the document's title line in front."""
    title = text.split("\n", 1)[0].lstrip("# ").strip()
    parts = re.split(r"\n(?=#{1,6} )", text)
    return [f"{title}\n{p.strip()}" for p in parts if p.strip()]


def model_over_sections(
    name: str, docs: dict[str, str], embed: Callable[[list[str]], np.ndarray]
) -> Callable[[str], list[str]]:
    """The bundled model over heading sections: a document scores its best section's cosine. The
    section vectors are kept in .cache-data, keyed by the corpus."""
    owners, texts = [], []
    for doc, text in docs.items():
        for sec in sections(text):
            owners.append(doc)
            texts.append(sec)
    digest = hashlib.sha1("\0".join(texts).encode()).hexdigest()[:16]
    cache = CACHE / name / f"sections-{digest}.npy"
    if cache.exists():
        matrix = np.load(cache)
    else:
        matrix = embed(texts)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, matrix)
    owner_idx = np.array([list(docs).index(o) for o in owners]) if owners else np.zeros(0, int)
    ids = list(docs)

    def search(query: str) -> list[str]:
        cos = matrix @ embed([query])[0]
        best = np.full(len(ids), -1.0)
        np.maximum.at(best, owner_idx, cos)
        order = np.argsort(-best)[:DEPTH]
        return [ids[i] for i in order]

    return search


def rrf(*rankings: list[str], k: int = 60) -> list[str]:
    score: dict[str, float] = {}
    for ranking in rankings:
        for i, doc in enumerate(ranking):
            score[doc] = score.get(doc, 0.0) + 1.0 / (k + i + 1)
    return sorted(score, key=lambda d: -score[d])


def ranked(recall: Recall, text: str, mode: str, mapping: dict[str, str]) -> list[str]:
    """The corpus ids of a search's top K."""
    return [mapping.get(h.path, h.path) for h in recall.search(text, limit=K, mode=mode).hits]


class QueryMemo:
    """The model, remembering the vector of each query text: every run asks for the same queries."""

    def __init__(self, embedder: Any):
        self.embedder = embedder
        self.memo: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        if len(texts) != 1:
            return np.asarray(self.embedder.embed(texts))
        if texts[0] not in self.memo:
            self.memo[texts[0]] = self.embedder.embed(texts)
        return self.memo[texts[0]]


def run_set(ls: LabelledSet, runs: dict[str, tuple[str, dict[str, Any]]]) -> None:
    docs = documents(ls)
    root, mapping = cached_vault(ls, docs)
    with Vault.open(root, writes_state=True) as v:
        v.index()
        assert v.embedder is not None, "the bundled model is needed"
        embedder: Any = QueryMemo(v.embedder)  # stands in for the Embedder
        recall = Recall(v.store, v.settings, lambda: (embedder, None))
        for name, (mode, overrides) in runs.items():
            recall.settings = Settings(**{**vars(v.settings), **overrides})
            ls.runs[name] = {
                qid: ranked(recall, text, mode, mapping) for qid, (text, _) in ls.queries.items()
            }
        signal = relevance_signals(v, embedder)
        ls.signals = {qid: signal(text) for qid, (text, _) in ls.queries.items()}
        if ls.name in OFF_TOPIC_FROM:
            other = load_labelled(EVAL / OFF_TOPIC_FROM[ls.name])
            for half, qrels in other.halves.items():
                texts = [other.queries[q][0] for q in sorted(qrels)] + OFF_TOPIC_EXTRA
                ls.off_topic[half] = [signal(t) for t in texts]
        lexical = bm25s_whole(docs)
        dense = model_over_sections(ls.name, docs, lambda t: embedder.embed(t))
        b, d = {}, {}
        for qid, (text, _) in ls.queries.items():
            b[qid], d[qid] = lexical(text), dense(text)
        ls.runs[BASELINES[0]] = b
        ls.runs[BASELINES[1]] = d
        ls.runs[BASELINES[2]] = {q: rrf(b[q], d[q]) for q in ls.queries}


COVERAGES = (0.0, 0.1, 0.5, 0.9, 1.0)


def pending_table(ls: LabelledSet, half: str = "dev") -> None:
    """nDCG@10 of hybrid and of BM25 alone while only part of the vault has vectors (issue #41): a
    copy of the set's indexed vault loses the vectors of a seeded sample of its notes, as notes
    written since the last embedding run would lack them; the same sample grows with the
    coverage."""
    import random
    import tempfile

    docs = documents(ls)
    root, mapping = cached_vault(ls, docs)
    qrels = ls.halves[half]
    print(f"\n== {ls.name}, {half} half: nDCG@10 while vectors are pending")
    print(f"{'embedded':>9}  {'hybrid':>7}  {'bm25':>7}  {'hybrid - bm25':>13}")
    order = sorted(mapping)
    random.Random(26).shuffle(order)
    for coverage in COVERAGES:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "vault"
            shutil.copytree(root, copy)
            with Vault.open(copy) as v:
                drop = order[round(coverage * len(order)) :]
                unembed(v, drop)
                memo: Any = QueryMemo(v.embedder)

                def loaded(e: Any = memo) -> tuple[Any, None]:
                    return e, None

                recall = Recall(v.store, v.settings, loaded)
                score = {}
                for mode in ("hybrid", "bm25"):
                    gains = [
                        ndcg_at(ranked(recall, ls.queries[q][0], mode, mapping), qrels[q])
                        for q in sorted(qrels)
                    ]
                    score[mode] = float(np.mean(gains))
        diff = score["hybrid"] - score["bm25"]
        print(f"{coverage:>9.0%}  {score['hybrid']:>7.3f}  {score['bm25']:>7.3f}  {diff:>+13.3f}")
    sys.stdout.flush()


def unembed(v: Vault, paths: list[str]) -> None:
    """The notes at `paths` lose their vectors, as if the embedding worker had not reached them."""
    conn = v.store.conn
    marks = ",".join("?" * len(paths))
    ids = [
        r[0]
        for r in conn.execute(
            f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path IN ({marks})",
            paths,
        )
    ]
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        q = ",".join("?" * len(part))
        conn.execute(f"DELETE FROM vec_chunks WHERE rowid IN ({q})", part)
        conn.execute(f"UPDATE chunks SET embedded = 0 WHERE id IN ({q})", part)
    conn.commit()


def relevance_signals(v: Vault, embedder: Any) -> Callable[[str], tuple[float, float]]:
    """What Recall.answered reads for a query: the best chunk's cosine and the largest share of the
    query's words one chunk holds."""
    from k0maru.search import vectors

    def signal(text: str) -> tuple[float, float]:
        lexical = v.recall.lexical.get(v.store).search(text, 200, None)
        nearest = vectors.search(v.store, embedder.embed([text])[0], 1)
        return (
            nearest[0].cosine if nearest else -1.0,
            max((h.matched for h in lexical), default=0.0),
        )

    return signal


def answered(sig: tuple[float, float], cos: float, terms: float) -> bool:
    return sig[0] >= cos or sig[1] >= terms


def calibrate(sets: list[LabelledSet]) -> None:
    """The relevance floor on the dev halves: of the thresholds that keep >= 98% of every set's
    on-topic dev queries answered, the one that turns away the most off-topic dev queries; then its
    test figures."""
    if not any("dev" in ls.halves for ls in sets):
        return  # the project's own sets have no dev half to choose a floor on
    grid = [(c / 100, t / 100) for c in range(10, 61, 5) for t in range(50, 101, 5)]

    def rates(half: str, c: float, t: float) -> tuple[float, float]:
        on = [
            answered(ls.signals[q], c, t)
            for ls in sets
            for q in ls.halves.get(half, {})
            if q in ls.signals
        ]
        off = [not answered(sig, c, t) for ls in sets for sig in ls.off_topic.get(half, [])]
        return sum(on) / max(len(on), 1), sum(off) / max(len(off), 1)

    def worst_set(c: float, t: float) -> float:
        return min(
            sum(answered(ls.signals[q], c, t) for q in ls.halves["dev"]) / len(ls.halves["dev"])
            for ls in sets
            if "dev" in ls.halves
        )

    ok = [(rates("dev", c, t), c, t) for c, t in grid if worst_set(c, t) >= 0.98]
    if not ok:
        print("\nrelevance floor: no threshold keeps 98% of every set's dev queries answered")
        return
    (on, off), c, t = max(ok, key=lambda r: (r[0][1], r[0][0]))
    test_on, test_off = rates("test", c, t)
    print(
        f"\nrelevance floor chosen on dev: cosine {c:g} or {t:.0%} of the words; dev: on-topic "
        f"answered {on:.1%}, off-topic refused {off:.1%}; test: {test_on:.1%} / {test_off:.1%}"
    )
    for ls in sets:
        s_on, s_off = [], []
        for half in ("test", "dev"):
            qs = [q for q in ls.halves.get(half, {}) if q in ls.signals]
            s_on.append(sum(answered(ls.signals[q], c, t) for q in qs) / max(len(qs), 1))
            offs = ls.off_topic.get(half, [])
            s_off.append(sum(not answered(x, c, t) for x in offs) / max(len(offs), 1))
        print(
            f"   {ls.name:<16} answered test {s_on[0]:.0%} dev {s_on[1]:.0%}; "
            f"off-topic ({OFF_TOPIC_FROM.get(ls.name, '-')}) refused test {s_off[0]:.0%} "
            f"dev {s_off[1]:.0%}"
        )


def bootstrap(values: np.ndarray, rng: np.random.Generator, n: int = 2000) -> tuple[float, float]:
    """95% interval of the mean by resampling the queries (the same resamples for every run)."""
    if len(values) == 0:
        return (0.0, 0.0)
    idx = rng.integers(0, len(values), size=(n, len(values)))
    means = values[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def report(ls: LabelledSet) -> dict[str, Any]:
    """Per half: each run's nDCG@10 with its interval and hybrid − run's interval; per kind:
    means."""
    out: dict[str, Any] = {"set": ls.name, "halves": {}}
    for half, qrels in ls.halves.items():
        qids = sorted(q for q in qrels if q in ls.queries)
        scores = {
            run: np.array([ndcg_at(ranking.get(q, []), qrels[q]) for q in qids])
            for run, ranking in ls.runs.items()
        }
        rows = {}
        for run, values in scores.items():
            rng = np.random.default_rng(26)
            diff = scores["k0maru hybrid"] - values
            rows[run] = {
                "ndcg": float(values.mean()) if len(values) else 0.0,
                "ci": bootstrap(values, rng),
                "hybrid_minus": float(diff.mean()) if len(diff) else 0.0,
                "hybrid_minus_ci": bootstrap(diff, np.random.default_rng(26)),
            }
        kinds = {}
        for kind in KINDS:
            mask = np.array([ls.queries[q][1] == kind for q in qids], dtype=bool)
            if mask.any():
                kinds[kind] = {
                    "n": int(mask.sum()),
                    **{run: float(v[mask].mean()) for run, v in scores.items()},
                }
        out["halves"][half] = {"queries": len(qids), "runs": rows, "kinds": kinds}
    return out


def print_report(rep: dict[str, Any]) -> None:
    print(f"\n== {rep['set']}")
    for half, body in rep["halves"].items():
        print(f"-- {half} half, {body['queries']} queries")
        print(f"{'run':<24}{'nDCG@10':>8}  {'95% CI':<15}{'hybrid - run':>13}  95% CI")
        for run, row in body["runs"].items():
            lo, hi = row["ci"]
            dlo, dhi = row["hybrid_minus_ci"]
            print(
                f"{run:<24}{row['ndcg']:>8.3f}  [{lo:.3f}, {hi:.3f}]{row['hybrid_minus']:>+13.3f}"
                f"  [{dlo:+.3f}, {dhi:+.3f}]"
            )
        runs = list(body["runs"])
        for kind, row in body["kinds"].items():
            cells = " ".join(f"{row[r]:.3f}" for r in runs)
            print(f"   {kind:<9} n={row['n']:<4} {cells}")
    sys.stdout.flush()


def markdown_table(reports: list[dict[str, Any]]) -> str:
    """The figures table of docs/retrieval.md: per set, test half then dev, each run's nDCG@10 with
    its interval (k0maru's three modes, then the three baselines)."""
    runs = [*RUNS, *BASELINES]
    lines = [
        "| set | half | " + " | ".join(runs) + " |",
        "|---|---|" + "---|" * len(runs),
    ]
    for rep in reports:
        for half, body in rep["halves"].items():
            cells = []
            for run in runs:
                row = body["runs"][run]
                lo, hi = row["ci"]
                cells.append(f"{row['ndcg']:.3f} [{lo:.2f}, {hi:.2f}]")
            name = f"{rep['set']} ({body['queries']} q)"
            lines.append(f"| {name} | {half} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--set", action="append", help="a set of examples/eval or a BEIR folder (default: held-out)"
    )
    ap.add_argument("--smoke", action="store_true", help="the project's own sets instead")
    ap.add_argument("--sweep", action="store_true", help="also the tuning variants (read dev only)")
    ap.add_argument(
        "--pending",
        action="store_true",
        help="also the pending-vector tables (both halves of the vault-shaped sets, test first)",
    )
    ap.add_argument("--markdown", type=Path, help="also write the figures table here")
    args = ap.parse_args()
    names = args.set or (list(SMOKE) if args.smoke else HELD_OUT + VAULTS)
    folders = [Path(n) if "/" in n else EVAL / n for n in names]
    runs = {**RUNS, **(SWEEP if args.sweep else {})}
    reports, done = [], []
    for folder in folders:
        ls = load_labelled(folder)
        run_set(ls, runs)
        rep = report(ls)
        print_report(rep)
        reports.append(rep)
        done.append(ls)
        if args.pending and ls.name in VAULTS:
            for half in ("test", "dev"):
                pending_table(ls, half)
    calibrate(done)
    if args.markdown:
        args.markdown.write_text(markdown_table(reports))


if __name__ == "__main__":
    main()
