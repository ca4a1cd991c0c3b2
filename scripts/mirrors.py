"""Reading fetched repository snapshots (bare git directories) for the evaluation scripts: run
git in one, and write a list of its blobs into a folder in one `cat-file --batch` call."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args], capture_output=True, check=True
    ).stdout


def write_blobs(mirror: Path, wanted: list[tuple[str, str]], dest: Path) -> None:
    """Each (blob sha, path) of `wanted` written at `dest / path`; a blob the snapshot lacks (big
    ones may be absent) is passed over."""
    if not wanted:
        return
    batch = subprocess.run(
        ["git", "--git-dir", str(mirror), "cat-file", "--batch"],
        input="".join(f"{sha}\n" for sha, _ in wanted).encode(),
        capture_output=True,
        check=True,
    ).stdout
    pos = 0
    for _, path in wanted:
        header_end = batch.index(b"\n", pos)
        header = batch[pos:header_end].split()
        pos = header_end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        length = int(header[2])
        data = batch[pos : pos + length]
        pos += length + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
