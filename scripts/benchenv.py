"""The state the benchmarks start k0maru's processes in: a user's install. pip compiles a package's
modules when it installs it, and Python keeps those it compiles later; with PYTHONDONTWRITEBYTECODE
set (as on some CI and sandbox machines) and an editable install, every process would compile
k0maru's modules again, and a start-up time would measure the compiler (100-270 ms of a CLI search
on the 2-core machine)."""

from __future__ import annotations

import compileall
import os
from pathlib import Path


def like_a_users_install() -> None:
    """Compile k0maru's modules now, and let the processes started later keep what they compile
    (another checkout's, with `--code`)."""
    import k0maru

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(Path(k0maru.__file__).parent, quiet=1)
