"""ConventionSniffer: where a new note of each kind goes and how it is named.

Order of authority: explicit rules (`.k0maru/rules.md`, then `AGENTS.md` / `CONVENTIONS.md` at the
vault root), then the folder layout (Johnny-Decimal `NN_Name/`, flat `docs/adr/`, `decisions/`,
`journal/` ...), then the names of the files already there. Every decision keeps its evidence.

Rules format (forgiving; any Markdown list or plain lines):
    - adr: docs/adr              kind -> folder
    - log naming: YYYY-MM-DD-title.md   (or `NNNN-title.md`, `adr-NNN-title.md`, `title.md`)
    - card template: templates/card.md  frontmatter fields of the template are added to new notes
Lines that mention kinds together with a backticked file pattern (`YYYY-MM-DD-title.md`,
`NNNN-title.md`, `kebab-case.md`) set the naming of those kinds too.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import regex

from k0maru.errors import K0maruError, PathOutsideVaultError
from k0maru.fsutil import read_regular, resolve_inside
from k0maru.index.kind_rules import ADR_DIR, DAILY_NOTES, RULE_FILES
from k0maru.index.markdown import split_frontmatter
from k0maru.index.walker import VaultWalker
from k0maru.kinds import FOLDER_WORDS, PROPOSAL_WORDS  # the one table the index reads too
from k0maru.notes.naming import (
    ADR_NUM,
    ADR_PREFIXED,
    DAILY,
    DATE_PREFIX,
    naming_of,
    slug_style_of,
)
from k0maru.notes.sidecar import find_index
from k0maru.notes.template import (
    VARIES,
    RecordTemplate,
    folder_records,
    learn,
    meta_key,
    naming_class,
    own_names,
    record_names,
    record_number,
)
from k0maru.notes.topics import topic_folders
from k0maru.text import printable, shorten

KINDS = ("adr", "decision", "card", "log", "skill")
_MAX_RULES_BYTES = 1 << 20  # a rules file or a template read past this is cut
_KIND_WORDS = {
    "adr": ("adr", "adrs", "architecture decision", "architecture decisions"),
    "decision": ("decision", "decisions"),
    "card": ("card", "cards"),
    "log": ("log", "logs", "journal", "incident", "incidents"),
    "skill": ("skill", "skills", "runbook skill", "playbooks"),
}
TOPICAL = "notes filed by topic"  # the card rule's evidence line where cards go by topic
_FLAT_VAULT = 10  # notes at the root (not a README, changelog...) that make it a card folder
DEFAULT_FOLDERS = {
    "adr": "docs/adr",
    "decision": "decisions",
    "card": "cards",
    "log": "logs",
    "skill": "skills",
}
DEFAULT_JD_NAMES = {
    "adr": "ADRs",
    "decision": "Decisions",
    "card": "Cards",
    "log": "Logs",
    "skill": "Skills",
}
_JD = re.compile(r"^(\d{2})[_ -](.+)$")
_TAIL = re.compile(r"[-_](0\d+)$")  # a zero-padded counter ending a name: `notes-0012`
_SUFFIX = re.compile(r"[^.](\.[a-z]{2,5})\.md$")
_RULE_FOLDER = re.compile(r"^\s*(?:[-*+]\s*)?([A-Za-z]+)\s*(?::|=|->|→)\s*`?([\w./ -]+?)/?`?\s*$")
_RULE_NAMING = re.compile(
    r"^\s*(?:[-*+]\s*)?([A-Za-z]+)\s+naming\s*(?::|=|->|→)\s*`?([^`]+?)`?\s*$", re.I
)
_RULE_TEMPLATE = re.compile(
    r"^\s*(?:[-*+]\s*)?([A-Za-z]+)\s+template\s*(?::|=|->|→)\s*`?([^`]+?)`?\s*$", re.I
)
_BACKTICK = re.compile(r"`([^`]+)`")


@dataclass(slots=True)
class KindRule:
    kind: str
    folder: str
    naming: str  # "date-slug" | "slug" | "adr-number" | "adr-prefixed"
    slug_style: str = "kebab"  # "kebab" | "snake" | "title" | "sentence" | "pascal" | "cased"
    number_width: int = 4
    template: dict[str, Any] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    source: str = "default"  # "rules" | "layout" | "default"
    template_file: str = ""  # a template a rules file names, vault-relative
    record: RecordTemplate | None = None  # how the folder's own records are written
    empty: bool = False  # no note in its folder yet
    suffix: str = ""  # what most records' names carry before `.md` (`.html` of `x.html.md`)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def form(self) -> list[tuple[str, str]]:
        """(what, how) pairs: which folder and why, and the record form learnt there; what
        `conventions --explain` prints and the console's conventions page shows."""
        why = {
            "rules": "named by a rules file",
            "default": "no folder of this kind found: k0maru's default, created on the first flush",
        }.get(self.source, "chosen by its name and records (see the evidence)")
        topical = next((e for e in self.evidence if e.startswith(TOPICAL)), "")
        out = [("folder", topical or f"{self.folder or '.'}/ ({why})"), *_by_year(self.folder)]
        if self.kind in ("adr", "decision"):
            out.append(("a new text", "under a title written before supersedes it: both linked"))
        record = self.record
        if record is not None and record.index_file:
            out.append(("index", f"{record.index_file} lists the records: a new one gets a line"))
        if record is not None and record.shaped:
            return [*out, *_record_form(record, self.suffix, self.slug_style)]
        own = "k0maru's own (frontmatter title, date, kind, category, tags)"
        if topical:
            own = f"the form of the topic folder's own notes (its names, keys, tags), else {own}"
        if self.kind == "adr" and self.empty and not self.template_file:
            own = f"the first record's body: Nygard's or MADR's sections give theirs, else {own}"
        return [*out, ("form", own)]

    def explain(self) -> list[str]:
        """Which folder and why, and the record form learnt there (`conventions --explain`)."""
        return [f"{what}: {how}" for what, how in self.form()]


def _by_year(folder: str) -> list[tuple[str, str]]:
    """The explain line of a family filed by year (`meetings/2025/`), none for another folder."""
    parent, _, leaf = folder.rpartition("/")
    if not re.fullmatch(r"(?:19|20)\d\d", leaf):
        return []
    return [("year", f"a record goes to its own year's folder, {parent or '.'}/YYYY/")]


def _record_form(record: RecordTemplate, suffix: str, style: str) -> list[tuple[str, str]]:
    """(what, how) pairs of a learnt record form: where from, its name, heading, metadata (each
    frontmatter key with what flush writes there), sections and first status."""
    out = [
        ("learnt from", ", ".join(record.learnt_from)),
        ("name", f"{record.name_format or '{slug}'}{suffix}.md" + _styled(style)),
        ("heading", record.heading or "(none)"),
    ]
    if record.frontmatter:
        out.append(("frontmatter", ", ".join(_key_form(k, f) for k, f in record.frontmatter)))
    out.extend(
        ("metadata line", _line_form(x, record.numbered, record.filled)) for x in record.meta_lines
    )
    if not record.frontmatter and not record.meta_lines:
        out.append(("metadata", "none above the sections"))
    out.extend(
        (f"series {place}", f"{form} (a title of these words is written so, with its number)")
        for place, form in record.series.items()
    )
    if record.sections:
        out.append(("sections", " / ".join(record.sections)))
    if record.status:
        out.append(("first status", record.status))
    return out


