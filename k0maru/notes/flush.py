"""FlushEngine: write a note where the vault's conventions say, idempotently and atomically.

Same target and same content -> `up_to_date` (nothing written). Different content -> the next free
`-v2`, `-v3`, ... name: a human's or an agent's note is never overwritten. Files appear complete or
not at all (temp file + hard link), and a lock file serialises flushes across processes so ADR
numbers and version suffixes are allocated once."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from k0maru.errors import K0maruError
from k0maru.fsutil import create_exclusive, ensure_state_dir, file_lock, resolve_inside
from k0maru.index.link_resolution import key_name
from k0maru.notes.conventions import KINDS, Conventions, ConventionSniffer, KindRule

if TYPE_CHECKING:
    from k0maru.index.store import Store
    from k0maru.index.vault import Vault

MAX_VERSIONS = 99
_DATE_LINE = re.compile(r"^date:.*$", re.M)


@dataclass(slots=True)
class FlushResult:
    path: str  # vault-relative
    outcome: str  # created | up_to_date | versioned
    kind: str
    linked: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # e.g. the kind's template was refused

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def vault_lock(root: Path) -> AbstractContextManager[None]:
    return file_lock(ensure_state_dir(root) / "flush.lock")


def _normalise(text: str) -> str:
    """Content identity ignores the flush date (the same note flushed tomorrow is up to date)."""
    return _DATE_LINE.sub("", text.replace("\r\n", "\n")).strip()


class FlushEngine:
    def __init__(
        self,
        root: Path,
        conventions: Conventions | None = None,
        sniffer: ConventionSniffer | None = None,
    ):
        self.root = root
        self.sniffer = sniffer or ConventionSniffer(root)
        self.conventions = conventions or self.sniffer.sniff()

    def render(
        self,
        rule: KindRule,
        title: str,
        body: str,
        tags: list[str],
        linked: list[str],
        unresolved: list[str],
        when: date,
        extra: dict[str, Any] | None = None,
    ) -> str:
        fm: dict[str, Any] = {
            "title": title,
            "date": when.isoformat(),
            "kind": rule.kind,
            "category": rule.folder.rsplit("/", 1)[-1] if rule.folder else rule.kind,
            "tags": sorted(set(tags)) or [rule.kind],
        }
        for key, value in {**rule.template, **(extra or {})}.items():
            fm.setdefault(key, value)
        if linked:
            fm["related_notes"] = [f"[[{name}]]" for name in linked]
        head = yaml.safe_dump(fm, sort_keys=False, allow_unicode=True, width=1000)
        text = body.strip()
        if not text.lstrip().startswith("# "):
            text = f"# {title}\n\n{text}"
        if linked:
            text += "\n\n## Related\n" + "\n".join(f"- [[{name}]]" for name in linked)
        if unresolved:
            text += "\n\n> Not found in the vault when this was written: " + ", ".join(unresolved)
        return f"---\n{head}---\n\n{text}\n"

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
        if kind not in KINDS:
            raise K0maruError(f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")
        title = " ".join(title.split())
        if not title:
            raise K0maruError("empty title; give the note a title")
        if not body.strip():
            raise K0maruError("empty body; pass the note text with --body-file or on stdin")
        rule = self.conventions.rules[kind]
        when = when or date.today()
        linked, unresolved = [], []
        for name in [r.strip() for r in related or [] if r.strip()]:
            target = name.removeprefix("[[").removesuffix("]]")
            link = target if resolve is None else resolve(target)
            if link:
                linked.append(link)
            else:
                unresolved.append(target)
        content = self.render(rule, title, body, tags or [], linked, unresolved, when, extra)
        folder = resolve_inside(self.root, rule.folder or ".")
        with vault_lock(self.root):
            path, outcome = self._place(rule, folder, title, content, when)
        refused = self.conventions.refused_templates.get(kind)
        warnings = (
            [f"{refused}; the note was written without the template's fields"] if refused else []
        )
        return FlushResult(
            path.relative_to(self.root).as_posix(), outcome, kind, linked, unresolved, warnings
        )

    def _place(
        self, rule: KindRule, folder: Path, title: str, content: str, when: date
    ) -> tuple[Path, str]:
        wanted = _normalise(content)
        base = self._existing_adr(rule, folder, title) if rule.kind == "adr" else None
        name = base or self.sniffer.file_name(rule, title, when)
        stem = name.removesuffix(".md")
        data = content.encode("utf-8")
        for version in range(1, MAX_VERSIONS + 1):
            candidate = folder / (f"{stem}.md" if version == 1 else f"{stem}-v{version}.md")
            if candidate.exists():
                try:
                    if _normalise(candidate.read_text(encoding="utf-8")) == wanted:
                        return candidate, "up_to_date"
                except (OSError, UnicodeDecodeError):
                    pass
                continue
            if create_exclusive(candidate, data):
                return candidate, "created" if version == 1 else "versioned"
            if _normalise(candidate.read_text(encoding="utf-8", errors="replace")) == wanted:
                return candidate, "up_to_date"
        raise K0maruError(f"{folder}: {MAX_VERSIONS} versions of {stem!r} exist; pick a new title")

    def _existing_adr(self, rule: KindRule, folder: Path, title: str) -> str | None:
        """An ADR keeps its number: a re-flush of the same title targets the numbered file."""
        from k0maru.notes.conventions import slugify

        slug = slugify(title, rule.slug_style)
        if not folder.is_dir():
            return None
        pattern = re.compile(rf"^(?:adr-)?\d{{3,5}}-{re.escape(slug)}\.md$", re.I)
        for p in sorted(folder.glob("*.md")):
            if pattern.match(p.name):
                return p.name
        return None


def link_text(store: Store) -> Callable[[str], str | None]:
    """[[link]] text for a note named by link name, alias, vault path or title: its file name where
    that resolves to it (else its path), with the given name as display text when it differs, so
    Obsidian resolves what an agent copied from a search hit. None when no note matches. Each name reads
    only the notes it could mean."""

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


def flush_indexed(
    vault: Vault, kind: str, title: str, body: str, tags: list[str], related: list[str]
) -> FlushResult:
    """Flush through the engine, link only notes the index knows, and index the new note at once: it is
    searchable by BM25 on return; its vectors follow in the background (never the backlog's wait)."""
    result = FlushEngine(vault.root, conventions=vault.conventions()).flush(
        kind, title, body, tags, related, resolve=link_text(vault.store)
    )
    vault.index(only=[result.path], embed=False)
    return result
