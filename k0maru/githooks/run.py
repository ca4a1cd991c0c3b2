"""What the git hooks run: one short process per git event. It writes the ADR that HEAD's `ADR:` trailer
asks for (after a commit or rewrite) and hands the reindex to the background worker; it never opens the
index, so it never waits on a lock and never fails git. Errors go to `.k0maru/hooks.log` and one stderr
line, and the hook exits 0. Only light modules load here (see scripts/bench_hooks.py)."""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from k0maru.gitutil import git, repo_root
from k0maru.layout import STATE_DIR, resolve_vault
from k0maru.service import worker

ADR_HOOKS = (
    None,
    "post-commit",
    "post-rewrite",
)  # None: pre-commit, which names the stage in its manifest


def never_fail(job: str, vault_arg: str | None, work: Callable[[Path], str | None]) -> int:
    """Run a hook's `work(vault_root)`; its line (if any) goes to hooks.log. Any failure becomes one stderr
    line and a log entry with the traceback. Always 0: a hook never fails git."""
    vault_root: Path | None = None
    try:
        vault_root = resolve_vault(vault_arg)
        line = work(vault_root)
        if line:
            worker.log_line(vault_root, line)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail git
        where = vault_root or Path.cwd()
        worker.log_line(where, f"{job} failed: {exc}\n{traceback.format_exc()}")
        print(
            f"k0maru: {job} skipped ({exc}); details in {where / STATE_DIR / worker.LOG}",
            file=sys.stderr,
        )
    return 0


def run_reindex(vault_arg: str | None, hook: str | None, args: list[str]) -> int:
    """The hook of every git event: the ADR step where it applies, then a request to the worker."""

    def work(root: Path) -> str:
        adr_line = _adr(root) if hook in ADR_HOOKS else None
        return "; ".join(x for x in (adr_line, _hand_to_worker(root, hook)) if x)

    return never_fail("reindex", vault_arg, work)


def run_adr(vault_arg: str | None) -> int:
    """Only the ADR step (pre-commit's `k0maru-adr`); a written ADR is handed to the worker to index."""

    def work(root: Path) -> str | None:
        line = _adr(root)
        return f"{line}; {_hand_to_worker(root, None)}" if line else None

    return never_fail("ADR", vault_arg, work)


def _hand_to_worker(root: Path, hook: str | None) -> str:
    """Ask the worker to bring the index up to date (started unless one runs, or K0MARU_HOOK_EMBED=off,
    when the next k0maru command catches up); show the last background failure, if any."""
    t0 = time.perf_counter()
    failed = worker.last_error(root)
    if failed:
        print(
            f"k0maru: background reindex failed: {failed} (details in {root / STATE_DIR / worker.LOG})",
            file=sys.stderr,
        )
    spawn = os.environ.get("K0MARU_HOOK_EMBED", "background") == "background"
    started = worker.request(root, spawn=spawn)
    state = (
        "worker started"
        if started
        else ("worker already running" if spawn else "left to the next command")
    )
    return f"reindex hook={hook or '-'}: {state} in {(time.perf_counter() - t0) * 1000:.0f} ms"


def _adr(root: Path) -> str | None:
    """HEAD's ADR trailer as a note (nothing heavy is imported unless git sees such a trailer)."""
    repo = repo_root(root)
    if (
        repo is None
        or not (
            git(repo, "log", "-1", "--format=%(trailers:key=ADR,valueonly)", "HEAD") or ""
        ).strip()
    ):
        return None
    from k0maru.notes.adr import adr_from_head

    result = adr_from_head(root)
    if not result:
        return None
    if result["outcome"] in ("created", "updated"):
        print(
            f"k0maru: ADR {'written' if result['outcome'] == 'created' else 'updated'}: {result['path']}",
            file=sys.stderr,
        )
    return f"adr {result['outcome']}: {result['path']}"
