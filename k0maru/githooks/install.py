"""Installing plain git hooks without clobbering existing ones (an existing hook is kept and chained),
removing them, and reporting which hooks run and whether the index is current."""

from __future__ import annotations

import stat
import sys
from pathlib import Path
from typing import Any

from k0maru.gitutil import hooks_dir
from k0maru.resources import resource_text

HOOK_TYPES = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
MARKER = "# k0maru-managed hook"
CHAINED_SUFFIX = ".k0maru-chained"


def _script(hook: str, chained: bool) -> str:
    body = resource_text("hooks", hook).replace(
        'K0MARU="${K0MARU:-k0maru}"', f'K0MARU="${{K0MARU:-{sys.executable} -m k0maru}}"'
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
    target.mkdir(parents=True, exist_ok=True)
    done = []
    for hook in HOOK_TYPES:
        path = target / hook
        chained = target / f"{hook}{CHAINED_SUFFIX}"
        if path.exists() and MARKER not in path.read_text(encoding="utf-8", errors="replace"):
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


def uninstall(repo: Path) -> list[str]:
    target = hooks_dir(repo)
    done = []
    for hook in HOOK_TYPES:
        path = target / hook
        chained = target / f"{hook}{CHAINED_SUFFIX}"
        if path.exists() and MARKER in path.read_text(encoding="utf-8", errors="replace"):
            path.unlink()
            done.append(f"{hook}: removed")
            if chained.exists():
                chained.replace(path)
                done.append(f"{hook}: restored your original hook")
    return done


def status(repo: Path, vault_root: Path) -> dict[str, Any]:
    target = hooks_dir(repo)
    hooks = {}
    for hook in HOOK_TYPES:
        path = target / hook
        if not path.exists():
            hooks[hook] = "missing"
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if MARKER in text:
            hooks[hook] = "k0maru" + (
                " (chained)" if (target / f"{hook}{CHAINED_SUFFIX}").exists() else ""
            )
        elif "pre-commit" in text:
            hooks[hook] = "pre-commit" + (
                " (k0maru via .pre-commit-config.yaml)" if _precommit_has_k0maru(repo) else ""
            )
        else:
            hooks[hook] = "other"
    from k0maru.service.operations import Service

    with Service.open(vault_root) as service:
        backlog = service.backlog()
    return {
        "hooks": hooks,
        "index_current": not any(backlog.pending.values())
        and backlog.chunks_pending_embedding == 0,
        "pending": backlog.pending,
        "chunks_pending_embedding": backlog.chunks_pending_embedding,
    }


def _precommit_has_k0maru(repo: Path) -> bool:
    config = repo / ".pre-commit-config.yaml"
    return config.is_file() and "k0maru-" in config.read_text(encoding="utf-8", errors="replace")
