"""RecordTemplate: how a folder's own records are written, learnt from its most recent ones.

The file name (`{num}-{slug}.md`, `ADR-{num}-{slug}.md`, `{yyyymmdd}-{slug}.md`, `{date}.md`,
`{slug}/index.md` ...), the heading (`# {n}. {title}`, `# ADR {num}: {title}`, `# {title}` ...), the
metadata (frontmatter keys in their order, `Date:` / `- Status:` lines, `## Status` sections), the
section order and the first status: each the majority of the recent records, a template file beside
them (`template.md`, `Template-*.md`) filling what the records do not show."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from k0maru.fsutil import read_regular
from k0maru.index.markdown import split_frontmatter

RECENT = 8  # records a template is learnt from
_MAX_READ = 64 * 1024
_META_SECTIONS = ("status", "date")
# `template.md`, `adr-template.md`, `0000-template.md`, `template-daily.md`, a family's own
# `rfc-template.md`; not `0278-template-only-x.md`, `use-template-engine.md`
_TEMPLATE_NAME = re.compile(
    r"^(?:0+-)?(?:(?:adr[-_])?template(?:[-_ ].*)?|[a-z]{2,10}[-_]template)\.md$", re.I
)
_SKIP_NAMES = {"readme.md", "index.md", "changelog.md", "agents.md", "contributing.md"}
_SEP = r"(\s+[-_.:]\s+|[-_ ])"  # what joins a number and the words: `-`, `_`, ` `, ` - `
_DATED_COUNT = "{date}{sep}{prefix}{num}"
_LEAD_DATE = "{prefix}{date}"
_DAY = "{prefix}{mmdd}"
_NAME_FORMS = (  # (regex on the stem, name format, naming class)
    (re.compile(r"^(\d{4}-\d{2}-\d{2})$"), "{date}", "date"),
    (re.compile(r"^(\d{4}_\d{2}_\d{2})$"), "{date_}", "date"),  # Logseq's journals
    (re.compile(r"^((?:19|20)\d\d-(?:0[1-9]|1[0-2]))$"), "{month}", "date"),  # monthly `2026-07`
    (re.compile(r"^(\d{8})[-_. ].+$"), "{yyyymmdd}{sep}{slug}", "date-slug"),
    (re.compile(r"^((?:19|20)\d\d(?:0[1-9]|1[0-2]))[-_ ].+$"), "{yyyymm}{sep}{slug}", "date-slug"),
    (  # a dated issue of a counted series: `2026-08-21-twin0365`
        re.compile(r"^(\d{4}-\d{2}-\d{2})([-_])([A-Za-z]{2,8})(\d{2,5})$"),
        _DATED_COUNT,
        "date-slug",
    ),
    (re.compile(r"^(\d{4}-\d{2}-\d{2})[-_ ].+$"), "{date}{sep}{slug}", "date-slug"),
    (re.compile(r"^((?:19|20)\d\d-(?:0[1-9]|1[0-2]))[-_ ].+$"), "{month}{sep}{slug}", "date-slug"),
    (  # a lead word before the date: `summary-2026-07-16`
        re.compile(r"^([A-Za-z]{2,12}[-_])\d{4}-\d{2}-\d{2}$"),
        _LEAD_DATE,
        "date",
    ),
    (  # a month and day under a year folder: `2025/CG-01-14`
        re.compile(r"^([A-Za-z]{1,12}[-_])(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$"),
        _DAY,
        "date",
    ),
    (  # a counter under a year: `PM2024-001 - Title`
        re.compile(r"^([A-Za-z]{1,5}[-_ ]?(?:19|20)\d\d[-_ ]?)()(\d{1,5})" + _SEP + r"\S.*$"),
        "{prefix}{num}{sep}{slug}",
        "adr-prefixed",
    ),
    (
        re.compile(r"^([A-Za-z]{1,5})([-_ ]?)(\d{1,5})" + _SEP + r"\S.*$"),
        "{prefix}{num}{sep}{slug}",
        "adr-prefixed",
    ),
    (re.compile(r"^([A-Za-z]{2,5})([-_ ]?)(\d{1,5})$"), "{prefix}{num}", "adr-prefixed"),
    (re.compile(r"^(\d{1,5})" + _SEP + r"\S.*$"), "{num}{sep}{slug}", "adr-number"),
)
_META_LINE = re.compile(
    r"^(?P<lead>\s*(?:[-*+]\s+)?(?:\*\*)?)(?P<key>[A-Z][\w -]{0,30}?)(?P<colon>(?:\*\*)?:(?:\*\*)?\s*)"
    r"(?P<value>.*)$"
)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_OPTIONAL = re.compile(r"<!--(?:(?!-->).)*\bop[ct]ion(?:(?!-->).)*-->", re.I | re.S)
_STATUS_KEYS = {"status", "statut", "estado", "stato"}  # the key a record's status is given under
_DATE_FORMS = (
    *("%Y-%m-%d", "%Y/%m/%d", "%d/%m/%Y", "%d.%m.%Y", "%Y%m%d"),
    *("%B %d, %Y", "%d %B %Y", "%b %d, %Y", "%d %b %Y"),  # a month's name: its day not padded
)


@dataclass(slots=True)
class RecordTemplate:
    name_format: str = ""  # "" : not learnt, the rule's naming is used
    prefix: str = ""  # `ADR` of `ADR-{num}-{slug}`
    separator: str = "-"
    number_width: int = 4
    next_count: int = 0  # a counter the records keep in a metadata value (`Number: 41`): the next
    fixed_number: int | None = None  # every record carries this number (`0000-x.md`): kept
    heading: str = "# {title}"  # "" : the records have no heading line
    frontmatter: list[tuple[str, str]] = field(default_factory=list)  # key, value form
    meta_lines: list[str] = field(default_factory=list)  # between heading and body: `Date: {date}`
    meta_tight: bool = False  # the metadata lines right under the heading, no blank line between
    sections: list[str] = field(default_factory=list)  # `## ` titles in order
    order: list[str] = field(default_factory=list)  # those and the others the family gives
    section_text: dict[str, str] = field(default_factory=dict)  # a template file's placeholder text
    # a template file marks them optional
    optional_sections: list[str] = field(default_factory=list)
    status: str = ""
    date_format: str = "%Y-%m-%d"
    link_style: str = "wiki"  # "wiki" | "markdown"
    learnt_from: list[str] = field(default_factory=list)
    shaped: bool = False  # heading, metadata and sections learnt too (else only the name)
    gap_after_frontmatter: bool = False  # a blank line between the frontmatter and what follows
    tag_form: str = ""  # how the records give tags: "list", "inline", "comma", "hash" or ""
    section_level: int = 2  # 1: the records' sections are `# Summary`, `# Motivation` ...
    index_file: str = ""  # the file listing the records (`teps/README.md`), vault-relative
    # place ("heading", "title": the `Title:` line) -> the text every record writes there but for
    # one number (`This Week in Nushell #{d}`): a series' title, written in the records' case
    series: dict[str, str] = field(default_factory=dict)
    # a metadata key (lower case) -> its value with the record's number (`[#{n}](.../issues/{n})`):
    # filled where the number is given (`GEP-5093: ...`), else the slot stays empty
    numbered: dict[str, str] = field(default_factory=dict)
    # the keys of the metadata lines left as slots that every record giving them fills (`Deciders:`,
    # `Authors:`): written empty, said so that they are filled before a commit (#58)
    filled: list[str] = field(default_factory=list)
    # the frontmatter tags every record carries (`daily` on each daily note): a new one carries them
    common_tags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def learnt(self) -> bool:
        return bool(self.learnt_from)


@dataclass(slots=True)
class _Record:
    name: str
    frontmatter: list[tuple[str, str]]
    heading: str
    meta_lines: list[str]
    sections: list[tuple[str, str]]  # (title, text)
    number: int | None
    text: str


def record_names(names: list[str]) -> list[str]:
    """The names in a folder that are records (not its README, index or template), oldest first."""
    out = [n for n in names if n.endswith(".md") and n.lower() not in _SKIP_NAMES]
    return sorted(n for n in out if not _TEMPLATE_NAME.match(n))


def folder_records(folder: Path) -> list[tuple[Path, str]]:
    """The Markdown files of `folder` with the names they are numbered by: `0001-x.md` as it is, a
    record kept as a folder of its own (`0001-x/index.md`, `0001-x/README.md`, or the one name
    most of its sub-folders hold, `0001-x/vep.md`) as `0001-x.md`."""
    out = [(p, p.name) for p in sorted(folder.glob("*.md"))]
    inner = sorted(folder.glob("*/*.md"))
    shared = own_names([f"{p.parent.name}/{p.name}" for p in inner]).get("", "index.md")
    own = {"index.md", "readme.md", shared}  # `282-x/vep.md` where its siblings hold `vep.md`
    out += [(p, p.parent.name + ".md") for p in inner if p.name.lower() in own]
    return out


def own_names(files: list[str]) -> dict[str, str]:
    """Folder -> the one file name (lower case) its record folders share where it is no README
    or index (`veps/sig-x/` whose `282-x/vep.md`, `21-y/vep.md` are records): two or more
    sub-folders hold it and more than half of those holding a Markdown file."""
    held: dict[str, Counter[str]] = {}
    subs: dict[str, set[str]] = {}
    for f in files:
        parts = f.split("/")
        if len(parts) < 2 or not f.endswith(".md"):
            continue
        above = "/".join(parts[:-2])
        held.setdefault(above, Counter())[parts[-1].lower()] += 1
        subs.setdefault(above, set()).add(parts[-2])
    out = {}
    for above, names in held.items():
        name, count = names.most_common(1)[0]
        if count >= 2 and count * 2 > len(subs[above]) and name not in ("index.md", "readme.md"):
            out[above] = name
    return out


def template_files(names: list[str]) -> list[str]:
    return sorted(n for n in names if _TEMPLATE_NAME.match(n))


def name_form(stem: str) -> tuple[str, str, str, int] | None:
    """(format, prefix, separator, number width) of a record's file stem, None when it has no
    pattern."""
    found = _name_match(stem)
    if found is None:
        return None
    form, m = found
    if form == _DATED_COUNT:
        return form, m.group(3), m.group(2), len(m.group(4))
    if form in (_LEAD_DATE, _DAY):
        return form, m.group(1), "", 0
    if "{prefix}" in form:
        sep = m.group(4) if m.re.groups >= 4 else "-"
        return form, m.group(1) + m.group(2), sep, len(m.group(3))
    if form in ("{date}", "{date_}", "{month}"):
        return form, "", "", 0
    return form, "", m.group(2) if "{num}" in form else stem[len(m.group(1))], _width(form, m)


def _name_match(stem: str) -> tuple[str, re.Match[str]] | None:
    """The first name form `stem` is written in, with its match."""
    for regex, form, _ in _NAME_FORMS:
        m = regex.match(stem)
        if m:
            return form, m
    return None


def _width(form: str, m: re.Match[str]) -> int:
    return len(m.group(1)) if "{num}" in form else 0


def naming_class(name_format: str) -> str:
    form = record_stem(name_format + ".md")[0]
    return next((c for _, f, c in _NAME_FORMS if f == form), "slug")


def parse_record(name: str, text: str) -> _Record:
    fm_lines: list[tuple[str, str]] = []
    body = text.replace("\r\n", "\n")
    if body.startswith("---\n"):
        fm, rest, broken = split_frontmatter(body)  # YAML's `@user` breaks it, not its keys
        head = body[4 : len(body) - len(rest)]
        keys = re.findall(r"^([\w-]+):(.*)$", head, re.M)
        fm_lines = [(k, v.strip() or _mapping(k, head)) for k, v in keys if k in fm or broken]
        body = rest
    lines = body.split("\n")
    heading = ""
    meta = _meta_lines(lines)  # metadata may come first (`- Start Date: ...`), then the heading
    first = next((i for i, x in enumerate(lines) if x.startswith(("# ", "## "))), None)
    if first is not None and lines[first].startswith("# "):  # comments may come before it
        heading = lines[first].strip()
        lines = lines[first + 1 :]
    meta += _meta_lines(lines)
    number = record_number(name)
    return _Record(name, fm_lines, heading, meta, split_sections("\n".join(lines)), number, text)


def _mapping(key: str, head: str) -> str:
    """The indented `child: value` lines (or `- item` lines) under a frontmatter key that holds a
    mapping (`data:`) or a list (`authors:`), as a block opening with a newline; '' where the key
    holds none."""
    block = r"((?:(?:[ \t]+[\w-]+:|[ \t]*- ).*(?:\n|$))+)"
    m = re.search(rf"^{re.escape(key)}:[ \t]*\n{block}", head, re.M)
    return "\n" + m.group(1).rstrip() if m else ""


def _block_form(key: str, block: str, records: list[_Record]) -> str:
    """A mapping's or a list's form (`data:` with `twin: 365`, `authors:` with `- name`): the
    children kept (`_kept_children`); where none is, a block every record gives the same as it
    is, VARIES where every record fills it its own way, else the key alone (a record leaves it
    empty)."""
    out = _kept_children(key, block, records)
    if out:
        indent = re.match(r"\n([ \t]+)", block)
        lead = indent.group(1) if indent else "  "
        return "".join(f"\n{lead}{line}" for line in out)
    given = {dict(r.frontmatter)[key].strip() for r in records if key in dict(r.frontmatter)}
    if "" in given:
        return ""
    return block if len(given) == 1 else VARIES


def _kept_children(key: str, block: str, records: list[_Record]) -> list[str]:
    """A mapping's children each record gives the same value, one holding the record's number
    `{n}`, a `title:` or `date:` every record gives (its title, its date); the others left out,
    as a varying key is."""
    blocks = [dict(_children(dict(r.frontmatter).get(key, ""))) for r in records]
    out = []
    for child, value in _children(block):
        seen = [(b.get(child), r.number) for b, r in zip(blocks, records, strict=True)]
        named = child.lower()
        if all(v is not None and v == str(n) for v, n in seen):
            out.append(f"{child}: {{n}}")
        elif named in ("title", "date") and all(v is not None for v, _ in seen):
            out.append(f"{child}: {{{named}}}")
        elif len({v for v, _ in seen}) == 1:
            out.append(f"{child}: {value}")
    return out


def _children(block: str) -> list[tuple[str, str]]:
    return [(k, v.strip()) for k, v in re.findall(r"^[ \t]+([\w-]+):(.*)$", block, re.M)]


def _meta_lines(lines: list[str]) -> list[str]:
    """The `Key: value` lines (and blank ones) at the start of `lines`, taken off it."""
    meta = []
    while lines and (not lines[0].strip() or _META_LINE.match(lines[0])):
        line = lines.pop(0)
        if line.strip():
            meta.append(line.rstrip())
    return meta


def split_sections(text: str, level: int = 2) -> list[tuple[str, str]]:
    """`## ` sections (`# ` ones at `level` 1, where the text has any) as (title, text); text
    before the first one has the title ''."""
    lines = text.split("\n")
    mark = "#" * level + " "
    if level == 1 and not any(x.startswith(mark) for x in lines):
        mark = "## "  # a body written with `## ` sections for a family of `# ` ones
    out: list[tuple[str, str]] = [("", "")]
    for line in lines:
        if line.startswith(mark):
            out.append((line[len(mark) :].strip(), ""))
        else:
            title, acc = out[-1]
            out[-1] = (title, acc + line + "\n")
    return [(t, s.strip()) for t, s in out if t or s.strip()]


def record_number(name: str) -> int | None:
    """The number in a record's file name (`0009-help.md`, `ADR-004-x.md`, `PM2024-007 - x.md`),
    None when it has none."""
    found = _name_match(record_stem(name)[0])
    if found is None or "{num}" not in found[0]:
        return None
    m = found[1]
    if found[0] == _DATED_COUNT:
        return int(m.group(4))
    return int(m.group(3) if "{prefix}" in found[0] else m.group(1))


def learn(
    folder: Path,
    names: list[str],
    extra_templates: list[Path] | None = None,
    plain: bool = False,
    stages: dict[Path, list[str]] | None = None,
) -> RecordTemplate:
    """The template of `folder`'s records (`names`: its files), from its RECENT latest records
    (with those of the family's later `stages`, their folders and files, where it holds fewer
    than three: one draft beside the published issues); `plain`: notes with no heading, metadata
    or sections are a form of their own (cards, logs)."""
    tpl = RecordTemplate()
    records = _read_records(_record_folders(folder, names, stages or {}))
    template = _read_template([folder / n for n in template_files(names)], extra_templates)
    if not records and template is None:
        return tpl
    _learn_name(tpl, [r.name for r in records])
    tpl.learnt_from = [r.name for r in records] + ([template.name] if template else [])
    if template is None and not any(_shaped(r) for r in records):
        # plain notes (a journal's outline, a card's text): written plain too where `plain` and two
        # or more say so; else their names only
        tpl.shaped, tpl.heading = plain and len(records) >= 2, ""
        return tpl
    _learn_shape(tpl, records, template)
    return tpl


def _record_folders(
    folder: Path, names: list[str], stages: dict[Path, list[str]]
) -> dict[str, Path]:
    """Each record's name and folder: `folder`'s, with its family's other stages' where it holds
    fewer than three."""
    where = dict.fromkeys(record_names(names), folder)
    for other, more in stages.items() if len(where) < 3 else ():
        where.update({n: other for n in record_names(more) if n not in where})
    return where


_REDIRECT = re.compile(r"\]\([^)\s]+\.md(?:#[^)]*)?\)")
_REDIRECT_MAX = 400  # bytes: a line saying where the record went, not a record


def _redirect(data: bytes) -> bool:
    """Whether a file only says where its record went: a line or two, under 400 bytes, linking to
    another Markdown file (`This document was moved to [0052-x](./0052-x.md)`)."""
    if len(data) > _REDIRECT_MAX:
        return False
    lines = [x for x in data.decode("utf-8", "replace").split("\n") if x.strip()]
    return (
        len(lines) <= 2
        and not any(x.startswith("#") for x in lines)
        and bool(_REDIRECT.search(" ".join(lines)))
    )


def _read_records(where: dict[str, Path]) -> list[_Record]:
    """The RECENT latest records (`where`: each record's name and folder), parsed; unreadable ones
    and those that only say where their record went left out."""
    records: list[_Record] = []
    taken = 0  # of the RECENT latest: an unreadable one counts, a redirect does not
    for name in _latest_first(list(where)):
        data = read_regular(where[name] / name, _MAX_READ)
        if data is not None and _redirect(data):
            continue
        if data is not None:
            records.append(parse_record(name, data.decode("utf-8", "replace")))
        taken += 1
        if taken == RECENT:
            break
    return records[::-1]


def _shaped(rec: _Record) -> bool:
    """Whether a record has a form beyond its text: a heading, metadata or `## ` sections."""
    return bool(rec.heading or rec.frontmatter or rec.meta_lines or len(rec.sections) > 1)


def _learn_shape(tpl: RecordTemplate, records: list[_Record], template: _Record | None) -> None:
    """The heading, metadata and sections of the records (of the template file where there are
    none)."""
    tpl.shaped = True
    source = records or ([template] if template else [])
    _learn_heading(tpl, source)
    _learn_meta(tpl, source)
    tpl.next_count = _next_count(records)
    tpl.meta_lines = _meta_template(records, template)
    tpl.series = _series(records)
    slots = [meta_key(x) for x in tpl.meta_lines if x.rstrip().endswith(":")]
    tpl.numbered = {k: form for k in slots if (form := _number_form(k, records))}
    tpl.filled = _always_filled(tpl.meta_lines, records)
    tpl.common_tags = _common_tags(records)
    if any("{tag" in line for line in tpl.meta_lines) and not tpl.tag_form:
        tpl.tag_form = _line_tag_form(records)
    _learn_sections(tpl, records, template)


def _series(records: list[_Record]) -> dict[str, str]:
    """Where more than half the records' headings, or `Title:` lines, are one text but for one
    number (`# This Week in Nushell #364`, beside release notes): that text with `{d}` for the
    number, by place."""
    places = {
        "heading": [r.heading[2:].strip() for r in records],
        "title": [v for r in records for v in _values_of("title", r)[:1]],
    }
    out = {}
    for place, texts in places.items():
        forms = [re.sub(r"\d+", "{d}", t) for t in texts if len(re.findall(r"\d+", t)) == 1]
        if len(forms) >= 2 and len(forms) * 2 > len(records) and len(set(forms)) == 1:
            out[place] = forms[0]
    return out


def _latest_first(names: list[str]) -> list[str]:
    """The records latest first: by number or date in their names, else by name."""

    def key(n: str) -> tuple[int, str]:
        digits = re.match(r"^(?:[A-Za-z]{1,5}[-_ ]?)?(\d+)", n)
        return (int(digits.group(1)) if digits else -1, n)

    return sorted(names, key=key, reverse=True)


def _read_template(beside: list[Path], named: list[Path] | None) -> _Record | None:
    """The first readable template file: one beside the records, else one a rules file `named`."""
    for path in beside + list(named or []):
        data = read_regular(path, _MAX_READ)
        if data is not None:
            return parse_record(path.name, data.decode("utf-8", "replace"))
    return None


def _majority(values: list[Any]) -> Any:
    """The most common value; on a tie the latest's."""
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in reversed(values) if counts[v] == best)


