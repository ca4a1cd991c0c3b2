"""Issue #59: never below the tail, the exit code and the tool's verdict decide "failed", line
prefixes as a layer of their own, library frames by runtime, roots an editor opens, the same
summary for the same log. In-process (one subprocess for determinism): the fast tier."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from k0maru.llm_tokens import count_tokens
from k0maru.offload import summary
from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings
from k0maru.offload.runner import OffloadOutcome, last_lines, run_offload

DATA = Path(__file__).parents[1] / "data" / "logs"
PASSING = Path(__file__).parent / "data" / "passing"
NOISE = [f"step {i}: compiling module_{i} ... done" for i in range(80)]


def analyze(text: str) -> Findings:
    a = LogAnalyzer()
    a.feed(text)
    return a.close()


def offload(raw: bytes, tmp: Path) -> tuple[str, OffloadOutcome]:
    """The summary (or the log passed through) of `raw`, piped."""
    out = io.BytesIO()
    outcome = run_offload(
        tmp, None, threshold=0, task_id="t", stdin=io.BytesIO(raw), out=out,
        err=io.BytesIO(), progress=False, tree=tmp,
    )  # fmt: skip
    text = out.getvalue().decode()
    if outcome.record is not None:
        text = text.replace(outcome.record.node_id, "NODE")
    return text, outcome


def summarise(raw: bytes, tmp: Path, exit_code: int | None) -> tuple[str, Findings]:
    """The summary a command exiting `exit_code` with output `raw` gets (in-process: the analyzer
    and the renderer the runner calls)."""
    log = tmp / "input.log"
    log.write_bytes(raw)
    findings = analyze(raw.decode())
    lines = raw.count(b"\n")
    text = summary.render(
        command="cmd", findings=findings, exit_code=exit_code, lines=lines,
        raw_tokens=count_tokens(raw.decode()), log_rel="x.log.gz", node_id="NODE",
        tail=last_lines(log, lines),
    )  # fmt: skip
    return text, findings


# 1. never below the tail


def test_the_tails_failure_evidence_is_carried_when_the_first_failure_is_far_above(
    tmp_path: Path,
) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "app/main.py", line 3, in <module>',
        "    run()",
        "KeyError: 'rows'",
        *NOISE,
        "linking stage",
        "ld: error: undefined symbol: frobnicate_widget",
        ">>> referenced by src/late.c:41",
        "make: *** [all] Error 1",
    ]
    text, _ = summarise(("\n".join(lines) + "\n").encode(), tmp_path, 1)
    assert "first failure: app/main.py:3" in text
    assert "undefined symbol: frobnicate_widget" in text  # the tail's evidence
    assert "src/late.c:41" in text


# 2. the exit code and the tool's verdict decide "failed"


def test_a_cargo_build_that_passed_with_a_warning_is_no_failure(tmp_path: Path) -> None:
    raw = (PASSING / "cargo_workspace_unused_import.log").read_bytes()
    text, _ = summarise(raw, tmp_path, 0)
    assert "failure" not in text.split("\n")[1]
    assert "first failure" not in text
    assert "first warning: app/src/main.rs:1:5" in text
    piped, outcome = offload(raw, tmp_path)  # no exit code, no failing word: no failure either
    assert "first failure" not in piped and "no failure verdict" in piped
    assert outcome.record is not None
    assert outcome.record.first_location is None and outcome.record.failures == []


def test_the_same_warnings_fail_a_run_that_exited_non_zero(tmp_path: Path) -> None:
    raw = (PASSING / "cargo_workspace_unused_import.log").read_bytes()
    text, findings = summarise(raw, tmp_path, 101)
    assert "first failure: app/src/main.rs:1:5" in text
    assert findings.failed(101) and not findings.failed(0)


@pytest.mark.parametrize("word", ["BROKEN", "✗ deploy step", "##[error]Process completed"])
def test_a_verdict_without_a_finding_names_its_line_and_the_lines_around_it(
    tmp_path: Path, word: str
) -> None:
    lines = [
        *NOISE[:40],
        "checking the bundle",
        "bundle size 412 kB over its limit",
        word,
        *NOISE[40:],
    ]
    text, outcome = offload(("\n".join(lines) + "\n").encode(), tmp_path)
    assert outcome.record is not None
    assert outcome.findings is not None and outcome.findings.failed(None)
    assert "log line 43" in text  # the verdict line named
    assert "bundle size 412 kB over its limit" in text  # a line around it
    assert "no failures recognised" not in text


def test_a_non_zero_exit_with_nothing_recognised_is_never_no_failures(tmp_path: Path) -> None:
    text, _ = summarise(("\n".join(NOISE) + "\n").encode(), tmp_path, 3)
    assert "exit 3" in text and "no failures recognised" not in text


def test_passing_runs_with_warnings_are_never_failures(tmp_path: Path) -> None:
    for log in sorted(PASSING.glob("*.log")):
        text, findings = summarise(log.read_bytes(), tmp_path, 0)
        assert not findings.failed(0)
        assert "first failure" not in text, log.name
        assert not re.search(r"\b[1-9][\d,]* failure\(s\)", text), log.name


# 3. line prefixes


def test_ci_timestamps_and_markers_are_stripped_before_reading() -> None:
    text = (
        "2026-12-07T10:00:00.1234567Z ##[group]Run pytest\n"
        "section_start:1765000000:step_script\r"
        "[Pipeline] sh\n"
        "[2026-12-07T10:00:00.000Z] Traceback (most recent call last):\n"
        '[2026-12-07T10:00:00.000Z]   File "app/x.py", line 7, in <module>\n'
        "[2026-12-07T10:00:00.000Z] ValueError: bad\n"
    )
    findings = analyze(text)
    assert findings.first_location == "app/x.py:7"


def test_each_failure_is_attributed_to_its_task_prefix_in_log_order() -> None:
    text = (
        "web:build: > tsc -p .\n"
        "api-1  | starting\n"
        "web:build: src/a.ts(3,5): error TS2345: Argument of type 'string' is not assignable.\n"
        "api-1  | Traceback (most recent call last):\n"
        'api-1  |   File "svc/app.py", line 9, in <module>\n'
        "api-1  | KeyError: 'rows'\n"
    )
    findings = analyze(text)
    assert findings.first_location == "src/a.ts:3:5"
    tasks = [(f.line, f.location, f.task) for f in findings.failures + findings.markers]
    assert (3, "src/a.ts:3:5", "web:build") in tasks
    assert any(loc == "svc/app.py:9" and task == "api-1" for _, loc, task in tasks)


def test_a_root_is_never_glued_to_a_task() -> None:
    text = (
        "> Task :compileJava/var/lib/ci/app/src/main/java/demo/A.java:12: error: cannot find symbol\n"
        "    foo();\n"
    )
    findings = analyze(text)
    assert findings.first_location == "/var/lib/ci/app/src/main/java/demo/A.java:12"


def test_a_line_that_only_looks_like_a_task_prefix_is_left_alone() -> None:
    findings = analyze("src/a.py:12: error: Incompatible types  [assignment]\n")
    assert findings.first_location == "src/a.py:12"


# 4. library frames by runtime


def test_clojure_and_jvm_frames_are_library_in_any_jvm_language() -> None:
    text = (
        'Exception in thread "main" java.lang.ArithmeticException: Divide by zero\n'
        "\tat clojure.lang.Numbers.divide(Numbers.java:190)\n"
        "\tat clojure.core$_SLASH_.invokeStatic(core.clj:1029)\n"
        "\tat demo.core$ratio.invoke(core.clj:7)\n"
        "\tat clojure.lang.AFn.applyToHelper(AFn.java:152)\n"
    )
    assert analyze(text).first_location == "core.clj:7"


NOTEBOOK = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/proj/.venv/bin/jupyter-nbconvert", line 8, in <module>\n'
    "    sys.exit(main())\n"
    "---------------------------------------------------------------------------\n"
    "ZeroDivisionError                         Traceback (most recent call last)\n"
    "Cell In[3], line 2\n"
    "      1 from stats import ratio\n"
    "----> 2 ratio(1, 0)\n"
)


def test_a_notebook_cell_is_no_root_an_editor_cannot_open_and_a_venv_launcher_is_not() -> None:
    findings = analyze(NOTEBOOK + "ZeroDivisionError: division by zero\n")
    assert findings.first_location is None
    assert findings.root is not None and "ZeroDivisionError" in findings.root.message
    assert any("Cell In[3], line 2" in text for _, text in findings.block_of(findings.root))


def test_a_module_the_notebook_called_is_the_root_innermost_frame_first() -> None:
    text = NOTEBOOK + (
        "\n"
        "File ~/proj/stats.py:5, in ratio(a, b)\n"
        "      4 def ratio(a, b):\n"
        "----> 5     return scale(a) / b\n"
        "\n"
        "File ~/proj/stats.py:9, in scale(x)\n"
        "----> 9     return x / 0\n"
        "\n"
        "File ~/proj/.venv/lib/python3.11/site-packages/numpy/core/x.py:3, in f()\n"
        "\n"
        "ZeroDivisionError: division by zero\n"
    )
    assert analyze(text).first_location == "~/proj/stats.py:9"


# 5. roots an editor opens

OPENS = re.compile(r"^(?:[A-Za-z]:)?[^\s:]+:\d+(?::\d+)?$")


def test_every_root_of_the_dev_corpus_is_a_place_an_editor_opens() -> None:
    expectations = json.loads((DATA / "expectations.json").read_text())
    for log in sorted(expectations):
        location = analyze((DATA / log).read_text()).first_location
        assert location is None or OPENS.match(location), (log, location)


# 6. the same log, the same summary


def _summaries(logs: list[Path], tmp: Path) -> list[str]:
    return [offload(log.read_bytes(), tmp)[0] for log in logs]


SAMPLE = ["cargo_test_color_panic.log", "go_test_many_verbose.log", "cargo_nextest_fail.log"]


def test_the_same_log_gives_the_same_summary_byte_for_byte(tmp_path: Path) -> None:
    """Twice in one process, in either order: the node id (a different one each run) never changes
    what else the summary says."""
    logs = [DATA / name for name in SAMPLE]
    first = _summaries(logs, tmp_path)
    assert first == _summaries(logs, tmp_path)
    assert first[::-1] == _summaries(logs[::-1], tmp_path)


@pytest.mark.slow
def test_the_same_log_gives_the_same_summary_in_another_process(tmp_path: Path) -> None:
    logs = [DATA / name for name in SAMPLE]
    first = _summaries(logs, tmp_path)
    script = (
        "import io, json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "from test_verdicts_prefixes_tail import _summaries;"
        "print(json.dumps(_summaries([Path(p) for p in sys.argv[3:]], Path(sys.argv[2]))))"
    )
    other = tmp_path / "other"
    other.mkdir()
    env = {"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent), str(other), *map(str, logs)],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    assert json.loads(done.stdout) == first