@dataclass(slots=True)
class Conventions:
    rules: dict[str, KindRule]
    layout: str  # "johnny-decimal" | "flat"
    rule_files: list[str]
    warnings: list[str] = field(default_factory=list)  # rules refused, one line each
    # kind -> the warning of its refused template (a flush of that kind says so)
    refused_templates: dict[str, str] = field(default_factory=dict)
    # a vault filing notes by topic, where no folder is named for cards: each topic folder's notes
    topics: dict[str, list[str]] = field(default_factory=dict)
    # kind -> its family's parallel folders (each with its files): a note goes to the one its
    # folder hint names, else the one closest to its title and tags
    parallel: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "layout": self.layout,
            "rule_files": self.rule_files,
            "warnings": self.warnings,
            "kinds": {k: r.as_dict() for k, r in self.rules.items()},
        }


def cut_at_word(text: str, limit: int, sep: str = " ") -> str:
    """`text` shortened to at most `limit` characters, between words (split at `sep`) where there is
    one."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    cut = head.rsplit(sep, 1)[0] if sep in head else ""
    return cut if len(cut) > limit // 2 else text[:limit]


# letters of any script, with their marks
_SLUG_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}]*")
SLUG_MAX_BYTES = (
    180  # room for a date, a version suffix and `.md` under the 255-byte file-name limit
)


def slugify(title: str, style: str = "kebab", limit: int = 80, ascii_only: bool = False) -> str:
    """A file-name stem from `title`: its words in any script (`Блокировка базы` ->
    блокировка-базы), at most `limit` characters and SLUG_MAX_BYTES bytes of UTF-8; `note` when it
    has none. `ascii_only`: the ASCII letters and digits alone, accents dropped (`Café` -> cafe),
    for names a spec limits to a-z0-9."""
    if ascii_only:
        from k0maru.search.terms import strip_accents

        words = re.findall(r"[A-Za-z0-9]+", strip_accents(title))
    else:
        words = _SLUG_WORD.findall(unicodedata.normalize("NFC", title))
    if not words:
        return "note"
    if style == "title":
        slug = " ".join(w if w.isupper() else w[:1].upper() + w[1:] for w in words)
    elif style == "sentence":  # the title's words as written, the first a capital
        slug = " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])
    elif style in ("pascal", "cased"):  # the title's own words, as written, the first capital
        words = [words[0][:1].upper() + words[0][1:], *words[1:]]
        slug = ("" if style == "pascal" else "-").join(
            w[:1].upper() + w[1:] if style == "pascal" else w for w in words
        )
    elif style == "snake":
        slug = "_".join(w.lower() for w in words)
    else:
        slug = "-".join(w.lower() for w in words)
    sep = {"title": " ", "sentence": " ", "snake": "_"}.get(style, "-")
    slug = cut_at_word(slug, limit, sep)
    while len(slug.encode()) > SLUG_MAX_BYTES:
        slug = cut_at_word(slug, len(slug) - 1, sep)
    return slug.rstrip("-_ ")


class ConventionSniffer:
    def __init__(self, root: Path, include: list[str] | None = None):
        self.root = root
        self.include = include or ["**/*.md"]
        self.warnings: list[str] = []
        self.refused_templates: dict[str, str] = {}
        self._kinds_read: dict[str, dict[str, int]] = {}  # a folder's frontmatter kinds, read once
        # kind -> the parallel folders of its family (each with its files), where it has several
        self.parallel: dict[str, dict[str, list[str]]] = {}

    def sniff(self) -> Conventions:
        """Each kind's rule: its folder (a rules file's, else the layout's best, else a default),
        then its naming and record form, read from that folder."""
        self._kinds_read = {}
        self.parallel = {}
        files = [e.rel for e in VaultWalker(self.root, self.include, []).walk()]
        folders = self._folders(files)
        jd = sum(1 for top in {f.split("/", 1)[0] for f in files if "/" in f} if _JD.match(top))
        layout = "johnny-decimal" if jd >= 2 else "flat"
        self.warnings = []
        self.refused_templates = {}
        explicit, rule_files = self._explicit_rules()
        rules: dict[str, KindRule] = {}
        for kind in KINDS:
            rule = explicit.get(kind)
            if rule is None or not rule.folder:
                rule = self._placed(kind, rule, folders, files, layout)
            names = folders.get(rule.folder, [])
            self._nested_rules(rule)
            self._infer_naming(rule, names)
            self._learn_record(rule, names)
            rule.empty = not record_names(names)
            rules[kind] = rule
        topics = self._topics(rules["card"], rules, folders)
        parallel = {k: v for k, v in self.parallel.items() if rules[k].folder in v}
        return Conventions(
            rules, layout, rule_files, self.warnings, self.refused_templates, topics, parallel
        )

    def _placed(
        self,
        kind: str,
        rule: KindRule | None,
        folders: dict[str, list[str]],
        files: list[str],
        layout: str,
    ) -> KindRule:
        """`rule` (a new one where None) given the folder the layout points to, else the default
        one, with the evidence."""
        folder, evidence = self._best_folder(kind, folders, files)
        source = "layout"
        if folder is None:
            folder, evidence = self._default_folder(kind, layout, folders)
            source = "default"
        if rule is None:
            return KindRule(kind, folder, "", evidence=evidence, source=source)
        rule.folder = folder
        rule.evidence.extend(evidence)
        return rule

    @staticmethod
    def _topics(
        card: KindRule, rules: dict[str, KindRule], folders: dict[str, list[str]]
    ) -> dict[str, list[str]]:
        """Where no folder is named for cards: the vault's topic folders (a card goes to the one
        it shares most words with), said in the card rule's evidence."""
        if card.source != "default":
            return {}
        kept = {f: names for f, names in folders.items() if not aside(f)}
        topics = jd_categories(kept) or topic_folders(kept, {r.folder for r in rules.values()})
        if topics:
            shown = ", ".join(sorted(topics)[:6]) + (", ..." if len(topics) > 6 else "")
            card.evidence.append(
                f"{TOPICAL} in {len(topics)} folders ({shown}): a card goes to the one "
                f"whose name and notes share the most words with it, else {card.folder}/"
            )
        return topics

    def rule_in(self, kind: str, folder: str, names: list[str], why: str) -> KindRule:
        """The rule of `kind` for notes written into `folder` (its files `names`), learnt from
        them."""
        rule = KindRule(kind, folder, "", evidence=[why], source="layout")
        self._infer_naming(rule, names)
        self._learn_record(rule, names)
        return rule

    def _index_of(self, folder: str) -> str:
        """The vault path of the file listing `folder`'s records, "" where none does."""
        try:
            index = find_index(resolve_inside(self.root, folder or "."))
        except (K0maruError, ValueError, OSError):
            return ""
        return index.path.relative_to(self.root).as_posix() if index is not None else ""

    # ---- explicit rules --------------------------------------------------------------------------
    def _explicit_rules(self) -> tuple[dict[str, KindRule], list[str]]:
        found: dict[str, KindRule] = {}
        used: list[str] = []
        for name in RULE_FILES:
            data = read_regular(self.root / name, _MAX_RULES_BYTES)  # no FIFO, device or socket
            if data is None:
                continue
            try:
                resolve_inside(self.root, name)
                text = data.decode("utf-8")
            except (K0maruError, UnicodeDecodeError) as exc:
                self.warnings.append(f"{name}: not read as rules ({exc})")
                continue
            used.append(name)
            for n, line in enumerate(text.splitlines(), start=1):
                self._rule_line(line, f"{name}:{n}", found)
        used.extend(self._tool_rules(found))
        return found, used

    def _read_inside(self, relative: str, limit: int) -> bytes | None:
        """A file of the vault (none through a link that leaves it)."""
        try:
            return read_regular(resolve_inside(self.root, relative), limit)
        except (K0maruError, ValueError, OSError):
            return None

    def _tool_rules(self, found: dict[str, KindRule]) -> list[str]:
        """What the vault's tools were told: adr-tools' `.adr-dir` (the ADR folder) and Obsidian's
        daily notes settings (the log folder and template), where no rules file said otherwise."""
        return [*self._adr_dir(found), *self._daily_notes(found)]

    def _adr_dir(self, found: dict[str, KindRule]) -> list[str]:
        """adr-tools' `.adr-dir`: its first line is the ADR folder. The file's name where read."""
        data = self._read_inside(ADR_DIR, 4096)
        line = data.decode("utf-8", "replace").strip().splitlines()[:1] if data is not None else []
        if not line:
            return []
        self._rule_line(f"adr: {line[0].strip()}", f"{ADR_DIR}:1", found)
        return [ADR_DIR]

    def _daily_notes(self, found: dict[str, KindRule]) -> list[str]:
        """Obsidian's daily notes settings: the log folder, a date-only name for the default
        format, and the template. The file's name where read."""
        where = DAILY_NOTES
        daily = _json_object(self._read_inside(where, 65536))
        if daily is None:
            return []
        if isinstance(daily.get("folder"), str) and daily["folder"].strip("/"):
            self._rule_line(f"log: {daily['folder'].strip('/')}", where, found)
        if daily.get("format", "YYYY-MM-DD") in ("", "YYYY-MM-DD"):
            log = found.setdefault("log", KindRule("log", "", "", source="rules"))
            log.naming = log.naming or "date"
        if isinstance(daily.get("template"), str) and daily["template"].strip():
            named = daily["template"].strip().removesuffix(".md") + ".md"
            self._rule_line(f"log template: {named}", where, found)
        return [where]

    def _rule_line(self, line: str, where: str, found: dict[str, KindRule]) -> None:
        """One line of a rules file: a naming, template or folder rule, else backticked patterns."""
        if self._naming_rule(line, where, found):
            return
        if self._template_rule(line, where, found):
            return
        if self._folder_rule(line, where, found):
            return
        _backtick_rules(line, where, found)

    @staticmethod
    def _naming_rule(line: str, where: str, found: dict[str, KindRule]) -> bool:
        """`<kind> naming: <pattern>`. Whether the line was one."""
        m = _RULE_NAMING.match(line)
        if not (m and _kind_of(m.group(1))):
            return False
        kind = _kind_of(m.group(1))
        if not _rule_of(found, kind).naming:
            _apply_pattern(_rule_of(found, kind), m.group(2), f"{where}: {line.strip()}")
        return True

    def _template_rule(self, line: str, where: str, found: dict[str, KindRule]) -> bool:
        """`<kind> template: <file>`: the template's frontmatter, or a warning. Whether the line was
        one."""
        m = _RULE_TEMPLATE.match(line)
        if not (m and _kind_of(m.group(1))):
            return False
        kind = _kind_of(m.group(1))
        named = m.group(2).strip()
        try:
            data = read_regular(resolve_inside(self.root, named), _MAX_RULES_BYTES)
        except (K0maruError, ValueError, OSError) as exc:  # ValueError: a NUL byte
            data = None
            self.warnings.append(printable(f"{where}: template {named!r} refused ({_reason(exc)})"))
            if not _rule_of(found, kind).template:
                self.refused_templates[_rule_of(found, kind).kind] = self.warnings[-1]
        if data is not None:
            self.refused_templates.pop(_rule_of(found, kind).kind, None)
            fm, _, _ = split_frontmatter(data.decode("utf-8", errors="replace"))
            _rule_of(found, kind).template = {
                k: v for k, v in fm.items() if k not in ("title", "date")
            }
            _rule_of(found, kind).template_file = named
            _rule_of(found, kind).evidence.append(f"{where}: template {named}")
        return True

    def _folder_rule(self, line: str, where: str, found: dict[str, KindRule]) -> bool:
        """`<kind> folder: <folder>` for a kind with no folder yet: the folder inside the vault, or
        a warning. Whether the line was one."""
        m = _RULE_FOLDER.match(line)
        if not (m and _kind_of(m.group(1)) and not _rule_of(found, _kind_of(m.group(1))).folder):
            return False
        kind = _kind_of(m.group(1))
        raw = m.group(2).strip()
        folder = raw.strip("/")
        try:
            if raw.startswith(("/", "~")):  # never read as a folder inside the vault
                raise K0maruError("an absolute path; name a folder relative to the vault")
            resolve_inside(self.root, folder or ".")
        except (K0maruError, ValueError, OSError) as exc:
            self.warnings.append(
                printable(
                    f"{where}: `{line.strip()}` refused ({_reason(exc)}); "
                    f"the {kind} folder is taken from the layout instead"
                )
            )
            return True
        _rule_of(found, kind).folder = folder
        _rule_of(found, kind).evidence.append(f"{where}: {line.strip()}")
        return True

    # ---- layout heuristics -----------------------------------------------------------------------
    @staticmethod
    def _folders(files: list[str]) -> dict[str, list[str]]:
        """Folder -> its files; a record kept as a folder of its own (`adr/0001-x/index.md`, or
        `282-x/vep.md` where its sibling folders hold the same name) is also listed in the folder
        above as `0001-x/index.md`."""
        folders: dict[str, list[str]] = {}
        for f in files:
            folder, _, name = f.rpartition("/")
            folders.setdefault(folder, []).append(name)
        shared = own_names(files)
        for f in files:
            folder, _, name = f.rpartition("/")
            above, _, leaf = folder.rpartition("/")
            if folder and name.lower() in ("index.md", "readme.md", shared.get(above, "")):
                folders.setdefault(above, []).append(f"{leaf}/{name}")
        return folders

    def _best_folder(
        self, kind: str, folders: dict[str, list[str]], files: list[str]
    ) -> tuple[str | None, list[str]]:
        """The folder that looks most like the kind's home, with the evidence; the folders that
        score as well but for their size (parallel folders of one family: `adr/` per component,
        `proposals-accepted/` and `proposals-done/`) are kept in `parallel`."""
        scored: list[Scored] = []
        for folder, names in folders.items():
            if not folder and kind not in ("adr", "log"):
                continue  # root-level records: numbered ADRs (`adr-001-title.md`), dated logs
            score, why = self._folder_score(kind, folder, names)
            if score > 0:
                scored.append((score, folder, why))
        if not scored:
            return None, []
        best, folder, why = max(scored, key=lambda x: x[0])
        best, folder, why = _latest_year(scored, (best, folder, why))
        near = [f for sc, f, _ in scored if int(sc) == int(best) and f and not aside(f)]
        near = _family_folders(folder, near + _sub_folders(folder, folders, near), folders)
        folder, why = self._in_family(kind, folder, why, near, folders)
        return folder, [f"{folder or '.'}/: " + ", ".join(why)]

    def _in_family(  # noqa: PLR0913 - the folder chosen and those beside it
        self, kind: str, folder: str, why: list[str], near: list[str], folders: dict[str, list[str]]
    ) -> tuple[str, list[str]]:
        """Where the folder is one of a family's parallel folders (`near`, or a drafts folder
        beside it): kept in `parallel`, and the one a new record starts in, with why."""
        draft = _draft_beside(folder, folders) if folder else None
        if draft is not None:
            near = [folder, draft]
        if len(near) < 2 or folder not in near:
            return folder, why
        self.parallel[kind] = {f: folders[f] for f in near}
        folder, why = _started(folder, why, near)
        shown = ", ".join(f"{f}/" for f in near[:8]) + (", ..." if len(near) > 8 else "")
        return folder, [
            *why,
            f"parallel folders {shown}: `flush --folder` names one, else by title",
        ]

    def _folder_score(self, kind: str, folder: str, names: list[str]) -> tuple[float, list[str]]:
        """How strongly `folder` (its files `names`) looks like the kind's home, and why: the
        clues' points summed, cut a hundredfold under a test or vendored tree, a fuller folder
        ahead on a tie."""
        leaf = _unyeared(folder).rsplit("/", 1)[-1]  # `meetings/2026/`: named as `meetings/`
        words = _folder_words(leaf)
        score = _name_score(kind, folder, words)
        why = [f"folder name '{leaf}'"] if score else []
        clues = (
            _numbered_clue("adr" if kind == "log" and not folder else kind, names),  # `PM-001`
            _dated_clue(kind, names, words, leaf != folder.rsplit("/", 1)[-1]),
            _issue_clue(kind, names),
            _stage_clue(kind, leaf, names),
            self._guide_clue(kind, folder, names),
            self._id_clue(kind, folder, names),
            self._howto_clue(kind, folder, names),
            _frontmatter_clue(kind, self._frontmatter_kinds(folder, names[:20])),
            _template_clue(kind, names, words),
        )
        for clue in clues:
            if clue is not None:
                score += clue[0]
                why.append(clue[1])
        if score > 0 and aside(folder):
            score /= 100  # tests, fixtures, examples, vendored, generated, archived: last resort
            why.append("under a test, fixture, example, vendored, generated or archive tree")
        if score > 0:
            score += min(len(names), 50) / 1000  # prefer the fuller folder on a tie
        return score, why

    def _guide_clue(self, kind: str, folder: str, names: list[str]) -> Clue | None:
        """ADRs (proposals): dated records (`20240102-BRS-x.md`), two or more and most of the
        folder's, beside a guide (its `README.md`) that names them proposals, RFCs or designs."""
        records = record_names(names)
        count = sum(1 for n in records if dated(n))
        if kind != "adr" or count < 2 or count * 2 < len(records):
            return None
        where = f"{folder}/README.md" if folder else "README.md"
        data = self._read_inside(where, 16384)
        said = _GUIDE_WORDS.search(data.decode("utf-8", "replace")) if data else None
        return None if said is None else (2, f"{count} dated records its {where} calls {said[0]}")

    def _id_clue(self, kind: str, folder: str, names: list[str]) -> Clue | None:
        """Logs (postmortems, incidents): records named by an id (`data/<uuid>.md`), three or more
        and most of the folder's, whose frontmatter gives the same keys (the latest five read)."""
        records = record_names(names)
        ids = [n for n in records if _ID_NAME.match(n)]
        if kind != "log" or len(ids) < 3 or len(ids) * 2 < len(records):
            return None
        keys = set()
        for name in ids[-5:]:
            data = self._read_inside(f"{folder}/{name}" if folder else name, 4096)
            fm = split_frontmatter(data.decode("utf-8", "replace"))[0] if data else {}
            keys.add(tuple(sorted(fm)))
        if len(keys) != 1 or not next(iter(keys)):
            return None
        return 1, f"{len(ids)} id-named records with the same frontmatter keys"

    def _howto_clue(self, kind: str, folder: str, names: list[str]) -> Clue | None:
        """Cards (recipes, runbooks, how-tos): three or more notes, most of the latest ten named
        or titled as how-tos (`howto-x.md`, `description: How to ...`, `# Troubleshooting X`) and
        giving the same frontmatter keys."""
        records = record_names(names)[-10:]
        if kind != "card" or len(records) < 3:
            return None
        count, keys = 0, Counter[tuple[str, ...]]()
        for name in records:
            data = self._read_inside(f"{folder}/{name}" if folder else name, 2048)
            head = data.decode("utf-8", "replace") if data else ""
            said = [name, *re.findall(r"^(?:title:|description:|summary:|# )(.*)$", head, re.M)]
            count += any(_HOWTO.search(line) for line in said)
            keys[tuple(sorted(split_frontmatter(head)[0]))] += 1
        ((common, held),) = keys.most_common(1)
        if count * 2 <= len(records) or not common or held * 2 <= len(records):
            return None  # not how-tos, or not one form (a TIL's plain notes)
        return 2, f"{count} of the latest {len(records)} notes are how-tos"

    def _nested_rules(self, rule: KindRule) -> None:
        """Rules files in the kind's folder and the folders above it (the root's are read already):
        a naming or template line there applies to this kind, named or not."""
        parts = [p for p in rule.folder.split("/") if p]
        for depth in range(len(parts), 0, -1):
            folder = "/".join(parts[:depth])
            for name in RULE_FILES[1:]:
                data = self._read_inside(f"{folder}/{name}", _MAX_RULES_BYTES)
                if data is None:
                    continue
                text = data.decode("utf-8", "replace")
                for n, line in enumerate(text.splitlines(), start=1):
                    self._nested_line(rule, line, f"{folder}/{name}:{n}")

    def _nested_line(self, rule: KindRule, line: str, where: str) -> None:
        """One line of a rules file in or above the kind's folder: its naming and template apply
        to `rule` where it has none yet; a backticked `*.md` pattern on a line naming no kind is
        this kind's naming."""
        found: dict[str, KindRule] = {rule.kind: KindRule(rule.kind, "", "", source="rules")}
        self._rule_line(line, where, found)
        got = found[rule.kind]
        pattern = _md_pattern(line) if not _kind_of_line(line) else None
        if pattern and not got.naming and not rule.naming:
            _apply_pattern(got, pattern, f"{where}: {line.strip()}")
        _adopt(rule, got)

    def _learn_record(self, rule: KindRule, names: list[str]) -> None:
        """The folder's own record template, unless the notes there are k0maru's own (frontmatter
        `kind:`) or the kind is a skill card (distill writes those)."""
        if rule.kind == "skill" or self._frontmatter_kinds(rule.folder, names[:20]):
            return
        extra = [self.root / rule.template_file] if rule.template_file else []
        plain = rule.kind in ("card", "log")
        record = learn(self.root / rule.folder, names, extra, plain, self._stages(rule))
        if not record.learnt:
            return
        rule.record = record
        record.index_file = self._index_of(rule.folder)
        if record.name_format and rule.source != "rules" or not rule.naming:
            rule.naming = naming_class(record.name_format)
            rule.number_width = record.number_width
        rule.evidence.append(_learnt_evidence(rule.folder, record, names))
        if "{num}" in record.name_format and record.fixed_number is None:
            self._guide_number(rule, record)

    def _stages(self, rule: KindRule) -> dict[Path, list[str]] | None:
        """The other stage folders of the rule's family (`draft/` and `content/`; each with its
        files), None where its folder is none of them or they are groups, each with a form of its
        own (`wg-api/`, `wg-outreach/`)."""
        family = self.parallel.get(rule.kind, {})
        if rule.folder not in family or first_stage(list(family)) is None:
            return None
        return {self.root / f: names for f, names in family.items() if f != rule.folder}

    def _guide_number(self, rule: KindRule, record: RecordTemplate) -> None:
        """A contributing guide (the `README.md` or `CONTRIBUTING.md` of the family's folder or one
        above it) that names new records `0000-my-proposal.md` and leaves their numbering to a bot
        after the merge (npm's RFCs): the record is written as `0000`, as its people commit it."""
        parts = [p for p in rule.folder.split("/") if p]
        for depth in range(len(parts), -1, -1):
            for name in _GUIDES:
                where = "/".join([*parts[:depth], name])
                data = self._read_inside(where, _MAX_RULES_BYTES)
                text = data.decode("utf-8", "replace") if data is not None else ""
                line = _zero_named(text, parts[-1] if parts else "", depth == len(parts))
                if line is not None and not (self.root / rule.folder / line[1]).exists():
                    record.fixed_number = 0
                    rule.evidence.append(
                        f"{where}: {line[0]}: numbered by a bot once merged, so written as 0000"
                    )
                    return

    def _frontmatter_kinds(self, folder: str, names: list[str]) -> dict[str, int]:
        if folder in self._kinds_read:  # asked once per kind of note
            return self._kinds_read[folder]
        counts: dict[str, int] = {}
        self._kinds_read[folder] = counts
        for name in names:
            data = read_regular(self.root / folder / name, 1024)
            if data is None:
                continue
            head = data.decode("utf-8", errors="replace")
            if head.startswith("---"):
                m = re.search(r"^kind:\s*(\w+)", head, re.M)
                if m and m.group(1).lower() in KINDS:
                    counts[m.group(1).lower()] = counts.get(m.group(1).lower(), 0) + 1
        return counts

    @staticmethod
    def _default_folder(
        kind: str, layout: str, folders: dict[str, list[str]]
    ) -> tuple[str, list[str]]:
        """Where a kind with no folder of its own goes: the next free Johnny-Decimal area, the
        vault's root for cards of a flat vault of notes, else k0maru's default folder."""
        if layout == "johnny-decimal":
            folder = f"{_next_jd_area(folders):02d}_{DEFAULT_JD_NAMES[kind]}"
            return folder, [f"no {kind} folder found; next free Johnny-Decimal area {folder}"]
        main = _notes_folder(folders) if kind == "card" else None
        if main is not None:
            return main[0], [
                f"no card folder found; the vault keeps {main[1]} notes in {main[0] or 'its root'}/"
            ]
        return DEFAULT_FOLDERS[kind], [f"no {kind} folder found; default {DEFAULT_FOLDERS[kind]}"]

    # ---- naming ----------------------------------------------------------------------------------
    @staticmethod
    def _infer_naming(rule: KindRule, names: list[str]) -> None:
        """The naming and slug style the folder's file `names` show, where no rule set them: read
        by the pure heuristics of `k0maru.notes.naming`, then written into `rule` once."""
        stems = [n.removesuffix(".md") for n in record_names(names)]  # not a README or template
        naming = naming_of(rule.kind, stems) if not rule.naming else None
        style = slug_style_of(stems) if rule.slug_style == "kebab" else None
        for found in (naming, style):
            if found is not None and found.evidence:
                rule.evidence.append(found.evidence)
        if naming is not None:
            rule.naming = naming.value
            rule.number_width = naming.width or rule.number_width
        if style is not None:
            rule.slug_style = style.value
        suffixes = Counter(m.group(1) for n in names if (m := _SUFFIX.search(n)))
        suffix, count = suffixes.most_common(1)[0] if suffixes else ("", 0)
        if count * 2 > len(record_names(names)):
            rule.suffix = suffix
            rule.evidence.append(f"{count} names end in {suffix}.md")

    def next_adr_number(self, rule: KindRule, family: list[str] | None = None) -> int:
        """The next free number of the kind's folder (and of the `family`'s parallel folders: one
        count across `accepted/` and `implemented/`): one past the highest, counted among records
        with the learnt prefix (`PM2024-`) where the records have one, a reserved all-nines one
        (`CIP-9999`) aside; the fixed number every record carries (`0000-x.md`) where they all
        carry the same."""
        record = rule.record
        if record is not None and record.fixed_number is not None:
            return record.fixed_number
        prefix = record.prefix.lower() if record is not None and record.name_format else ""
        numbers = [0]
        for where in {rule.folder, *(family or [])}:
            folder = self.root / where
            names = [name for _, name in folder_records(folder)] if folder.is_dir() else []
            own = [name for name in names if _undated(name).lower().startswith(prefix)]
            numbers += [n for n in map(_numbered, own) if n is not None]
        return max(filter(_unreserved, numbers)) + 1

    def file_name(self, rule: KindRule, title: str, when: date, number: int | None = None) -> str:
        """The new record's file name, with the suffix most records' names carry."""
        name = self._file_name(rule, title, when, number)
        if rule.naming == "slug":
            name = self._counted_tail(rule, name)
        return name.removesuffix(".md") + rule.suffix + ".md"

    def _series_slug(self, folder: str, slug: str) -> str:
        """The one name the latest dated records of `folder` all share after their date
        (`2026-06-08-this-week-in-rust.md`) where `slug` opens with it (the title `This Week in
        Rust 601`): a series keeps its name. Else `slug`."""
        where = self.root / folder
        names = sorted(record_names([p.name for p in where.glob("*.md")]))[-8:]
        tails = {re.sub(r"^\d{4}-\d{2}-\d{2}[-_ ]", "", n).removesuffix(".md") for n in names}
        tail = tails.pop() if len(tails) == 1 and len(names) >= 2 else ""
        return tail if tail and slug.lower().startswith(tail.lower()) else slug

    def _jd_id(self, folder: str) -> str:
        """The next Johnny-Decimal ID of a category folder whose notes carry theirs (`11.04` after
        `11 Category/11.03 Note.md`), "" for any other folder."""
        m = _JD_CATEGORY.match(folder)
        where = self.root / folder
        if m is None or not where.is_dir():
            return ""
        own = [int(n.group(1)) for p in where.glob("*.md") if (n := _jd_note(m.group(1), p.name))]
        return f"{m.group(1)}.{max(own, default=0) + 1:02d}" if own else ""

    def _counted_tail(self, rule: KindRule, name: str) -> str:
        """`name` with the zero-padded counter most of the folder's names end in
        (`this-week-in-fluvio-0063.md`): the title's own number padded, else the next one."""
        folder = self.root / rule.folder
        names = record_names([p.name for p in folder.glob("*.md")]) if folder.is_dir() else []
        tails = [m for n in names if (m := _TAIL.search(n.removesuffix(rule.suffix + ".md")))]
        if len(tails) * 2 <= len(names) or not tails:
            return name
        width = len(tails[-1].group(1))
        stem = name.removesuffix(".md")
        own = re.search(r"[-_](\d+)$", stem)
        if own is not None:
            return f"{stem[: own.start(1)]}{int(own.group(1)):0{width}d}.md"
        sep = tails[-1].group(0)[0]
        return f"{stem}{sep}{max(int(m.group(1)) for m in tails) + 1:0{width}d}.md"

    def _file_name(self, rule: KindRule, title: str, when: date, number: int | None) -> str:
        slug = slugify(_undated_title(rule, title), rule.slug_style)
        jd_id = self._jd_id(rule.folder)
        if jd_id:
            return f"{jd_id} {slugify(title, 'sentence')}.md"
        record = rule.record
        if record is not None and record.name_format.startswith("{date}{sep}{slug}"):
            slug = self._series_slug(rule.folder, slug)
        if record is not None and record.name_format:
            n = number if number is not None else _series_number(record, title)
            n = n if n is not None else self.next_adr_number(rule)
            return (
                record.name_format.format(
                    date=when.isoformat(),
                    yyyymmdd=when.strftime("%Y%m%d"),
                    yyyymm=when.strftime("%Y%m"),
                    date_=when.strftime("%Y_%m_%d"),
                    month=when.strftime("%Y-%m"),
                    mmdd=when.strftime("%m-%d"),
                    sep=record.separator,
                    prefix=record.prefix,
                    num=f"{n:0{record.number_width}d}",
                    slug=slug,
                )
                + ".md"
            )
        if rule.naming == "date":  # a daily note: the date alone
            return f"{when.isoformat()}.md"
        if rule.naming == "date-slug":
            sep = " " if rule.slug_style in ("title", "sentence") else "-"
            return f"{when.isoformat()}{sep}{slug}.md"
        if rule.naming in ("adr-number", "adr-prefixed"):
            n = number if number is not None else self.next_adr_number(rule)
            num = f"{n:0{rule.number_width}d}"
            return f"adr-{num}-{slug}.md" if rule.naming == "adr-prefixed" else f"{num}-{slug}.md"
        return f"{slug}.md"


