"""`k0maru offload` and `k0maru log list|show`."""

from __future__ import annotations

import argparse
import sys
import time

from k0maru.cli.output import (
    Adder,
    common,
    count,
    emit,
    index_exists,
    positive_int,
    say_vault,
    service,
    took,
)
from k0maru.errors import K0maruError, NotFoundError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from pathlib import Path


def offload(
    vault: str | None, as_json: bool, threshold: int | None, task_id: str | None, cmd: list[str]
) -> int:
    from pathlib import Path

    from k0maru.service.offload import offload as run

    command = list(cmd)
    if command and command[0] == "--":
        command = command[1:]
    if not command and sys.stdin.isatty():
        raise K0maruError(
            "nothing to run: use `k0maru offload -- CMD ARGS` or pipe output into `k0maru offload`"
        )

    roots: list[Path] = []
    try:
        done = run(
            vault,
            command or None,
            threshold=threshold,
            task_id=task_id,
            out=sys.stderr.buffer if as_json else None,  # with --json, stdout carries only the JSON
            on_open=roots.append,
        )
    except Exception as exc:
        if command:
            raise
        return pass_through(exc)
    # the summary's log path is vault-relative; an output passed through names no vault
    if done.record is not None and roots and Path.cwd().resolve() != roots[0].resolve():
        say_vault(roots[0], as_json)
    if as_json:
        import json

        print(json.dumps(done.payload()), flush=True)
    return done.exit_code


def pass_through(exc: Exception) -> int:
    """A piped log that could not be offloaded: one line on stderr, the rest of the input to stdout,
    and exit 0, so a pipeline into `k0maru offload` (the agent hook's) keeps its own outcome."""
    print(f"k0maru: the log was not offloaded ({exc}); the output passes through", file=sys.stderr)
    sys.stdout.flush()
    while chunk := sys.stdin.buffer.read(1 << 16):
        sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
    return 0


def log_prune(
    vault: str | None, as_json: bool, older_than: str | None, keep: int | None, max_mb: int | None
) -> int:
    with service(vault, as_json, rescan=False) as svc:
        done = svc.log_prune(older_than, keep, max_mb)

    def human() -> None:
        print(
            f"removed {done.removed} log(s), {done.freed_bytes / 1e6:,.1f} MB; "
            f"{done.kept} kept, {done.kept_bytes / 1e6:,.1f} MB"
        )

    emit(as_json, done.payload(), human)
    return 0


def log_list(vault: str | None, as_json: bool, limit: int) -> int:
    from k0maru.service.offload import offloaded_before

    if not index_exists(vault) and not offloaded_before(vault):  # nothing was ever offloaded here
        nodes = []
    else:
        with service(vault, as_json, rescan=False) as svc:
            nodes = svc.log_list(limit)

    def human() -> None:
        from k0maru.text import shorten, visible

        if not nodes:
            print("no offloaded logs yet; run `k0maru offload -- CMD`")
        for r in nodes:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
            print(
                f"{r.node_id}  {when}  {took(r.duration_s):>9}  exit {r.exit_code if r.exit_code is not None else '-':>3}  "
                f"{r.raw_lines:>7,} lines  {r.raw_tokens:>8,} -> {r.summary_tokens:,} tok  "
                f"{','.join(r.error_codes[:4]) or '-'}  {shorten(visible(r.command), 60)}"
            )

    emit(as_json, [n.payload() for n in nodes], human)
    return 0


