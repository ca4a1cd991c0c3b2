"""How close a note k0maru writes comes to the record a vault's own people wrote (issue #39).

Each repository of tests/data/write_path/repos.json keeps records (ADRs, RFCs, decision logs, daily
notes). The label is the record its `commit` added at `path`; the vault is the tree of that commit's
parent, written to a temporary folder (Markdown and small rule files only). k0maru's flush is asked
to write that record from its title, body (its own sections, without heading and metadata), tags
and date; the file it writes is compared with the label. Points per repository:
- folder: the same folder; number: the same number (or none where the record has none);
- name: the same file-name pattern (prefix, number width, date form, separator, slug style,
  per-record folder);
- heading: the same heading line (digits aside: the number is scored above);
- metadata: the same metadata format (frontmatter keys in order, `Key: value` lines, list items,
  metadata sections such as `## Status`, with their date form);
- sections: the same section headings in the same order;
- as is: all six right, so the file would be committed with no hand edit beyond its body text.
Repositories are split into halves by repository (`split` in the json, fixed before any change): dev
(tuned on), test (reported in the second round), round3 (labels listed before its changes), round4
and round5 (chosen by a helper blind to the code, read once at the end of their round). Each half's
percentages come with a 95% bootstrap interval over its repositories. A repository whose mirror is
not on this machine is skipped with a note: this is a script, not a test.

    python scripts/eval_write_path.py [--json] [--show NAME] [--half dev] [--mirrors DIR]
        [--set families] [--labels PATH] [--shuffle]

`--set families` reads tests/data/write_path/families.json instead (#58: proposals, KEPs, RFCs,
design docs, runbooks, postmortems, minutes, newsletters, notes vaults; halves test, round2, dev and
dev2, the last two later repositories split the same way: dev2 to tune on, round2 held out): its
family kinds are asked of flush as the k0maru kind they are written as (FAMILY_KINDS), and the
fields its `unreachable` lists (each with its evidence) are left out of that record's points and
`as is`. `--labels PATH` reads the entries from another file of the same shape (a new half being
labelled, `round3.json`); `--half NAME` keeps that half (any `split` the file names).

Two more counts per half (#58's done-whens): `foreign_keys`, the keys written (empty or not) that
no record of the family in the parent tree has, the label among them (frontmatter keys and `Key:`
lines; k0maru's own keys, `aliases:`, a template slot the records dropped); `order_kept`, of the
cases whose family has a section order (a template's, found by name in the label's folder or two
above it, else each pair of sections most of its records holding both give one way) and whose
label holds a pair of it, those whose written sections break none of it. `--shuffle` passes each
body's top-level sections out of order (a seed per repository), so that order is restored, not
copied.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml

from k0maru.notes.flush import FlushEngine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mirrors import files, git, write_blobs  # noqa: E402 - a sibling module of scripts/

REPO = Path(__file__).resolve().parents[1]
REPOS = REPO / "tests" / "data" / "write_path" / "repos.json"
SETS = {"records": REPOS, "families": REPOS.with_name("families.json")}
FAMILY_KINDS = {
    "kep": "adr",
    "proposal": "adr",
    "rfc": "adr",
    "design": "adr",
    "runbook": "card",
    "notes": "card",
    "postmortem": "log",
    "minutes": "log",
    "newsletter": "log",
}
MIRRORS = Path("/work/.mirror")
HALVES = ("round5", "round4", "test", "round2", "round3", "dev", "dev2")
BOOTSTRAP_ROUNDS = 2000
POINTS = ("folder", "name", "number", "heading", "metadata", "sections")
_META_SECTIONS = {"status", "date", "dates", "deciders", "metadata"}
_META_LINE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?([A-Z][\w -]{0,30}?)(?:\*\*)?:(?:\*\*)?(?:\s+(.*))?$"
)
_HEADING_PREFIX = re.compile(
    r"^(?:(?:ADR|RFC|Architecture Decision Record|Decision)[\s-]*\d*\s*[:.-]?\s*"
    r"|\d+[.:]?\s+|\d{4}-\d{2}-\d{2}\s+)",
    re.I,
)
_NAME_PREFIX = re.compile(r"^(?:[A-Za-z]{2,4}[-_ ]?)?\d+(?:[-_.]\d+)*(?:[-_ ./]|$)")
_EMPTY_KEY = re.compile(r"^(?:[-*]\s+)?([\w -]{1,30}?):\s*(?:\"\"|''|\[\])?$")
_KEEP = (".md", ".adr-dir", ".log4brains.yml", ".obsidian/daily-notes.json")
_MAX_BLOB = 1 << 20


@dataclass
class Case:
    name: str
    kind: str
    split: str
    commit: str
    path: str
    score: dict[str, bool] = field(default_factory=dict)
    written: str = ""
    written_text: str = ""
    label_text: str = ""
    note: str = ""
    shared: frozenset[str] = frozenset()  # first headings the folder's records share
    unreachable: frozenset[str] = frozenset()  # points left out (the set says none can get them)
    lost: list[str] = field(default_factory=list)  # the request's title or tags, empty keys
    foreign: list[str] = field(default_factory=list)  # keys written that no record of it has
    order: str = ""  # the family's section order: "" none, "kept" or "broken"


def materialise(mirror: Path, commit: str, dest: Path) -> None:
    """The parent tree's Markdown and rule files, blob by blob (a mirror may lack big blobs)."""
    wanted = [
        (sha, path)
        for sha, path, size in files(mirror, f"{commit}^")
        if path.endswith(_KEEP) and "node_modules/" not in path and (size or 0) <= _MAX_BLOB
    ]
    write_blobs(mirror, wanted, dest)


