"""The tool-agnostic layer: location forms, which paths are the user's, and a summary that is never
worse than the log's tail (in-process: the fast tier)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from k0maru.offload.locations import Places, find_all
from k0maru.offload.runner import run_offload


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("src/app.py:12:5: error", ("src/app.py", "12", "5")),
        ('  File "pkg/mod.py", line 7, in run', ("pkg/mod.py", "7", None)),
        ("    at handler (src/server.js:41:13)", ("src/server.js", "41", "13")),
        ("lib/order.rb:7:in `total'", ("lib/order.rb", "7", None)),
        ("#   at t/01-price.t line 7.", ("t/01-price.t", "7", None)),
        ("\tat demo.Ledger.add(Ledger.java:12)", ("Ledger.java", "12", None)),
        ("  --> src/x.rs:4:5", ("src/x.rs", "4", "5")),
        ("src/app.ts(12,5): error TS2345: x", ("src/app.ts", "12", "5")),
        (
            "[ERROR] /w/src/Ledger.java:[14,24] cannot find symbol",
            ("/w/src/Ledger.java", "14", "24"),
        ),
        (
            "PHP Fatal error:  oops in /srv/app/index.php on line 6",
            ("/srv/app/index.php", "6", None),
        ),
        ("./build.sh: line 6: cpp_lint: command not found", ("build.sh", "6", None)),
        ("Failure: TestRate#test_idle [test/test_rate.rb:8]:", ("test/test_rate.rb", "8", None)),
        ("file:///tmp/t/test.mjs:6:10", ("/tmp/t/test.mjs", "6", "10")),
        (
            "::error file=.github/ci.yml,line=7,col=5::7:5 [indentation] x",
            (".github/ci.yml", "7", "5"),
        ),
        ("[error] src/app.js: SyntaxError: Unexpected token (2:15)", ("src/app.js", "2", "15")),
    ],
)
def test_every_common_location_form_is_read(line: str, want: tuple[str, str, str | None]) -> None:
    assert [f[:3] for f in find_all(line)][0] == want


def test_no_location_in_times_versions_or_urls() -> None:
    for line in [
        "at 12:30:45 done",
        "python 3.11.7 ok",
        "see https://example.com:8080/x",
        "x" * 5000,
    ]:
        assert find_all(line) == [], line


def test_only_the_users_paths_count(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    places = Places(tmp_path)
    assert places.is_user(str(tmp_path / "src" / "app.py"))  # under the working tree
    assert places.is_user("src/app.py") and places.is_user("lib/gone.rb")  # relative
    assert places.is_user("/ci/runner/work/app.py")  # not on this machine: judged by its name
    assert not places.is_user(sys.executable)  # exists, outside the tree
    for path in [
        "node_modules/jest/index.js",
        "node:internal/test_runner/test",
        "/usr/lib/python3.11/unittest/case.py",
        "venv/lib/python3.11/site-packages/pkg/x.py",
        "/usr/include/c++/12/bits/stl_algo.h",
    ]:
        assert not places.is_user(path), path


def _summary(text: str, tmp_path: Path) -> str:
    out = io.BytesIO()
    outcome = run_offload(
        tmp_path, None, threshold=1, task_id="g", stdin=io.BytesIO(text.encode()), out=out,
        err=io.BytesIO(), progress=False, tree=tmp_path,
    )  # fmt: skip
    assert outcome.record is not None
    return out.getvalue().decode()


NOISE = "".join(f"[{i:04d}] copying asset bundle_{i}.bin to dist/\n" for i in range(400))


def test_piped_summary_says_the_status_is_unknown_and_how_to_get_it(tmp_path: Path) -> None:
    text = _summary(NOISE + "boom: the deploy step gave up after 3 tries\n", tmp_path)
    assert "exit status unknown" in text and "set -o pipefail" in text
    assert "k0maru offload -- CMD" in text


def test_an_unknown_failure_keeps_the_logs_last_lines(tmp_path: Path) -> None:
    """No marker, no location: the summary still holds the lines `tail -n 30` would show of it."""
    tail = "deploy: waiting for quorum\nquorum lost: 2 of 5 replicas answered\ngiving up\n"
    text = _summary(NOISE + tail, tmp_path)
    for line in tail.splitlines():
        assert line in text
    assert "inspect: k0maru log show" in text


def test_a_runner_without_an_extractor_is_rooted_at_its_frame(tmp_path: Path) -> None:
    log = NOISE + (
        "  1) Cart\n       sums prices:\n\n      AssertionError [ERR_ASSERTION]: 6 == 5\n"
        "      + expected - actual\n\n      at Context.<anonymous> (test/cart.spec.js:6:12)\n"
        "      at process.processImmediate (node:internal/timers:483:21)\n"
    )
    text = _summary(log, tmp_path)
    assert "first failure: test/cart.spec.js:6:12" in text
    assert "AssertionError [ERR_ASSERTION]: 6 == 5" in text


def test_the_codes_line_names_a_qualified_exception_once(tmp_path: Path) -> None:
    log = NOISE + (
        "java.lang.IllegalStateException: bad price list\n"
        "\tat demo.Prices.load(Prices.java:12)\n"
        'Caused by: java.lang.NumberFormatException: For input string: "x"\n'
        "\tat demo.Prices.parseCents(Prices.java:5)\n"
    )
    codes = next(ln for ln in _summary(log, tmp_path).splitlines() if "error codes:" in ln)
    named = codes.split("error codes: ")[1].split(", ")
    assert named == ["java.lang.IllegalStateException", "java.lang.NumberFormatException"]