def record_stem(name: str) -> tuple[str, str]:
    """(the record's own name, what follows it): `0001-x.md` -> (`0001-x`, ''), a record that is a
    folder of its own `0001-x/index.md` -> (`0001-x`, `/index`)."""
    stem = name.removesuffix(".md")
    head, sep, leaf = stem.rpartition("/")
    return (head, sep + leaf) if sep else (stem, "")


def _counters_only(
    forms: list[tuple[str, str, str, int]], names: list[str]
) -> list[tuple[str, str, str, int]]:
    """The forms with a letter prefix before one number all its names share (`x86 assembly.md`,
    `x86 status flags.md`: a word, not a counter; `0000` aside, a fixed number) read as slugs."""
    numbers: dict[str, set[int | None]] = {}
    for (form, prefix, _, _), name in zip(forms, names, strict=True):
        if prefix and "{num}" in form:
            numbers.setdefault(prefix, set()).add(record_number(name))
    words = {p for p, ns in numbers.items() if len(ns) == 1 and not ns & {0, None}}
    held = sum(1 for f in forms if f[1] in words)
    if not words or held < 2:
        return forms
    return [
        ("{slug}" + f[0][f[0].find("/") :] * ("/" in f[0]), "", "-", 0) if f[1] in words else f
        for f in forms
    ]


