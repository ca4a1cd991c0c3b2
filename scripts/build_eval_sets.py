"""Build the held-out retrieval sets from real text nobody in the project wrote (issue #26).

Each set's labels exist in the corpus itself: a rule's diagnostic message -> its documentation
(ruff), a lint's one-line description -> its explanation (clippy), a page's summary -> the page
(tldr-pages), a man page's NAME line -> the page, a FAQ question / a deep heading / an error message
-> its section (mypy's docs), a chapter title of Rust by Example -> the chapter. The label's own
text is removed from the document it points to (the summary from the tldr page, the NAME section
from the man page, the question heading from its answer, the `# Error:` comments from mypy's
examples), so a query must be answered by what the document says, not by finding itself.

`--write-queries` writes examples/eval/<set>/queries.jsonl (with each query's kind) and the fixed,
seeded dev/test halves qrels/dev.tsv and qrels/test.tsv; that is done once, before any tuning, and
committed. A plain run builds only the corpora (never committed) under
.cache-data/eval/<set>/corpus.jsonl and checks that every judged document is there.

Sources: ruff and clippy as installed (`ruff`, `cargo clippy`), Debian's `manpages` and
`manpages-dev` packages, and git checkouts of tldr-pages/tldr, python/mypy and
rust-lang/rust-by-example (--git-dir).

    python scripts/build_eval_sets.py [--set NAME ...] [--write-queries]
        [--tldr DIR] [--mypy DIR] [--rbe DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import mirrors
from mirrors import MIRRORS

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO / "examples" / "eval"
SEED = 26  # the dev/test split and every sample
KINDS = ("natural", "code", "keywords", "deep")


@dataclass
class Built:
    """A set's corpus (id -> (title, text)) and its queries (id, text, kind, relevant doc id)."""

    docs: dict[str, tuple[str, str]] = field(default_factory=dict)
    queries: list[tuple[str, str, str, str]] = field(default_factory=list)
    vault: bool = False  # documents are files written verbatim at their id (no title added)