_ASIDE = {
    "test",
    "tests",
    "fixture",
    "fixtures",
    "testdata",
    "example",
    "examples",
    "sample",
    "samples",
    "vendor",
    "vendored",
    "third_party",
    "node_modules",
    "generated",
    "integration-tests",
    "templates",
    "template",
    "__fixtures__",
    "dist",
    "build",
    # what the vault keeps out of use: a new note never starts there
    "archive",
    "archived",
    "archives",
    "attic",
    "deprecated",
    "obsolete",
    "trash",
    ".trash",
}


_STAGES = (
    {"draft", "drafts", "wip", "inbox", "incoming", "new"},
    {"proposed", "proposal", "proposals", "pending", "open", "review"},
    {"accepted", "active", "approved"},
)


def _undated_title(rule: KindRule, title: str) -> str:
    """The title without the date it opens with (`2022-01-27, pod limit`) where the name gives
    the date already (`2022-06-02-pod-limit.md`), so that no name says a date twice."""
    form = rule.record.name_format if rule.record is not None else ""
    if rule.naming != "date-slug" and "{yyyy" not in form and "{date}" not in form:
        return title
    return _LEAD_DAY.sub("", title) or title


_LEAD_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}[,:;.]?\s+")


def _notes_folder(folders: dict[str, list[str]]) -> tuple[str, int] | None:
    """(the folder, its notes) where a vault keeps its notes: the root or the top-level folder
    with the most, at least _FLAT_VAULT of them, whose tree holds most of the vault's notes."""
    count = {f: len(record_names(n)) for f, n in folders.items() if not aside(f)}
    total = sum(count.values())

    def holds(top: str) -> bool:
        tree = sum(n for f, n in count.items() if f == top or f.startswith(top + "/"))
        return count[top] >= _FLAT_VAULT and (not top or tree * 2 > total)

    tops = [f for f in count if "/" not in f and holds(f)]
    best = max(tops, key=lambda f: (count[f], f == ""), default=None)
    return None if best is None else (best, count[best])


