"""Installing plain git hooks without clobbering existing ones (an existing hook is kept and
chained), removing them, and reporting which hooks run and whether the index is current."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

from k0maru.errors import K0maruError
from k0maru.fsutil import read_text
from k0maru.githooks.run import pending_adrs
from k0maru.gitutil import hooks_dir
from k0maru.layout import STATE_DIR
from k0maru.resources import resource_text
from k0maru.service import worker

HOOK_TYPES = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
MARKER = "# k0maru-managed hook"
CHAINED_SUFFIX = ".k0maru-chained"
DOUBLE = " -- DOUBLE INSTALL: k0maru runs twice per git event"


FIND_K0MARU = """K0MARU_PYTHON={python}  # the Python that installed the hook, else k0maru on PATH
if [ -z "$K0MARU" ]; then
  if [ -x "$K0MARU_PYTHON" ]; then
    K0MARU="$K0MARU_PYTHON -m k0maru"
  elif command -v k0maru >/dev/null 2>&1; then
    K0MARU=k0maru
  else
    echo "k0maru: hook skipped: $K0MARU_PYTHON is gone and k0maru is not on PATH; reinstall k0maru, then run: k0maru hooks install" >&2
    exit 0
  fi
fi"""


def _script(hook: str, chained: bool) -> str:
    body = resource_text("hooks", hook).replace(
        'K0MARU="${K0MARU:-k0maru}"', FIND_K0MARU.format(python=shlex.quote(sys.executable))
    )
    lines = body.splitlines()
    head, rest = lines[0], lines[1:]
    chain = []
    if chained:
        if (
            hook == "post-rewrite"
        ):  # git passes the rewritten commits on stdin: give them to the old hook
            chain = [
                "input=$(cat)",
                f'printf "%s\\n" "$input" | "$(dirname "$0")/{hook}{CHAINED_SUFFIX}" "$@"',
            ]
        else:
            chain = [f'"$(dirname "$0")/{hook}{CHAINED_SUFFIX}" "$@"']
        chain.append("chained_status=$?")
    out = [head, MARKER, *chain, *rest]
    if chained:
        out = [line.replace("exit 0", "exit $chained_status") for line in out]
    return "\n".join(out) + "\n"


def install(repo: Path) -> list[str]:
    target = hooks_dir(repo)
    _refuse_double(repo, target)
    target.mkdir(parents=True, exist_ok=True)
    done = []
    for hook in HOOK_TYPES:
        path = target / hook
        chained = target / f"{hook}{CHAINED_SUFFIX}"
        if path.exists() and MARKER not in _read(path):
            if chained.exists():
                raise RuntimeError(
                    f"{chained} already exists; resolve it by hand before installing"
                )
            path.replace(chained)
            done.append(f"{hook}: kept your hook as {chained.name}, chained before k0maru")
        else:
            done.append(f"{hook}: installed")
        path.write_text(_script(hook, chained.exists()), encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return done


def _refuse_double(repo: Path, target: Path) -> None:
    """Before anything is written: pre-commit already runs k0maru here, and plain hooks chained
    before its hooks would run k0maru twice per git event."""
    if not _precommit_has_k0maru(repo):
        return
    for hook in HOOK_TYPES:
        text = _read(target / hook)
        if "pre-commit" in text and MARKER not in text:
            raise K0maruError(
                f"pre-commit already runs k0maru here (.pre-commit-config.yaml, .git/hooks/{hook}); "
                "plain hooks would run it twice per git event: keep pre-commit's, or take k0maru out "
                "of .pre-commit-config.yaml first"
            )


def uninstall(repo: Path) -> list[str]:
    target = hooks_dir(repo)
    done = []
    for hook in HOOK_TYPES:
        path = target / hook
        chained = target / f"{hook}{CHAINED_SUFFIX}"
        if path.exists() and MARKER in _read(path):
            path.unlink()
            done.append(f"{hook}: removed")
            if chained.exists():
                chained.replace(path)
                done.append(f"{hook}: restored your original hook")
        legacy = target / f"{hook}.legacy"
        if legacy.exists() and MARKER in _read(legacy):
            legacy.unlink()
            done.append(
                f"{hook}: removed k0maru's plain hook that pre-commit kept as {legacy.name}"
            )
    return done


def status(repo: Path, vault_root: Path) -> dict[str, Any]:
    target = hooks_dir(repo)
    hooks = {hook: hook_state(repo, target, hook) for hook in HOOK_TYPES}
    pending, unembedded, index_error = _backlog(vault_root)
    error = vault_root / STATE_DIR / worker.ERROR
    return {
        "hooks": hooks,
        "double": any(DOUBLE in state for state in hooks.values()),
        "last_error": _read(error).strip() if error.is_file() else None,
        "index_error": index_error,
        "index_current": index_error is None and not any(pending.values()) and unembedded == 0,
        "pending": pending,
        "chunks_pending_embedding": unembedded,
        "worker_running": worker.running(vault_root),
        "adr_pending": pending_adrs(vault_root),
    }


def hook_state(repo: Path, target: Path, hook: str) -> str:
    """Which hook runs as `hook` in the hooks folder `target`: 'missing', k0maru's (chained to the
    user's own), pre-commit's (and whether its config runs k0maru), or 'other'; `DOUBLE` added when
    k0maru would run twice."""
    path = target / hook
    if not path.exists():
        return "missing"
    text = _read(path)
    if MARKER in text:
        state = _k0maru_hook_state(repo, target / f"{hook}{CHAINED_SUFFIX}")
        gone = interpreter_gone(text)
        return state if gone is None else f"{state}{gone}"
    if "pre-commit" in text:
        # pre-commit's "migration mode" keeps the old hook as .legacy
        return _precommit_hook_state(repo, target / f"{hook}.legacy")
    return "other"


def interpreter_gone(text: str) -> str | None:
    """What a k0maru hook (its `text`) does when the Python it names (FIND_K0MARU) is gone or not
    executable (a deleted virtual environment): it runs `k0maru` from PATH, else nothing. None when
    that Python runs, or the hook names none (an older hook, which runs `k0maru` from PATH)."""
    line = next((ln for ln in text.splitlines() if ln.startswith("K0MARU_PYTHON=")), None)
    if line is None:
        return None
    try:
        python = shlex.split(line.partition("=")[2], comments=True)[0]
    except (ValueError, IndexError):  # not as install() writes it
        return " -- BROKEN: its K0MARU_PYTHON line does not parse; run `k0maru hooks install`"
    if os.path.isfile(python) and os.access(python, os.X_OK):
        return None
    fallback = shutil.which("k0maru")
    does = f"it runs {fallback} instead" if fallback else "k0maru is not on PATH: it does nothing"
    return f" -- INTERPRETER GONE: {python} ({does}); run `k0maru hooks install` to fix it"


def _k0maru_hook_state(repo: Path, chained: Path) -> str:
    """k0maru's own hook, which runs the user's former hook (`chained`) after it where there is
    one: twice k0maru when that is pre-commit's, with k0maru in its config."""
    if not chained.exists():
        return "k0maru"
    twice = _precommit_has_k0maru(repo) and "pre-commit" in _read(chained)
    return "k0maru (chained)" + (DOUBLE if twice else "")