def run(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def git_reader(git_dir: Path) -> tuple[Callable[[str], list[str]], Callable[[str], str]]:
    """(list files under a folder, read a file) of HEAD of a bare checkout."""
    return partial(mirrors.ls, git_dir), partial(mirrors.show, git_dir)


def sample_corpus(built: Built, size: int, rng: random.Random) -> Built:
    """Every judged document plus a fixed sample of the others, up to `size` documents."""
    judged = {q[3] for q in built.queries}
    others = sorted(set(built.docs) - judged)
    keep = judged | set(rng.sample(others, max(0, min(len(others), size - len(judged)))))
    built.docs = {d: built.docs[d] for d in sorted(keep)}
    return built


def ruff(args: argparse.Namespace) -> Built:
    """A rule's first message format (placeholders as their own names) -> the rule's explanation."""
    rules = json.loads(run("ruff", "rule", "--all", "--output-format", "json"))
    rng = random.Random(SEED)
    built = Built()
    for rule in rules:
        if not rule.get("explanation") or not rule.get("code"):
            continue
        built.docs[rule["code"]] = (f"{rule['name']} ({rule['code']})", rule["explanation"])
    candidates = sorted(
        (r for r in rules if r.get("code") in built.docs and r.get("message_formats")),
        key=lambda r: r["code"],
    )
    for rule in rng.sample(candidates, 160):
        text = re.sub(r"\{(\w+)[^}]*\}", r"\1", rule["message_formats"][0])
        built.queries.append((f"ruff-{rule['code']}", text, "code", rule["code"]))
    return sample_corpus(built, 520, rng)


def clippy(args: argparse.Namespace) -> Built:
    """A lint's one-line description (`clippy-driver -W help`) -> `cargo clippy --explain` of it."""
    listing = subprocess.run(
        ["clippy-driver", "rustc", "-W", "help"], capture_output=True, text=True
    ).stdout
    lints: dict[str, str] = {}
    for line in listing.splitlines():
        m = re.match(r"\s*clippy::([a-z0-9-]+)\s+(allow|warn|deny|forbid)\s+(.*)", line)
        if m and "default lint description" not in m.group(3):
            lints[m.group(1).replace("-", "_")] = m.group(3).strip()
    rng = random.Random(SEED)
    names = rng.sample(sorted(lints), 480)
    built = Built()
    for name in sorted(names):
        explained = run("cargo", "clippy", "--explain", name).strip()
        if explained:
            built.docs[name] = (name, explained)
    for name in rng.sample(sorted(built.docs), 160):
        built.queries.append((f"clippy-{name}", lints[name], "natural", name))
    return built


def tldr(args: argparse.Namespace) -> Built:
    """A page's first summary line -> the page without its summary (English, common + linux)."""
    ls, show = git_reader(args.tldr)
    paths = sorted(p for p in ls("pages/common") + ls("pages/linux") if p.endswith(".md"))
    rng = random.Random(SEED)
    built = Built()
    for path in rng.sample(paths, 640):
        page = show(path)
        summary = [ln[2:].strip() for ln in page.splitlines() if ln.startswith("> ")]
        body = "\n".join(ln for ln in page.splitlines()[1:] if not ln.startswith(">")).strip()
        doc = path.removeprefix("pages/").removesuffix(".md")
        built.docs[doc] = (doc.split("/", 1)[1], body)
        if summary and not summary[0].lower().startswith(("this command is", "more information")):
            built.queries.append((f"tldr-{doc}", summary[0].rstrip("."), "natural", doc))
    built.queries = rng.sample(sorted(built.queries), 160)
    return built


TLDR_LANGUAGES = (
    "pages",
    "pages.de",
    "pages.fr",
    "pages.es",
    "pages.it",
    "pages.pt_BR",
    "pages.nl",
)


def tldr_languages(args: argparse.Namespace) -> Built:
    """One vault of tldr pages in seven Latin-script languages, each command in one language only,
    in its folder (`pages.de/common/...`, as tldr lays them out): a page's first summary line, in
    the page's language -> the page without its summary. Alias pages (`tldr <other>`) and summaries
    that two pages share are left out."""
    ls, show = git_reader(args.tldr)
    rng = random.Random(SEED)
    built = Built()
    used: set[str] = set()
    asked: dict[str, int] = {}
    for folder in TLDR_LANGUAGES:
        names = sorted(p.rsplit("/", 1)[-1] for p in ls(f"{folder}/common") if p.endswith(".md"))
        rng.shuffle(names)
        taken = 0
        for name in names:
            if taken == 100:
                break
            page = show(f"{folder}/common/{name}")
            if name in used or "`tldr " in page:
                continue
            used.add(name)
            taken += 1
            summary = [ln[2:].strip() for ln in page.splitlines() if ln.startswith("> ")]
            body = "\n".join(ln for ln in page.splitlines()[1:] if not ln.startswith(">")).strip()
            doc = f"{folder}/common/{name.removesuffix('.md')}"
            built.docs[doc] = (name.removesuffix(".md"), body)
            if summary and len(summary[0].split()) >= 3:
                text = summary[0].rstrip(".")
                asked[text] = asked.get(text, 0) + 1
                built.queries.append((f"tldrl-{doc}", text, "natural", doc))
    built.queries = [q for q in built.queries if asked[q[1]] == 1]
    built.queries = rng.sample(sorted(built.queries), min(280, len(built.queries)))
    return built


def _man_text(path: Path) -> str:
    return subprocess.run(
        f"MANWIDTH=80 man -l {path} 2>/dev/null | col -b",
        shell=True,
        capture_output=True,
        text=True,
    ).stdout


def man(args: argparse.Namespace) -> Built:
    """The NAME line's description -> the page without its NAME section, as Markdown sections."""
    files = [
        Path(p)
        for pkg in ("manpages", "manpages-dev")
        for p in run("dpkg", "-L", pkg).splitlines()
        if re.search(r"/man/man\d/[^/]+\.gz$", p) and Path(p).is_file()
    ]
    pages = []
    for path in sorted(files):
        with gzip.open(path, "rt", errors="replace") as fh:
            head = fh.read(400)
        if not head.startswith(".so ") and path.stat().st_size < 6000:
            pages.append(path)
    rng = random.Random(SEED)
    built = Built()
    seen: set[str] = set()
    asked: set[str] = set()
    for path in sorted(rng.sample(pages, 600)):
        text = _man_text(path)
        lines = text.splitlines()[1:-1]  # the running header and footer
        out, section, description = [], "", ""
        for line in lines:
            if re.fullmatch(r"[A-Z][A-Z0-9 ,/-]+", line.strip()) and not line.startswith(" "):
                section = line.strip()
                if section != "NAME":
                    out.append(f"\n## {section.title()}\n")
                continue
            if section == "NAME":
                description += " " + line.strip()
            else:
                out.append(line.strip())
        stem = path.name.removesuffix(".gz")
        name, _, sect = stem.rpartition(".")
        doc = f"man{sect[0]}/{name}"
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
        if body in seen:  # one page installed under several names (STAILQ_INSERT, STAILQ_HEAD...)
            continue
        seen.add(body)
        built.docs[doc] = (f"{name}({sect})", body)
        _, dash, desc = description.partition(" - ")
        if dash and len(desc.split()) >= 2 and desc.strip() not in asked:
            asked.add(desc.strip())
            built.queries.append((f"man-{sect}-{name}", desc.strip(), "natural", doc))
    built.queries = rng.sample(sorted(built.queries), 160)
    return built


def _rst_sections(text: str) -> list[tuple[int, str, list[str]]]:
    """(level, heading, lines) of each section of a reStructuredText page; levels follow the order
    in which underline characters first appear, as Sphinx assigns them."""
    lines = text.splitlines()
    order: list[str] = []
    sections: list[tuple[int, str, list[str]]] = [(0, "", [])]
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and re.fullmatch(r"([=\-~*^\"#+])\1{2,}", nxt.strip())
            and len(nxt.strip()) >= len(line.strip())
        ):
            if nxt[0] not in order:
                order.append(nxt[0])
            sections.append((order.index(nxt[0]) + 1, line.strip(), []))
            i += 2
            continue
        if not re.fullmatch(r"([=\-~*^\"#+])\1{2,}", line.strip()):
            sections[-1][2].append(line)
        i += 1
    return sections


