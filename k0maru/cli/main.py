"""The `k0maru` command line: the parser is assembled from one module per command group, and each
handler takes its arguments by name (never the argparse Namespace)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from k0maru import __version__
from k0maru.cli import git_cmds, index_cmds, logs, notes, search_cmd, servers
from k0maru.cli.output import common
from k0maru.errors import K0maruError

GROUPS = (index_cmds, search_cmd, logs, notes, servers, git_cmds)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, only the group that defines it (argparse spends ~1.5 ms a
    command building the 18 others, which a `k0maru scan` never needs)."""
    parser = argparse.ArgumentParser(prog="k0maru", description="Local memory for coding agents.")
    parser.add_argument("--version", action="version", version=f"k0maru {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, handler: Callable[..., int], help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        common(p)
        p.set_defaults(handler=handler)
        return p

    for group in GROUPS:
        if command is None or command in group.COMMANDS:
            group.register(add)
    return parser


def call(handler: Callable[..., int], args: argparse.Namespace) -> int:
    """The handler with the parsed values it names (read off its code object: `inspect` costs a git hook
    ~13 ms of import)."""
    code = handler.__code__
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    values: dict[str, Any] = {n: getattr(args, n) for n in names}
    return handler(**values)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    known = {c for g in GROUPS for c in g.COMMANDS}
    parser = build_parser(argv[0] if argv and argv[0] in known else None)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        return call(args.handler, args)
    except K0maruError as exc:
        print(f"k0maru: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:
        from k0maru.index import db

        if not isinstance(exc, db.DatabaseError):
            raise
        err = db.translate_error(exc, db.last_opened or "the index")
        print(f"k0maru: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("k0maru: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
