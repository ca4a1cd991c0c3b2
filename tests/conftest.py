"""Shared fixtures: real vaults in temp dirs, real SQLite + sqlite-vec, the real ONNX model."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tests.helpers import DEMO_VAULT, run_k0maru


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
