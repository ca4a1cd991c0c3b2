"""The `k0maru` command line: the parser is assembled from one module per command group; each
command's `run` (set where it is registered) calls its handler with the parsed values by name.

Start-up is part of every command's cost: this module and the command modules import what argparse
imports and little more at their top (`--version` and `--help` import nothing else,
tests/test_start_time.py); a command imports the service and its engines when it runs."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence

from k0maru import __version__
from k0maru.cli.output import Run, common
from k0maru.errors import K0maruError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from typing import Any, NoReturn

# each module of k0maru.cli that registers commands, with the commands its register() adds
GROUPS: dict[str, tuple[str, ...]] = {
    "index_cmds": ("init", "scan", "status", "worker"),
    "doctor_cmd": ("doctor",),
    "search_cmd": ("search",),
    "logs": ("offload", "log"),
    "notes": ("conventions", "flush", "distill"),
    "show_cmd": ("show",),
    "loadout_cmd": ("loadout",),
    "servers": ("mcp", "ui", "connect"),
    "git_cmds": ("hooks",),
}
COMMANDS = frozenset(c for commands in GROUPS.values() for c in commands)
# the flags every command takes (output.common), which may also come before the command, as git's
# and gh's do: `k0maru --json search x`; True: the flag takes a value
GLOBAL_FLAGS = {"--vault": True, "--json": False}


class Formatter(argparse.HelpFormatter):
    """argparse's, naming each flag's default in its help. argparse makes one for each flag added
    (to check its metavar), and its own asks shutil for the terminal's width: this one does not
    import shutil (and the compression modules shutil imports) for a command that prints no help."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or terminal_columns())

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


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`: $COLUMNS, else the width of the terminal on stdout,
    else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__
    if columns > 0 or stdout is None:
        return max(columns, 0) or 80
    try:
        return os.get_terminal_size(stdout.fileno()).columns or 80
    except (ValueError, OSError):
        return 80


class Parser(argparse.ArgumentParser):
    """argparse's, with "did you mean" for a mistyped command or choice, and no abbreviations: a
    flag is taken only as it is spelt (`scan --ful` is refused with "did you mean --full?", never
    run as `--full`), the subcommands' parsers too (argparse makes them of their parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """One line, not argparse's usage block before it: what is wrong and where help is."""
        join = " " if message.endswith("?") else "; "
        self.exit(2, f"{self.prog}: error: {message}{join}`{self.prog} --help` lists its flags\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """argparse's check of a choice; one that resembles a valid choice is answered with it."""
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError:
            close = close_choice(value, action.choices or ())
            if close is None:
                raise
            # no action named: the line is this, without argparse's "argument X:" before it
            raise argparse.ArgumentError(
                None, f"unknown choice {value!r}; did you mean {close!r}?"
            ) from None


def close_choice(value: Any, choices: Iterable[Any]) -> str | None:
    """The choice `value` most resembles, None when none is close."""
    import difflib

    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.6)
    return close[0] if close else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, only the group that defines it: a `k0maru scan` neither
    imports the other groups' modules nor builds their 15 commands."""
    import functools

    # argparse asks gettext for each of its words anew, a search of the locale folders every time
    # (half the cost of building this parser): while it is built, each word is asked once
    argparse_names = vars(argparse)
    translate = argparse_names["_"]
    argparse_names["_"] = functools.lru_cache(maxsize=None)(translate)
    try:
        return _build(command)
    finally:
        argparse_names["_"] = translate


def _build(command: str | None) -> argparse.ArgumentParser:
    parser = Parser(
        prog="k0maru",
        description="Local memory for coding agents.",
        formatter_class=Formatter,
        epilog="--vault and --json may also come before the command: k0maru --json search QUERY",
    )
    parser.add_argument("--version", action="version", version=f"k0maru {__version__}")
    common(parser, sub=True)  # listed by `k0maru --help`; hoisted() moves them after the command
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


def hoisted(argv: list[str]) -> list[str]:
    """`argv` with the flags every command takes (GLOBAL_FLAGS) that come before the command moved
    after it: `--json --vault DIR search x` is `search --json --vault DIR x`, the flags then
    parsed by the command's parser (or, for `log --json list`, its action's) like its own."""
    lead: list[str] = []
    rest = argv
    while rest:
        name, eq, _ = rest[0].partition("=")
        if name not in GLOBAL_FLAGS:
            break
        n = 2 if GLOBAL_FLAGS[name] and not eq else 1
        lead, rest = lead + rest[:n], rest[n:]
    if not lead or not rest or rest[0].startswith("-"):  # no command after them: the top-level
        return argv  # parser takes them (or says what is wrong)
    return [rest[0], *lead, *rest[1:]]


def main(argv: Sequence[str] | None = None) -> int:
    argv = hoisted(list(sys.argv[1:] if argv is None else argv))
    first = argv[0] if argv else "-"  # no words: the parser's help
    if first == "--version":  # argparse's answer, without building a parser
        print(f"k0maru {__version__}")
        return 0
    if not first.startswith("-") and first not in COMMANDS:
        return usage_error(unknown_command(first))
    if first == "scan" and (done := quick_scan(argv[1:])) is not None:
        return done  # a scan with nothing to do, answered before any parser is built
    parser = build_parser(first if first in COMMANDS else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        return usage_error(unknown_flag(parser, argv, unknown[0]))
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    status = run_command(lambda: args.run(args))
    return 0 if status is None else status


def quick_scan(words: list[str]) -> int | None:
    """`index_cmds.quick_scan`, its failures reported as a parsed command's are."""
    from k0maru.cli import index_cmds

    return run_command(lambda: index_cmds.quick_scan(words))


def usage_error(line: str) -> int:
    print(f"k0maru: error: {line}", file=sys.stderr)
    return 2


def unknown_command(word: str) -> str:
    """One line for a first word that is no command: the command it most resembles, or where the
    commands are listed."""
    close = close_choice(word, sorted(COMMANDS))
    hint = f"did you mean `k0maru {close}`?" if close else "`k0maru --help` lists them"
    return f"unknown command {word[:40]!r}; {hint}"


def run_command(run: Callable[[], int | None]) -> int | None:
    """The exit status of `run` (a parsed command), or its None; a failure the user can act on is
    one line on stderr."""
    try:
        return run()
    except K0maruError as exc:
        return failed(exc)
    except BrokenPipeError:  # a reader that went away (`| head`): what it read is all it wanted
        # so the exit's flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        from k0maru.service.operations import database_error

        err = database_error(exc)
        if err is None:
            raise
        return failed(err)
    except KeyboardInterrupt:
        print("k0maru: interrupted", file=sys.stderr)
        return 130


def failed(error: K0maruError) -> int:
    print(f"k0maru: error: {error}", file=sys.stderr)
    return error.exit_code


def entry() -> None:
    """The `k0maru` command: `main()`, then exit with its status."""
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that went away (`| head`): what it read is all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(status)
