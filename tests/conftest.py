"""Shared fixtures: real vaults in temp dirs, real SQLite + sqlite-vec, the real ONNX model."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tests.helpers import DEMO_VAULT, run_k0maru

PR_SET_CHILD_SUBREAPER = 36


def _live_children() -> dict[int, str]:
    """This process's children that are still running (zombies reaped), pid -> command line."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    found = {}
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            if fields[1] != me or fields[0] == "Z":
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                found[int(entry)] = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
    return found


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_suite() -> Iterator[None]:
    """Fail the run when a process a test started (a server, a hook's worker, a grandchild) is still
    running at the end: pytest is made the subreaper, so orphans become its children and are seen."""
    if not os.path.isdir("/proc"):
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    before = set(_live_children())
    yield
    deadline = time.monotonic() + 20  # a hook's background worker exits once it has caught up
    left = {p: c for p, c in _live_children().items() if p not in before}
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = {p: c for p, c in _live_children().items() if p not in before}
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    _live_children()
    assert not left, f"processes outlived the test suite: {left}"


@pytest.fixture
def k0(tmp_path: Path) -> Callable[..., CompletedProcess[str]]:
    def call(*args: str, **kw):
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
    from k0maru.service.vault import Vault

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
