"""One true index under a long-running console: real `k0maru ui` processes, real one-shot CLI
commands beside them, real HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_k0maru, write

pytestmark = pytest.mark.slow
ENV = {"K0MARU_EMBED": "false"}  # the lock hazard needs no model; it keeps the test short


def get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=60) as resp:
        data: dict[str, Any] = json.loads(resp.read())
        return data


def console_paths(base: str, query: str) -> list[str]:
    data = get(f"{base}api/search?q={urllib.parse.quote(query)}&mode=bm25")
    return [h["path"] for h in data["hits"]]


def cli_paths(vault: Path, query: str) -> list[str]:
    r = run_k0maru("search", query, "--vault", str(vault), "--mode", "bm25", "--json", env=ENV)
    assert r.returncode == 0, r.stderr
    return [h["path"] for h in json.loads(r.stdout)["hits"]]


def locks_of(pid: int) -> int:
    with open("/proc/locks", encoding="ascii") as fh:
        return sum(1 for line in fh if line.split()[4] == str(pid))


@pytest.fixture
def console(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen[str]]]:
    vault = tmp_path / "v"
    for i in range(8):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nLease renewal, note {i}.\n")
    assert run_k0maru("scan", "--vault", str(vault), env=ENV).returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "ui", "--vault", str(vault), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **ENV},
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
        assert m, proc.stderr.read()
        yield vault, m.group(1), proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")
def test_console_and_one_shot_commands_share_one_index(
    console: tuple[Path, str, subprocess.Popen[str]],
) -> None:
    vault, base, proc = console
    for round_ in range(3):
        write(vault, f"live/console{round_}.md", f"# Console {round_}\n\nmarkerconsole{round_}\n")
        time.sleep(2.2)  # past the console's rescan interval
        assert console_paths(base, f"markerconsole{round_}") == [f"live/console{round_}.md"]
        time.sleep(
            2.2
        )  # past the console's rescan interval: its next request reads the index again
        assert console_paths(base, "lease renewal")
        assert locks_of(proc.pid) > 0, "the console lost its SQLite locks"
        # a one-shot command sees what the console indexed, without indexing it again
        assert cli_paths(vault, f"markerconsole{round_}") == [f"live/console{round_}.md"]
        r = run_k0maru(
            "flush", "--vault", str(vault), "--kind", "decision", "--title", f"CLI {round_}",
            input=f"markercli{round_} from the command line\n", env=ENV,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        # ... and the console sees what the one-shot command indexed
        assert console_paths(base, f"markercli{round_}"), f"round {round_}"
        assert get(f"{base}api/status")["documents"] == 9 + 2 * round_ + 1
    assert locks_of(proc.pid) > 0
    proc.terminate()
    _, err = proc.communicate(timeout=20)
    assert "disk I/O error" not in err and "error" not in err.lower(), err