def _learn_name(tpl: RecordTemplate, names: list[str]) -> None:
    forms = []
    for name in names:
        stem, tail = record_stem(name)
        form, prefix, sep, width = name_form(stem) or ("{slug}", "", "-", 0)
        forms.append((form + tail, prefix, sep, width))
    if not forms:
        return
    forms = _counters_only(forms, names)
    form, prefix, sep, width = _majority(forms)
    tpl.name_format, tpl.prefix, tpl.separator = form, prefix, sep or "-"
    tpl.number_width = width or 4
    numbers = {record_number(n) for n in names}
    if len(names) >= 2 and len(numbers) == 1 and None not in numbers:
        tpl.fixed_number = numbers.pop()


def _heading_form(rec: _Record) -> str:
    """`# 9. Help scripts` -> `# {n}. `: the heading's words before its title, numbers and dates
    named."""
    text = rec.heading[2:] if rec.heading else ""
    named = re.sub(r"\{\{\s*date[^}]*\}\}", "{date}", text)  # a template's own placeholders
    named = re.sub(r"\{\{\s*title\s*\}\}", "{title}", named)
    if named != text and "{" not in re.sub(r"\{(?:date|title)\}", "", named):
        return "# " + named
    if rec.number is not None:
        m = re.search(rf"(?<!\d)(0*){rec.number}(?!\d)", text)
        if m:
            held = "{num" + str(m.end() - m.start()) + "}" if m.group(1) else "{n}"
            text = text[: m.start()] + held + text[m.end() :]
    text = re.sub(r"\d{4}-\d{2}-\d{2}", "{date}", text, count=1)
    if text.strip() == "{date}":  # a daily note headed by its date
        return "# {date}"
    m = re.match(r"^(.*?(?:\{n\}|\{num\d\}|\{date\}|:)[.:)\]]?\s+)", text)
    if m and len(m.group(1)) <= 40:
        return "# " + m.group(1)
    return "# "


