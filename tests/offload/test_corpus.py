"""The captured corpus (tests/data/logs, dev half): each log's expected codes and root, no invented
code, and an inspect hint that finds lines. In-process: the fast tier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import UNCODED, Findings, same_place

DATA = Path(__file__).parents[1] / "data" / "logs"


def analyze(text: str) -> Findings:
    a = LogAnalyzer()
    a.feed(text)
    return a.close()


EXPECTATIONS = json.loads((DATA / "expectations.json").read_text())


@pytest.mark.parametrize("log", sorted(EXPECTATIONS))
def test_real_tool_output(log: str) -> None:
    """Each captured run (scripts/capture_logs.py): every expected code found, the root at the true
    first failure."""
    want = EXPECTATIONS[log]
    findings = analyze((DATA / log).read_text())
    assert set(want["codes"]) <= set(findings.error_codes) | {
        c for f in findings.failures for c in want["codes"] if c in f.message
    }, findings.error_codes
    if want["root"]:
        assert same_place(findings.first_location, want["root"]), findings.first_location
    else:  # the log names no place: none is invented
        assert findings.first_location is None, findings.first_location
    for (
        failure
    ) in findings.all_failures:  # never "KeyError: KeyError ..." or a 'FAILED' pseudo-code
        assert failure.code not in ("FAILED", "ERROR")
        assert failure.code in UNCODED or not failure.message.startswith(failure.code + ":")


@pytest.mark.parametrize("log", sorted(EXPECTATIONS))
def test_codes_are_in_the_log_and_the_inspect_hint_finds_lines(log: str, tmp_path: Path) -> None:
    """Every code the summary names is a string of the log (none invented), and the `inspect` hint
    it prints shows at least one line of the stored log."""
    import io
    import shlex

    from k0maru.offload import slices
    from k0maru.offload.analyzer import ANSI
    from k0maru.offload.runner import run_offload

    raw = (DATA / log).read_bytes()
    text = ANSI.sub("", raw.decode("utf-8", "replace"))
    outcome = run_offload(
        tmp_path, None, threshold=0, task_id="c", stdin=io.BytesIO(raw), out=io.BytesIO(),
        err=io.BytesIO(), progress=False, tree=tmp_path,
    )  # fmt: skip
    assert outcome.findings is not None
    for code in outcome.findings.error_codes:
        assert code in text, f"code {code!r} is not in the log"
    if outcome.record is None:
        return  # passed through: the agent reads the log itself
    hint = next(ln for ln in outcome.record.summary.splitlines() if ln.startswith("inspect: "))
    args = shlex.split(hint.removeprefix("inspect: "))
    path = tmp_path / outcome.record.log_path
    if "--grep" in args:
        pattern = args[args.index("--grep") + 1]
        _, matches = slices.grep(path, pattern, fixed="--fixed-strings" in args)
        assert matches >= 1, hint
    else:
        start, end = slices.parse_range(args[args.index("--lines") + 1])
        assert slices.line_range(path, start, end), hint
