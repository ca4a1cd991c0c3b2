"""Files shipped inside the package (console templates and static assets, git hook templates, the
WordPiece vocabulary, the o200k BPE vocabulary of the token counter), read through this one
loader."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """A file or folder under `k0maru/resources/` as a real path (the package is installed as
    files)."""
    return Path(str(resources.files(__name__).joinpath(*parts)))


def resource_text(*parts: str) -> str:
    return resource_path(*parts).read_text(encoding="utf-8")