def _learn_heading(tpl: RecordTemplate, records: list[_Record]) -> None:
    """The heading form most records give (`# {n}. {title}`), or none where the records' `# `
    lines are not their titles."""
    if not _headings_are_titles(records):
        tpl.heading = _fixed_heading(records)
        return
    forms = [_heading_form(r) for r in records if r.heading]
    if forms:
        form = _majority(forms)
        form = form if "{title}" in form or form.endswith("}") else form + "{title}"
        tpl.heading = _with_suffix(form, [_skeleton(r) for r in records if r.heading])


def _fixed_heading(records: list[_Record]) -> str:
    """The `# ` line more than half the records open with where it heads `## ` sections, not its
    fellow level-1 ones (`# Outreach WG` over each group's minutes), its braces kept; else ''."""
    same = Counter(r.heading for r in records if r.heading).most_common(1)
    if len(records) < 2 or not same or same[0][1] * 2 <= len(records):
        return ""
    if any(len(_level_one_titles(r)) > 1 for r in records if r.heading == same[0][0]):
        return ""
    return same[0][0].replace("{", "{{").replace("}", "}}")


def _skeleton(rec: _Record) -> str:
    """A record's heading with its number and dates named (`{n}`, `{date}`)."""
    text = rec.heading[2:].strip()
    if rec.number is not None:
        text = re.sub(rf"(?<!\d)0*{rec.number}(?!\d)", "{n}", text, count=1)
    for pattern in _DATE_TEXT:
        text = re.sub(pattern, "{date}", text)
    return text


