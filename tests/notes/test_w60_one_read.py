"""One flush reads each numbered record's head once (#58 review): the records of the title are
found once, for where the note goes and for what it supersedes."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from k0maru.notes.flush import FlushEngine
from tests.helpers import write

RECORD = "# {n}. {t}\n\nDate: 2026-04-1{n}\n\n## Status\n\nAccepted\n\n## Context\n\nWhy {n}.\n"
_opened: Counter[str] = Counter()
_recording = [False]  # an audit hook cannot be removed: it stops recording instead


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _recording[0] and event == "open" and args and isinstance(args[0], str | Path):
        _opened[Path(args[0]).name] += 1


sys.addaudithook(_audit)


def test_a_flush_reads_each_records_head_once(tmp_path: Path) -> None:
    titles = ("Use locks", "Accept CAMT", "Pay in EUR")
    for n, t in enumerate(titles, start=1):
        write(tmp_path, f"docs/adr/000{n}-r{n}.md", RECORD.format(n=n, t=t))
    engine = FlushEngine(tmp_path)  # the conventions are read before
    _opened.clear()
    _recording[0] = True
    try:
        note = engine.flush("adr", "Use queues", "Queues.", when=date(2026, 12, 7))
    finally:
        _recording[0] = False
    assert note.path == "docs/adr/0004-use-queues.md" and not note.supersedes
    assert [_opened[f"000{n}-r{n}.md"] for n in (1, 2, 3)] == [1, 1, 1], _opened
