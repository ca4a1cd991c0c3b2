"""Obsidian's link resolution as plain logic: a link key -> the document it points to."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

Resolver = Callable[..., int | None]  # (link key, id of the linking note or None) -> document id
# a folder that names a language: `ru`, `pt_BR`, `zh-Hans`, tldr's `pages.fr`, `locales/tr`
_LANGUAGE = re.compile(r"(?:pages\.)?[a-z]{2}(?:[-_][A-Za-z]{2,4})?")
INDEX_STEMS = ("index", "readme")  # a folder's own note, as a Git host renders it


def key_name(key: str) -> str:
    """The name a link key is found by: its last path component. A key resolves only to notes whose
    names (`note_names`) or aliases include it, so a new note re-points only the links of its
    names."""
    return key.rsplit("/", 1)[-1]


def note_names(path: str) -> set[str]:
    """The key names a note at `path` answers to: its file name, and for an index.md or README.md
    its folder's name (a Markdown link to the folder means it)."""
    folder, _, stem = path.lower().removesuffix(".md").rpartition("/")
    names = {stem, path.rsplit("/", 1)[-1].removesuffix(".md").lower()}
    if stem in INDEX_STEMS and folder:
        names.add(key_name(folder))
    return names


def language_of(path: str) -> str:
    """The language folder a path lies in ("" for none): its innermost folder named like a
    language."""
    return next((p for p in reversed(path.split("/")[:-1]) if _LANGUAGE.fullmatch(p)), "")


def build_resolver(
    documents: Iterable[tuple[int, str, str]], aliases: Iterable[tuple[int, str]]
) -> Resolver:
    """A function mapping a link key to a document id, the way Obsidian resolves links:
    exact vault path, then path suffix, then file name (case-insensitive), then frontmatter aliases.
    Of several notes with that file name, the one in the linking note's own folder wins, then one in
    its language folder (`pages.fr/`, `locales/tr/`), then the shallowest and shortest path. A key
    starting with "/" (a Markdown link, already made relative to the vault) matches that exact path
    only, or for a folder its index.md or README.md, as a Git host renders it.

    `documents` are (id, path, stem) rows; `aliases` (doc id, alias) rows by the note's path (the
    first wins: the same answer whatever order the notes were indexed in). Given only the notes and
    aliases of some key names (and the linking notes), it resolves the keys of those names as the
    whole vault would."""
    return _Links(documents, aliases).resolve


class _Links:
    """The vault's notes by path, file name and alias, as `build_resolver` looks them up."""

    def __init__(
        self, documents: Iterable[tuple[int, str, str]], aliases: Iterable[tuple[int, str]]
    ):
        self.by_stem: dict[str, list[tuple[str, int]]] = {}
        self.by_path: dict[str, int] = {}
        self.path_of: dict[int, str] = {}
        for doc_id, path, stem in documents:
            self.by_stem.setdefault(stem, []).append((path, doc_id))
            self.by_path[path.lower().removesuffix(".md")] = doc_id
            self.path_of[doc_id] = path
        self.by_alias: dict[str, int] = {}
        for doc_id, alias in aliases:
            self.by_alias.setdefault(alias, doc_id)

    def resolve(self, key: str, source: int | None = None) -> int | None:
        if key.startswith(
            "/"
        ):  # a Markdown link: that vault path, or that folder's index or README
            path = key[1:]
            by_path = self.by_path
            return (
                by_path.get(path) or by_path.get(f"{path}/index") or by_path.get(f"{path}/readme")
            )
        if "/" in key:
            found = self.by_suffix(key)
            if found is not None:
                return found
            key = key.rsplit("/", 1)[1]
        hit = self.by_name(key, source)
        return hit if hit is not None else self.by_alias.get(key)

    def by_suffix(self, key: str) -> int | None:
        """The note at vault path `key`, else the first (by path) whose path ends in `/key`."""
        if key in self.by_path:
            return self.by_path[key]
        suffix = "/" + key
        return next((self.by_path[p] for p in sorted(self.by_path) if p.endswith(suffix)), None)

    def by_name(self, stem: str, source: int | None) -> int | None:
        """Of the notes named `stem`: the one in the linking note's folder, then in its language
        folder, then the shallowest and shortest path."""
        named = self.by_stem.get(stem)
        if not named:
            return None
        src = self.path_of.get(source, "") if source is not None else ""
        folder, language = src.rpartition("/")[0], language_of(src)

        def rank(item: tuple[str, int]) -> tuple[bool, bool, int, int, str]:
            path = item[0]
            return (
                path.rpartition("/")[0] != folder,
                not language or language_of(path) != language,
                path.count("/"),
                len(path),
                path,
            )

        return min(named, key=rank)[1]