_DATE_TEXT = (
    r"\d{4}-\d{2}-\d{2}",
    r"\d{4}/\d{2}/\d{2}",
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}, \d{4}",
    r"\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}",
)


def _with_suffix(form: str, skeletons: list[str]) -> str:
    """`form` with what every record's heading ends with after its title, where that holds a date
    or number (`# {title} ({date})`); the records' one heading where all are the same but for it
    (`# Meeting {date}`: the title is not in the heading)."""
    if len(skeletons) < 2 or "{title}" not in form:
        return form
    if len(set(skeletons)) == 1:  # `# Meeting {date}`; `# This week in Nu #{n}` is the title
        return "# " + skeletons[0] if "{date}" in skeletons[0] else form
    tail = _common_suffix(skeletons)
    if "{" not in tail or form.endswith(tail):
        return form
    return form + tail


def _common_suffix(texts: list[str]) -> str:
    """The text all of `texts` end with, from a point between words (` ({date})`)."""
    tail = texts[0]
    for text in texts[1:]:
        while tail and not text.endswith(tail):
            tail = tail[1:]
    m = re.search(r"[^\w{}]", tail)
    return tail[m.start() :] if m else ""


def _headings_are_titles(records: list[_Record]) -> bool:
    """Whether the records' `# ` lines are their titles: at least half have one, and no one line is
    shared by more than half of two or more (the same `# Summary` in each is a section of the
    body)."""
    headed = [r.heading for r in records if r.heading]
    if records and len(headed) * 2 < len(records):
        return False
    same = Counter(headed).most_common(1)
    return not (len(records) >= 2 and same and same[0][1] * 2 > len(records))


def _learn_meta(tpl: RecordTemplate, records: list[_Record]) -> None:
    """The frontmatter keys, first status, link style and date format the records write."""
    _learn_frontmatter(tpl, records)
    statuses = [s for r in records if (s := _first_status(r))]
    if statuses:
        tpl.status = Counter(statuses).most_common(1)[0][0]
    tpl.link_style = _link_style(records)
    tight = [_tight(r) for r in records if r.heading and r.meta_lines]
    tpl.meta_tight = sum(tight) * 2 > len(tight)
    for r in records:
        fmt = _date_format(r)
        if fmt:
            tpl.date_format = fmt


def _learn_frontmatter(tpl: RecordTemplate, records: list[_Record]) -> None:
    """Where more than half the records have frontmatter: its keys, each value's form, and whether
    a blank line follows it."""
    with_fm = [r for r in records if r.frontmatter]
    if len(with_fm) * 2 <= len(records):
        return
    ref = with_fm[-1]
    tpl.frontmatter = [(k, _value_form(k, v, ref, records)) for k, v in _majority_keys(with_fm)]
    tpl.tag_form = _tag_form(with_fm)
    gaps = [re.match(r"---\n.*?\n---[ \t]*\n[ \t]*\n", r.text, re.S) is not None for r in with_fm]
    tpl.gap_after_frontmatter = sum(gaps) * 2 > len(gaps)


def _filled(key: str, records: list[_Record]) -> bool:
    """Whether every record giving `key` fills it (none leaves it empty)."""
    return all(_values_of(key, r) != [""] for r in records)


def _line_tag_form(records: list[_Record]) -> str:
    """How the records fill a `Tags:` line: `[[links]]`, `#tags`, `[a, b]`, words joined by
    commas, else by spaces."""
    values = [v for r in records for v in _values_of("tags", r) if v]
    for form, lead in (("wiki", "[["), ("hash", "#"), ("list", "[")):
        if sum(1 for v in values if v.startswith(lead)) * 2 > len(values):
            return form
    spaced = sum(1 for v in values if " " in v and "," not in v)
    return "space" if spaced * 2 > len(values) else "comma"


def _tag_form(records: list[_Record]) -> str:
    """How the records write their tags: a YAML list under `tags:`, an inline `[a, b]`, a comma
    string, `#tag` words in the text, or '' where they give none."""
    forms = []
    for rec in records:
        m = re.search(r"^tags:[ \t]*(.*)$", rec.text, re.M)
        if m is None:
            continue
        value = m.group(1).strip()
        forms.append("inline" if value.startswith("[") else "comma" if value else "list")
    if forms:
        return str(_majority(forms))
    return (
        "hash" if sum(1 for r in records if re.search(r"(?:^|\s)#[A-Za-z][\w/-]*", r.text)) else ""
    )


def _majority_keys(records: list[_Record]) -> list[tuple[str, str]]:
    """The frontmatter keys more than half the records give, in the order most of them give those
    in (else the latest order), each with its latest value (a key only the newest few added is left
    out, as is one they dropped)."""
    out = _latest_values(records)
    orders = [tuple(k for k, _ in r.frontmatter if k in out) for r in records]
    common = _majority(orders)
    if set(common) == set(out):
        return [(k, out[k]) for k in common]
    order = [k for r in reversed(records) for k, _ in r.frontmatter]
    return sorted(out.items(), key=lambda kv: _position(kv[0], records, order))


def _latest_values(records: list[_Record]) -> dict[str, str]:
    """Each frontmatter key more than half the records give, with its latest value."""
    counts = Counter(k for r in records for k in dict(r.frontmatter))
    out: dict[str, str] = {}
    for rec in reversed(records):
        for key, value in rec.frontmatter:
            if counts[key] * 2 > len(records) and key not in out:
                out[key] = value
    return out


def _position(key: str, records: list[_Record], order: list[str]) -> tuple[int, int]:
    """Where `key` stands in the latest record that gives it, after that record's own keys come."""
    for age, rec in enumerate(reversed(records)):
        keys = [k for k, _ in rec.frontmatter]
        if key in keys:
            return (keys.index(key), age)
    return (len(order), 0)