def mypy(args: argparse.Namespace) -> Built:
    """mypy's documentation, one document per second-level section. Queries: each FAQ question ->
    its answer; each error message in an example (`# Error: ...`, the `[code]` dropped) -> the
    section of its error code; each third-level heading of the long pages -> its section."""
    ls, show = git_reader(args.mypy)
    built = Built()
    rng = random.Random(SEED)
    deep: list[tuple[str, str, str, str]] = []
    for path in sorted(p for p in ls("docs/source") if p.endswith(".rst")):
        page = path.rsplit("/", 1)[1].removesuffix(".rst")
        sections = _rst_sections(show(path))
        page_title = next((h for lvl, h, _ in sections if lvl == 1), page)
        current: tuple[str, str, list[str]] | None = None
        docs: list[tuple[str, str, list[str]]] = []
        for level, heading, lines in sections:
            if level <= 2 or current is None:
                current = (heading or page_title, f"{page}/{len(docs)}", list(lines))
                docs.append(current)
            else:
                current[2].append(f"\n### {heading}\n")
                current[2].extend(lines)
                if page not in ("changelog",) and len(heading.split()) >= 3:
                    deep.append((f"mypy-deep-{page}-{len(deep)}", heading, "deep", current[1]))
        for heading, doc, lines in docs:
            body = "\n".join(lines)
            for m in re.finditer(r"#\s*(?:E|Error):\s*(.+?)\s*(?:\[[a-z-]+\])?\s*$", body, re.M):
                message = m.group(1).strip()
                if len(message.split()) >= 3:
                    built.queries.append((f"mypy-msg-{len(built.queries)}", message, "code", doc))
            body = re.sub(r"#\s*(?:E|Error):.*$", "#", body, flags=re.M)
            title = heading
            if page == "faq" and heading != page_title:
                built.queries.append((f"mypy-faq-{doc}", heading, "natural", doc))
                title = page_title
            built.docs[doc] = (title, body.strip())
    # a deep heading asked is removed from its section, which must answer it by its content
    asked = rng.sample(deep, min(60, len(deep)))
    for _, heading, _, doc in asked:
        title, body = built.docs[doc]
        built.docs[doc] = (title, body.replace(f"\n### {heading}\n", "\n", 1))
    built.queries += asked
    first = {q[1]: i for i, q in reversed(list(enumerate(built.queries)))}  # of each text
    built.queries = [q for i, q in enumerate(built.queries) if first[q[1]] == i]
    return built


def rust_by_example(args: argparse.Namespace) -> Built:
    """A chapter's title in SUMMARY.md -> the chapter without its `# Title` line."""
    _, show = git_reader(args.rbe)
    built = Built()
    for title, path in re.findall(r"\[([^\]]+)\]\(([^)]+\.md)\)", show("src/SUMMARY.md")):
        page = show(f"src/{path}")
        body = re.sub(r"\A\s*#[^\n]*\n", "", page).strip()
        doc = path.removesuffix(".md")
        built.docs[doc] = (doc.rsplit("/", 1)[-1], body)
        if len(body) > 80:
            kind = "code" if re.search(r"[`:()!?_<>]|\b[a-z]+[A-Z]", title) else "keywords"
            built.queries.append((f"rbe-{doc}", title.replace("`", ""), kind, doc))
    return built


OBSIDIAN_LANGS = ("en", "es")