def _precommit_hook_state(repo: Path, legacy: Path) -> str:
    """pre-commit's hook; its config may run k0maru, and it may have kept k0maru's plain hook as
    `legacy` (which it runs too)."""
    via_config = _precommit_has_k0maru(repo)
    state = "pre-commit" + (" (k0maru via .pre-commit-config.yaml)" if via_config else "")
    if not (legacy.exists() and MARKER in _read(legacy)):
        return state
    return state + (DOUBLE if via_config else f" + k0maru's plain hook kept as {legacy.name}")


def _backlog(vault_root: Path) -> tuple[dict[str, int], int, str | None]:
    """(pending files by kind, chunks waiting for a vector, the index's failure as one line): a
    broken index must not hide which hooks run and what failed."""
    from k0maru.service.operations import Service, database_error

    try:
        with Service.open(vault_root) as service:
            backlog = service.backlog()
    except Exception as exc:  # an index failure (K0maruError or SQLite's) is reported, not raised
        failure = exc if isinstance(exc, K0maruError) else database_error(exc)
        if failure is None:
            raise
        return {}, 0, str(failure)
    return backlog.pending, backlog.chunks_pending_embedding, None


def _read(path: Path) -> str:
    try:
        return read_text(path, errors="replace")
    except OSError:
        return ""


def _precommit_has_k0maru(repo: Path) -> bool:
    config = repo / ".pre-commit-config.yaml"
    return config.is_file() and "k0maru-" in _read(config)