def _value_form(key: str, value: str, rec: _Record, records: list[_Record]) -> str:
    """What a new record writes under `key`: a placeholder (`{title}`, `{date}`, `{status}`,
    `{n}`), in the quotes the records put it in, else the value every record gives it."""
    if value.startswith("\n"):
        return _block_form(key, value, records)
    bare = value.strip("\"'")
    quote = value[0] if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0] else ""
    named = _placeholder(key.lower(), bare)
    if named:
        lead = _title_lead(key, records) if named == "title" else ""
        return f"{quote}{lead}{{{named}}}{quote}"
    if rec.number is not None and bare == str(rec.number):
        return "{n}"
    return _derived_form(key, value, records)


def _title_lead(key: str, records: list[_Record]) -> str:
    """What more than half the records write before their title under `key`: their file name's
    lead and number (`title: "GEP-3792: Out-of-Cluster Gateways"` in `gep-3792/`; `title: "ADR 0002:
    X"` in `0002-x.md` headed `# ADR 0002: X`): `GEP-{n}: `; else ''."""
    leads = []
    for rec in records:
        value = dict(rec.frontmatter).get(key, "").strip("\"'")
        m = re.match(r"^([A-Za-z]{1,8})([-_ ]?)(\d+)(:\s+)\S", value)
        named = re.match(r"[A-Za-z]+", record_stem(rec.name)[0])
        if m is None or int(m.group(3)) != rec.number:
            continue
        lead = value[: m.end(4)].strip()  # `ADR 0002:`, where the heading says it too
        own = named.group(0).lower() == m.group(1).lower() if named else None
        if own or (own is None and rec.heading.lstrip("# ").startswith(lead)):
            digits = m.group(3)
            n = f"{{num{len(digits)}}}" if digits[0] == "0" and len(digits) > 1 else "{n}"
            leads.append(f"{m.group(1)}{m.group(2)}{n}{m.group(4)}")
    best = Counter(leads).most_common(1)
    return best[0][0] if best and best[0][1] * 2 > len(records) else ""


def _derived_form(key: str, value: str, records: list[_Record]) -> str:
    """A value the records derive from their file name (`{slug}`) or a counter (`{count}`), the
    value most records give ('' where they leave it empty), the tags given (`{tags}`), else
    VARIES (each record its own: given by the caller or left out, never written empty)."""
    bare = value.strip("\"'")
    if bare and all(_by_slug(key, r) for r in records if key in dict(r.frontmatter)):
        return bare[: len(bare) - len(bare.lstrip("/"))] + "{slug}"
    if _counted(key, records):
        return "{count}"
    if key.lower() == "tags":
        return "{tags}"
    given = Counter(dict(r.frontmatter)[key] for r in records if key in dict(r.frontmatter))
    common, count = given.most_common(1)[0] if given else (value, 0)
    if count * 2 > sum(given.values()):
        return common  # the value most records give it (`owner_slack: "#team"`), or leave empty
    # each record its own: empty where a record leaves it so (a slot), else never written empty
    return "" if "" in given else VARIES


VARIES = "{varies}"  # a key whose value differs from record to record: written only when given


def _by_slug(key: str, rec: _Record) -> bool:
    """Whether a record's `key` holds the words of its file name (`feature: meson-builds`,
    `permalink: /sync-conflicts`)."""
    stem = record_stem(rec.name)[0]
    words = _NAME_LEAD_TEXT.sub("", stem).lower()
    value = dict(rec.frontmatter).get(key, "").strip("\"' /").lower()
    kebab = re.sub(r"[\W_]+", "-", words).strip("-")
    return bool(words) and value.rsplit("/", 1)[-1] in (words, words.replace("-", "_"), kebab)


_NAME_LEAD_TEXT = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{8}|[A-Za-z]{0,5}[-_ ]?\d{1,5})\s*[-_. ]\s*")