def _styled(style: str) -> str:
    return "" if style == "kebab" else f" (slug {style})"


def _line_form(line: str, numbered: dict[str, str], filled: list[str]) -> str:
    """A metadata line as `conventions --explain` says flush writes it."""
    form = numbered.get(meta_key(line))
    said = f" (with a number given: {form.format(n='{n}')})" if form else ""
    if meta_key(line) in {k.lower() for k in filled}:
        said += " (left empty, said: every record fills it)"
    return (
        line.replace(VARIES, "(only when given)").replace("{tagslot}", "{tags} (else empty)") + said
    )


def _key_form(key: str, form: str) -> str:
    """A frontmatter key as `conventions --explain` says flush writes it."""
    if form == VARIES:
        return f"{key} (only when given)"
    if form.startswith("\n"):  # a mapping: its children, as `data: {twin: {n}}`; a list `[a]`
        lines = [line.strip() for line in form.split("\n")[1:]]
        if all(line.startswith("- ") for line in lines):
            return f"{key}: [{', '.join(line[2:] for line in lines)}]"
        return f"{key}: {{{', '.join(lines)}}}"
    if key == "tags":
        return f"{key} (the tags given, else left out)"
    return f"{key}: {form}" if form else f"{key}: (left empty, as the records leave it or to fill)"


