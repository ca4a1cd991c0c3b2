"""Where k0maru keeps its state in a vault, and which vault a command means. Imports nothing heavy: the
git hooks start with it and must stay short."""

from __future__ import annotations

import os
from pathlib import Path

from k0maru.errors import ConfigError

STATE_DIR = ".k0maru"
CONFIG_FILE = "config.toml"
DB_FILE = "index.sqlite"


def find_vault(start: Path | None = None) -> Path:
    """The enclosing git repository's root, else the start directory."""
    from k0maru.gitutil import repo_root

    start = (start or Path.cwd()).resolve()
    return repo_root(start) or start


def resolve_vault(explicit: str | os.PathLike[str] | None) -> Path:
    """The vault a command means: `--vault`, else $K0MARU_VAULT, else the enclosing repository or cwd."""
    chosen = explicit or os.environ.get("K0MARU_VAULT")
    if chosen:
        path = Path(chosen).expanduser().resolve()
        if not path.is_dir():
            raise ConfigError(
                f"vault {path} is not a directory; pass --vault DIR with an existing folder"
            )
        return path
    return find_vault()
