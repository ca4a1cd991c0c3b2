"""`k0maru mcp`'s engine process (mcp/engine.py), driven through the server by the SDK's stdio client:
calls reach it and come back to their callers, its death costs one line and no session, and it never
outlives the server."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.mcp.test_mcp import run_session

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)


def engine_pids(vault: Path) -> list[int]:
    """The engine processes serving `vault` (found by their command lines in /proc)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"k0maru.mcp.engine" in part for part in cmd) and str(vault).encode() in cmd:
            pids.append(int(proc.name))
    return pids


def wait_until(check, seconds: float = 20) -> bool:  # noqa: ANN001 - a predicate
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


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


def test_a_call_in_flight_when_the_engine_dies_goes_once_to_a_new_one(demo: Path) -> None:
    """Calls the engine did not answer because it was killed go to a new engine (every tool is
    idempotent); one whose second engine is killed too fails with one line naming what happened. The
    session goes on."""

    async def calls(s: ClientSession, kills: int, *requests: tuple[str, dict]) -> list:
        answers: dict[int, object] = {}

        async def call(i: int, name: str, arguments: dict) -> None:
            answers[i] = await s.call_tool(name, arguments)

        (engine,) = engine_pids(demo)
        os.kill(engine, signal.SIGSTOP)  # it cannot answer: each call is in flight when it dies
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(anyio.to_thread.run_sync, _kill_engines, demo, engine, kills)
                for i, (name, arguments) in enumerate(requests):
                    group.start_soon(call, i, name, arguments)
        return [answers[i] for i in range(len(requests))]

    async def body(s: ClientSession) -> list:
        recall = ("recall_memory", {"query": "SQLITE_BUSY", "limit": 2})
        read = ("read_note", {"path": "20_Cards/feature-flags.md"})
        flush = ("flush_session", {"title": "Kept", "body": "x", "kind": "card"})
        return [
            *await calls(s, 1, recall, flush),
            *await calls(s, 2, read),
            await s.call_tool(*read),
        ]

    recall, flush, lost, after = run_session(demo, body)
    assert not recall.is_error and recall.structured_content["hits"]
    assert not flush.is_error and flush.structured_content["outcome"] == "created"
    assert lost.is_error and len(lost.content[0].text.splitlines()) == 1
    assert "engine process ended (killed by signal 9" in lost.content[0].text
    assert not after.is_error, after.content


def _kill_engines(vault: Path, stopped: int, count: int) -> None:
    """Kill the `stopped` engine of `vault` 0.5 s on, then each of the next `count - 1` engines as
    soon as it starts: stopped at once, killed 0.5 s later."""
    killed: set[int] = set()
    pid = stopped
    for _ in range(count):
        time.sleep(0.5)
        os.kill(pid, signal.SIGKILL)
        killed.add(pid)
        if len(killed) < count:
            assert wait_until(lambda: bool(set(engine_pids(vault)) - killed), 60)
            (pid,) = set(engine_pids(vault)) - killed
            os.kill(pid, signal.SIGSTOP)


def test_an_idle_engine_that_died_is_replaced_by_the_next_call(demo: Path) -> None:
    async def body(s: ClientSession) -> object:
        (old,) = engine_pids(demo)
        os.kill(old, signal.SIGKILL)
        assert await anyio.to_thread.run_sync(wait_until, lambda: old not in engine_pids(demo))
        return await s.call_tool("read_note", {"path": "20_Cards/feature-flags.md"})

    res = run_session(demo, body)
    assert not res.is_error, res.content


def test_the_engine_never_outlives_the_server(demo: Path) -> None:
    """It ends when the server closes, and when the server is killed outright (its pipe closes)."""

    async def body(s: ClientSession) -> list[int]:
        return engine_pids(demo)

    assert len(run_session(demo, body)) == 1
    assert wait_until(lambda: not engine_pids(demo))
    server = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "mcp", "--vault", str(demo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: len(engine_pids(demo)) == 1)
    finally:
        server.kill()
        server.wait()
    assert wait_until(lambda: not engine_pids(demo))


def test_a_vault_the_engine_cannot_open_ends_the_server_with_its_one_line(tmp_path: Path) -> None:
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


def test_on_one_core_the_tools_run_in_the_server_itself(demo: Path) -> None:
    """Pinned to one CPU, `k0maru mcp` starts no engine (it would only compete with the server) and
    answers the same."""
    pinned = (
        "import os, runpy, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "sys.argv = ['k0maru', 'mcp', '--vault', sys.argv[1]]; runpy.run_module('k0maru', run_name='__main__')"
    )

    async def main() -> tuple[list[int], object, object]:
        params = StdioServerParameters(command=sys.executable, args=["-c", pinned, str(demo)])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            recall = await s.call_tool("recall_memory", {"query": "SQLITE_BUSY", "limit": 2})
            note = await s.call_tool("read_note", {"path": "20_Cards/feature-flags.md"})
            return engine_pids(demo), recall, note

    engines, recall, note = anyio.run(main)
    assert engines == []
    assert not recall.is_error and recall.structured_content["hits"]
    assert not note.is_error and note.structured_content["path"] == "20_Cards/feature-flags.md"
