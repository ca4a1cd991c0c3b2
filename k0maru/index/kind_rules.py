"""The kind of a note as the vault's conventions name it: its frontmatter `kind`/`type`, else the
kind whose folder the vault's own rules name (adr-tools' `.adr-dir`, a rules file's `adr: docs/x`),
else its folder's name (`decisions/` -> decision). So a note in the folder `.adr-dir` names is an
`adr`, whatever that folder is called, and `search --kind adr` finds it (issue #60)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from k0maru.index.markdown import note_kind

if TYPE_CHECKING:
    from k0maru.index.document_store import DocumentStore

KIND_FOLDERS_META = "kind_folders"  # the folders the notes' kinds were last decided with
RULE_FILES = (".k0maru/rules.md", "AGENTS.md", "CONVENTIONS.md")  # the vault's own rules files
ADR_DIR, DAILY_NOTES = ".adr-dir", ".obsidian/daily-notes.json"  # the tools' settings read too


def folder_kinds(rules: Mapping[str, str]) -> dict[str, str]:
    """folder -> kind, from the rules' kind -> folder (`wiring/kind_folders.py` reads them); a
    folder named for two kinds names none."""
    named: dict[str, set[str]] = {}
    for kind, folder in rules.items():
        folder = folder.strip().strip("/")
        if folder and folder != ".":
            named.setdefault(folder, set()).add(kind)
    return {folder: kinds.pop() for folder, kinds in sorted(named.items()) if len(kinds) == 1}


def decided_kind(
    parsed: str | None, frontmatter: dict[str, Any], rel: str, folders: dict[str, str]
) -> str | None:
    """The note's kind: `parsed` (what `note_kind` read) where its frontmatter says it, else the
    kind of the deepest folder of `folders` it lies in, else `parsed` (its folder's name)."""
    if not folders or note_kind({k: frontmatter.get(k) for k in ("kind", "type")}, ""):
        return parsed
    for folder in sorted(folders, key=len, reverse=True):
        if rel.startswith(folder + "/"):
            return folders[folder]
    return parsed


def decide_again(store: DocumentStore, folders: dict[str, str]) -> int:
    """Where the folders the rules name changed since the notes' kinds were decided: every note's
    kind decided again (the caller holds the write transaction). How many changed."""
    wanted = json.dumps(folders, sort_keys=True)
    if (store.get_meta(KIND_FOLDERS_META) or "{}") == wanted:
        return 0
    changes: list[tuple[str | None, int]] = []
    for doc_id, path, raw, kind in store.kind_sources():
        try:
            front = json.loads(raw) if raw else {}
        except ValueError:
            front = {}
        front = front if isinstance(front, dict) else {}
        new = decided_kind(note_kind(front, path), front, path, folders)
        if new != kind:
            changes.append((new, doc_id))
    store.set_kinds(changes)
    store.set_meta(KIND_FOLDERS_META, wanted)
    return len(changes)
