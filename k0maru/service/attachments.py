"""Where a note's links to attachments (an image, a PDF: files that are not notes) lead, found as
Obsidian finds them: beside the note, from the vault's root, else the file of that name anywhere in
the vault (the shortest path). Hidden folders (`.git`, `.obsidian`, `.k0maru`) hold no
attachments."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from k0maru.errors import NotFoundError, PathOutsideVaultError
from k0maru.fsutil import open_regular, resolve_inside
from k0maru.limits import echo

IMAGE_TYPES = {  # the images a note page shows where a note embeds them (never SVG: it holds script)
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp",
}  # fmt: skip
AUDIO_TYPES = {  # Obsidian's audio embeds, shown as an <audio> player
    ".mp3": "audio/mpeg", ".wav": "audio/wav", ".m4a": "audio/mp4", ".ogg": "audio/ogg",
    ".flac": "audio/flac", ".3gp": "audio/3gpp", ".webm": "audio/webm",
}  # fmt: skip
SERVED_TYPES = {  # what `/files/` serves: the embeds Obsidian shows (never SVG or HTML: script)
    **IMAGE_TYPES, **AUDIO_TYPES, ".mp4": "video/mp4", ".ogv": "video/ogg", ".mov": "video/quicktime",
    ".mkv": "video/x-matroska", ".pdf": "application/pdf",
}  # fmt: skip
MAX_SERVED_BYTES = 512 << 20  # a bigger attachment is not served (a recording of hours)


def is_attachment_name(target: str) -> bool:
    """Whether a link target names a file other than a note (it has a suffix, not `.md`; a
    Markdown link's `#anchor` aside: `gone.md#sec` names a note)."""
    suffix = PurePosixPath(target.split("#", 1)[0]).suffix.lower()
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


def open_served(root: Path, path: str) -> tuple[BinaryIO, str, int]:
    """The attachment at vault `path` opened for the console to send, with its media type and size:
    a regular file of a `SERVED_TYPES` type, inside the vault once its symlinks are followed and
    outside its hidden folders, of at most `MAX_SERVED_BYTES`; anything else is not found."""
    try:
        real = resolve_inside(root, path)
        rel = PurePosixPath(real.relative_to(root.resolve()).as_posix())
    except (PathOutsideVaultError, OSError, ValueError):
        rel = PurePosixPath(".")
    media = SERVED_TYPES.get(rel.suffix.lower())
    hidden = any(part.startswith(".") for part in rel.parts)
    if media is None or hidden:
        raise NotFoundError(f"no attachment {echo(path)} the console serves", what="file")
    try:
        file = open_regular(real)
    except (OSError, ValueError):
        raise NotFoundError(f"no attachment {echo(path)} in the vault", what="file") from None
    size = os.fstat(file.fileno()).st_size
    if size > MAX_SERVED_BYTES:
        file.close()
        raise NotFoundError(
            f"{echo(path)} is larger than the console serves ({MAX_SERVED_BYTES >> 20} MiB)",
            what="file",
        )
    return file, media, size