def _obsidian_pages(git_dir: Path, lang: str) -> dict[str, str]:
    """Path under the language folder -> text, of obsidianmd/obsidian-help's Markdown pages."""
    ls, show = git_reader(git_dir)
    return {p.removeprefix(f"{lang}/"): show(p) for p in ls(lang) if p.endswith(".md")}


def _without_description(page: str, key: str = "description") -> tuple[str, str]:
    """(the page's frontmatter `description` (or `key`), the page with it removed from the
    frontmatter and from the first body line that repeats it) -- the label's text never stays in
    its answer."""
    m = re.search(rf"^{key}: *(.*)\n", page, re.M)
    if not m:
        return "", page
    desc = m.group(1).strip().strip("'\"")
    page = page[: m.start()] + page[m.end() :]
    if desc:
        page = page.replace(desc, "", 1)
    return desc, page


def _glossary_queries(pages: dict[str, str], prefix: str) -> list[tuple[str, str, str, str]]:
    """A glossary entry's term (its `##` heading) -> the first page its definition links to."""
    by_name = {p.rsplit("/", 1)[-1].removesuffix(".md"): p for p in pages}
    out = []
    glossary = pages.get("Getting started/Glossary.md", "")
    for m in re.finditer(r"^## (.+)\n((?:(?!^## ).*\n?)*)", glossary, re.M):
        term, body = m.group(1).strip(), m.group(2)
        targets = [t.strip() for t in re.findall(r"\[\[([^\]|#]+)[^\]]*\]\]", body)]
        targets = [by_name[t] for t in targets if t in by_name]
        if targets:
            out.append((f"{prefix}gloss-{term}", term, "keywords", targets[0]))
    return out


def _question_queries(
    pages: dict[str, str], prefix: str
) -> tuple[list[tuple[str, str, str, str]], dict[str, str]]:
    """A question heading (`### ...?`) -> its page, with the heading removed from the page."""
    out: list[tuple[str, str, str, str]] = []
    edited: dict[str, str] = {}
    for path, text in pages.items():
        for m in re.finditer(r"^#{2,6} (.+\?)[ \t]*$", text, re.M):
            out.append((f"{prefix}faq-{len(out)}", m.group(1).strip(), "deep", path))
            text = text.replace(m.group(0), "", 1)
        edited[path] = text
    return out, edited


def obsidian_help(args: argparse.Namespace) -> Built:
    """obsidianmd/obsidian-help's English vault (about 170 short pages, titles are file names,
    folders by topic, a glossary, FAQ and overview pages) as it is. Queries: a page's frontmatter
    `description` -> the page, the description removed from it; a glossary term -> each page its
    entry links to; a question heading -> its page, the heading removed."""
    pages = _obsidian_pages(args.obsidian, "en")
    built = Built(vault=True)
    questions, pages = _question_queries(pages, "obs-")
    for path in sorted(pages):
        desc, text = _without_description(pages[path])
        if len(desc.split()) >= 3:
            built.queries.append((f"obs-desc-{path}", desc, "natural", path))
        built.docs[path] = ("", text)
    built.queries += questions + _glossary_queries(pages, "obs-")
    return built


def obsidian_help_es(args: argparse.Namespace) -> Built:
    """The English and Spanish folders of obsidianmd/obsidian-help in one vault (`en/...`, `es/...`,
    a page and its translation share a `permalink`). Queries: each Spanish page's `description` (in
    Spanish) -> that page, and the English description of the same permalink -> the English page;
    each description is removed from its own page only, so the translation still holds its text."""
    built = Built(vault=True)
    described: dict[str, dict[str, tuple[str, str]]] = {}
    for lang in OBSIDIAN_LANGS:
        for path, page in _obsidian_pages(args.obsidian, lang).items():
            desc, text = _without_description(page)
            permalink = re.search(r"^permalink: *(\S+)", page, re.M)
            if permalink and len(desc.split()) >= 3:
                described.setdefault(permalink.group(1), {})[lang] = (f"{lang}/{path}", desc)
            built.docs[f"{lang}/{path}"] = ("", text)
    for link, langs in sorted(described.items()):
        if len(langs) == len(OBSIDIAN_LANGS):
            for lang, (doc, desc) in langs.items():
                built.queries.append((f"obs{lang}-{link}", desc, "natural", doc))
    return built


