"""FlushEngine: write a note where the vault's conventions say, idempotently and atomically.

Same target and same content -> `up_to_date` (nothing written). Different content -> the next free
`-v2`, `-v3`, ... name (the next number in a numbered family): a human's or an agent's note is
never overwritten; a decision's earlier record is marked superseded by the new one (supersede.py).
Files appear complete or not at all (temp file + hard link), and a lock file serialises flushes
across processes so ADR numbers and version suffixes are allocated once."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import yaml

from k0maru.errors import K0maruError
from k0maru.fsutil import (
    create_exclusive,
    ensure_state_dir,
    file_lock,
    read_text,
    resolve_inside,
)
from k0maru.index.link_resolution import key_name
from k0maru.notes.conventions import (
    KINDS,
    Conventions,
    ConventionSniffer,
    KindRule,
    first_stage,
)
from k0maru.notes.public_forms import first_record_form, has_records
from k0maru.notes.record_render import render_record
from k0maru.notes.sidecar import add_to_index, write_sidecar
from k0maru.notes.supersede import MARK, SUPERSEDING, is_superseded, link_both_ways, read_head
from k0maru.notes.template import folder_records, record_names, record_number, record_stem
from k0maru.notes.topics import closest, hinted, topic_of

if TYPE_CHECKING:
    from k0maru.index.link_store import LinkStore

MAX_VERSIONS = 99
NUMBERED = ("adr-number", "adr-prefixed")
_DATE_LINE = re.compile(r"^date:.*$", re.M)
_DATE = re.compile(r"\b\d{4}-?\d{2}-?\d{2}\b")
_STATUS_WORD = r"(?:status|statut|estado|stato)"
_STATUS_LINE = re.compile(rf"^\s*(?:[-*+]\s+)?(?:\*\*)?{_STATUS_WORD}(?:\*\*)?\s*:.*$", re.M | re.I)
_STATUS_SECTION = re.compile(rf"^(##\s+{_STATUS_WORD}\s*\n)\s*[^\n#][^\n]*", re.M | re.I)
_STAMP = {"%Y-%m-%d": r"\d{4}-\d{2}-\d{2}", "%Y%m%d": r"\d{8}"}
# a title's numbered lead: `ADR 0002: `, `RFC-12 - `, `KEP-5905: `, `#12. `
_NUMBERED_LEAD = re.compile(r"^(?:[A-Za-z]{2,8}[-_ ]?)?#?\d{1,6}(?:\s*:\s*|\s*[.\u2013\u2014-]\s+)")
_TITLE_LINE = re.compile(r"^(?:title:|# )\s*(.+)$", re.M)


@dataclass(slots=True)
class FlushResult:
    path: str  # vault-relative
    outcome: str  # created | up_to_date | versioned
    kind: str
    linked: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # e.g. the kind's template was refused
    supersedes: str = ""  # vault-relative: the decision this one replaces, marked superseded

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def vault_lock(root: Path) -> AbstractContextManager[None]:
    return file_lock(ensure_state_dir(root) / "flush.lock")


def _normalise(text: str) -> str:
    """Content identity ignores the flush date, the first status (the same note flushed tomorrow,
    when the records' most common status may have moved, is up to date) and supersession marks."""
    text = MARK.sub("", _DATE_LINE.sub("", text.replace("\r\n", "\n")))
    text = _STATUS_SECTION.sub(r"\1", _STATUS_LINE.sub("", text))
    return re.sub(r"\n{3,}", "\n\n", _DATE.sub("", text)).strip()


class FlushEngine:
    def __init__(
        self,
        root: Path,
        conventions: Conventions | None = None,
        sniffer: ConventionSniffer | None = None,
        locate: Callable[[str], str | None] | None = None,
    ):
        """`locate(name)`: the vault path (without `.md`) of the note a link name means, where an
        index knows it; a Markdown link is written relative to the new note's folder from it."""
        self.root = root
        self.sniffer = sniffer or ConventionSniffer(root)
        self.conventions = conventions or self.sniffer.sniff()
        self.locate = locate

    def note_path(self, target: str) -> str | None:
        """The vault path (without `.md`) of a linked note, None when it cannot be told."""
        if self.locate is not None:
            return self.locate(target)
        return target if (self.root / f"{target}.md").is_file() else None

    def render(  # noqa: PLR0913 - the note and how to write it
        self,
        rule: KindRule,
        title: str,
        body: str,
        tags: list[str],
        linked: list[str],
        unresolved: list[str],
        when: date,
        extra: dict[str, Any] | None = None,
        number: int | None = None,
        number_given: bool = False,
    ) -> str:
        """The note's text: in the form the folder's records are written (a learnt template), else
        k0maru's own (frontmatter title, date, kind, category, tags; a `# ` title)."""
        record = rule.record
        if record is not None and record.shaped:
            links = [self._link(name, record.link_style, rule.folder) for name in linked]
            given = {**(extra or {}), "tags": tags} if tags else extra or {}
            text = render_record(
                record, title, body, when, number, given, links, unresolved, number_given
            )
            named = self.sniffer.file_name(rule, title, when, number)
            if _dated(title) or _says(f"{named}\n{text}", title):
                return text
            # nothing of the record's form carries the title (a daily note named and headed by
            # its date): it leads the body, never dropped, in a line that adds no section the
            # records do not have
            body = f"**{title}**\n\n{body}"
            return render_record(
                record, title, body, when, number, given, links, unresolved, number_given
            )
        fm = _own_frontmatter(rule, title, tags, linked, when, extra or {})
        head = yaml.safe_dump(fm, sort_keys=False, allow_unicode=True, width=1000)
        return f"---\n{head}---\n\n{_own_body(title, body, linked, unresolved)}\n"

    def flush(
        self,
        kind: str,
        title: str,
        body: str,
        tags: list[str] | None = None,
        related: list[str] | None = None,
        resolve: Callable[[str], str | None] | None = None,
        extra: dict[str, Any] | None = None,
        when: date | None = None,
    ) -> FlushResult:
        """Write one note. `resolve(name)` gives the [[link]] text for a related note, None where no
        note matches (without it, names are linked as given)."""
        title = _checked(kind, title, body)
        hint = " ".join(str((extra or {}).get(k, "")) for k in ("folder", "group", "status"))
        rule, filed = self._rule_for(kind, title, body, hint, " ".join(tags or []))
        rule = self._asked(rule, str((extra or {}).get("folder", "")))
        extra = {k: v for k, v in (extra or {}).items() if k not in ("folder", "group")}
        given, title = given_number(rule, title)
        when = when or date.today()
        rule = _in_year(rule, when)
        linked, unresolved = _resolved(related or [], resolve)

        def content(number: int | None) -> str:
            return self.render(
                rule,
                title,
                body,
                tags or [],
                linked,
                unresolved,
                when,
                extra,
                number,
                number is not None and number == given,
            )

        folder = resolve_inside(self.root, rule.folder or ".")
        created_folder = not folder.is_dir()
        with vault_lock(self.root):
            taken = _holders(folder, given)
            titled = self._same_title(rule, folder, title)  # read once: placing, superseding
            path, outcome = self._place(rule, folder, title, content, when, given, titled, taken)
            replaced = self._replaced(kind, folder, path, outcome, titled, taken)
            if replaced is not None:
                link_both_ways(replaced, path, self._ref(replaced, rule), self._ref(path, rule))
            indexed = add_to_index(self.root, path, title, when) if outcome != "up_to_date" else []
        warnings = self._warnings(kind, rule, filed, created_folder) + indexed
        if outcome == "created":
            warnings += self._taken(given, taken, path, replaced)
            warnings += _with_sidecar(self.root, path, title, when) + _unfilled(rule, body, given)
        old = self._shown(replaced) if replaced is not None else ""
        rel = path.relative_to(self.root).as_posix()
        return FlushResult(rel, outcome, kind, linked, unresolved, warnings, old)

    def _rule_for(
        self, kind: str, title: str, body: str, hint: str = "", tags: str = ""
    ) -> tuple[KindRule, tuple[str, str] | None]:
        """The rule a note of `kind` is written by, and (folder, why) where it is filed by topic
        or among its family's parallel folders: the conventions' rule, a topic folder's, a
        parallel folder's (the one `hint` names, else the closest by title and tags, else by the
        body's `# ` heading), or a public form for a first ADR."""
        rule = self.conventions.rules[kind]
        topics = self.conventions.topics if kind == "card" else {}
        parallel = self.conventions.parallel.get(kind, {})
        filed = topic_of(title, body, topics) if topics else None
        if filed is None and parallel:
            filed = hinted(hint, parallel)
            if filed is None and first_stage(list(parallel)) is None:  # stages: by hint only
                filed = closest(title, f"{tags} {hint}", body, _headed(self.root, parallel))
            if filed is None:
                filed = _kept(rule, parallel)
            else:
                filed = (filed[0], f"{filed[1]}; {len(parallel)} parallel {kind} folders")
            topics = parallel
        if filed is not None and filed[0] != rule.folder:
            rule = self.sniffer.rule_in(kind, filed[0], topics[filed[0]], filed[1])
        rule = self._named_family(rule, title)
        rule = first_record_form(rule, body, has_records(resolve_inside(self.root, rule.folder)))
        return rule, filed

    def _asked(self, rule: KindRule, folder: str) -> KindRule:
        """Where the vault has no folder for the kind: the rule for the folder `--folder` names
        (learnt from its notes where it has some), else `rule`."""
        folder = folder.strip().strip("/")
        if rule.source != "default" or not folder or rule.kind in self.conventions.parallel:
            return rule
        path = resolve_inside(self.root, folder)
        names = [p.name for p in path.glob("*.md")] if path.is_dir() else []
        return self.sniffer.rule_in(rule.kind, folder, names, f"--folder names {folder}/")

    def _named_family(self, rule: KindRule, title: str) -> KindRule:
        """Where the folder holds two families of names (monthly `2026-07.md` notes and
        `summary-2026-07-16.md` ones): the rule learnt from the one whose lead word the title
        says, else `rule`."""
        folder = resolve_inside(self.root, rule.folder or ".")
        names = record_names([p.name for p in folder.glob("*.md")]) if folder.is_dir() else []
        groups: dict[str, list[str]] = {}
        for name in names:
            m = re.match(r"^([A-Za-z]{3,})[-_ ]?\d", name)
            groups.setdefault(m.group(1).lower() if m else "", []).append(name)
        words = set(re.findall(r"[a-z]+", title.lower()))
        said = [lead for lead, own in groups.items() if lead in words and len(own) >= 2]
        if rule.record is None or len(groups) < 2 or len(said) != 1:
            return rule
        why = f"{len(groups[said[0]])} records of {rule.folder}/ are named {said[0]}-, as the title"
        return self.sniffer.rule_in(rule.kind, rule.folder, groups[said[0]], why)

    def _replaced(  # noqa: PLR0913 - the write and where it went
        self,
        kind: str,
        folder: Path,
        path: Path,
        outcome: str,
        titled: list[tuple[Path, int, str]],
        taken: list[Path] | None = None,
    ) -> Path | None:
        """The decision a new text under the same title supersedes: the version before a `-vN`;
        in a numbered family (`titled`: its records of the title, with their heads; none in other
        families), the record holding the number the title gave (`taken`), else the latest other
        standing one; None for other kinds."""
        if kind not in SUPERSEDING or outcome == "up_to_date":
            return None
        if outcome == "versioned":
            return _version_before(folder, path)
        heads = {p: head for p, _, head in titled}
        others = [(n, p) for p, n, _ in titled if p != path]
        standing = [(n, p) for n, p in others if not is_superseded(heads[p])]
        named = [(n, p) for n, p in standing if p in (taken or [])]
        return max(named or standing or others)[1] if others else None

    def _taken(
        self, given: int | None, taken: list[Path], path: Path, replaced: Path | None
    ) -> list[str]:
        """What the caller is told where the number the title gave is another record's."""
        if not taken:
            return []
        shown, wrote = self._shown(taken[0]), self._shown(path)
        why = "a new record"
        if replaced is not None:
            why = f"superseding {'it' if replaced == taken[0] else self._shown(replaced)}"
        return [
            f"number {given} is taken by {shown}; wrote {wrote} with the next free number, {why}"
        ]

    def _shown(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _ref(self, path: Path, rule: KindRule) -> str:
        """How a record links another of its family: `[[name]]`, or a Markdown link relative to the
        family's folder."""
        rel = path.relative_to(self.root).with_suffix("").as_posix()
        style = rule.record.link_style if rule.record is not None else "wiki"
        if style != "markdown":
            own = Path(rel).name.lower() in ("index", "readme")
            return f"[[{rel if own else Path(rel).name}]]"
        target = posixpath.relpath(rel, rule.folder or ".")
        return f"[{Path(rel).name}]({target.replace(' ', '%20')}.md)"

    def _warnings(
        self, kind: str, rule: KindRule, filed: tuple[str, str] | None, created_folder: bool
    ) -> list[str]:
        """What the caller is told: a refused template, a card filed by topic, a folder created
        by default; each with what to do about it."""
        refused = self.conventions.refused_templates.get(kind)
        warnings = (
            [f"{refused}; the note was written without the template's fields"] if refused else []
        )
        if filed is not None and kind in self.conventions.parallel:
            warnings.append(f"{filed[1]}; `flush --folder NAME` picks another")
        elif filed is not None:
            warnings.append(
                f"{filed[1]}; name a folder for cards with a line `- card: FOLDER` in AGENTS.md"
            )
        if created_folder and rule.source == "default":
            how = rule.evidence[0].partition("; ")[2] if rule.evidence else ""
            why = f" ({how})" if how and not how.startswith("default ") else ""
            warnings.append(
                f"no {kind} folder found in the vault, so {rule.folder}/ was created{why}: pass "
                f"`--folder FOLDER` to write into another, or add a line `- {kind}: FOLDER` to "
                "AGENTS.md"
            )
        return warnings

    def _link(self, name: str, style: str, folder: str) -> str:
        """A related note's link as the vault writes links: `[[name|shown]]`, or `[shown](path.md)`
        with the path relative to the note's folder (`../guide/setup.md`), as a repository renders
        it."""
        if style != "markdown":
            return f"[[{name}]]"
        target, _, shown = name.partition("|")
        shown, path = shown or target, self.note_path(target)
        if path is not None:
            target = posixpath.relpath(path, folder or ".")
        return f"[{shown}]({target.replace(' ', '%20')}.md)"

    def _place(
        self,
        rule: KindRule,
        folder: Path,
        title: str,
        content: Callable[[int | None], str],
        when: date,
        given: int | None = None,
        titled: list[tuple[Path, int, str]] | None = None,
        taken: list[Path] | None = None,
    ) -> tuple[Path, str]:
        fixed = rule.record is not None and rule.record.fixed_number is not None
        if rule.naming in NUMBERED and not fixed:
            return self._place_numbered(rule, folder, title, content, when, given, titled, taken)
        stem = self.sniffer.file_name(rule, title, when).removesuffix(".md")
        text = content(_issue_number(rule, stem))
        wanted = _normalise(text)
        own, tail = record_stem(stem + ".md")  # a record in a folder of its own: `x-v2/index.md`
        if rule.suffix and own.endswith(rule.suffix):  # `x-v2.html.md`
            own, tail = own.removesuffix(rule.suffix), rule.suffix + tail
        if rule.naming == "date-slug":
            earlier = _same_on_another_day(folder, own, tail, when, wanted)
            if earlier is not None:
                return earlier, "up_to_date"
        placed = _versioned(folder, own, tail, text.encode("utf-8"), wanted)
        if placed is None:
            raise K0maruError(
                f"{folder}: {MAX_VERSIONS} versions of {stem!r} exist; pick a new title"
            )
        return placed

    def _place_numbered(
        self,
        rule: KindRule,
        folder: Path,
        title: str,
        content: Callable[[int | None], str],
        when: date,
        given: int | None = None,
        titled: list[tuple[Path, int, str]] | None = None,
        taken: list[Path] | None = None,
    ) -> tuple[Path, str]:
        """A numbered log: the same title and text is the record already there (up to date;
        `titled`: the records of the title); a new text under the same title is the next record,
        with the next number (never `0002-x-v2.md`); the number the title gives (`KEP-5905: ...`)
        where no record holds it (`taken`: those that do)."""
        for existing, number, _ in titled or []:
            if _same(existing, _normalise(content(number))):
                return existing, "up_to_date"
        if given is not None and not taken:
            candidate = folder / self.sniffer.file_name(rule, title, when, given)
            if create_exclusive(candidate, content(given).encode("utf-8")):
                return candidate, "created"
        for _ in range(MAX_VERSIONS):
            number = self.sniffer.next_adr_number(rule, list(self._family(rule)))
            candidate = folder / self.sniffer.file_name(rule, title, when, number)
            if create_exclusive(candidate, content(number).encode("utf-8")):
                return candidate, "created"
        raise K0maruError(f"{folder}: no free number for {title!r}; pick a new title")

    def _family(self, rule: KindRule) -> dict[str, list[str]]:
        """The parallel folders of the rule's family (its own among them), else none."""
        family = self.conventions.parallel.get(rule.kind, {})
        return family if rule.folder in family else {}

    def _same_title(self, rule: KindRule, folder: Path, title: str) -> list[tuple[Path, int, str]]:
        """The numbered records of this title in a numbered family, by file name or by the title
        they give without its numbered lead (`ADR 0002: Accept CAMT` is `Accept CAMT`), each with
        its number and head (read once per flush: where it is placed, what it supersedes): an ADR
        keeps its number, a re-flush targets its file."""
        from k0maru.notes.conventions import slugify

        slug = slugify(title, rule.slug_style).lower()
        if rule.naming not in NUMBERED or not folder.is_dir():
            return []
        pattern = re.compile(rf"^(?:[a-z]{{2,5}}[-_ ])?\d{{1,5}}[-_ ]{re.escape(slug)}\.md$")
        bare = bare_title(title)
        out = []
        for p, name in folder_records(folder):
            number = record_number(name)
            if number is None:
                continue
            head = read_head(p, 4096)
            if pattern.match(name.lower()) or bare_title(_record_title(head)) == bare:
                out.append((p, number, head))
        return out


def _version_before(folder: Path, path: Path) -> Path | None:
    """The version a `-vN` record follows: `x-v2.md` for `x-v3.md`, `x.md` for `x-v2.md`."""
    m = re.match(r"^(.*)-v(\d+)((?:/[^/]+|\.\w+)?\.md)$", path.relative_to(folder).as_posix())
    if m is None:
        return None
    before = int(m.group(2)) - 1
    return folder / f"{m.group(1)}{f'-v{before}' if before > 1 else ''}{m.group(3)}"


def bare_title(title: str) -> str:
    """A title as records of a numbered family are compared: without a numbered lead (`ADR 0002:
    `, `RFC-12 - `, `KEP-5905: `), case and spaces folded."""
    return " ".join(_NUMBERED_LEAD.sub("", title.strip()).split()).casefold()


def _record_title(head: str) -> str:
    """A record's title (`head`: its first bytes): its frontmatter `title:`, else its first `# `
    line."""
    m = _TITLE_LINE.search(head)
    return m.group(1).strip("\"' ") if m else ""


def _holders(folder: Path, number: int | None) -> list[Path]:
    """The records of `folder` numbered `number` (none where no number was given)."""
    if number is None or not folder.is_dir():
        return []
    return [p for p, name in folder_records(folder) if record_number(name) == number]


def _kept(rule: KindRule, parallel: dict[str, list[str]]) -> tuple[str, str]:
    """(the folder, why) where a note stays in the folder the conventions chose among its
    family's parallel ones: the first stage of a record's life, else none closer by title."""
    why = (
        "new records start in the first stage"
        if first_stage(list(parallel)) == rule.folder
        else "no other shares more words with the title and tags"
    )
    return rule.folder, f"{rule.folder}/ of {len(parallel)} parallel {rule.kind} folders: {why}"


_HEADED = 30  # members of each parallel folder whose titles are read


def _headed(root: Path, folders: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each parallel folder's member names with their titles (a frontmatter `title:`, else the
    first `# ` line) beside them: what a request's words are matched with."""
    out = {}
    for folder, names in folders.items():
        titles = []
        for name in record_names(names)[-_HEADED:]:
            try:
                head = (root / folder / name).open(encoding="utf-8", errors="replace").read(2048)
            except OSError:
                continue
            m = re.search(r"^(?:title:|# )\s*(.+)$", head, re.M)
            titles += [m.group(1).strip("\"' ")] if m else []
        out[folder] = names + titles
    return out


def _with_sidecar(root: Path, path: Path, title: str, when: date) -> list[str]:
    """The family's metadata file written beside a record kept as a folder (`kep.yaml`), said."""
    if path.name.lower() not in ("readme.md", "index.md"):
        return []
    m = re.match(r"^(?:[A-Za-z]+-)?(\d+)", path.parent.name)
    written = write_sidecar(path, title, int(m.group(1)) if m else None, when)
    if written is None:
        return []
    shown = Path(written).relative_to(root).as_posix()
    return [f"also wrote {shown}, as the family's records keep one: check its values"]


def _dated(title: str) -> bool:
    """Whether a title is only a date or number (`2021 08 30`): the record's own date carries it."""
    return re.fullmatch(r"[\d\W_]+", title) is not None


def _says(text: str, title: str) -> bool:
    """Whether `text` holds the title's words, in any case and punctuation."""

    def words(x: str) -> str:
        return " ".join(re.sub(r"[\W_]+", " ", x).lower().split())

    return words(title) in words(text)


def _unfilled(rule: KindRule, body: str, given: int | None) -> list[str]:
    """What the caller is told of the metadata lines written empty that every record of the
    family fills (`Deciders:`): to fill before a commit (not one the body gives, nor a number
    line the number given fills)."""
    record = rule.record
    if record is None or not record.shaped:
        return []
    keys = [k for k in record.filled if given is None or k.lower() not in record.numbered]
    keys = [k for k in keys if not re.search(rf"^\W*{re.escape(k)}\W*:", body, re.I | re.M)]
    if not keys:
        return []
    said = ", ".join(f"`{k}:`" for k in keys)
    return [f"left {said} empty, which every record of {rule.folder or '.'}/ fills: fill it in"]


def _issue_number(rule: KindRule, stem: str) -> int | None:
    """The issue number of a dated record of a counted series (`2026-08-21-twin0365`), which its
    heading and frontmatter may give too; None for other records."""
    form = rule.record.name_format if rule.record is not None else ""
    return record_number(stem + ".md") if form.startswith("{date}") and "{num}" in form else None


def _in_year(rule: KindRule, when: date) -> KindRule:
    """The rule for a family filed by year (`meetings/2024/`, `accepted/2022/`): the record's own
    year's folder, in the form learnt from the latest; a year in the names' prefix (`PM2024-001`)
    is the record's year, its counter that year's."""
    record = rule.record
    if record is not None and re.search(r"(?:19|20)\d\d", record.prefix):
        prefix = re.sub(r"(?:19|20)\d\d", str(when.year), record.prefix, count=1)
        rule = replace(rule, record=replace(record, prefix=prefix))
    parent, _, leaf = rule.folder.rpartition("/")
    if not re.fullmatch(r"(?:19|20)\d\d", leaf) or leaf == str(when.year):
        return rule
    folder = f"{parent}/{when.year}" if parent else str(when.year)
    why = f"records filed by year: {folder}/ for a record of {when.isoformat()}"
    return replace(rule, folder=folder, evidence=[*rule.evidence, why])


def given_number(rule: KindRule, title: str) -> tuple[int | None, str]:
    """(the number, the title without it) where the title opens with the family's own number form
    (`KEP-5905: Mixins` where records are headed `# KEP-{n}: {title}` or named `CFP-{num}-...`), or
    ends with it (`... Call 150`, kept): the user gave the number. (None, title) otherwise."""
    record = rule.record
    if record is None or rule.naming not in NUMBERED or record.fixed_number is not None:
        return None, title
    lead = re.match(r"#\s+([A-Za-z]{2,8})[-_ ]?\{n", record.heading)
    for prefix in {record.prefix.strip("-_ "), lead.group(1) if lead else ""} - {""}:
        m = re.match(rf"{re.escape(prefix)}[-_ ]?(\d{{1,6}})\s*[:.-]\s*(\S.*)$", title, re.I)
        if m:
            return int(m.group(1)), m.group(2)
        m = re.search(rf"\b{re.escape(prefix)}[-_ #]?(\d{{1,6}})$", title, re.I)
        if m:  # `Consensus Layer Call 150` where records are `call_148.md`: the title keeps it
            return int(m.group(1)), title
    return None, title


def _checked(kind: str, title: str, body: str) -> str:
    """The title with its whitespace collapsed; an unknown kind, an empty title or body is one
    clear error."""
    if kind not in KINDS:
        raise K0maruError(f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")
    title = " ".join(title.split())
    if not title:
        raise K0maruError("empty title; give the note a title")
    if not body.strip():
        raise K0maruError("empty body; pass the note text with --body-file or on stdin")
    return title


def _resolved(
    related: list[str], resolve: Callable[[str], str | None] | None
) -> tuple[list[str], list[str]]:
    """(link texts, names no note matches) of the related names; without `resolve`, each name is
    linked as given."""
    linked, unresolved = [], []
    for name in [r.strip() for r in related if r.strip()]:
        target = name.removeprefix("[[").removesuffix("]]")
        link = target if resolve is None else resolve(target)
        if link:
            linked.append(link)
        else:
            unresolved.append(target)
    return linked, unresolved


def _own_frontmatter(
    rule: KindRule,
    title: str,
    tags: list[str],
    linked: list[str],
    when: date,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """k0maru's own frontmatter: title, date, kind, category (the folder's name), tags, then the
    rule's template fields and `extra` where not given, and the related notes."""
    fm: dict[str, Any] = {
        "title": title,
        "date": when.isoformat(),
        "kind": rule.kind,
        "category": rule.folder.rsplit("/", 1)[-1] if rule.folder else rule.kind,
        "tags": sorted(set(tags)) or [rule.kind],
    }
    for key, value in {**rule.template, **extra}.items():
        fm.setdefault(key, value)
    if linked:
        fm["related_notes"] = [f"[[{name}]]" for name in linked]
    return fm


def _own_body(title: str, body: str, linked: list[str], unresolved: list[str]) -> str:
    """The body under a `# ` title (unless it has one), then the related notes and the names not
    found."""
    text = body.strip()
    if not text.lstrip().startswith("# "):
        text = f"# {title}\n\n{text}"
    if linked:
        text += "\n\n## Related\n" + "\n".join(f"- [[{name}]]" for name in linked)
    if unresolved:
        text += "\n\n> Not found in the vault when this was written: " + ", ".join(unresolved)
    return text


def _versioned(
    folder: Path, own: str, tail: str, data: bytes, wanted: str
) -> tuple[Path, str] | None:
    """The first free name of `own` (`x.md`, `x-v2.md` ... with `tail` kept: `x-v2/index.md`),
    written with `data`; a version already holding this content (`wanted`, normalised) is up to
    date. None when all MAX_VERSIONS are taken."""
    for version in range(1, MAX_VERSIONS + 1):
        candidate = folder / (f"{own}{tail}.md" if version == 1 else f"{own}-v{version}{tail}.md")
        if candidate.exists():
            if _same(candidate, wanted):
                return candidate, "up_to_date"
            continue
        if create_exclusive(candidate, data):
            return candidate, "created" if version == 1 else "versioned"
        if _same(candidate, wanted):
            return candidate, "up_to_date"
    return None


def _same_on_another_day(folder: Path, own: str, tail: str, when: date, wanted: str) -> Path | None:
    """The record of this title and content named with another day's date (`20260720-x.md` when the
    flush is on 1 August), so that a dated record flushed again is up to date."""
    for form, digits in _STAMP.items():
        stamp = re.escape(when.strftime(form))
        if stamp not in re.escape(own):
            continue
        pattern = re.compile(re.escape(own).replace(stamp, digits, 1) + re.escape(tail + ".md"))
        for path in sorted(folder.glob("*" + tail + ".md")):
            name = path.relative_to(folder).as_posix()
            if pattern.fullmatch(name) and _same(path, wanted):
                return path
    return None


def _same(path: Path, wanted: str) -> bool:
    try:
        return _normalise(read_text(path)) == wanted
    except (OSError, UnicodeDecodeError):
        return False


def link_text(store: LinkStore) -> Callable[[str], str | None]:
    """[[link]] text for a note named by link name, alias, vault path or title: its file name where
    that resolves to it (else its path), with the given name as display text when it differs, so
    Obsidian resolves what an agent copied from a search hit. None when no note matches. Each name
    reads only the notes it could mean."""

    def resolve(key: str) -> int | None:
        return store.link_resolver({key_name(key)})(key)

    def text(name: str) -> str | None:
        doc_id = resolve(name.lower().removesuffix(".md"))
        if doc_id is None:
            doc_id = store.document_id_by_title(name)
        doc = store.document(doc_id) if doc_id is not None else None
        if doc is None:
            return None
        path = doc.path.removesuffix(".md")
        stem = path.rsplit("/", 1)[-1]
        target = stem if resolve(stem.lower()) == doc_id else path
        shown = " ".join(name.replace("|", " ").replace("]", " ").split())
        return (
            target
            if shown.lower().removesuffix(".md") in (stem.lower(), path.lower())
            else f"{target}|{shown}"
        )

    return text


def note_path(store: LinkStore) -> Callable[[str], str | None]:
    """The vault path (without `.md`) of the note a link name means (as Obsidian resolves it)."""

    def path(name: str) -> str | None:
        key = name.lower().removesuffix(".md")
        doc_id = store.link_resolver({key_name(key)})(key)
        doc = store.document(doc_id) if doc_id is not None else None
        return doc.path.removesuffix(".md") if doc is not None else None

    return path


def note_date(text: str | None) -> date | None:
    """A caller's note date (`YYYY-MM-DD`), None when none was given; a bad one is one clear
    line."""
    if not text:
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise K0maruError(f"date {text!r} is not a date; give it as YYYY-MM-DD") from None


class NoteVault(Protocol):
    """What a flush gets of the open vault (the service hands it the wiring's `Vault`): its root,
    the links and notes of its index (`LinkStore`), its conventions and a way to index the note
    written. Nothing more: mypy refuses any other table family or the index's lifecycle (closing,
    migrating) to a caller typed with this."""

    @property
    def root(self) -> Path: ...

    @property
    def store(self) -> LinkStore: ...

    def conventions(self) -> Conventions: ...

    def index_note(self, path: str) -> None: ...


def flush_indexed(  # noqa: PLR0913 - the note's fields
    vault: NoteVault,
    kind: str,
    title: str,
    body: str,
    tags: list[str],
    related: list[str],
    when: date | None = None,
    folder: str | None = None,
) -> FlushResult:
    """Flush through the engine, link only notes the index knows, and index the new note at once: it
    is searchable by BM25 on return; its vectors follow in the background (never the backlog's
    wait). `folder`: which of a family's parallel folders (a status, group or component)."""
    engine = FlushEngine(vault.root, conventions=vault.conventions(), locate=note_path(vault.store))
    result = engine.flush(
        kind,
        title,
        body,
        tags,
        related,
        resolve=link_text(vault.store),
        extra={"folder": folder} if folder else None,
        when=when,
    )
    vault.index_note(result.path)
    if result.supersedes:
        vault.index_note(result.supersedes)  # now marked superseded
    return result
