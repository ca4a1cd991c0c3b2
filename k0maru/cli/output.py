"""What every command shares: the common flags, the service it works on, JSON or human output.

Imported by every command module as the parser is built (`k0maru --help` builds them all): what it
imports at the top is what argparse already imports; the rest is imported where it is used."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

Run = Callable[[argparse.Namespace], int]  # a command's handler called with the parsed values
Adder = Callable[..., argparse.ArgumentParser]  # main's add(name, run, help_text, json=True)


def common(p: argparse.ArgumentParser, json: bool = True, sub: bool = False) -> None:
    """--vault, and --json for a command whose output has a machine-readable form. `sub`: an
    action's parser (`log list`), where the flags may also come before the action (`log --json
    list`): its own unset flags must not reset what the command's parser took."""
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if sub else {}
    p.add_argument(
        "--vault",
        metavar="DIR",
        help="vault root (default: the nearest folder with .k0maru/, else the git repository's root)",
        **unset,
    )
    if json:
        p.add_argument(
            "--json",
            dest="as_json",
            action="store_true",
            help="machine-readable output on stdout",
            **unset,
        )


def emit(as_json: bool, payload: Any, human: Callable[[], None]) -> None:
    """JSON on stdout, or the human lines, whose note-borne text (titles, snippets, rules lines,
    paths) reaches the terminal with control, bidi and zero-width characters escaped (`\\u202e`):
    in JSON as JSON's escapes (the value read back is the note's own), in the lines as
    `text.visible` writes them (a path shown so opens again with `show`)."""
    if as_json:
        import json

        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
        if not plain(text):
            from k0maru.text import visible

            # they stand only inside strings (JSON's own text is ASCII): `\\u202e` is JSON's escape
            text = visible(text, keep="\n", wide=True)
        print(text)
        return
    out = sys.stdout
    sys.stdout = _Printable(out)
    try:
        human()
    finally:
        sys.stdout = out


class _Printable:
    """A text stream that escapes control, bidi and zero-width characters (ESC, \x01, U+202E, ...)
    but tabs and newlines."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        if plain(text):
            return self._stream.write(text)  # type: ignore[no-any-return]
        from k0maru.text import visible

        return self._stream.write(visible(text, keep="\n"))  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def plain(text: str) -> bool:
    """Whether `text.visible(text, keep="\\n")` is `text` itself: ASCII with no control character
    but tabs and newlines. Most lines are, and then need no regular expression compiled."""
    return text.isascii() and text.replace("\n", "").replace("\t", "").isprintable()


def warn(lines: Sequence[str]) -> None:
    from k0maru.text import visible

    for line in lines:
        print(f"k0maru: warning: {visible(line)}", file=sys.stderr)


def say_vault(root: Any, as_json: bool) -> None:
    """The one line that names the vault a command resolved (stderr; never with --json)."""
    if not as_json:
        print(f"k0maru: vault {root}", file=sys.stderr)


@contextmanager
def service(
    vault: str | None,
    as_json: bool = False,
    rescan: bool = True,
    create: bool = False,
    **settings: Any,
) -> Iterator[Any]:
    """A one-shot service: rescans in the foreground (progress bars on a terminal), embeds before
    answering. Names the vault it opened on stderr first."""
    from k0maru.progress import LazyProgress
    from k0maru.service.operations import Service

    with LazyProgress("scanning", not as_json) as sp, LazyProgress("embedding", not as_json) as ep:
        svc = Service.open(
            vault,
            settings=settings,
            create=create,
            one_shot=True,
            rescan_interval=0,
            embed="worker",
            rescan=rescan,
            scan_progress=sp,
            embed_progress=ep,
        )
        say_vault(svc.root, as_json)
        try:
            yield svc
        finally:
            svc.close()
    warn(once_per_change(svc.root, svc.warnings))


SKIPPED = r"skipped (.+?): "  # the warning for a file the scan left out


def once_per_change(root: Path, lines: Sequence[str]) -> list[str]:
    """`lines` less the skipped-file warnings already shown for the file as it is now (its size,
    mtime and the reason, kept in .k0maru/warned.json; a symlink's own, so a dangling one too): a
    `search` does not repeat them until the file changes. Other warnings pass."""
    import json
    import re
    from contextlib import suppress

    from k0maru.fsutil import atomic_write_text, read_text
    from k0maru.layout import STATE_DIR

    state = root / STATE_DIR / "warned.json"
    try:
        seen = json.loads(read_text(state))
    except (OSError, ValueError):
        seen = {}
    shown: list[str] = []
    now: dict[str, str] = {}
    for line in lines:
        m = re.match(SKIPPED, line)
        try:
            st = (root / m.group(1)).lstat() if m else None  # a dangling symlink's own
        except OSError:
            st = None
        if m is None or st is None:
            shown.append(line)
            continue
        now[m.group(1)] = f"{st.st_mtime_ns}:{st.st_size}:{line}"
        if seen.get(m.group(1)) != now[m.group(1)]:
            shown.append(line)
    if now != seen and state.parent.is_dir():
        with suppress(OSError):  # a read-only state folder: the warnings repeat, nothing worse
            atomic_write_text(state, json.dumps(now))
    return shown


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1, refused before any work starts."""
    return _whole_number(text, 1)


def count(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _whole_number(text, 0)


def index_exists(vault: str | None) -> bool:
    """Whether the vault already has an index file (a read-only command then need not create
    one)."""
    from k0maru.layout import DB_FILE, STATE_DIR, resolve_vault

    return (resolve_vault(vault) / STATE_DIR / DB_FILE).exists()


def took(seconds: float | None) -> str:
    """How long something ran, as `84.2 ms`, `12.3 s` or `26 min 30 s`; `-` when nobody said."""
    if seconds is None:
        return "-"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60):02} s"


def pending_vectors(chunks: int, worker_running: bool) -> str:
    """The one line `status` and `doctor` give for chunks still without vectors (no damage: they
    follow), with what finishes them."""
    if worker_running:
        return (
            f"{chunks:,} chunk(s) wait for vectors: the worker is embedding them "
            "(`k0maru status` shows how many are left)"
        )
    return f"{chunks:,} chunk(s) wait for vectors: no worker runs; `k0maru scan` embeds them"