def dendron_site(args: argparse.Namespace) -> Built:
    """dendronhq/dendron-site's vault as it is (about 1,000 notes named by their place in a
    hierarchy, `dendron.topic.links.md`, titles in frontmatter, parent notes and tag notes over
    their children, changelogs, FAQ pages). Queries: a note's frontmatter `desc` of three words or
    more that no other note's frontmatter holds -> the note, the desc removed from it."""
    ls, show = git_reader(args.dendron)
    built = Built(vault=True)
    described: dict[str, str] = {}
    for path in ls("vault"):
        if not path.endswith(".md"):
            continue
        desc, text = _without_description(show(path), "desc")
        doc = path.removeprefix("vault/")
        built.docs[doc] = ("", text)
        if len(desc.split()) >= 3:
            described[doc] = desc
    count = Counter(described.values())
    for doc, desc in sorted(described.items()):
        if count[desc] == 1:
            built.queries.append((f"den-{doc}", desc, "natural", doc))
    return built


SETS: dict[str, Callable[[argparse.Namespace], Built]] = {
    "ruff": ruff,
    "clippy": clippy,
    "tldr-pages": tldr,
    "tldr-languages": tldr_languages,
    "man": man,
    "mypy-docs": mypy,
    "rust-by-example": rust_by_example,
    "obsidian-help": obsidian_help,
    "obsidian-help-es": obsidian_help_es,
    "dendron-site": dendron_site,
}
# vault-shaped sets: the halves are split by source (every query of one judged page in one half)
BY_SOURCE = {"obsidian-help", "obsidian-help-es", "dendron-site"}


def source(query: tuple[str, str, str, str]) -> str:
    """The page a query was taken from: its judged document, or for a translation query the
    permalink its id names (so a page and its translation fall in one half)."""
    qid, _, _, doc = query
    return qid.split("-", 1)[1] if qid.startswith(("obsen-", "obses-")) else doc


def write_queries(name: str, built: Built) -> None:
    """queries.jsonl and the seeded dev/test halves: each kind split evenly, or for a vault-shaped
    set split by source, every query taken from one page (or its translation) in one half."""
    folder = EVAL / name
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    halves: dict[str, list[tuple[str, str, str, str]]] = {"dev": [], "test": []}
    if name in BY_SOURCE:
        sources = sorted({source(q) for q in built.queries})
        rng.shuffle(sources)
        test = set(sources[: (len(sources) + rng.randrange(2)) // 2])
        for q in built.queries:
            halves["test" if source(q) in test else "dev"].append(q)
    for kind in KINDS if name not in BY_SOURCE else ():
        of_kind = sorted(q for q in built.queries if q[2] == kind)
        rng.shuffle(of_kind)
        half = (len(of_kind) + rng.randrange(2)) // 2
        halves["test"] += of_kind[:half]
        halves["dev"] += of_kind[half:]
    with (folder / "queries.jsonl").open("w", encoding="utf-8") as out:
        for qid, text, kind, _ in sorted(built.queries):
            row = {"_id": qid, "text": text, "metadata": {"kind": kind}}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    for part, rows in halves.items():
        lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t1" for q, _, _, d in sorted(rows)]
        (folder / "qrels" / f"{part}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_corpus(name: str, built: Built, out: Path) -> None:
    judged = {
        line.split("\t")[1]
        for part in ("dev", "test")
        for line in (EVAL / name / "qrels" / f"{part}.tsv").read_text().splitlines()[1:]
    }
    missing = judged - built.docs.keys()
    if missing:
        raise SystemExit(
            f"{name}: judged documents missing from this source: {sorted(missing)[:5]}"
        )
    (out / name).mkdir(parents=True, exist_ok=True)
    with (out / name / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for doc, (title, text) in sorted(built.docs.items()):
            row = (
                {"_id": doc, "text": text, "vault": True}
                if built.vault
                else {"_id": doc, "title": title, "text": text}
            )
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--set", action="append", choices=sorted(SETS), help="default: all")
    ap.add_argument("--write-queries", action="store_true")
    ap.add_argument("--tldr", type=Path, default=MIRRORS / "tldr-pages+tldr/repo")
    ap.add_argument("--mypy", type=Path, default=MIRRORS / "python+mypy/repo")
    ap.add_argument("--rbe", type=Path, default=MIRRORS / "rust-lang+rust-by-example/repo")
    ap.add_argument("--obsidian", type=Path, default=MIRRORS / "obsidianmd+obsidian-help/repo")
    ap.add_argument("--dendron", type=Path, default=MIRRORS / "dendronhq+dendron-site/repo")
    ap.add_argument("--out", type=Path, default=REPO / ".cache-data" / "eval")
    args = ap.parse_args()
    for name in args.set or list(SETS):
        built = SETS[name](args)
        if args.write_queries:
            write_queries(name, built)
        write_corpus(name, built, args.out)
        print(f"{name}: {len(built.docs)} documents, {len(built.queries)} queries")


if __name__ == "__main__":
    main()
