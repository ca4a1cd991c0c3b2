"""Shared fixtures: real vaults in temp dirs, real SQLite + sqlite-vec, the real ONNX model."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO_VAULT = REPO / "examples" / "vault"


def run_k0maru(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: str | None = None,
               timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (python -m k0maru)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "k0maru", *args], cwd=cwd, env=full_env, input=input,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def k0(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
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


def scan(root: Path, **settings):
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
