"""Where near-identical notes are folded (issue #26): the estimated similarity (index/copies.py) of
pairs of real pages nobody here wrote, by kind of pair, and the share of each kind a threshold
folds.

Copies (should fold): one mypy docs page at two releases whose text changed in at most a tenth of
its lines (the same docs vendored at two versions); a page and the same page with a line changed,
with a footer appended, with its whitespace reflowed or with frontmatter added (each applied to real
pages). Not copies (must not fold): pages that changed in more than a third of their lines between
the releases; ADR examples of one repository, written from the same templates; a tldr page and its
translations.

    python scripts/measure_copies.py [--mypy GIT_DIR] [--adr GIT_DIR] [--tldr GIT_DIR]
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import random
import subprocess
from pathlib import Path

import mirrors
from mirrors import MIRRORS

from k0maru.index.copies import COPY_SIMILARITY, signature, similarity, sketch

OLD, NEW = "v1.9.0", "v2.3.1"


def index_pages(git_dir: Path, folder: str) -> list[str]:
    """The text at HEAD of every `*/index.md` under `folder`."""
    return [
        mirrors.show(git_dir, p) for p in mirrors.ls(git_dir, folder) if p.endswith("/index.md")
    ]


def changed_share(a: str, b: str) -> float:
    la, lb = a.splitlines(), b.splitlines()
    same = sum(n for *_, n in difflib.SequenceMatcher(None, la, lb).get_matching_blocks())
    return 1 - same / max(len(la), len(lb), 1)


def pairs(args: argparse.Namespace) -> dict[str, list[tuple[str, str]]]:
    rng = random.Random(26)
    out: dict[str, list[tuple[str, str]]] = {}
    files = mirrors.ls(args.mypy, "docs/source", rev=NEW)
    versions = []
    for path in (p for p in files if p.endswith(".rst")):
        try:
            old = mirrors.show(args.mypy, path, OLD)
        except subprocess.CalledProcessError:
            continue
        new = mirrors.show(args.mypy, path, NEW)
        versions.append((old, new, changed_share(old, new)))
    out["copy: two releases, <=10% lines changed"] = [
        (a, b) for a, b, c in versions if 0 < c <= 0.1
    ]
    out["not: two releases, >33% lines changed"] = [(a, b) for a, b, c in versions if c > 1 / 3]
    pages = [new for _, new, _ in versions if len(new.split()) >= 80]
    edited = []
    for page in pages:
        lines = page.splitlines()
        i = rng.randrange(len(lines))
        edited.append(
            (page, "\n".join([*lines[:i], "This line was changed here.", *lines[i + 1 :]]))
        )
    out["copy: one line changed"] = edited
    footer = "\n\n---\nThis page is mirrored from the upstream documentation; edit it there.\n"
    out["copy: footer appended"] = [(p, p + footer) for p in pages]
    out["copy: whitespace reflowed"] = [(p, " ".join(p.split())) for p in pages]
    out["copy: frontmatter added"] = [(p, f"title: copy\ntags: [vendored]\n\n{p}") for p in pages]
    adrs = index_pages(args.adr, "locales/en/examples")
    out["not: ADR examples from shared templates"] = list(itertools.combinations(adrs, 2))
    templates = index_pages(args.adr, "locales/en/templates")
    out["not: ADR templates, each with another"] = list(itertools.combinations(templates, 2))
    locale = []
    for p in mirrors.ls(args.adr, "locales/en"):
        if p.endswith("/index.md"):
            try:
                tr = mirrors.show(args.adr, f"locales/tr/{p.removeprefix('locales/en/')}")
            except subprocess.CalledProcessError:
                continue
            locale.append((mirrors.show(args.adr, p), tr))
    out["copy: ADR locales/tr beside locales/en, <=10% changed"] = [
        (a, b) for a, b in locale if 0 < changed_share(a, b) <= 0.1
    ]
    out["not: ADR locales/tr beside locales/en, >33% changed"] = [
        (a, b) for a, b in locale if changed_share(a, b) > 1 / 3
    ]
    names = [p.rsplit("/", 1)[-1] for p in mirrors.ls(args.tldr, "pages.de/common")]
    trans = []
    for name in rng.sample(names, 120):
        try:
            en = mirrors.show(args.tldr, f"pages/common/{name}")
            de = mirrors.show(args.tldr, f"pages.de/common/{name}")
        except subprocess.CalledProcessError:
            continue
        trans.append((en, de))
    out["not: tldr page and its German translation"] = trans
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mypy", type=Path, default=MIRRORS / "python+mypy/repo")
    ap.add_argument(
        "--adr",
        type=Path,
        default=MIRRORS / "joelparkerhenderson+architecture-decision-record/repo",
    )
    ap.add_argument("--tldr", type=Path, default=MIRRORS / "tldr-pages+tldr/repo")
    args = ap.parse_args()
    thresholds = (0.5, 0.6, 0.7, 0.8, 0.9)
    print(f"{'pairs':48} {'n':>5} {'min':>5} {'max':>5} " + " ".join(f"{t:>5}" for t in thresholds))
    for kind, found in pairs(args).items():
        sims = [similarity(sketch(signature(a)), sketch(signature(b))) for a, b in found]
        if not sims:
            continue
        folded = " ".join(f"{sum(s >= t for s in sims) / len(sims):5.0%}" for t in thresholds)
        print(f"{kind:48} {len(sims):5} {min(sims):5.2f} {max(sims):5.2f} {folded}")
    print(f"(columns: share of pairs folded at each threshold; shipped: {COPY_SIMILARITY})")


if __name__ == "__main__":
    main()
