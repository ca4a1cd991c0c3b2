"""`k0maru conventions`, `flush`, `distill`: notes written the way the vault already does."""

from __future__ import annotations

import sys

from k0maru.cli.output import Adder, emit, index_exists, service, warn
from k0maru.errors import K0maruError, NotFoundError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from pathlib import Path

KINDS = ["adr", "decision", "card", "log", "skill"]


def conventions(vault: str | None, as_json: bool, explain: bool = False) -> int:
    with service(vault, as_json, rescan=False) as svc:
        conv = svc.conventions()

    def human() -> None:
        print(f"layout: {conv.layout}   rules from: {', '.join(conv.rule_files) or 'none'}")
        for line in conv.warnings:
            print(f"k0maru: warning: {line}", file=sys.stderr)
        for kind, rule in conv.kinds.items():
            print(
                f"\n{kind:<9} -> {rule.folder or '.'}/  naming={rule.naming} slug={rule.slug_style} ({rule.source})"
            )
            for ev in rule.evidence:
                print(f"           evidence: {ev}")
            if rule.template:
                print(f"           template fields: {', '.join(rule.template)}")
            if explain:
                for line in rule.explained:
                    print(f"           {line}")

    emit(as_json, conv.payload(), human)
    return 0


def read_text_input(path: str | None) -> str:
    """A file's text, or stdin when no file is named (refused on a terminal)."""
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read()
        except OSError as exc:
            raise K0maruError(f"cannot read {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise K0maruError(f"{path} is not valid UTF-8; re-save it as UTF-8") from None
    if sys.stdin.isatty():
        raise K0maruError("no body: pass --body-file FILE or pipe the text on stdin")
    return sys.stdin.read()


def split_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def flush(  # noqa: PLR0913 - the command's options
    vault: str | None,
    as_json: bool,
    kind: str,
    title: str,
    body_file: str | None,
    tags: str | None,
    related: str | None,
    date: str | None = None,
    folder: str | None = None,
) -> int:
    if not title.split():  # refused before the vault's index is opened (or created)
        raise K0maruError("empty title; give the note a title")
    body = read_text_input(body_file)
    if not body.strip():
        raise K0maruError("empty body; pass the note text with --body-file or on stdin")
    with service(vault, as_json) as svc:
        result = svc.flush(kind, title, body, split_list(tags), split_list(related), date, folder)
    warn(result.warnings)  # stderr, with --json too: the note lacks what the rules asked for

    def human() -> None:
        print(f"{result.outcome}: {result.path}")
        if result.unresolved:
            warn([f"related notes not found: {', '.join(result.unresolved)}"])

    emit(as_json, result.payload(), human)
    return 0


def shown_path(root: Path, name: str) -> str:
    """A trace file as the card records it: vault-relative inside the vault, else its name alone (an
    absolute path would leak the machine's layout into a note that is shared)."""
    from pathlib import Path

    path = Path(name).resolve()
    return (
        path.relative_to(root.resolve()).as_posix()
        if path.is_relative_to(root.resolve())
        else path.name
    )


def distill(
    vault: str | None,
    as_json: bool,
    trace_file: str | None,
    node: str | None,
    export_hermes: str | None,
) -> int:
    from k0maru.service.offload import offloaded_before

    text = None if node else _trace_text(trace_file)
    if node and not index_exists(vault) and not offloaded_before(vault):
        raise NotFoundError(
            f"unknown log node {node[:40]!r}: nothing was offloaded in this vault yet "
            "(`k0maru offload -- CMD` records one)"
        )
    with service(vault, as_json) as svc:
        if node:
            svc.log_view(node)  # an unknown node is refused before the vault is indexed
        card = svc.distill(
            text,
            node,
            shown_path(svc.root, trace_file) if trace_file else "stdin",
            export_hermes,
        )

    def human() -> None:
        print(
            f"{card.note_outcome}: {card.note_path}  [{card.stack}: {', '.join(card.error_codes)}]"
        )
        if card.hermes_path:
            print(f"hermes skill {card.hermes_outcome}: {card.hermes_path}")

    emit(as_json, card.payload(), human)
    return 0


def _trace_text(trace_file: str | None) -> str:
    """The failure text `distill` was given; none (a terminal, an empty file or stdin) is one line
    that names this command's own flags."""
    if not trace_file and sys.stdin.isatty():
        where = "stdin is a terminal"
    else:
        text = read_text_input(trace_file)
        if text.strip():
            return text
        where = f"{trace_file or 'stdin'} is empty"
    raise K0maruError(
        f"no failure text ({where}): pass --trace-file FILE, pipe the trace on stdin, "
        "or --node NODE_ID (an offloaded log)"
    )


def register(add: Adder) -> None:
    p = add(
        "conventions",
        lambda a: conventions(vault=a.vault, as_json=a.as_json, explain=a.explain),
        "show where each kind of note goes and how it is named, with evidence",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="also say which folder and why, and the record form learnt there",
    )
    p = add(
        "flush",
        lambda a: flush(
            vault=a.vault,
            as_json=a.as_json,
            kind=a.kind,
            title=a.title,
            body_file=a.body_file,
            tags=a.tags,
            related=a.related,
            date=a.date,
            folder=a.folder,
        ),
        "write a note (adr, decision, card, log, skill) following the vault's conventions",
    )
    p.add_argument(
        "--kind", required=True, choices=KINDS, help="which kind of note (sets its folder and name)"
    )
    p.add_argument(
        "--title", required=True, help="the note's title (its file name is made from it)"
    )
    p.add_argument("--body-file", metavar="FILE", help="note text (default: stdin)")
    p.add_argument("--tags", metavar="a,b", help="comma-separated tags")
    p.add_argument(
        "--related", metavar="'Note A,Note B'", help="notes to link: file name, vault path or title"
    )
    p.add_argument(
        "--date", metavar="YYYY-MM-DD", help="the note's date (its name, date line); default today"
    )
    p.add_argument(
        "--folder",
        metavar="HINT",
        help="which of the kind's parallel folders (a status, group or component: accepted), "
        "or the folder for a kind the vault has none for",
    )
    p = add(
        "distill",
        lambda a: distill(
            vault=a.vault,
            as_json=a.as_json,
            trace_file=a.trace_file,
            node=a.node,
            export_hermes=a.export_hermes,
        ),
        "turn a failure trace into a skill card (optionally a Hermes skill)",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--trace-file", metavar="FILE", help="the failure's text (default: stdin)")
    src.add_argument("--node", metavar="NODE_ID", help="an offloaded log node")
    p.add_argument(
        "--export-hermes",
        nargs="?",
        const="",
        metavar="DIR",
        help="also write SKILL.md under DIR (default: hermes_dir, ~/.hermes/skills)",
    )