def split_record(
    text: str, shared: frozenset[str] = frozenset()
) -> tuple[list[str], str, list[str], str]:
    """(frontmatter lines, heading line, metadata lines or sections, body) of a record. Metadata
    lines may come before the heading; a `# ` line in `shared` (the first heading of other records
    of the folder, `# Summary`) is a section, not the heading."""
    fm, lines = _split_frontmatter(text.replace("\r\n", "\n").split("\n"))
    heading = ""
    rest = lines
    meta: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("# ") and line.strip() not in shared:  # comments may precede it
            heading, rest = line.strip(), lines[i + 1 :]
            meta = [x.strip() for x in lines[:i] if x.strip() and _META_LINE.match(x)]
            break
        if line.startswith(("# ", "## ")):
            break
    body: list[str] = []
    section = ""
    for line in rest:
        if line.startswith("## "):
            section = line[3:].strip().lower()
            if section in _META_SECTIONS:
                meta.append(line.strip())
                continue
        if section in _META_SECTIONS:
            if line.strip():
                meta.append("  " + line.strip())
            continue
        if not section and not any(x.strip() for x in body) and _META_LINE.match(line):
            meta.append(line.strip())
            continue
        body.append(line)
    return fm, heading, meta, "\n".join(body).strip()


def _split_frontmatter(lines: list[str]) -> tuple[list[str], list[str]]:
    if lines and lines[0].strip() == "---" and "---" in [x.strip() for x in lines[1:]]:
        end = [x.strip() for x in lines[1:]].index("---") + 1
        return lines[1:end], lines[end + 1 :]
    return [], lines


