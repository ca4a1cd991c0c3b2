"""Reading fetched repository snapshots (bare git directories) for the evaluation scripts: run
git in one, list a folder's files, read one file, or many blobs in one `cat-file --batch` call."""

from __future__ import annotations

import subprocess
from pathlib import Path

MIRRORS = Path("/work/.mirror")


def git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args], capture_output=True, check=True
    ).stdout


def ls(mirror: Path, *folders: str, rev: str = "HEAD") -> list[str]:
    """The paths of the files under `folders` at `rev`."""
    listing = git(mirror, "ls-tree", "-r", "-z", "--name-only", rev, *folders).decode()
    return listing.split("\0")[:-1]


def files(mirror: Path, rev: str) -> list[tuple[str, str, int | None]]:
    """(blob sha, path, size) of each regular file at `rev` (symbolic links left out); the size is
    None for a blob the snapshot lacks (git says `BAD`)."""
    listing = git(mirror, "ls-tree", "-r", "-l", "-z", rev).decode("utf-8", "replace")
    out: list[tuple[str, str, int | None]] = []
    for entry in listing.split("\0")[:-1]:
        meta, _, path = entry.partition("\t")
        mode, kind, sha, size = meta.split()
        if kind == "blob" and mode != "120000":
            out.append((sha, path, int(size) if size.isdigit() else None))
    return out


def show(mirror: Path, path: str, rev: str = "HEAD") -> str:
    return git(mirror, "show", f"{rev}:{path}").decode()


def blobs(mirror: Path, names: list[str]) -> list[bytes | None]:
    """The content of each object name (a sha, or `REV:path`); None for one the snapshot lacks
    (big ones may be absent)."""
    if not names:
        return []
    batch = subprocess.run(
        ["git", "--git-dir", str(mirror), "cat-file", "--batch"],
        input="".join(f"{name}\n" for name in names).encode(),
        capture_output=True,
        check=True,
    ).stdout
    out: list[bytes | None] = []
    pos = 0
    for _ in names:
        header_end = batch.index(b"\n", pos)
        header = batch[pos:header_end].split()
        pos = header_end + 1
        if len(header) < 3 or header[-1] == b"missing":
            out.append(None)
            continue
        length = int(header[2])
        out.append(batch[pos : pos + length])
        pos += length + 1
    return out


def write_blobs(mirror: Path, wanted: list[tuple[str, str]], dest: Path) -> None:
    """Each (blob sha, path) of `wanted` written at `dest / path`; one the snapshot lacks is
    passed over."""
    for (_, path), data in zip(wanted, blobs(mirror, [sha for sha, _ in wanted]), strict=True):
        if data is not None:
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            (dest / path).write_bytes(data)
