"""Where k0maru keeps its state in a vault, and which vault a command means. Imports nothing heavy:
the git hooks start with it and must stay short."""

from __future__ import annotations

import os

from k0maru.errors import ConfigError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing
if TYPE_CHECKING:
    from pathlib import Path

STATE_DIR = ".k0maru"
CONFIG_FILE = "config.toml"
DB_FILE = "index.sqlite"


def find_vault(start: Path | None = None, create: bool = False) -> Path:
    """The nearest folder at or above `start` that already holds `.k0maru/` (not above the enclosing
    git repository's root), else that repository's root. Outside any repository and any vault,
    `start` itself only with `create` (`k0maru init`); otherwise a one-line refusal, so a command
    run in an unrelated folder does not silently make it a vault."""
    from pathlib import Path  # imported where used: a no-change scan works on strings (#62)

    from k0maru.gitutil import repo_root

    start = (start or Path.cwd()).resolve()
    repo = repo_root(start)
    for folder in (start, *start.parents):
        if (folder / STATE_DIR).is_dir():
            return own_state_dir(folder)
        if folder == repo:
            return own_state_dir(repo)
    if create:
        return own_state_dir(start)
    raise ConfigError(
        f"{start} is not a k0maru vault nor inside a git repository",
        hint="run `k0maru init` to make it one, or pass --vault DIR",
    )


def resolve_vault(explicit: str | os.PathLike[str] | None, create: bool = False) -> Path:
    """The vault a command means: `--vault`, else $K0MARU_VAULT, else `find_vault` from the cwd."""
    chosen = explicit or os.environ.get("K0MARU_VAULT")
    if chosen:
        from pathlib import Path

        path = Path(chosen).expanduser().resolve()
        if not path.is_dir():
            raise ConfigError(
                f"vault {path} is not a directory", hint="pass --vault DIR with an existing folder"
            )
        return own_state_dir(path)
    return find_vault(create=create)


def own_state_dir(root: Path) -> Path:
    """`root`, once its `.k0maru` is known to be absent or a folder of its own: a symlink (a
    committed `.k0maru -> ../elsewhere`) or a file there is refused, so nothing is ever written
    outside the vault."""
    state = root / STATE_DIR
    if state.is_symlink() or (os.path.lexists(state) and not state.is_dir()):
        what = "a symbolic link" if state.is_symlink() else "not a folder"
        raise ConfigError(
            f"{state} is {what}",
            hint="k0maru keeps its index there and writes only inside the vault: "
            "remove it (k0maru creates the folder)",
        )
    return root
