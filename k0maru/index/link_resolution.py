"""Obsidian's link resolution as plain logic: a link key -> the document it points to."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def build_resolver(
    documents: Iterable[tuple[int, str, str]], aliases: Iterable[tuple[int, str]]
) -> Callable[[str], int | None]:
    """A function mapping a link key to a document id, the way Obsidian resolves links:
    exact vault path, then path suffix, then file name (case-insensitive; the shallowest and
    shortest path wins a tie), then frontmatter aliases. A key starting with "/" (a Markdown link,
    already made relative to the vault) matches that exact path only, or for a folder its index.md
    or README.md, as a Git host renders it.

    `documents` are (id, path, stem) rows; `aliases` (doc id, alias) rows by doc id (the first wins)."""
    by_stem: dict[str, tuple[tuple[int, int, str], int]] = {}
    by_path: dict[str, int] = {}
    for doc_id, path, stem in documents:
        rank = (path.count("/"), len(path), path)
        if stem not in by_stem or rank < by_stem[stem][0]:
            by_stem[stem] = (rank, doc_id)
        by_path[path.lower().removesuffix(".md")] = doc_id
    by_alias: dict[str, int] = {}
    for doc_id, alias in aliases:
        by_alias.setdefault(alias, doc_id)

    def resolve(key: str) -> int | None:
        if key.startswith(
            "/"
        ):  # a Markdown link: that vault path, or that folder's index or README
            path = key[1:]
            return (
                by_path.get(path) or by_path.get(f"{path}/index") or by_path.get(f"{path}/readme")
            )
        if "/" in key:
            if key in by_path:
                return by_path[key]
            suffix = "/" + key
            for path in sorted(by_path):
                if path.endswith(suffix):
                    return by_path[path]
            key = key.rsplit("/", 1)[1]
        hit = by_stem.get(key)
        if hit is not None:
            return hit[1]
        return by_alias.get(key)

    return resolve
