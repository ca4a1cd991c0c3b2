"""Build the corpus of the `tldr` labelled set from a checkout of tldr-pages (CC BY 4.0).

The queries and judgments (examples/eval/tldr/queries.jsonl, qrels/test.tsv) were written first;
this takes every judged page plus a fixed random sample of other English pages of pages/common and
pages/linux (distractors: many are close neighbours of the judged ones) into corpus.jsonl, one page
a document, id `common/du`, title the command, text the page.

    python scripts/build_tldr_set.py --git-dir /path/to/tldr/.git [--others 420]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import mirrors

SET = Path(__file__).resolve().parents[1] / "examples" / "eval" / "tldr"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--git-dir", type=Path, required=True)
    ap.add_argument("--others", type=int, default=420)
    args = ap.parse_args()

    names = [
        p for p in mirrors.ls(args.git_dir, "pages/common", "pages/linux") if p.endswith(".md")
    ]
    ids = {p.removeprefix("pages/").removesuffix(".md"): p for p in names}
    judged = {
        line.split("\t")[1] for line in (SET / "qrels" / "test.tsv").read_text().splitlines()[1:]
    }
    missing = judged - ids.keys()
    if missing:
        raise SystemExit(f"judged pages missing from this checkout: {sorted(missing)}")
    others = random.Random(7).sample(sorted(ids.keys() - judged), args.others)
    with (SET / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for doc in sorted(judged | set(others)):
            text = mirrors.show(args.git_dir, ids[doc])
            title = doc.split("/", 1)[1]
            body = text.split("\n", 1)[1].strip() if text.startswith("# ") else text
            out.write(
                json.dumps({"_id": doc, "title": title, "text": body}, ensure_ascii=False) + "\n"
            )
    commit = mirrors.git(args.git_dir, "rev-parse", "HEAD").decode().strip()
    print(f"{len(judged) + len(others)} pages from tldr-pages {commit[:10]}")


if __name__ == "__main__":
    main()
