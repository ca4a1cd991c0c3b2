"""A fuzz of generated vault trees (#61): names in any bytes, any file time, sizes, file types and
nesting, seeded. The oracle: every command answers (exit 0, or 2 with one `k0maru: error:` line),
never a traceback or a hang, and the notes found open by the paths given. Slow tier: it runs the
real `k0maru` command, about 25 s in all."""

from __future__ import annotations

import contextlib
import json
import os
import random
from pathlib import Path

import pytest

from tests.helpers import run_k0maru

pytestmark = pytest.mark.slow

NAMES = ["note", "Ünïcödé", "with space", "a\u202eb", "zero\u200bwidth", "tab\tname", "x" * 200]
BODIES = [
    b"# Title\n\nquokka words here\n",
    b"",
    b"\x00\x01binary\xff",
    "# UTF-16\n".encode("utf-16"),
    b"caf\xe9 latin-1",
    b"[" * 5000 + b"<!--" * 2000,
    b"# " * 3000 + b"x\n" + b"> " * 3000 + b"deep\n",
    b"---\ntags: [a, b\n---\n# Broken frontmatter\n",
    b"z" * 2_100_000,  # over max_file_bytes
]
TIMES = [0, 1, 4_102_444_800, 2**33, 9_000_000_000, -1]  # 1970, 2100, 2242, past 2262, before 1970


def name(rng: random.Random) -> bytes:
    base = rng.choice(NAMES).encode()
    if rng.random() < 0.15:
        base += b"\xff\xfe"  # not valid UTF-8
    return base


def build(root: Path, rng: random.Random, files: int) -> None:
    for i in range(files):
        depth = rng.choice([0, 0, 1, 2, 5, 70])
        folder = os.path.join(os.fsencode(root), *[name(rng)[:20] + b"d" for _ in range(depth)])
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, name(rng) + f"-{i}".encode() + rng.choice([b".md", b".txt"]))
        kind = rng.random()
        if kind < 0.05:
            os.mkfifo(path)
            continue
        if kind < 0.1:
            os.symlink(rng.choice([b"/etc/hostname", b"..", b"missing.md"]), path)
            continue
        if kind < 0.13:
            os.makedirs(path, exist_ok=True)  # a folder named like a note
            continue
        with open(path, "wb") as f:
            f.write(rng.choice(BODIES))
        when = rng.choice(TIMES)
        with contextlib.suppress(OSError, OverflowError):  # a time the filesystem cannot hold
            os.utime(path, (when, when))


def answers(vault: Path, *args: str) -> str:
    r = run_k0maru(*args, "--vault", str(vault), env={"K0MARU_EMBED": "false"}, timeout=60)
    assert "Traceback" not in r.stderr, (args, r.stderr[-2000:])
    assert r.returncode in (0, 2), (args, r.returncode, r.stderr[-500:])
    if r.returncode == 2:
        assert r.stderr.count("k0maru: error:") == 1, r.stderr
    return r.stdout


@pytest.mark.parametrize("seed", range(1, 7))
def test_every_command_answers_on_a_generated_vault(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    vault = tmp_path / "vault"
    vault.mkdir()
    build(vault, rng, 60)
    answers(vault, "init")
    answers(vault, "scan", "--no-embed")
    answers(vault, "status")
    out = answers(vault, "search", "--json", "quokka words")
    answers(vault, "search", "[[[")
    hits = json.loads(out)["hits"]
    assert hits  # the plain notes among the generated files are found
    for hit in hits[:3]:  # each path as --json gives it opens
        assert "quokka" in answers(vault, "show", hit["path"])
    answers(vault, "show", "no-such-note.md")