def _draft_beside(folder: str, folders: dict[str, list[str]]) -> str | None:
    """A drafts folder beside the chosen one holding a record (`draft/` beside `content/`): where
    a new record starts."""
    parent = folder.rpartition("/")[0]
    for leaf in sorted(_STAGES[0]):
        beside = f"{parent}/{leaf}" if parent else leaf
        if beside != folder and record_names(folders.get(beside, [])):
            return beside
    return None


def _started(folder: str, why: list[str], near: list[str]) -> tuple[str, list[str]]:
    """The folder among parallel ones (`near`) a new record starts in, and why."""
    start = first_stage(near)
    if start is None or start == folder:
        return folder, why
    return start, [f"new records start in {start}/, the first stage of {', '.join(near)}"]


def first_stage(folders: list[str]) -> str | None:
    """The one folder of parallel `folders` a new record starts in where they are stages of its
    life (`draft/` before `content/`, `accepted/` before `implemented/`): the earliest stage, None
    where no folder or two name it."""
    for stage in _STAGES:
        found = [f for f in folders if _unyeared(f).rsplit("/", 1)[-1].lower() in stage]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _sub_folders(folder: str, folders: dict[str, list[str]], taken: list[str]) -> list[str]:
    """The folders right under a family's folder that hold two or more records of their own
    (`enhancements/security/`): the family's groups."""
    if not folder:
        return []
    return [
        f
        for f, names in folders.items()
        if f.startswith(folder + "/")
        and "/" not in f[len(folder) + 1 :]
        and f not in taken
        and not aside(f)
        and len(record_names(names)) >= 2
    ]


