"""Shared fixtures: real vaults in temp dirs, real SQLite + sqlite-vec, the real ONNX model.

Two guards keep the test tiers honest: a test not marked `slow` may not start a process, and no
process a test started (however indirectly) may outlive the suite."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

from tests.helpers import DEMO_VAULT, run_k0maru

# Every process the suite starts inherits this variable, so one left behind can be found by it.
RUN_MARK = "K0MARU_TEST_RUN"
os.environ[RUN_MARK] = uuid.uuid4().hex
SPAWN_EVENTS = ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.fork", "os.system")
_spawned: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event in SPAWN_EVENTS:
        _spawned.append(f"{event} {args[1] if len(args) > 1 else args}"[:200])


sys.addaudithook(_audit)


@pytest.fixture(autouse=True)
def _fast_tests_start_no_process(request: pytest.FixtureRequest) -> Iterator[None]:
    """The fast tier runs in-process: a test that starts a process must carry
    `@pytest.mark.slow`."""
    _spawned.clear()
    yield
    if request.node.get_closest_marker("slow") is None and _spawned:
        pytest.fail(f"a test not marked slow started a process: {_spawned[0]}; mark it slow")


def _ours() -> list[int]:
    """Processes other than this one whose environment carries this run's mark."""
    needle = f"{RUN_MARK}={os.environ[RUN_MARK]}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = open(f"/proc/{entry}/environ", "rb").read()  # noqa: SIM115
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


@pytest.fixture(scope="session", autouse=True)
def _no_process_outlives_the_suite() -> Iterator[None]:
    """Fail (and end them) if processes the tests started are still running a while after the last
    test."""
    yield
    if not os.path.isdir("/proc"):
        return
    deadline = time.monotonic() + 60  # a loaded machine ends them late, not never
    while (left := _ours()) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes started by the tests outlived the suite: {left}"


@pytest.fixture
def k0(tmp_path: Path) -> Callable[..., CompletedProcess[str]]:
    def call(*args: str, **kw: Any) -> CompletedProcess[str]:
        kw.setdefault("cwd", tmp_path)
        return run_k0maru(*args, **kw)

    return call


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """An empty vault folder."""
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture(scope="session")
def _indexed_demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo vault indexed once per session (embeddings included)."""
    root = tmp_path_factory.mktemp("demo-template") / "vault"
    shutil.copytree(DEMO_VAULT, root, ignore=shutil.ignore_patterns(".k0maru"))
    from k0maru.wiring.vault import Vault

    with Vault.open(root) as v:
        report = v.index()
        assert report.scan.added >= 40 and report.embedded > 0
    return root


@pytest.fixture
def demo(tmp_path: Path, _indexed_demo_template: Path) -> Path:
    """A private copy of the indexed demo vault."""
    root = tmp_path / "demo"
    shutil.copytree(_indexed_demo_template, root)
    return root


@pytest.fixture
def console_url(demo: Path) -> Iterator[str]:
    """`k0maru ui` over a copy of the indexed demo vault, on a free port: its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "k0maru", "ui", "--vault", str(demo), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline())
        assert m, proc.stderr.read()
        yield m.group(1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