def _placeholder(key: str, value: str) -> str | None:
    """The placeholder a frontmatter value stands for by its (lower-case) key or its form: `title`,
    `date` (the key, or a value that parses as a date), `status`; None for another value."""
    if key == "title":
        return "title"
    if key == "date" or _parse_date(value) or re.match(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d", value):
        return "date"
    return "status" if key in _STATUS_KEYS else None


def meta_key(line: str) -> str:
    m = _META_LINE.match(line)
    return m.group("key").lower().strip() if m else ""


def _meta_template(records: list[_Record], template: _Record | None) -> list[str]:
    """The metadata lines of a new record: the keys more than half the records give (and all a
    template file gives while the records are fewer than three), in the order they are given, each
    in the form of the latest that gives it."""
    counts = _meta_key_counts(records)
    sources = _meta_sources(records, template, counts)
    leads = {_lead_form(x) for r in records for x in r.meta_lines}
    out: dict[str, tuple[int, int, str]] = {}  # key -> (position, source, line form)
    for rank, rec in enumerate(sources):
        for position, line in enumerate(rec.meta_lines):
            key = meta_key(line)
            if key and key not in out and _meta_kept(line, rec is template, counts, leads, records):
                out[key] = (position, rank, _meta_form(line, records, rec is template))
    return [_added_later(form, records) for _, _, form in sorted(out.values())]


def _added_later(form: str, records: list[_Record]) -> str:
    """A line of a new record's own value that its records add once they have one (one in four
    records or more lack it, every one giving it fills it: `- Tracking Issue: <link>`) as
    `{varies}`: written only when given, never empty; a line (nearly) every record gives stays a
    slot to fill (#58)."""
    m = _META_LINE.match(form)
    if m is None or m.group("value"):
        return form
    given = [v for r in records for v in _values_of(meta_key(form), r)[:1]]
    later = 0 < len(given) * 4 < len(records) * 3 and all(given)
    return f"{form.rstrip()} {VARIES}" if later else form


def _common_tags(records: list[_Record]) -> list[str]:
    """The frontmatter tags each of two or more records carries, in the first one's order."""
    tagged = [_frontmatter_tags(r.text) for r in records]
    if len(tagged) < 2:
        return []
    return [t for t in tagged[0] if all(t in other for other in tagged[1:])]


def _frontmatter_tags(text: str) -> list[str]:
    """A record's frontmatter `tags` (a list, or words split by commas or spaces)."""
    value = split_frontmatter(text)[0].get("tags")
    items = value if isinstance(value, list) else str(value or "").replace(",", " ").split()
    return [str(t).strip().lstrip("#") for t in items if str(t).strip()]


def _always_filled(lines: list[str], records: list[_Record]) -> list[str]:
    """The keys (as written) of the empty metadata `lines` that every record giving them fills."""
    out = []
    for line in lines:
        m = _META_LINE.match(line)
        given = [v for r in records for v in _values_of(meta_key(line), r)[:1]]
        if m is not None and not m.group("value").strip() and given and all(given):
            out.append(m.group("key").strip())
    return out


def _meta_key_counts(records: list[_Record]) -> Counter[str]:
    """How many records give each metadata key."""
    return Counter(k for r in records for k in {meta_key(x) for x in r.meta_lines})


def _meta_sources(
    records: list[_Record], template: _Record | None, counts: Counter[str]
) -> list[_Record]:
    """Where metadata lines are taken from, first to last: a template file while the records are
    fewer than three or give none, then the records, newest first."""
    sources = list(reversed(records))
    if template is not None and (len(records) < 3 or not counts):
        sources.insert(0, template)
    return sources


def _meta_kept(
    line: str, from_template: bool, counts: Counter[str], leads: set[str], records: list[_Record]
) -> bool:
    """Whether a metadata line's key goes into a new record: a key more than half the records
    (`counts`) give; a template file's line unless it is in a form no record writes (`leads`: how
    theirs start; MADR's `Technical Story:`)."""
    key = meta_key(line)
    if from_template:
        return not (leads and not counts[key] and _lead_form(line) not in leads)
    return counts[key] * 2 > len(records)


def _lead_form(line: str) -> str:
    """How a metadata line starts: a list item (`- `, `* `), bold, or plain."""
    m = _META_LINE.match(line)
    return re.sub(r"\s+", " ", m.group("lead").strip()) if m else ""


def _meta_form(line: str, records: list[_Record], from_template: bool = False) -> str:
    m = _META_LINE.match(line)
    if not m:
        return line
    key, value = m.group("key"), m.group("value").strip()
    if key.lower().strip() in _STATUS_KEYS:
        value = "{status}"
    elif key.lower().strip() == "title":
        value = "{title}"
    elif key.lower().strip() == "tags":
        # the tags given, in the records' form; without, the line is left out where every record
        # fills it, else left empty as some of theirs or the template's are (`{tagslot}`)
        value = "{tags}" if not from_template and _filled("tags", records) else "{tagslot}"
    else:
        value = _own_value(key, value, line, records)
    colon = m.group("colon")
    colon += "" if colon[-1:].isspace() else " "  # `- Tags:` left empty: `- Tags: {tags}`
    return f"{m.group('lead')}{key}{colon}{value}".rstrip()


def _own_value(key: str, value: str, line: str, records: list[_Record]) -> str:
    """A line's value form by what the records give: a counter, their file-name number, a date,
    the one value they all give, else '' (each its own)."""
    if _counted(key, records):
        return "{count}"
    if _numbered_by_name(key, records):
        return "{n}"
    if key.lower() == "date" or _parse_date(value):
        return "{date}"
    return value if len(records) >= 2 and all(line in r.meta_lines for r in records) else ""


def _number_form(key: str, records: list[_Record]) -> str:
    """The value more than half the records give `key` but for their own file-name number in it
    (`* Issue: [#{n}](https://x.org/issues/{n})`), '' where they give none such."""
    forms = []
    for rec in records:
        given = [_META_LINE.match(x) for x in rec.meta_lines if meta_key(x) == key.lower().strip()]
        if rec.number is None or not given or given[0] is None:
            continue
        raw = given[0].group("value").strip().replace("{", "{{").replace("}", "}}")
        forms.append(re.sub(rf"(?<!\d)0*{rec.number}(?!\d)", "{n}", raw))
    best = Counter(forms).most_common(1)
    if len(forms) < 2 or not best or "{n}" not in best[0][0] or best[0][1] * 2 <= len(records):
        return ""
    return best[0][0]


def _values_of(key: str, rec: _Record) -> list[str]:
    """What a record gives `key` (any case) in its metadata lines and frontmatter."""
    out = [v for k, v in rec.frontmatter if k.lower() == key.lower()]
    for line in rec.meta_lines:
        m = _META_LINE.match(line)
        if m and m.group("key").strip().lower() == key.lower().strip():
            out.append(m.group("value"))
    return [v.strip().strip("*\"' ") for v in out]


def _counted(key: str, records: list[_Record]) -> bool:
    """Whether `key` holds a counter: two or more records each give it a whole number, all
    different, not the number of their file names."""
    values = [v for r in records for v in _values_of(key, r)[:1]]
    numbers = {v for v in values if v.isdigit()}
    named = [r for r in records if r.number is not None]
    by_name = bool(named) and all(str(r.number) in _values_of(key, r) for r in named)
    return len(values) >= 2 and len(numbers) == len(values) and not by_name


def _numbered_by_name(key: str, records: list[_Record]) -> bool:
    """Whether `key` holds each record's file-name number (`Number: 41` in `issue-41.md`)."""
    named = [r for r in records if r.number is not None]
    return len(named) >= 2 and all(str(r.number) in _values_of(key, r) for r in named)


def _next_count(records: list[_Record]) -> int:
    """One past the highest value of the records' counter key (0: they keep none)."""
    keys = {k for r in records for k, _ in r.frontmatter} | {
        meta_key(x) for r in records for x in r.meta_lines
    }
    for key in sorted(k for k in keys if k and _counted(k, records)):
        return 1 + max(int(v) for r in records for v in _values_of(key, r)[:1])
    return 0


def _first_status(rec: _Record) -> str:
    for k, v in rec.frontmatter:
        if k.lower() in _STATUS_KEYS:
            return v.strip("\"'")
    for line in rec.meta_lines:
        m = _META_LINE.match(line)
        if m and m.group("key").lower().strip() in _STATUS_KEYS:
            return m.group("value").strip().strip("*")
    for title, text in rec.sections:
        if title.lower() in _STATUS_KEYS and text:
            return text.split("\n", 1)[0].strip()
    return ""


def _link_style(records: list[_Record]) -> str:
    wiki = sum(r.text.count("[[") for r in records)
    markdown = sum(len(re.findall(r"\]\([^)]+\.md\)", r.text)) for r in records)
    return "markdown" if markdown > wiki else "wiki"


def _parse_date(value: str) -> str | None:
    from datetime import datetime

    for fmt in _DATE_FORMS:
        try:
            datetime.strptime(value.strip(), fmt)
        except ValueError:
            continue
        return fmt
    return None


def _date_format(rec: _Record) -> str | None:
    for line in [*rec.meta_lines, *(f"{k}: {v}" for k, v in rec.frontmatter)]:
        m = _META_LINE.match(line) or re.match(r"^(?P<key>date):\s*(?P<value>.*)$", line)
        if m and m.group("key").lower() == "date":
            return _parse_date(m.group("value").strip().strip("\"'"))
    return None


def _tight(rec: _Record) -> bool:
    """Whether a record's heading line is followed at once by a metadata line."""
    after = rec.text.replace("\r\n", "\n").split(rec.heading + "\n", 1)
    return len(after) == 2 and bool(_META_LINE.match(after[1].split("\n", 1)[0]))


def _learn_sections(tpl: RecordTemplate, records: list[_Record], template: _Record | None) -> None:
    """The section titles in order: a template file's (those the records mostly keep), else the
    records' most common order (the longer on a tie)."""
    orders: list[tuple[str, ...]] = [tuple(t for t, _ in r.sections if t) for r in records]
    if not tpl.heading and _level_one(records):
        tpl.section_level = 1
        orders = [_level_one_titles(r) for r in records]
    base: list[str] = []
    if template is not None:
        base = _template_sections(tpl, orders, template)
    elif orders:
        best: tuple[str, ...] = max(orders, key=lambda o: (orders.count(o), len(o)))
        tpl.sections = list(best) if orders.count(best) > 1 else _consensus(best, orders)
    tpl.order = _wider_order(base or tpl.sections, orders)


def _wider_order(base: list[str], orders: list[tuple[str, ...]]) -> list[str]:
    """`base` with every other section two or more records give (the latest record's first), each
    placed after the last section most records holding both put before it: where a body's section
    the family does not write goes."""
    lowered = [tuple(t.lower() for t in o) for o in orders]
    held = Counter(t for o in lowered for t in set(o))
    known = {b.lower() for b in base}
    extra = dict.fromkeys(t for o in reversed(orders) for t in o if held[t.lower()] >= 2)
    out = list(base)
    for title in [t for t in extra if t.lower() not in known] * 2:  # twice: again once all are in
        if title in out:
            out.remove(title)
        after = [i for i, t in enumerate(out) if _before(t.lower(), title.lower(), lowered)]
        out.insert(max(after, default=-1) + 1, title)
    return out


def _before(a: str, b: str, orders: list[tuple[str, ...]]) -> bool:
    """Whether most of the `orders` holding both put `a` before `b`."""
    both = [o for o in orders if a in o and b in o]
    return sum(o.index(a) < o.index(b) for o in both) * 2 > len(both)


def _consensus(titles: tuple[str, ...], orders: list[tuple[str, ...]]) -> list[str]:
    """`titles` (the fullest record's, where no two records agree on one order) with each pair in
    the order most records holding both put it in: a pair no other record holds keeps its own."""

    def later(a: str, b: str) -> bool:
        both = [o for o in orders if a in o and b in o]
        return sum(o.index(a) > o.index(b) for o in both) * 2 > len(both)

    out: list[str] = []
    for title in titles:
        at = len(out)
        while at and later(out[at - 1], title):
            at -= 1
        out.insert(at, title)
    return out


def _level_one_titles(rec: _Record) -> tuple[str, ...]:
    """A record's `# ` lines (its first one read as its heading) as section titles."""
    first = [rec.heading[2:].strip()] if rec.heading else []
    text = "\n".join(s for _, s in rec.sections)
    return tuple(first + re.findall(r"^# (.+?)\s*$", text, re.M))


def _level_one(records: list[_Record]) -> bool:
    """Whether the records' sections are level-1 (`# Summary`, `# Motivation`): most have two or
    more `# ` lines and more of them than `## ` ones."""
    ones = [len(_level_one_titles(r)) for r in records]
    twos = [sum(1 for t, _ in r.sections if t) for r in records]
    return sum(1 for a, b in zip(ones, twos, strict=True) if a >= 2 and a > b) * 2 > len(records)


def _template_sections(
    tpl: RecordTemplate, orders: list[tuple[str, ...]], template: _Record
) -> list[str]:
    """A template file's sections the records mostly keep (an optional one is dropped), with its
    placeholder text and its optional marks; all its sections returned."""
    sections = template.sections
    if tpl.section_level == 1:  # `# Summary`, `# Motivation`: the template's own `# ` lines
        sections = split_sections(split_frontmatter(template.text)[1], 1)
    own = [(plain_title(t), _MARKER_AT_END.sub("", s)) for t, s in sections if t]
    tpl.sections = _kept_sections([t for t, _ in own], orders)
    tpl.section_text = {t: s for t, s in own if t in tpl.sections}
    tpl.optional_sections = [t for t in optional_sections(template.text) if t in tpl.sections]
    return [t for t, _ in own]


def _kept_sections(titles: list[str], orders: list[tuple[str, ...]]) -> list[str]:
    """The `titles` at least half the records' section `orders` give (all where there are none)."""
    used = Counter(plain_title(t).lower() for order in orders for t in set(order))
    return [t for t in titles if not orders or used[t.lower()] * 2 >= len(orders)]


_MARKER_AT_END = re.compile(
    r"(?:\s*<!--(?:(?!-->).)*\bop[ct]ion(?:(?!-->).)*-->)+\s*$", re.I | re.S
)


def plain_title(title: str) -> str:
    """A template's section title without the comments on its line (`Drivers <!-- optional -->`)."""
    return _COMMENT.sub("", title).strip()


def optional_sections(text: str) -> list[str]:
    """The `## ` sections a template marks optional: an HTML comment saying so on the heading's
    line, on the line before it or first under it (MADR's `<!-- This is an optional element ...
    -->`)."""
    out: list[str] = []
    marked = False  # the last line with text was an optional marker
    last = ""  # the `## ` heading the text so far is under, until its first line with text
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if line.startswith("## "):
            title = plain_title(line[3:])
            if marked or _OPTIONAL.search(line):
                out.append(title)
            marked, last = False, title
        elif stripped:
            marked = bool(_OPTIONAL.fullmatch(stripped))
            if marked and last and last not in out:
                out.append(last)
            last = ""
    return out


def is_meta_section(title: str) -> bool:
    return title.lower() in _META_SECTIONS