def title_of(fm: list[str], heading: str, path: str) -> str:
    """The title a person would give: the frontmatter's (a nested one, `data:` `title:`, where
    it has none at the top), the heading's, else the file name's words."""
    for line in sorted(fm, key=lambda x: x[:1].isspace()):
        if line.strip().lower().startswith("title:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    if heading:
        return _HEADING_PREFIX.sub("", heading[2:].strip()).strip() or heading[2:].strip()
    stem = Path(path).parent.name if Path(path).stem in ("index", "README") else Path(path).stem
    words = _NAME_PREFIX.sub("", stem) or stem
    words = re.sub(r"[-_]+", " ", words).strip()
    return words[:1].upper() + words[1:]  # `ML training` as the name writes it


def tags_of(fm: list[str], meta: list[str]) -> list[str]:
    """The tags the record gives in its frontmatter, else on a `Tags:` metadata line (`- Tags:
    agile team`, `Tags: [[ML]]`), asked of flush like its title."""
    try:
        tags = (yaml.safe_load("\n".join(fm)) or {}).get("tags") if fm else None
    except (yaml.YAMLError, AttributeError):
        tags = None
    if isinstance(tags, list):
        return [str(t) for t in tags]
    lined = [
        m.group(2) or "" for x in meta if (m := _META_LINE.match(x)) and m[1].lower() == "tags"
    ]
    given = str(tags or "") or (lined[0] if lined else "")
    return [w.strip("#[]") for w in re.split(r"[\s,]+", given) if w.strip("#[]")]


def shared_headings(root: Path, label_path: str) -> frozenset[str]:
    """The first `# ` lines that two or more other records of the label's folder share."""
    seen: list[str] = []
    for path in (root / folder_of(label_path)).glob("*.md"):
        first = next(
            (x for x in path.read_text("utf-8", "replace").split("\n") if x.startswith("# ")), ""
        )
        seen.append(first.strip())
    return frozenset(h for h in set(seen) if h and seen.count(h) >= 2)


def date_of(path: str, mirror: Path, commit: str) -> date:
    m = re.search(r"(\d{4})-?(\d{2})-?(\d{2})", Path(path).name)
    if m:
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    return date.fromisoformat(git(mirror, "log", "-1", "--format=%as", commit).decode().strip())


def shape(text: str) -> str:
    return re.sub(r"\d+", "9", text)


def name_pattern(path: str) -> str:
    """The file name's form: its prefix with each digit as 9, its slug's words as `a` joined as
    written (`0009-help-scripts.md` -> `9999-a-a.md`, `2024-08-26.md` -> `9999-99-99.md`)."""
    p = Path(path)
    stem = p.parent.name + "/" + p.stem if p.stem in ("index", "README") else p.stem
    m = _NAME_PREFIX.match(stem)
    prefix = re.sub(r"\d", "9", m.group(0)) if m else ""
    slug = re.sub(r"[^\W_]+", "a", stem[len(prefix) :])
    for sep in "-_ ":
        slug = re.sub(rf"a(?:{sep}a)+", f"a{sep}a", slug)
    return prefix + slug + p.suffix


def number_of(path: str) -> str:
    name = Path(path).name if Path(path).stem not in ("index", "README") else Path(path).parent.name
    if re.match(r"^\d{8}|^\d{4}-\d{2}-\d{2}", name):
        return ""
    m = re.match(r"^(?:[A-Za-z]+[-_])?(\d{1,5})(?=[-_ .])", name)
    return str(int(m.group(1))) if m else ""


def folder_of(path: str) -> str:
    p = Path(path)
    parent = p.parent.parent if p.stem in ("index", "README") else p.parent
    return "" if str(parent) == "." else parent.as_posix()


def metadata_shape(fm: list[str], meta: list[str]) -> list[str]:
    keys = [line.split(":", 1)[0].strip() for line in fm if re.match(r"^[\w-]+:", line)]
    out = [f"fm:{k}" for k in keys]
    for line in meta:
        if line.startswith("## "):
            out.append(line.lower())
            continue
        m = _META_LINE.match(line)
        if m:
            value = (m.group(2) or "").strip()
            dated = re.sub(r"\d", "9", value) if re.match(r"^[\d./-]+$", value) else ""
            out.append(f"{line.split(m.group(1))[0]}{m.group(1).lower()}:{dated}")
    return out


def sections_of(body: str) -> list[str]:
    return [line.strip().lower() for line in body.split("\n") if line.startswith("## ")]


def score(
    label_path: str, label: str, written_path: str, written: str, shared: frozenset[str]
) -> dict[str, bool]:
    lfm, lhead, lmeta, lbody = split_record(label, shared)
    wfm, whead, wmeta, wbody = split_record(written, shared)
    result = {
        "folder": folder_of(label_path) == folder_of(written_path),
        "name": name_pattern(label_path) == name_pattern(written_path),
        "number": number_of(label_path) == number_of(written_path),
        "heading": shape(lhead) == shape(whead),
        "metadata": metadata_shape(lfm, lmeta) == metadata_shape(wfm, wmeta),
        "sections": sections_of(lbody) == sections_of(wbody),
    }
    result["as_is"] = all(result.values())
    return result


def run_case(case: Case, mirrors: Path, shuffle: bool = False) -> None:
    mirror = mirrors / case.name.replace("/", "+") / "repo"
    if not mirror.is_dir():
        case.note = f"skipped: no mirror at {mirror}"
        return
    try:
        case.label_text = git(mirror, "show", f"{case.commit}:{case.path}").decode("utf-8")
    except subprocess.CalledProcessError:
        case.note = f"skipped: {case.commit[:10]}:{case.path} is not in the mirror"
        return
    when = date_of(case.path, mirror, case.commit)
    with tempfile.TemporaryDirectory(prefix="k0-write-eval-") as tmp:
        root = Path(tmp)
        try:
            materialise(mirror, case.commit, root)
        except subprocess.CalledProcessError:
            case.note = f"skipped: {case.commit[:10]} has no parent in the mirror"
            return
        case.shared = shared_headings(root, case.path)
        fm, heading, meta, body = split_record(case.label_text, case.shared)
        title = title_of(fm, heading, case.path)
        records = family_records(root, case.path)
        family_order = majority_order(root, case.path, records, case.shared)
        passed = shuffled(body, case.name) if shuffle else body
        try:
            tags = tags_of(fm, meta)
            result = FlushEngine(root).flush(case.kind, title, passed or title, tags, when=when)
        except Exception as exc:  # the eval reports any failure as a miss
            case.note = f"flush failed: {exc}"
            case.score = {p: False for p in (*POINTS, "as_is")}
            return
        case.written = result.path
        case.written_text = (root / result.path).read_text(encoding="utf-8")
        case.foreign = foreign_keys(case.written_text, case.label_text, records)
    if tests_order(section_heads(body), family_order):
        heads = section_heads(split_record(case.written_text, case.shared)[3])
        case.order = "kept" if keeps_order(heads, family_order) else "broken"
    case.lost = lost(title, tags, case.label_text, case.written, case.written_text)
    case.score = score(case.path, case.label_text, case.written, case.written_text, case.shared)
    case.score["as_is"] = all(case.score[p] for p in POINTS if p not in case.unreachable)


_INDEX_NAMES = ("readme", "index", "_index")


def family_records(root: Path, label_path: str) -> list[Path]:
    """The parent tree's records of the label's family: the label folder's Markdown files (its
    per-record folders' same-named file where the label is one), else those of the folders beside
    it (a new year folder); templates and index files left out."""
    label = Path(label_path)
    per_record = label.stem in ("index", "README")
    folder = root / folder_of(label_path)
    pattern = f"*/{label.name}" if per_record else "*.md"
    found = [p for p in folder.glob(pattern) if p.is_file()]
    if not found and folder != root:
        found = [p for p in folder.parent.glob(f"*/{pattern}") if p.is_file()]
    return sorted(p for p in found if not _templated(p) and (per_record or not _indexed(p)))


def _templated(path: Path) -> bool:
    return "template" in path.as_posix().lower().rsplit("/", 2)[-2:][0] + path.name.lower()


def _indexed(path: Path) -> bool:
    return path.stem.lower() in _INDEX_NAMES


def family_template(root: Path, label_path: str) -> Path | None:
    """The nearest template of the family: a file or folder named `*template*` in the label's
    folder or up to two folders above it."""
    folder = root / folder_of(label_path)
    for anc in (folder, folder.parent, folder.parent.parent):
        if not anc.is_relative_to(root) or not anc.is_dir():
            continue
        hits = sorted(
            p for p in [*anc.glob("*"), *anc.glob("*/*")] if p.is_file() and _templated(p)
        )
        hits = [p for p in hits if p.suffix in ("", ".md") and ".github" not in p.parts]
        if hits:
            return hits[0]
    return None


def section_heads(body: str) -> list[str]:
    """The body's section headings at its top level (`# ` where it has any, else `## `), outside
    code fences, lower-cased."""
    heads = [h for h in _headings(body)]
    top = min((level for level, _ in heads), default=0)
    return [text for level, text in heads if level == top]


def _headings(body: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    fenced = False
    for line in body.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        m = None if fenced else re.match(r"^(#{1,2}) +(.+?)\s*#*\s*$", line)
        if m:
            out.append((len(m.group(1)), m.group(2).strip().lower()))
    return out


def majority_order(
    root: Path, label_path: str, records: list[Path], shared: frozenset[str] = frozenset()
) -> set[tuple[str, str]]:
    """The family's section order as the pairs (a, b) where a comes first: every pair of its
    template's sections, else each pair that most of the (two or more) records holding both give
    one way."""
    template = family_template(root, label_path)
    if template is not None:
        heads = section_heads(split_record(template.read_text("utf-8", "replace"), shared)[3])
        if len(heads) >= 2:
            return {(a, b) for i, a in enumerate(heads) for b in heads[i + 1 :] if a != b}
    votes: dict[tuple[str, str], int] = {}
    for path in records:
        heads = section_heads(split_record(path.read_text("utf-8", "replace"), shared)[3])
        for pair in {(a, b) for i, a in enumerate(heads) for b in heads[i + 1 :] if a != b}:
            votes[pair] = votes.get(pair, 0) + 1
    return {(a, b) for (a, b), n in votes.items() if n >= 2 and n > votes.get((b, a), 0)}


def keeps_order(heads: list[str], order: set[tuple[str, str]]) -> bool:
    """No two sections written against the family's order."""
    return not any((b, a) in order for i, a in enumerate(heads) for b in heads[i + 1 :])


def tests_order(heads: list[str], order: set[tuple[str, str]]) -> bool:
    """The label's sections hold a pair the family's order ranks (so the order can be kept)."""
    return any(
        (a, b) in order or (b, a) in order for i, a in enumerate(heads) for b in heads[i + 1 :]
    )


def shuffled(body: str, seed: str) -> str:
    """The body with its top-level sections out of order (a fixed seed per repository); the text
    before the first one stays first."""
    lines = body.split("\n")
    heads = _headings(body)
    top = min((level for level, _ in heads), default=0)
    if not top:
        return body
    starts, fenced = [], False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and re.match(rf"^#{{{top}}} ", line):
            starts.append(i)
    parts = [lines[a:b] for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
    order = list(range(len(parts)))
    random.Random(seed).shuffle(order)
    if order == sorted(order) and len(order) > 1:
        order = order[1:] + order[:1]
    out = lines[: starts[0]] + [
        x for i in order for x in ([*parts[i]] if parts[i][-1:] == [""] else [*parts[i], ""])
    ]
    return "\n".join(out).strip()


def keys_of(text: str) -> set[str]:
    """A record's metadata keys: its frontmatter's top-level ones and its `Key:` lines'."""
    fm, _, meta, _ = split_record(text)
    keys = {m.group(1).lower() for x in fm if (m := re.match(r"^([\w-]+):", x))}
    return keys | {m.group(1).lower() for x in meta if (m := _META_LINE.match(x))}


def foreign_keys(written: str, label: str, records: list[Path]) -> list[str]:
    """The keys the written record has that no record of its family has, the label among them
    (none where the family has no other record to judge by): the issue's "zero empty keys the
    records do not have", strict."""
    if not records:
        return []
    texts = [label, *(p.read_text("utf-8", "replace") for p in records)]
    return sorted(keys_of(written) - set().union(*map(keys_of, texts)))


def lost(title: str, tags: list[str], label: str, path: str, written: str) -> list[str]:
    """What the written record (its path and text) drops of the request (its title, each tag, in
    any case and word form) and the keys it leaves empty that the label fills or lacks: the
    issue's "zero tags or titles dropped; zero empty keys the records do not have"."""
    flat = re.sub(r"[\W_]+", " ", f"{path}\n{written}").lower()
    gone = [] if _words(title) in flat else ["title"]
    gone += [f"tag:{t}" for t in tags if _words(t) not in flat]
    empty = _empty_keys(written) - _empty_keys(label)
    return gone + [f"empty:{k}" for k in sorted(empty)]


def _words(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text).lower().strip()


def _empty_keys(text: str) -> set[str]:
    fm, _, meta, _ = split_record(text)
    nested = [i + 1 < len(fm) and fm[i + 1].startswith((" ", "-")) for i in range(len(fm))]
    kept = [x for x, n in zip(fm, nested, strict=True) if not x.startswith((" ", "-")) and not n]
    lines = kept + meta
    return {m.group(1).lower() for x in lines if (m := _EMPTY_KEY.match(x.strip()))}


def bootstrap(values: list[float], seed: int = 39) -> tuple[float, float]:
    """The 95% percentile interval of the mean of `values`, resampled with replacement."""
    if not values:
        return (0.0, 0.0)
    rng = random.Random(seed)
    means = sorted(
        sum(rng.choices(values, k=len(values))) / len(values) for _ in range(BOOTSTRAP_ROUNDS)
    )
    low, high = means[int(0.025 * BOOTSTRAP_ROUNDS)], means[int(0.975 * BOOTSTRAP_ROUNDS) - 1]
    return (round(100 * low, 1), round(100 * high, 1))


def summary(cases: list[Case]) -> dict[str, object]:
    scored = [c for c in cases if c.score]
    points = sum(c.score[p] for c in scored for p in POINTS if p not in c.unreachable)
    total = sum(len(POINTS) - len(c.unreachable & set(POINTS)) for c in scored)
    per_repo = [
        sum(c.score[p] for p in POINTS if p not in c.unreachable)
        / max(len(POINTS) - len(c.unreachable & set(POINTS)), 1)
        for c in scored
    ]
    return {
        "repositories": len(scored),
        "skipped": len(cases) - len(scored),
        "points": f"{points}/{total}",
        "points_pct": round(100 * points / max(total, 1), 1),
        "as_is": f"{sum(c.score['as_is'] for c in scored)}/{len(scored)}",
        "as_is_pct": round(100 * sum(c.score["as_is"] for c in scored) / max(len(scored), 1), 1),
        "points_ci95": bootstrap(per_repo),
        "as_is_ci95": bootstrap([float(c.score["as_is"]) for c in scored]),
        **{p: sum(c.score[p] for c in scored if p not in c.unreachable) for p in POINTS},
        "lost": sum(len(c.lost) for c in scored),
        "foreign_keys": sum(len(c.foreign) for c in scored),
        "order_kept": f"{sum(c.order == 'kept' for c in scored)}/{sum(bool(c.order) for c in scored)}",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--show", help="print the label and the written file of this repository")
    ap.add_argument("--half", action="append", help="only this half (repeatable)")
    ap.add_argument("--mirrors", type=Path, default=MIRRORS)
    ap.add_argument("--set", choices=sorted(SETS), default="records", help="which labelled set")
    ap.add_argument("--labels", type=Path, help="read the entries from this file (same shape)")
    ap.add_argument(
        "--shuffle", action="store_true", help="pass each body's sections out of order (fixed seed)"
    )
    args = ap.parse_args()
    labels = args.labels or SETS[args.set]
    try:
        entries = json.loads(labels.read_text(encoding="utf-8"))["repositories"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"eval_write_path: cannot read labels from {labels}: {exc}", file=sys.stderr)
        return 2
    halves_in = [e.get("split", "") for e in entries]
    wanted = [h for h in dict.fromkeys([*HALVES, *halves_in]) if not args.half or h in args.half]
    cases = [
        Case(
            e["repo"],
            FAMILY_KINDS.get(e["kind"], e["kind"]),
            e["split"],
            e["commit"],
            e["path"],
            unreachable=frozenset(u["field"] for u in e.get("unreachable") or []),
        )
        for e in entries
        if e["split"] in wanted and (not args.show or e["repo"] == args.show)
    ]
    for case in cases:
        run_case(case, args.mirrors, args.shuffle)
    wanted = [h for h in wanted if any(c.split == h for c in cases)]
    halves = {h: summary([c for c in cases if c.split == h]) for h in wanted}
    if args.json:
        print(json.dumps({"halves": halves, "cases": [_case_json(c) for c in cases]}, indent=2))
        return 0
    for half in wanted:
        print(f"== {half}: {json.dumps(halves[half])}")
        for c in (c for c in cases if c.split == half):
            misses = [p for p in POINTS if c.score and not c.score[p]]
            shown = c.note or ("as is" if c.score["as_is"] else "miss: " + ", ".join(misses))
            shown += "; lost: " + ", ".join(c.lost) if c.lost else ""
            shown += "; foreign: " + ", ".join(c.foreign) if c.foreign else ""
            shown += "; order broken" if c.order == "broken" else ""
            print(f"  {c.name:<45} {c.path} -> {c.written or '-'}  [{shown}]")
    for c in cases if args.show else []:
        print(f"\n--- label {c.path}\n{c.label_text[:1500]}\n--- written {c.written}")
        print(c.written_text[:1500])
    return 0


def _case_json(c: Case) -> dict[str, object]:
    keys = {"repo": "name", "split": "split", "label": "path", "written": "written", "lost": "lost"}
    keys |= {"foreign": "foreign", "order": "order"}
    return {**{k: getattr(c, a) for k, a in keys.items()}, "score": c.score, "note": c.note}


if __name__ == "__main__":
    sys.exit(main())
