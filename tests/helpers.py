"""Helpers the tests share: paths, the real CLI in a subprocess, a real scan, writing notes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from k0maru.index.scan_result import ScanResult

REPO = Path(__file__).resolve().parents[1]
DEMO_VAULT = REPO / "examples" / "vault"
# The type of the `k0` fixture (conftest.py): the real CLI in a subprocess, run in tmp_path.
K0 = Callable[..., subprocess.CompletedProcess[str]]


def run_k0maru(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 180,
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (python -m k0maru)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "k0maru", *args],
        cwd=cwd,
        env=full_env,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def scan(root: Path, **settings: Any) -> ScanResult:
    """One lexical scan of `root` with the real scanner and store (no embeddings)."""
    from k0maru.config import load_settings
    from k0maru.index.scanner import IncrementalScanner
    from k0maru.index.store import Store

    with Store.open(root) as store:
        return IncrementalScanner(store, load_settings(root, embed=False, **settings)).scan()


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def png_pixels(data: bytes) -> list[tuple[int, ...]]:
    """The pixels of an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium's screenshots are),
    decoded with zlib alone: enough to tell whether anything is drawn in a region."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and interlace == 0 and color in (2, 6)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride, out, prev = (
        zlib.decompress(idat),
        width * channels,
        [],
        bytearray(width * channels),
    )
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += [tuple(line[x : x + channels]) for x in range(0, stride, channels)]
        prev = line
    return out


def errors(stderr: str) -> str:
    """A command's stderr less the line naming the vault it used (`k0maru: vault DIR`)."""
    return "".join(
        line for line in stderr.splitlines(keepends=True) if not line.startswith("k0maru: vault ")
    )


def stored_log(path: Path) -> bytes:
    """The bytes of a kept log as the command wrote them: a `.log.gz` ref decompressed by the
    standard gzip reader (not ours), a plain `.log` as it is."""
    import gzip

    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def wait_for_worker(vault: Path, seconds: float) -> None:
    """Until the indexing worker of `vault` has exited, at most `seconds`: no process outlives a
    test."""
    from k0maru.service import worker

    deadline = time.monotonic() + seconds
    while worker.running(vault) and time.monotonic() < deadline:
        time.sleep(0.5)


def until(found: Callable[[], object], budget_s: float = 60) -> bool:
    """Whether `found()` comes true within a generous budget (a loaded machine is slow, not
    broken)."""
    deadline = time.monotonic() + budget_s
    while not found():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