def log_show(
    vault: str | None,
    as_json: bool,
    node: str,
    lines: str | None,
    grep: str | None,
    context: int,
    max_matches: int,
    fixed_strings: bool,
) -> int:
    from k0maru.service.offload import check_log_view, offloaded_before

    check_log_view(lines, grep, fixed_strings)  # bad input is refused before the index is opened
    if not index_exists(vault) and not offloaded_before(vault):
        raise NotFoundError(
            f"unknown log node {node[:40]!r}: nothing was offloaded in this vault yet "
            "(`k0maru offload -- CMD` records one)"
        )
    with service(vault, as_json, rescan=False) as svc:
        view = svc.log_view(
            node,
            lines=lines,
            pattern=grep,
            context=context,
            max_lines=400,
            max_matches=max_matches,
            fixed=fixed_strings,
        )

    def human() -> None:
        if view.summary is not None:
            print(view.summary)
            return
        for ln in view.lines:
            print(f"{ln.n:>7}{':' if ln.match else '-' if grep else ' '} {ln.text}")
        if view.matches is not None:
            print(
                f"({view.matches} matching line(s)"
                + (", not all shown" if view.truncated else "")
                + ")"
            )
        elif view.truncated:
            print("(more lines exist; ask for a narrower range)")

    emit(as_json, view.payload(), human)
    return 0


def register(add: Adder) -> None:
    p = add(
        "offload",
        lambda a: offload(
            vault=a.vault, as_json=a.as_json, threshold=a.threshold, task_id=a.task_id, cmd=a.cmd
        ),
        "run CMD; past the line threshold, keep its log and print a short summary",
    )
    p.add_argument(
        "--threshold",
        type=positive_int,
        metavar="N",
        help="lines passed through unchanged (default: offload_threshold in config, 50)",
    )
    p.add_argument(
        "--task-id",
        metavar="ID",
        help="task the log belongs to (default: $K0MARU_TASK_ID or git branch)",
    )
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]; omit to read stdin")
    p = add(
        "log",
        lambda a: log_list(vault=a.vault, as_json=a.as_json, limit=a.limit),
        "offloaded logs: `log list`, `log show NODE`, `log prune`",
    )
    p.set_defaults(limit=50)
    log_sub = p.add_subparsers(dest="log_command", metavar="ACTION")
    lp = log_sub.add_parser("list", help="recorded offloads, newest first")
    lp.add_argument(
        "--limit", type=positive_int, default=50, metavar="N", help="logs to list (default: 50)"
    )
    common(lp, sub=True)
    lp.set_defaults(run=lambda a: log_list(vault=a.vault, as_json=a.as_json, limit=a.limit))
    sp = log_sub.add_parser("show", help="summary, a line range, or matches with context")
    sp.add_argument("node", help="the log's node id, as `log list` or the offload summary shows")
    sp.add_argument("--lines", metavar="A:B", help="1-based inclusive line range")
    sp.add_argument("--grep", metavar="PAT", help="regular expression to look for")
    sp.add_argument(
        "--fixed-strings", "-F", action="store_true", help="match --grep as plain text, not a regex"
    )
    sp.add_argument(
        "--context", type=count, default=3, metavar="N", help="lines shown around each --grep match"
    )
    sp.add_argument(
        "--max-matches", type=positive_int, default=20, metavar="N", help="matches to show at most"
    )
    common(sp, sub=True)
    sp.set_defaults(
        run=lambda a: log_show(
            vault=a.vault,
            as_json=a.as_json,
            node=a.node,
            lines=a.lines,
            grep=a.grep,
            context=a.context,
            max_matches=a.max_matches,
            fixed_strings=a.fixed_strings,
        )
    )
    pp = log_sub.add_parser(
        "prune", help="remove offloaded logs by age, count or size, with their records"
    )
    pp.add_argument("--older-than", metavar="AGE", help="e.g. 30d, 12h, 90m, 2w")
    pp.add_argument("--keep", type=count, metavar="N", help="keep only the newest N logs")
    pp.add_argument(
        "--max-mb",
        type=count,
        metavar="MB",
        help="then the oldest go while all logs hold more (default: offload_max_mb)",
    )
    common(pp, sub=True)
    pp.set_defaults(
        run=lambda a: log_prune(
            vault=a.vault, as_json=a.as_json, older_than=a.older_than, keep=a.keep, max_mb=a.max_mb
        )
    )
