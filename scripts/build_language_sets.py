"""Build held-out-line labelled sets in several languages from a checkout of tldr-pages (CC BY 4.0).

For each language, a fixed random sample of its translated pages (pages.<lang>/common) is the
corpus. A query is one example description of a page ("- 创建存档并将其写入文件："), taken
out of that page before indexing; the page is the one relevant document. So the page must be found
by its other lines, as an agent's question in that language would find it. Descriptions found word
for word in another page are not used. The sets are written as BEIR folders for
scripts/eval_retrieval.py; none is committed.

    python scripts/build_language_sets.py --git-dir /path/to/tldr/.git --out DIR [--langs zh,ru]
        [--pages 400]
    python scripts/eval_retrieval.py --set DIR/zh
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import mirrors

LANGS = "en,zh,ja,ko,ru,uk,de,fr,es,hi,ar"


def build(
    git_dir: Path, lang: str, out: Path, pages: int, queries: int, seed: int
) -> tuple[int, int]:
    folder = "pages" if lang == "en" else f"pages.{lang}"
    names = sorted(p for p in mirrors.ls(git_dir, f"{folder}/common") if p.endswith(".md"))
    rng = random.Random(seed)
    chosen = sorted(rng.sample(names, min(pages, len(names))))
    texts = {p.rsplit("/", 1)[-1].removesuffix(".md"): mirrors.show(git_dir, p) for p in chosen}
    lines_of = {
        doc: [ln[2:].strip() for ln in text.splitlines() if ln.startswith("- ")]
        for doc, text in texts.items()
    }
    held: dict[str, str] = {}
    for doc in rng.sample(sorted(texts), len(texts)):
        candidates = [ln for ln in lines_of[doc] if sum(ln in t for t in texts.values()) == 1]
        if candidates:
            held[doc] = rng.choice(candidates)
        if len(held) == queries:
            break
    target = out / lang
    (target / "qrels").mkdir(parents=True, exist_ok=True)
    with (target / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
        for doc, text in texts.items():
            body = text.split("\n", 1)[1].strip() if text.startswith("# ") else text
            if doc in held:
                body = body.replace(f"- {held[doc]}\n", "", 1)
            corpus.write(
                json.dumps({"_id": doc, "title": doc, "text": body}, ensure_ascii=False) + "\n"
            )
    with (target / "queries.jsonl").open("w", encoding="utf-8") as qf:
        for i, (_doc, line) in enumerate(sorted(held.items())):
            qf.write(
                json.dumps(
                    {"_id": f"{lang}{i:03d}", "text": line.rstrip(":：")}, ensure_ascii=False
                )
                + "\n"
            )
    (target / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{lang}{i:03d}\t{doc}\t1\n" for i, doc in enumerate(sorted(held))),
        encoding="utf-8",
    )
    return len(texts), len(held)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--git-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--langs", default=LANGS)
    ap.add_argument("--pages", type=int, default=400)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    for lang in args.langs.split(","):
        docs, queries = build(args.git_dir, lang, args.out, args.pages, args.queries, args.seed)
        print(f"{lang}: {docs} pages, {queries} queries -> {args.out / lang}")


if __name__ == "__main__":
    main()
