"""The summary's `k0maru log show --lines A:B` hint ends at the log's last line, never past it."""

from __future__ import annotations

from k0maru.offload.findings import Failure, Findings
from k0maru.offload.summary import _hint


def test_lines_hint_stops_at_the_last_line() -> None:
    def at(line: int, lines: int) -> str:
        return _hint(Findings(root=Failure("generic", "error", "boom", line)), lines)

    assert at(40_001, 40_001) == " --lines 39996:40001"
    assert at(301, 301) == " --lines 296:301"
    assert at(10, 301) == " --lines 5:50"  # room after the failure: 40 lines of it
