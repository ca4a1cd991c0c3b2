"""Helpers the tests share: paths, the real CLI in a subprocess, a real scan, writing notes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO_VAULT = REPO / "examples" / "vault"


def run_k0maru(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, input: str | None = None,
               timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (python -m k0maru)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "k0maru", *args], cwd=cwd, env=full_env, input=input,
                          capture_output=True, text=True, timeout=timeout)


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
