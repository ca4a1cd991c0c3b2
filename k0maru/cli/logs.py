"""`k0maru offload` and `k0maru log list|show`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from k0maru.cli.output import (
    Adder,
    common,
    count,
    emit,
    index_exists,
    positive_int,
    say_vault,
    service,
)
from k0maru.errors import K0maruError, NotFoundError


def offload(
    vault: str | None, as_json: bool, threshold: int | None, task_id: str | None, cmd: list[str]
) -> int:
    from k0maru.index.vault import Vault
    from k0maru.offload import records
    from k0maru.offload.runner import run_offload

    command = list(cmd)
    if command and command[0] == "--":
        command = command[1:]
    if not command and sys.stdin.isatty():
        raise K0maruError(
            "nothing to run: use `k0maru offload -- CMD ARGS` or pipe output into `k0maru offload`"
        )
    with Vault.open(vault, writes_state=True, offload_threshold=threshold) as v:
        say_vault(v.root, as_json)

        def save(rec: records.OffloadRecord) -> None:
            try:
                records.save(v.store, rec)
            except (
                K0maruError
            ) as exc:  # the log is safe on disk; losing the record must not lose the exit code
                print(
                    f"k0maru: warning: log kept at {rec.log_path} but not recorded: {exc}",
                    file=sys.stderr,
                )

        outcome = run_offload(
            v.root,
            command or None,
            threshold=v.settings.offload_threshold,
            task_id=task_id,
            save_record=save,
            out=sys.stderr.buffer if as_json else None,  # with --json, stdout carries only the JSON
        )
    if as_json:
        payload = (
            outcome.record.as_dict()
            if outcome.record is not None
            else {"offloaded": False, "exit_code": outcome.exit_code, "lines": outcome.lines}
        )
        print(json.dumps(payload), flush=True)
    return outcome.exit_code


def log_list(vault: str | None, as_json: bool, limit: int) -> int:
    if not index_exists(vault):  # nothing was ever offloaded here: no index to create for that
        nodes = []
    else:
        with service(vault, as_json, rescan=False) as svc:
            nodes = svc.log_list(limit)

    def human() -> None:
        if not nodes:
            print("no offloaded logs yet; run `k0maru offload -- CMD`")
        for r in nodes:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
            print(
                f"{r.node_id}  {when}  exit {r.exit_code if r.exit_code is not None else '-':>3}  "
                f"{r.raw_lines:>7,} lines  {r.raw_tokens:>8,} -> {r.summary_tokens:,} tok  "
                f"{','.join(r.error_codes[:4]) or '-'}  {r.command[:60]}"
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
    from k0maru.offload import slices

    if lines:
        slices.parse_range(lines)  # bad input is refused before the index is opened
    if grep is not None:
        slices.grep(Path(os.devnull), grep, fixed=fixed_strings)
    if not index_exists(vault):
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
        offload,
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
    p = add("log", log_list, "offloaded logs: `log list`, `log show NODE`")
    p.set_defaults(limit=50)
    log_sub = p.add_subparsers(dest="log_command", metavar="ACTION")
    lp = log_sub.add_parser("list", help="recorded offloads, newest first")
    lp.add_argument(
        "--limit", type=positive_int, default=50, metavar="N", help="logs to list (default: 50)"
    )
    common(lp)
    lp.set_defaults(handler=log_list)
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
    common(sp)
    sp.set_defaults(handler=log_show)