def _family_folders(folder: str, near: list[str], folders: dict[str, list[str]]) -> list[str]:
    """The folders `near` the chosen one that are its family's parallel folders: not a record
    kept as a folder, one year folder of each (the chosen one, else the latest: the record's
    year's is chosen at a flush)."""
    near = [f for f in near if f == folder or not _record_folder(f, folders)]
    latest = {_unyeared(f): f for f in sorted(near)}  # a family's years: its latest stands for it
    latest[_unyeared(folder)] = folder
    return [f for f in near if f in latest.values()]


Scored = tuple[float, str, list[str]]  # a folder's score, the folder, why


def _latest_year(scored: list[Scored], chosen: Scored) -> Scored:
    """Of a family filed by year (`main/2025/`, `main/2026/`), the latest year's folder that
    scores as well as the chosen one: its records have the family's newest form."""
    parent = _unyeared(chosen[1])
    if parent == chosen[1]:
        return chosen
    years = [s for s in scored if int(s[0]) == int(chosen[0]) and _unyeared(s[1]) == parent]
    return max((s for s in years if s[1] != parent), key=lambda s: s[1])


def _unyeared(folder: str) -> str:
    """The folder above a year folder (`meetings/2026` -> `meetings`), else `folder`."""
    parent, _, leaf = folder.rpartition("/")
    return parent if parent and re.fullmatch(r"(?:19|20)\d\d", leaf) else folder


def _record_folder(folder: str, folders: dict[str, list[str]]) -> bool:
    """Whether `folder` is one record kept as a folder (`0000-kep-process/README.md`, a
    `NNNN-kep-template/`, an issue's number alone: `design/24543/`), not a folder of records."""
    above, _, leaf = folder.rpartition("/")
    if re.fullmatch(r"\d{1,6}", leaf) and not re.fullmatch(r"(?:19|20)\d\d", leaf):
        return True
    kept = {f"{leaf}/{n}".lower() for n in folders.get(folder, [])}
    own = any(n.lower() in kept for n in folders.get(above, []))
    return own and bool(
        re.match(r"^(?:[A-Za-z]{0,6}[-_]?)?(?:\d{1,5}|N{3,5}|X{3,5})[-_]", leaf, re.I)
    )


def _unreserved(number: int) -> bool:
    """Whether a record's number is one of the count, not a reserved all-nines one (`9999`)."""
    return number < 999 or set(str(number)) != {"9"}


def _numbered(name: str) -> int | None:
    """The number a record's file name gives (`0007-x.md`, `ADR-7-x.md`, `PM2024-007 - x.md`)."""
    n = record_number(name)
    if n is not None:
        return n
    m = ADR_NUM.match(name) or ADR_PREFIXED.match(name)
    return int(m.group(1)) if m else None


