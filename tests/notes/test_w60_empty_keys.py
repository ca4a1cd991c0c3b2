"""Empty keys (#58): a metadata line every record fills its own way is left as a slot to fill (the
next record's people fill it: leaving it out loses the key), and the flush says so, naming each;
one some record leaves empty is not said."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine
from tests.helpers import write

WHEN = date(2024, 3, 1)


def test_a_slot_every_record_fills_is_said_to_be_filled_in(tmp_path: Path) -> None:
    for n, who, sig in ((1, "Ann", "net"), (2, "Bob", "io"), (3, "", "db")):
        meta = f"**SIG:** SIG-{sig}\n\n**Authors:** {who}\n\n**Status:** Implementable\n"
        write(tmp_path, f"cfps/CFP-{n}0-r{n}.md", f"# CFP-{n}0: R{n}\n\n{meta}\n## Summary\n\nS.\n")
    said = ConventionSniffer(tmp_path).sniff().rules["adr"].explain()
    assert "metadata line: **SIG:** (left empty, said: every record fills it)" in said, said
    assert "metadata line: **Authors:**" in said  # one record leaves it empty
    result = FlushEngine(tmp_path).flush("adr", "Use X", "## Summary\n\nX.\n", when=WHEN)
    text = (tmp_path / result.path).read_text(encoding="utf-8")
    assert "**SIG:**\n" in text and "**Authors:**\n" in text
    said = [w for w in result.warnings if w.startswith("left ")]
    assert said == ["left `SIG:` empty, which every record of cfps/ fills: fill it in"], said
    own = FlushEngine(tmp_path).flush(
        "adr", "Use Y", "**SIG:** SIG-ui\n\n## Summary\n\nY.\n", when=WHEN
    )
    assert not [w for w in own.warnings if w.startswith("left ")]  # the body gives it
    assert "**SIG:** SIG-ui" in (tmp_path / own.path).read_text(encoding="utf-8")
