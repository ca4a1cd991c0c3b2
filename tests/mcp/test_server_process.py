"""`k0maru mcp` as one process, driven by the SDK's stdio client: concurrent calls each get their
own answer, it starts no other process, and a vault it cannot open ends it with one line."""

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from tests.mcp.test_mcp import run_session

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # it ended meanwhile
        return b""


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(int(proc.name))
    return found


def test_concurrent_calls_each_get_their_own_answer(demo: Path) -> None:
    paths = sorted(str(p.relative_to(demo)) for p in (demo / "20_Cards").glob("*.md"))[:6]
    assert len(paths) == 6

    async def body(s: ClientSession) -> dict[str, str]:
        answers: dict[str, str] = {}

        async def read(path: str) -> None:
            res = await s.call_tool("read_note", {"path": path})
            assert not res.is_error, res.content
            answers[path] = res.structured_content["path"]

        async with anyio.create_task_group() as group:
            for path in paths * 2:
                group.start_soon(read, path)
        return answers

    assert run_session(demo, body) == {p: p for p in paths}


def test_a_vault_it_cannot_open_ends_the_server_with_its_one_line(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "k0maru", "mcp", "--vault", str(tmp_path / "gone")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    assert out.stdout == "" and out.stderr == (
        f"k0maru: error: vault {tmp_path / 'gone'} is not a directory; pass --vault DIR with an "
        "existing folder\n"
    )


def test_the_tools_run_in_the_server_itself(demo: Path) -> None:
    """`k0maru mcp` runs the tools in its own process: it starts none but the background worker
    (which the index may ask for) and answers."""
    code = (
        "import os, runpy, sys; sys.argv = ['k0maru', 'mcp', '--vault', sys.argv[1]]; "
        "runpy.run_module('k0maru', run_name='__main__')"
    )

    async def main() -> tuple[list[int], CallToolResult, CallToolResult]:
        params = StdioServerParameters(command=sys.executable, args=["-c", code, str(demo)])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            recall = await s.call_tool("recall_memory", {"query": "SQLITE_BUSY", "limit": 2})
            note = await s.call_tool("read_note", {"path": "20_Cards/feature-flags.md"})
            server = [p for p in children(os.getpid()) if b"mcp" in command_line(p)]
            spawned = [c for p in server for c in children(p)]
            return [c for c in spawned if b"worker" not in command_line(c)], recall, note

    spawned, recall, note = anyio.run(main)
    assert spawned == []
    assert not recall.is_error and recall.structured_content["hits"]
    assert not note.is_error and note.structured_content["path"] == "20_Cards/feature-flags.md"
