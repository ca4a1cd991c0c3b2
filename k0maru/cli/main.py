"""The `k0maru` command line: the parser is assembled from one module per command group; each
command's `run` (set where it is registered) calls its handler with the parsed values by name."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from k0maru import __version__
from k0maru.cli.output import Run, common
from k0maru.errors import K0maruError

# each module of k0maru.cli that registers commands, with the commands its register() adds
GROUPS: dict[str, tuple[str, ...]] = {
    "index_cmds": ("init", "scan", "status", "worker"),
    "search_cmd": ("search",),
    "logs": ("offload", "log"),
    "notes": ("conventions", "flush", "distill"),
    "servers": ("mcp", "ui", "connect"),
    "git_cmds": ("hooks",),
}


class Formatter(argparse.HelpFormatter):
    """argparse's, naming each flag's default in its help."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        """Every flag's help names its default, when it has one worth naming."""
        text = action.help or ""
        default = action.default
        if (
            action.option_strings
            and default not in (None, False, True, argparse.SUPPRESS)
            and "default" not in text
        ):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """argparse's, with "did you mean" for a mistyped command or choice."""

    def error(self, message: str) -> NoReturn:
        import difflib
        import re

        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2))
            close = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.6)
            if close:
                message = f"unknown choice {m.group(1)!r}; did you mean {close[0]!r}?"
        super().error(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, only the group that defines it: a `k0maru scan` neither
    imports the other groups' modules nor builds their 15 commands."""
    parser = Parser(
        prog="k0maru", description="Local memory for coding agents.", formatter_class=Formatter
    )
    parser.add_argument("--version", action="version", version=f"k0maru {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, run: Run, help_text: str, json: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=Formatter)
        common(p, json)
        p.set_defaults(run=run)
        return p

    for module, commands in GROUPS.items():
        if command is None or command in commands:
            importlib.import_module(f"k0maru.cli.{module}").register(add)
    return parser


def chosen(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[argparse.ArgumentParser, str]:
    """The (sub)command parser the words of `argv` lead to, and its name (`k0maru log list`)."""
    name = "k0maru"
    for word in argv:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs and word in subs[0].choices:
            parser, name = subs[0].choices[word], f"{name} {word}"
    return parser, name


def unknown_flag(parser: argparse.ArgumentParser, argv: list[str], word: str) -> str:
    """One line for an argument no parser took: the flag it most resembles, and where the flags
    are."""
    import difflib

    command, name = chosen(parser, argv)
    flags = [f for a in command._actions for f in a.option_strings if f.startswith("--")]
    close = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.75)
    what = "unknown flag" if word.startswith("-") else "unexpected argument"
    hint = f"did you mean {close[0]}? " if close else ""
    return f"{what} {word[:40]!r} for `{name}`; {hint}`{name} --help` lists its flags"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    known = {c for commands in GROUPS.values() for c in commands}
    if argv and not argv[0].startswith("-") and argv[0] not in known:
        import difflib

        close = difflib.get_close_matches(argv[0], sorted(known), n=1, cutoff=0.6)
        hint = f"did you mean `k0maru {close[0]}`?" if close else "`k0maru --help` lists them"
        print(f"k0maru: error: unknown command {argv[0][:40]!r}; {hint}", file=sys.stderr)
        return 2
    parser = build_parser(argv[0] if argv and argv[0] in known else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        print(f"k0maru: error: {unknown_flag(parser, argv, unknown[0])}", file=sys.stderr)
        return 2
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        status: int = args.run(args)
        return status
    except K0maruError as exc:
        print(f"k0maru: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # a reader that went away (`| head`): what it read is all it wanted
        # so the exit's flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        from k0maru.service.operations import database_error

        err = database_error(exc)
        if err is None:
            raise
        print(f"k0maru: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("k0maru: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    """The `k0maru` command: `main()`, then exit with its status."""
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that went away (`| head`): what it read is all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(status)
