"""Where a note's links to attachments (an image, a PDF: files that are not notes) lead, found as
Obsidian finds them: beside the note, from the vault's root, else the file of that name anywhere in
the vault (the shortest path). Hidden folders (`.git`, `.obsidian`, `.k0maru`) hold no
attachments."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from k0maru.errors import PathOutsideVaultError
from k0maru.fsutil import resolve_inside

IMAGE_TYPES = {  # the images a note page shows where a note embeds them (never SVG: it holds script)
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp",
}  # fmt: skip


def is_attachment_name(target: str) -> bool:
    """Whether a link target names a file other than a note (it has a suffix, not `.md`)."""
    suffix = PurePosixPath(target).suffix.lower()
    return bool(suffix) and suffix != ".md" and " " not in suffix


def find_attachments(root: Path, note_path: str, targets: set[str]) -> dict[str, str]:
    """target -> its vault path, for the `targets` that exist as files."""
    found: dict[str, str] = {}
    note_dir = PurePosixPath(note_path).parent
    for target in targets:
        for rel in (str(note_dir / target), target):
            if _is_file(root, rel):
                found[target] = str(PurePosixPath(rel))
                break
    by_name = {PurePosixPath(t).name: t for t in targets - found.keys() if "/" not in t}
    if by_name:
        for rel in _vault_files(root, set(by_name)):
            target = by_name[PurePosixPath(rel).name]
            if target not in found or len(rel) < len(found[target]):
                found[target] = rel
    return found


def missing_attachments(root: Path, links: list[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """For the (note path, target) links that name an attachment: whether that file is missing,
    found as `find_attachments` finds it with one walk of the vault at most. Links to notes are left
    out."""
    wanted = [(src, t) for src, t in links if is_attachment_name(t)]
    by_name = find_attachments(root, "", {t for _, t in wanted if "/" not in t})
    return {
        (src, t): t not in by_name
        if "/" not in t
        else not (_is_file(root, str(PurePosixPath(src).parent / t)) or _is_file(root, t))
        for src, t in wanted
    }


def _is_file(root: Path, rel: str) -> bool:
    try:
        return resolve_inside(root, rel).is_file()
    except (PathOutsideVaultError, OSError, ValueError):
        return False


def _vault_files(root: Path, names: set[str]) -> list[str]:
    """Vault paths of the files named one of `names`, outside hidden folders and no deeper than the
    scan walks (`MAX_DEPTH`: a deeper tree would exhaust `os.walk`'s recursion)."""
    from k0maru.index.walker import MAX_DEPTH

    hits = []
    top = len(root.parts)
    for folder, dirs, files in os.walk(root):
        below = len(Path(folder).parts) - top < MAX_DEPTH
        dirs[:] = [d for d in dirs if not d.startswith(".")] if below else []
        for name in names.intersection(files):
            hits.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return hits