# a Johnny-Decimal category under its area: `10-19 Area/11 Category`, and its notes `11.01 Note.md`
_JD_CATEGORY = re.compile(r"^(?:.*/)?\d\d-\d\d[ _-][^/]+/(\d\d)[ _-][^/]+$")


def _jd_note(category: str, name: str) -> re.Match[str] | None:
    return re.match(rf"^{category}\.(\d\d)[ _-]", name)


def jd_categories(folders: dict[str, list[str]]) -> dict[str, list[str]]:
    """A Johnny-Decimal vault's category folders (`10-19 Area/11 Category/`) whose notes carry
    their IDs (`11.01 Note.md`), each with its notes, where two or more do; else none."""
    found = {
        f: names
        for f, names in folders.items()
        if (m := _JD_CATEGORY.match(f)) and any(_jd_note(m.group(1), n) for n in names)
    }
    return found if len(found) >= 2 else {}


def _undated(name: str) -> str:
    """A record's name without its opening date (`2026-08-21-twin0365.md` -> `twin0365.md`)."""
    return re.sub(r"^\d{4}-\d{2}-\d{2}[-_ ]", "", name)


def _series_number(record: RecordTemplate, title: str) -> int | None:
    """The issue number a title ends with (`This week in Nushell #365`) where the records are
    dated issues of a counted series (`2026-08-21-twin0365.md`), else None."""
    m = re.search(r"#?(\d{1,5})\s*$", title)
    return int(m.group(1)) if m and record.name_format.startswith("{date}") else None


def _next_jd_area(folders: dict[str, list[str]]) -> int:
    """The first Johnny-Decimal area (10, 20 ... 90) no top folder uses, else 99."""
    used = {int(m.group(1)) for f in folders for m in [_JD.match(f.split("/", 1)[0])] if m}
    return next((n for n in range(10, 100, 10) if n not in used), 99)


def _folder_words(leaf: str) -> set[str]:
    """A folder's name as the words it is matched by: `10_Decision Log` -> `decision-log`."""
    jd = _JD.match(leaf)
    return {leaf.lower(), (jd.group(2) if jd else leaf).lower().replace(" ", "-").replace("_", "-")}


def _name_score(kind: str, folder: str, words: set[str]) -> float:
    """What a folder's name says of the kind: its word (3), or for ADRs an RFC or proposals folder
    (2: the project's decisions are its RFCs or proposals)."""
    if not folder:
        return 0
    if words & FOLDER_WORDS[kind]:
        return 3
    parts = {part for word in words for part in re.split(r"[-_ ]", word)}
    if kind != "adr" and parts & FOLDER_WORDS[kind]:
        return 2  # `AllCoreDevs-CL-Meetings`, `Fleeting Notes`
    return 2 if kind == "adr" and parts & PROPOSAL_WORDS else 0


Clue = tuple[float, str]  # (points toward a kind's folder, the evidence line)


def _numbered_clue(kind: str, names: list[str]) -> Clue | None:
    """ADRs: two or more files, at least half of them, numbered (`0007-x.md`, `ADR-7-x.md`)."""
    if kind != "adr":
        return None
    numbered = sum(
        1
        for n in names
        if (ADR_NUM.match(n) or ADR_PREFIXED.match(n) or _OWN_FOLDER.match(n))
        and not _DAY_NAME.match(n)  # `CG-01-14.md`: a day's minutes, not record 1
    )
    if numbered >= 2 and numbered >= len(names) / 2:
        return 2, f"{numbered} numbered files"
    lead, count = _shared_lead(names, 3)
    if count >= 2 and count >= len(names) / 2 and lead not in _ISSUE_WORDS:
        return 2, f"{count} files numbered {lead}-N (`{lead}-0087.md`)"
    return None


# the word a newsletter's numbered issues are named by (`issue-407.md`, `episode-12.md`)
_ISSUE_WORDS = {"issue", "issues", "episode", "ep", "edition", "vol", "volume", "no", "number"}
# a lower-case word before a record's number: `cap-0087.md`, `issue-407.md`
_LEAD_NUMBERED = re.compile(r"^([a-z]{2,8})[-_](\d{1,5})(?=[-_.])")


def _shared_lead(names: list[str], width: int = 1) -> tuple[str, int]:
    """The lower-case word most names lead their number (of `width` digits or more) with (`cap`
    of `cap-0087.md`) and how many names do."""
    leads = Counter(m[1] for n in names if (m := _LEAD_NUMBERED.match(n)) and len(m[2]) >= width)
    return leads.most_common(1)[0] if leads else ("", 0)


def _issue_clue(kind: str, names: list[str]) -> Clue | None:
    """Logs (newsletters): three or more files, at least half of them, numbered as issues
    (`issue-407.md`)."""
    lead, count = _shared_lead(names)
    if kind != "log" or lead not in _ISSUE_WORDS or count < 3 or count < len(names) / 2:
        return None
    return 1, f"{count} numbered issues ({lead}-N)"


# a record kept as a numbered folder of its own: `KEP-1234/README.md`, `spec-0001/index.md`
_OWN_FOLDER = re.compile(r"^[A-Za-z]{0,6}[-_]?\d{1,5}(?:[-_][^/]*)?/[^/]+\.md$", re.I)


# dated names beyond `2024-05-01-x.md`: `20240501-x.md`, a lead word before the date
# (`summary-2026-07-16.md`, `CG-2026-01-13.md`)
_DATED_NAME = re.compile(r"^(?:\d{8}[-_. ]|[A-Za-z]{1,12}[-_]\d{4}-\d{2}-\d{2}\.md$)")
# a month and day under a year folder: `2025/CG-01-14.md`, `2025/01-14.md`
_DAY_NAME = re.compile(r"^(?:[A-Za-z]{1,12}[-_])?(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\.md$")


# a month's record: `2024-08-steering-council-update.md`, a folder of its own `2026-05/index.md`
_MONTH_NAME = re.compile(
    r"^\d{4}-(?:0[1-9]|1[0-2])(?:[-_,][^/]*)?(?:\.md|/index\.md|/readme\.md)$", re.I
)


def dated(name: str, yearly: bool = False) -> bool:
    """Whether a file name is a dated record's (`2024-05-01-x.md`, `summary-2026-07-16.md`,
    `20240501-x.md`; `CG-01-14.md` in a year folder, `yearly`)."""
    if DATE_PREFIX.match(name) or DAILY.match(name) or _DATED_NAME.match(name):
        return True
    return yearly and bool(_DAY_NAME.match(name))


def _dated_clue(kind: str, names: list[str], words: set[str], yearly: bool) -> Clue | None:
    """Logs: two or more files, at least half of them, dated (`2024-05-01-x.md`, `2024-05-01.md`,
    `summary-2024-05-01.md`, `CG-05-01.md` in a year folder, a month's `2024-08-x.md` or
    `2024-08/index.md`), in a folder not named for
    decisions."""
    if kind != "log" or words & FOLDER_WORDS["decision"]:
        return None
    count = sum(1 for n in names if dated(n, yearly) or _MONTH_NAME.match(n))
    if count >= 2 and count >= len(names) / 2:
        return 1, f"{count} dated files"
    return None


# a record named by an id: a UUID, or 16 or more hex digits
_ID_NAME = re.compile(
    r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})\.md$"
)

# how a recipe, runbook or how-to is named or titled
_HOWTO = re.compile(
    r"(?:^|\b)(?:how[- ]?to|troubleshoot\w*|what to do|runbook|playbook|recipe|step[- ]by[- ]step)\b",
    re.I,
)

