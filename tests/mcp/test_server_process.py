"""`k0maru mcp` as one process, driven by the SDK's stdio client: concurrent calls each get their
own answer, it starts no other process, and a vault it cannot open is one line to every call."""

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

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


def refused_session(vault: Path, errlog: Path) -> tuple[CallToolResult, CallToolResult, str]:
    """A recall and a read_note over a real stdio client, and what the resource list said."""

    async def main() -> tuple[CallToolResult, CallToolResult, str]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "k0maru", "mcp", "--vault", str(vault)]
        )
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                recall = await s.call_tool("recall_memory", {"query": "backup"})
                note = await s.call_tool("read_note", {"path": "a.md"})
                try:
                    await s.list_resources()
                    listed = "listed"
                except MCPError as exc:
                    listed = exc.error.message
                return recall, note, listed

    return anyio.run(main)


@pytest.mark.parametrize("state", ["gone", "symlink", "file", "bad-config"])
def test_a_vault_it_cannot_open_answers_each_call_with_its_one_line(
    tmp_path: Path, state: str
) -> None:
    """The server stays up: every call (and the resource list) answers why, never a closed
    connection; the line goes to stderr too."""
    vault, other = tmp_path / "v", tmp_path / "other"
    (other / ".k0maru").mkdir(parents=True)
    if state != "gone":
        vault.mkdir()
        (vault / "a.md").write_text("# a\n")
    if state == "symlink":
        (vault / ".k0maru").symlink_to(other / ".k0maru")
    elif state == "file":
        (vault / ".k0maru").write_text("x")
    elif state == "bad-config":
        (vault / ".k0maru").mkdir()
        (vault / ".k0maru" / "config.toml").write_text("pool_min = 'sixty'\n")
    expected = {
        "gone": f"vault {vault} is not a directory; pass --vault DIR with an existing folder",
        "symlink": f"{vault / '.k0maru'} is a symbolic link;",
        "file": f"{vault / '.k0maru'} is not a folder;",
        "bad-config": "pool_min",
    }[state]
    recall, note, listed = refused_session(vault, tmp_path / "err.txt")
    texts = []
    for answer in (recall, note):
        (block,) = answer.content
        assert answer.is_error and isinstance(block, TextContent)
        texts.append(block.text)
    assert texts[0] == texts[1] and expected in texts[0]
    assert "\n" not in texts[0] and "Traceback" not in texts[0]
    assert expected in listed
    err = (tmp_path / "err.txt").read_text()
    assert f"k0maru: error: {texts[0]}\n" in err and "Traceback" not in err
    assert not (other / ".k0maru" / "index.sqlite").exists()  # nothing written through the link


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
