"""What the git hooks run: one short process per git event. It writes the ADR that HEAD's `ADR:`
trailer asks for (after a commit or rewrite) and hands the reindex to the background worker; it
never opens the index, so it never waits on a lock and never fails git. Errors go to
`.k0maru/hooks.log` and one stderr line, and the hook exits 0. Only light modules load here (see
scripts/bench_hooks.py)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from k0maru.gitutil import git, repo_root
from k0maru.layout import STATE_DIR, find_vault, resolve_vault
from k0maru.service import worker

# None: pre-commit, which names the stage in its manifest
ADR_HOOKS = (
    None,
    "post-commit",
    "post-rewrite",
    "post-merge",
)
MAX_MERGED_ADRS = 50  # commits a merge or pull brought in, newest first, that are looked at


def never_fail(job: str, vault_arg: str | None, work: Callable[[Path], str | None]) -> int:
    """Run a hook's `work(vault_root)`; its line (if any) goes to hooks.log. Any failure becomes one
    stderr line and a log entry with the traceback. Always 0: a hook never fails git."""
    vault_root: Path | None = None
    try:
        vault_root = hook_vault(vault_arg)
        line = work(vault_root)
        if line:
            worker.log_line(vault_root, line)
    except Exception as exc:  # a hook must never fail git
        import traceback

        where = vault_root or Path.cwd()
        worker.log_line(where, f"{job} failed: {exc}\n{traceback.format_exc()}")
        print(
            f"k0maru: {job} skipped ({exc}); details in {where / STATE_DIR / worker.LOG}",
            file=sys.stderr,
        )
    return 0


HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")


def run_argv(argv: list[str]) -> int | None:
    """`k0maru hooks run` for the arguments after `run` (`reindex|adr [GIT ARGS] [--hook H] [--vault
    D]`), without the command line's parser and modules, which a git command would wait for; None
    for any other arguments (the command line then answers them, errors included)."""
    what, rest = (argv[0], argv[1:]) if argv else ("", [])
    flags: dict[str, str] = {}
    args: list[str] = []
    while rest:
        word = rest.pop(0)
        if word in ("--hook", "--vault") and rest and word not in flags:
            flags[word] = rest.pop(0)
        elif word.startswith("-"):
            return None
        else:
            args.append(word)
    hook = flags.get("--hook")
    if what not in ("reindex", "adr") or (hook is not None and hook not in HOOKS):
        return None
    vault = flags.get("--vault")
    return run_reindex(vault, hook, args) if what == "reindex" else run_adr(vault)


def hook_vault(vault_arg: str | None) -> Path:
    """`--vault`, else the repository git runs the hook in. $K0MARU_VAULT, meant for one's own
    shell, is honoured only when it names a folder inside that repository: a hook never writes
    elsewhere."""
    if vault_arg:
        return resolve_vault(vault_arg)
    repo = find_vault()
    chosen = os.environ.get("K0MARU_VAULT")
    if chosen:
        path = Path(chosen).expanduser().resolve()
        if path.is_dir() and (path == repo or repo in path.parents):
            return path
    return repo


def run_reindex(vault_arg: str | None, hook: str | None, args: list[str]) -> int:
    """The hook of every git event: the ADR step where it applies, then a request to the worker."""

    if hook is None and "PRE_COMMIT_IS_SQUASH_MERGE" in os.environ:  # pre-commit's post-merge stage
        hook = "post-merge"

    def work(root: Path) -> str:
        adr_line = _adr(root, hook) if hook in ADR_HOOKS else None
        return "; ".join(x for x in (adr_line, _hand_to_worker(root, hook)) if x)

    return never_fail("reindex", vault_arg, work)


def run_adr(vault_arg: str | None) -> int:
    """Only the ADR step (pre-commit's `k0maru-adr`); a written ADR is handed to the worker to
    index."""

    def work(root: Path) -> str | None:
        line = _adr(root, None)
        return f"{line}; {_hand_to_worker(root, None)}" if line else None

    return never_fail("ADR", vault_arg, work)


def _hand_to_worker(root: Path, hook: str | None) -> str:
    """Ask the worker to bring the index up to date (started unless one runs, or
    K0MARU_HOOK_EMBED=off, when the next k0maru command catches up); show the last background
    failure, if any."""
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


def _adr(root: Path, hook: str | None) -> str | None:
    """The ADRs that commits' trailers ask for: HEAD's, or after a merge or pull every commit it
    brought in (ORIG_HEAD..HEAD). Nothing heavy is imported unless git sees such a trailer."""
    repo = repo_root(root)
    if repo is None:
        return None
    span = (
        ["ORIG_HEAD..HEAD", "-n", str(MAX_MERGED_ADRS)] if hook == "post-merge" else ["-1", "HEAD"]
    )
    out = git(
        repo,
        "log",
        "--format=%H%x00%(trailers:key=ADR,valueonly,unfold,separator=%x20)%x00",
        *span,
        "--",
    )
    fields = (out or "").split("\0")
    shas = [
        sha.strip() for sha, value in zip(fields[::2], fields[1::2], strict=False) if value.strip()
    ]
    if not shas:
        return None
    from k0maru.service.operations import adr_from_commit

    lines = []
    for sha in reversed(shas):  # oldest first: ADR numbers follow the history
        result = adr_from_commit(root, sha)
        if not result:
            continue
        if result.outcome in ("created", "updated"):
            done = "written" if result.outcome == "created" else "updated"
            print(f"k0maru: ADR {done}: {result.path}", file=sys.stderr)
        lines.append(f"adr {result.outcome}: {result.path}")
    return "; ".join(lines) or None