# what a guide calls the records of a proposal family
_GUIDE_WORDS = re.compile(
    r"\b(?:proposals?|rfcs?|design docs?|designs|enhancement proposals?|decision records?)\b", re.I
)

# the stages of a proposal's life a family files its records by (`accepted/`, `implemented/`)
_STAGE_WORDS = {
    *("draft", "drafts", "proposed", "accepted", "approved", "implementable", "provisional"),
    *("implemented", "rejected", "withdrawn", "superseded", "deferred", "final", "archived"),
    *("completed", "declined", "postponed", "obsolete", "active", "inactive", "replaced"),
}


def _stage_clue(kind: str, leaf: str, names: list[str]) -> Clue | None:
    """ADRs (proposals, designs): a folder named for a stage of a record's life (`accepted/`,
    `proposed/`, `accepted/2022/`) holding two or more records, whatever their names."""
    if kind != "adr" or leaf.lower() not in _STAGE_WORDS or len(record_names(names)) < 2:
        return None
    return 2, f"a stage folder of {len(record_names(names))} records"


def _frontmatter_clue(kind: str, kinds_in_fm: dict[str, int]) -> Clue | None:
    """Notes whose frontmatter says `kind: <kind>`: up to 2, by their share of the notes that say
    a kind."""
    if not kinds_in_fm.get(kind, 0):
        return None
    share = 2 * kinds_in_fm[kind] / max(sum(kinds_in_fm.values()), 1)
    return share, f"{kinds_in_fm[kind]} notes with kind: {kind}"


def _template_clue(kind: str, names: list[str], words: set[str]) -> Clue | None:
    """ADRs and decisions: a record template beside the records of a folder named for them."""
    decision_words = FOLDER_WORDS["adr"] | FOLDER_WORDS["decision"]
    if kind in ("adr", "decision") and _has_template(names) and words & decision_words:
        return 2, "a record template beside the records"
    return None


def aside(folder: str) -> bool:
    return any(part.lower() in _ASIDE for part in folder.split("/"))


def _has_template(names: list[str]) -> bool:
    return any(re.match(r"^(?:\d+-)?(?:adr[-_])?template", n, re.I) for n in names)


def _rule_of(found: dict[str, KindRule], kind: str | None) -> KindRule:
    """The rule of `kind` found so far, made empty if there is none yet."""
    assert kind is not None
    return found.setdefault(kind, KindRule(kind, "", "", source="rules"))


def _backtick_rules(line: str, where: str, found: dict[str, KindRule]) -> None:
    """A line with backticked patterns (`*.md`, kebab-case, snake_case): a naming for each kind its
    words name that has none yet."""
    patterns = [p for p in _BACKTICK.findall(line) if _is_name_pattern(p)]
    kinds = _kinds_named(line) if patterns else []
    for pattern in patterns:
        for kind in kinds:
            r = _rule_of(found, kind)
            if not r.naming:
                _apply_pattern(r, pattern, f"{where}: {line.strip()}")


def _is_name_pattern(pattern: str) -> bool:
    """A backticked file-name pattern (`NNNN-title.md`) or slug style (`kebab-case`)."""
    return pattern.endswith(".md") or "kebab" in pattern or "snake" in pattern


def _kinds_named(line: str) -> list[str]:
    """The kinds whose words (`adr`, `journal`, `runbook skill` ...) `line` says."""
    low = line.lower()
    return [
        k
        for k, words in _KIND_WORDS.items()
        if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words)
    ]


def _json_object(data: bytes | None) -> dict[str, Any] | None:
    """`data` read as a JSON object; None when it is missing, not JSON or not an object."""
    try:
        value = json.loads(data) if data is not None else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _adopt(rule: KindRule, got: KindRule) -> None:
    """What a nested rules line gave (`got`): its naming and its template, each where `rule` has
    none yet, with their evidence."""
    if got.naming and not rule.naming:
        rule.naming, rule.slug_style, rule.number_width = (
            got.naming,
            got.slug_style,
            got.number_width,
        )
        rule.evidence.extend(got.evidence)
    if got.template_file and not rule.template_file:
        rule.template, rule.template_file = got.template, got.template_file
        rule.evidence.extend(e for e in got.evidence if "template" in e)


def _learnt_evidence(folder: str, record: RecordTemplate, names: list[str]) -> str:
    """The evidence line of a record template learnt from `folder`'s files (`names`), and from its
    family's other folders where it holds fewer than three records."""
    shown = ", ".join(record.learnt_from[-3:])
    beside = " and its family's other folders" if set(record.learnt_from) - set(names) else ""
    return (
        f"template learnt from {len(record.learnt_from)} file(s) of {folder or '.'}/{beside} "
        f"(latest: {shown}): name {record.name_format or 'by rule'}, "
        f"heading {record.heading or 'none'!r}"
    )


_GUIDES = ("README.md", "CONTRIBUTING.md")
# a guide's backticked name of a new record: `0000-my-feature.md`, `text/0000-your-rfc-name.md`
_ZERO_NAMED = re.compile(r"`((?:[\w.-]+/)*)(0{3,5}-(?!template)[\w-]+\.md)`", re.I)
_BOT_NUMBERED = re.compile(r"\b(?:bot|automation)\b[^.]*\bnumber|\bnumber\w*\b[^.]*\bbot\b", re.I)


def _zero_named(text: str, leaf: str, inside: bool) -> tuple[str, str] | None:
    """(the guide's line, the name it gives) where `text` names new records of the folder `leaf`
    with a zero number (`leaf/0000-x.md`, or `0000-x.md` in a guide `inside` that folder) and says
    a bot numbers them; None otherwise."""
    if not _BOT_NUMBERED.search(" ".join(text.split())):
        return None
    for line in text.splitlines():
        for m in _ZERO_NAMED.finditer(line):
            folder = m.group(1).strip("/").rsplit("/", 1)[-1]
            if folder == leaf if folder else inside:
                return shorten(line.strip(), 120), m.group(2)
    return None


def _md_pattern(line: str) -> str | None:
    """The first backticked file pattern of `line` (`NNNN-title.md`), None when it has none."""
    return next((p for p in _BACKTICK.findall(line) if p.endswith(".md")), None)


def _kind_of_line(line: str) -> bool:
    """Whether `line` names a kind."""
    return bool(_kinds_named(line))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, PathOutsideVaultError):
        return "outside the vault"
    if isinstance(exc, K0maruError):
        return str(exc)
    return "a NUL byte in the path" if "null" in str(exc) else str(exc)


def _kind_of(word: str) -> str | None:
    low = word.lower().rstrip("s")
    for kind in KINDS:
        if low == kind or low + "s" in _KIND_WORDS[kind] or low in _KIND_WORDS[kind]:
            return kind
    return None


def _apply_pattern(rule: KindRule, pattern: str, evidence: str) -> None:
    p = pattern.strip()
    if re.search(r"YYYY-MM-DD", p, re.I):
        rule.naming = "date-slug"
    elif re.search(r"adr-N+", p, re.I):
        rule.naming = "adr-prefixed"
        rule.number_width = len(re.search(r"adr-(N+)", p, re.I).group(1))  # type: ignore[union-attr]
    elif re.search(r"\bN{3,5}\b", p):
        rule.naming = "adr-number"
        rule.number_width = len(re.search(r"N{3,5}", p).group(0))  # type: ignore[union-attr]
    else:
        rule.naming = "slug"
    if "snake" in p or "_" in p.replace("YYYY-MM-DD", ""):
        rule.slug_style = "snake"
    elif " " in p.removesuffix(".md") or "Title" in p:
        rule.slug_style = "title"
    rule.evidence.append(evidence)
    rule.source = "rules"
