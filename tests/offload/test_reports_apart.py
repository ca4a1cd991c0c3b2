"""Issue #59, round five: each report of interleaved parallel jobs keeps its root and its own
lines, task prefixes come off indented lines too, a formatter's diff says where its changes start,
rows led by a rule and `line:col` under a file's name are findings, and a vault that cannot open
says why in its own words. In-process: the fast tier."""

from __future__ import annotations

import io
import re
from pathlib import Path

from k0maru.errors import ConfigError
from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings
from k0maru.offload.prefixes import Prefixes
from k0maru.offload.runner import run_offload
from k0maru.service.offload import _not_kept

LOGS = Path(__file__).parents[1] / "data" / "logs"


def analyze(text: str) -> Findings:
    a = LogAnalyzer()
    a.feed(text)
    return a.close()


def summary(raw: bytes, tmp: Path) -> str:
    out = io.BytesIO()
    outcome = run_offload(
        tmp, None, threshold=0, task_id="t", stdin=io.BytesIO(raw), out=out,
        err=io.BytesIO(), progress=False, tree=tmp,
    )  # fmt: skip
    assert outcome.record is not None, "summarised, not passed through"
    return out.getvalue().decode()


def test_interleaved_make_jobs_each_keep_their_root_and_own_lines(tmp_path: Path) -> None:
    # a real `make -j4 -k` over 12 C files, 3 failing: four gcc runs' lines interleave
    text = summary((LOGS / "round6" / "make_j4_interleaved.log").read_bytes(), tmp_path)
    assert "first failure: u01.c:3:33" in text
    assert "  u06.c:243:12  'missing_06' undeclared" in text
    assert "  u10.c:243:12  'missing_10' undeclared" in text
    own = text.split("failure lines", 1)[1].split("other failures:", 1)[0]
    assert "u01.c:3:33: note:" in own
    led = re.findall(r"(?m)^ +\d+\| (u\d\d\.c)", own)  # rows led by a file: none another job's
    assert led and set(led) == {"u01.c"}, own


def test_a_known_task_prefix_comes_off_indented_lines_too() -> None:
    rows = ["web:test: ok 1", "web:test: ok 2", "api:test: not ok 1", "api:test: # x"]
    rows += ["api:test:   ---", "api:test:", "api:x"]
    stripped = Prefixes().strip("\n".join(rows), 0).split("\n")
    assert stripped == ["ok 1", "ok 2", "not ok 1", "# x", "  ---", "", "api:x"]
    # a task met once, before spaces only, is no prefix
    assert Prefixes().strip("lint:check:   ---\nok", 0) == "lint:check:   ---\nok"


def test_a_failure_under_turbo_prefixes_shows_its_cause(tmp_path: Path) -> None:
    text = summary((LOGS / "round6" / "turbo_monorepo_test.log").read_bytes(), tmp_path)
    own = text.split("failure lines", 1)[1].split("last lines", 1)[0]
    assert "|     15 !== 10" in own
    assert "api:test:" not in own


DIFF = (
    "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,5 +1,6 @@\n import math\n \n-def f( a ):\n"
    "+\n+def f(a):\n--- /usr/lib/python3/x.py\n+++ /usr/lib/python3/x.py\n@@ -3 +3 @@\n-a\n+b\n"
    "--- a/tools/run.sh\n+++ b/tools/run.sh\n@@ -7,2 +7,2 @@\n-x\n+y\n"
)


def test_a_diff_names_each_users_file_at_its_first_change() -> None:
    findings = analyze(DIFF)
    assert [place for place, _, _ in findings.changes] == ["src/calc.py:3", "tools/run.sh:7"]
    assert findings.root is None  # a diff is no failure of its own


def test_a_formatters_long_diff_says_where_its_changes_start(tmp_path: Path) -> None:
    text = summary((LOGS / "round4" / "yapf_diff_long.log").read_bytes(), tmp_path)
    assert "diff changes: src/calc.py:4\n  2| +++ src/calc.py (reformatted)\n" in text


def test_rows_led_by_a_rule_and_line_col_under_a_files_name_are_findings() -> None:
    findings = analyze((LOGS / "round4" / "djlint_templates.log").read_text())
    assert findings.first_location == "base.html:7:4"
    assert "H013" in findings.error_codes


def test_a_vault_that_cannot_open_says_its_reason_not_its_hint() -> None:
    assert _not_kept(ConfigError("no vault here", hint="run `k0maru init`")) == "no vault here"
    assert _not_kept(OSError(28, "No space left on device", "x.log")) == (
        "No space left on device: x.log"
    )
    assert _not_kept(RuntimeError("a; b")) == "a; b"  # no message is cut
