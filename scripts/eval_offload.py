"""How well offload reads real failing runs, on the dev logs and on the held-out ones, held-out
first.

Every log of tests/data/logs (dev) and tests/data/logs/heldout (a quarter kept aside: never read
while changing extractors) goes through the real offload path, piped (the stored log, the summary an
agent gets). Each expectations file says which codes the summary must name, which `file:line` is the
true first failure (`""`: the log names none, and none must be invented), and `cause`, a string of
the log the summary must not drop. Reported per half:
- codes named: a code counts when the extractors found it or the summary shows it;
- roots right: the first location ends with the expected one (path boundary; column when expected);
- hides the cause: the log's `cause` (or its root) is in the raw log but not in what the agent sees
  (the summary, or the whole output when it passes through);
- median token saving on logs over 200 lines (o200k BPE, as offload counts);
- the naive baseline beside it: `tail -n 30`, whether it holds the root / the cause, and its tokens.
- longer than the log: the summary costs more tokens, or more words, than the raw log;
- the summarised logs alone, root named against `tail -n 30`: a log passed through reaches the agent
  whole, so only a summary can do worse than the tail.
Per-log lines are printed for dev only (`--heldout-logs` prints them for the held-out half too). The
issue #40 corpus (tests/data/logs/tools: 41 tools no other corpus held) is two more halves,
`tools-heldout` and `tools-dev`, split by tool. `round3` (tests/data/logs/round3: 29 tools no
earlier corpus held) and `round4` (tests/data/logs/round4: 33 more tools) were held out whole and
are now seen; `round5` (tests/data/logs/round5: 33 more tools, captured and labelled by someone
who never saw the extractors) is held out whole.

`round6` (tests/data/logs/round6) is split by tool: `round6-test` (its heldout/) and `round6`, the
dev half. `passing` (tests/offload/data/passing: runs that exited 0 with warnings) runs each log as
a command that exits 0 and counts false failures (a summary or record calling it failed). On every
half a bar is checked: the summarised logs show their root (named, or among the lines shown) at
least as often as their last 30 lines hold it. An absolute path that exists here outside the tree
is judged a library's: run it where the logs' capture folders (`/tmp/r6cases`) do not exist.

`--without FAMILY` (or `--without all`) leaves one family out: each family's logs run again with the
extractors that named its failures switched off (`analyzer.SWITCHED_OFF`), so the generic layers
alone are measured on it; that table is printed beside the usual one.

    python scripts/eval_offload.py [--json] [--heldout-logs] [--half HALF] [--without FAMILY|all]
"""

from __future__ import annotations

import argparse
import inspect
import io
import json
import random
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from k0maru.llm_tokens import count_tokens
from k0maru.offload import analyzer
from k0maru.offload.findings import GENERIC_STACKS, same_place
from k0maru.offload.runner import run_offload

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "tests" / "data" / "logs"
TOOLS = LOGS / "tools"
PASSING = REPO / "tests" / "offload" / "data" / "passing"
HALVES = (
    ("round6-test", LOGS / "round6" / "heldout"),
    ("round6", LOGS / "round6"),
    ("round5", LOGS / "round5"),
    ("round4", LOGS / "round4"),
    ("round3", LOGS / "round3"),
    ("heldout", LOGS / "heldout"),
    ("tools-heldout", TOOLS / "heldout"),
    ("dev", LOGS),
    ("tools-dev", TOOLS),
    ("passing", PASSING),
)
HELD_OUT = ("round6-test", "round5", "round4", "round3", "heldout", "tools-heldout")
ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()*+][0-9A-Za-z]|[@-Z\\-_])"
)
TAKES_TREE = "tree" in inspect.signature(run_offload).parameters


def _root_shown(root: str, found: str | None, shown: str) -> bool:
    """The root is in what the agent sees: as the reported location, or as `file:line` in its
    text."""
    if not root:
        return True
    if same_place(found, root):
        return True
    path, _, line = root.partition(":")
    line = line.split(":")[0]
    name = re.escape(path.rsplit("/", 1)[-1])
    return re.search(rf"{name}(?::| line |\(|\", line ){line}\b", shown) is not None


def evaluate(folder: Path, only: set[str] | None = None) -> list[dict[str, Any]]:
    path = folder / "expectations.json"
    if not path.exists():
        return []
    expectations = json.loads(path.read_text())
    if only is not None:
        expectations = {k: v for k, v in expectations.items() if k in only}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp)
        for name, want in sorted(expectations.items()):
            rows.append(_evaluate_log(folder / name, want, vault))
    return rows


def _evaluate_log(log: Path, want: dict[str, Any], vault: Path) -> dict[str, Any]:
    """One log through the real offload path, measured against its expectations."""
    name, folder = log.name, log.parent
    raw = (folder / name).read_bytes()
    out = io.BytesIO()
    extra: dict[str, Any] = {"tree": vault} if TAKES_TREE else {}
    # a passing run: the log is the output of a command that exits with `exit`
    command = None if "exit" not in want else _replaying(folder / name, want["exit"])
    outcome = run_offload(
        vault,
        command,
        threshold=0,
        task_id="eval",
        stdin=io.BytesIO(raw),
        out=out,
        err=io.BytesIO(),
        progress=False,
        **extra,
    )
    findings = outcome.findings
    assert findings is not None
    rec = outcome.record
    shown = out.getvalue().decode("utf-8", "replace")
    text = ANSI.sub("", raw.decode("utf-8", "replace"))
    # a code as the log writes it: `IllegalStateException` is named by
    # `java.lang.IllegalStateException`
    found_codes = {c.rsplit(".", 1)[-1] for c in findings.error_codes}
    found_codes.update(findings.error_codes)
    named = [
        c for c in want.get("codes", []) if c in found_codes or (rec is not None and c in shown)
    ]
    cause = want.get("cause") or ""
    root = want.get("root", "")
    found = findings.first_location
    root_right = same_place(found, root) if root else found is None
    if want.get("exit") == 0 and not root:  # a passing run: no root, or one of its warnings
        root_right = found is None or any(same_place(found, w) for w in want.get("warnings", []))
    tail = "\n".join(text.rstrip("\n").split("\n")[-30:])
    if outcome.passed_through:  # the agent gets the log itself: nothing is hidden
        assert out.getvalue() == raw
    hides = not outcome.passed_through and (
        (bool(cause) and cause in text and cause not in ANSI.sub("", shown))
        or not _root_shown(root, found, shown)
    )
    return {
        "log": name,
        "tool": want["tool"],
        "family": want.get("family", want["tool"]),
        "lines": outcome.lines,
        "codes_expected": len(want.get("codes", [])),
        "codes_named": len(named),
        "missed": [c for c in want.get("codes", []) if c not in named],
        "root_expected": root,
        "root_found": found,
        "root_right": root_right,
        "hides_cause": hides,
        "raw_tokens": rec.raw_tokens if rec else count_tokens(text),
        "summary_tokens": rec.summary_tokens if rec else None,
        "saved_pct": round(100 * (1 - rec.summary_tokens / rec.raw_tokens), 1) if rec else 0.0,
        "passed_through": outcome.passed_through,
        "root_shown": root_right or _root_shown(root, found, shown),
        "passing": want.get("exit") == 0,
        "false_failure": want.get("exit") == 0 and _says_failed(outcome, shown),
        "stacks": sorted({f.stack for f in findings.failures} - GENERIC_STACKS),
        "longer": rec is not None
        and (rec.summary_tokens > rec.raw_tokens or len(shown.split()) > len(text.split())),
        "tail30_root": bool(want.get("tail30_has_root", _root_shown(root, None, tail)))
        if root
        else True,
        "tail30_cause": (cause in tail) if cause else True,
        "tail30_tokens": count_tokens(tail),
    }


def _replaying(log: Path, code: int) -> list[str]:
    """A command whose output is `log` and whose exit status is `code`."""
    return ["sh", "-c", 'cat "$1"; exit "$2"', "sh", str(log), str(code)]


def _says_failed(outcome: Any, shown: str) -> bool:
    """A passing run called failed: by its summary (a failure counted, a first failure named) or
    by its record (a first location, failures)."""
    rec = outcome.record
    head = shown.split("\n")[1:3] if rec is not None else []
    said = any(
        "first failure:" in line or re.search(r"\b[1-9][\d,]* failure\(s\)", line) for line in head
    )
    return said or (rec is not None and (rec.first_location is not None or bool(rec.failures)))


def _ci(hits: list[bool], rounds: int = 2000) -> str:
    """95% bootstrap interval of a rate, in percent."""
    if not hits:
        return "-"
    rng = random.Random(7)
    n = len(hits)
    rates = sorted(sum(rng.choices(hits, k=n)) / n for _ in range(rounds))
    return f"[{100 * rates[int(0.025 * rounds)]:.0f}-{100 * rates[int(0.975 * rounds)]:.0f}]"


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    codes = sum(r["codes_expected"] for r in rows)
    long = [r["saved_pct"] for r in rows if r["lines"] > 200]
    by_family: dict[str, dict[str, Any]] = {}
    for r in rows:
        counts = ("logs", "codes", "named", "roots", "hides", "longer", "tail_roots")
        t = by_family.setdefault(r["family"], dict.fromkeys(counts, 0))
        t["logs"] += 1
        t["codes"] += r["codes_expected"]
        t["named"] += r["codes_named"]
        t["roots"] += r["root_right"]
        t["hides"] += r["hides_cause"]
        t["longer"] += r["longer"]
        t["tail_roots"] += r["tail30_root"]
    n = len(rows) or 1
    summarised = [r for r in rows if not r["passed_through"]]
    return {
        "logs": len(rows),
        "tools": len({r["tool"] for r in rows}),
        "families": len(by_family),
        "codes_named_pct": round(100 * sum(r["codes_named"] for r in rows) / codes, 1)
        if codes
        else 100.0,
        "roots_right_pct": round(100 * sum(r["root_right"] for r in rows) / n, 1),
        "roots_right_ci": _ci([r["root_right"] for r in rows]),
        "hides_cause": sum(r["hides_cause"] for r in rows),
        "longer_than_log": sum(r["longer"] for r in rows),
        "median_saved_pct_over_200_lines": round(statistics.median(long), 1) if long else None,
        "logs_over_200_lines": len(long),
        "tail30_roots_pct": round(100 * sum(r["tail30_root"] for r in rows) / n, 1),
        "tail30_roots_ci": _ci([r["tail30_root"] for r in rows]),
        "tail30_causes_pct": round(100 * sum(r["tail30_cause"] for r in rows) / n, 1),
        "tail30_median_tokens": statistics.median([r["tail30_tokens"] for r in rows])
        if rows
        else None,
        "summary_median_tokens": statistics.median(
            [r["summary_tokens"] for r in rows if r["summary_tokens"] is not None] or [0]
        ),
        "by_family": by_family,
        # the like-for-like comparison with the baseline: a log passed through reaches the agent
        # whole
        "summarised": len(summarised),
        "summarised_roots": sum(r["root_right"] for r in summarised),
        "summarised_tail30_roots": sum(r["tail30_root"] for r in summarised),
        "summarised_shown": sum(r["root_shown"] for r in summarised),
        "false_failures": sum(r["false_failure"] for r in rows),
        "passing_runs": sum(r["passing"] for r in rows),
    }


def report(half: str, rows: list[dict[str, Any]], per_log: bool) -> None:
    s = totals(rows)
    print(f"== {half}: {s['logs']} logs, {s['tools']} tools, {s['families']} families")
    if per_log:
        log_lines(rows)
    family_table(s)
    print(
        f"  codes named {s['codes_named_pct']}%, roots right {s['roots_right_pct']}% "
        f"{s['roots_right_ci']} (tail -n 30 holds the root: {s['tail30_roots_pct']}% "
        f"{s['tail30_roots_ci']}, the cause: {s['tail30_causes_pct']}%), hides the cause "
        f"{s['hides_cause']}, longer than the log {s['longer_than_log']}, median saving on the {s['logs_over_200_lines']} logs over 200 lines "
        f"{s['median_saved_pct_over_200_lines']}%, median tokens: summary "
        f"{s['summary_median_tokens']}, tail -n 30 {s['tail30_median_tokens']}"
    )
    bar = "ok" if s["summarised_shown"] >= s["summarised_tail30_roots"] else "BELOW THE TAIL"
    print(
        f"  summarised {s['summarised']} of {s['logs']} (the rest reach the agent whole): root named "
        f"in {s['summarised_roots']}, shown in {s['summarised_shown']}, held by tail -n 30 in "
        f"{s['summarised_tail30_roots']} (bar: shown >= tail: {bar}); false failures "
        f"{s['false_failures']} of {s['passing_runs']} passing runs\n"
    )


def log_lines(rows: list[dict[str, Any]]) -> None:
    """One line a log: its codes, root, whether it hides the cause, tokens against the tail."""
    print(
        f"{'log':<40}{'lines':>6}{'codes':>7}{'root':>6}{'hides':>6}{'tokens':>8}{'summary':>8}"
        f"{'saved':>7}{'t30root':>8}{'t30tok':>7}  root found"
    )
    for r in rows:
        codes = f"{r['codes_named']}/{r['codes_expected']}"
        summ = r["summary_tokens"] if r["summary_tokens"] is not None else "pass"
        print(
            f"{r['log'][:39]:<40}{r['lines']:>6}{codes:>7}{'ok' if r['root_right'] else 'MISS':>6}"
            f"{'HIDE' if r['hides_cause'] else '-':>6}{r['raw_tokens']:>8}{summ:>8}"
            f"{r['saved_pct']:>6.1f}%{'yes' if r['tail30_root'] else 'no':>8}{r['tail30_tokens']:>7}"
            f"  {r['root_found']}"
            + (f"  (want {r['root_expected']!r})" if not r["root_right"] else "")
            + (f"  missed {r['missed']}" if r["missed"] else "")
        )


def family_table(s: dict[str, Any], switched: dict[str, list[str]] | None = None) -> None:
    print(
        f"  {'family':<18}{'logs':>5}{'codes':>8}{'roots':>7}{'hides':>6}{'longer':>7}"
        f"{'tail30 roots':>13}" + ("  switched off" if switched is not None else "")
    )
    for fam, t in sorted(s["by_family"].items()):
        off = f"  {','.join(switched.get(fam, [])) or '-'}" if switched is not None else ""
        print(
            f"  {fam:<18}{t['logs']:>5}{t['named']:>5}/{t['codes']:<2}{t['roots']:>4}/{t['logs']:<2}"
            f"{t['hides']:>6}{t['longer']:>7}{t['tail_roots']:>9}/{t['logs']}{off}"
        )


def leave_one_out(
    folder: Path, rows: list[dict[str, Any]], family: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each family's logs again, with the extractors that named its failures switched off."""
    out: list[dict[str, Any]] = []
    switched: dict[str, list[str]] = {}
    for fam in sorted({r["family"] for r in rows}):
        if family not in ("all", fam):
            continue
        own = [r for r in rows if r["family"] == fam]
        switched[fam] = sorted({s for r in own for s in r["stacks"]})
        analyzer.SWITCHED_OFF.clear()
        analyzer.SWITCHED_OFF.update(switched[fam])
        try:
            out += evaluate(folder, {r["log"] for r in own})
        finally:
            analyzer.SWITCHED_OFF.clear()
    return out, switched


def report_without(
    half: str, rows: list[dict[str, Any]], switched: dict[str, list[str]], per_log: bool
) -> None:
    s = totals(rows)
    print(f"== {half}, each family with its own extractors off: {s['logs']} logs")
    missing = [r for r in rows if not r["root_right"] or r["hides_cause"] or r["missed"]]
    if per_log and missing:
        log_lines(missing)
    family_table(s, switched)
    print(
        f"  codes named {s['codes_named_pct']}%, roots right {s['roots_right_pct']}% "
        f"{s['roots_right_ci']} (tail -n 30 holds the root: {s['tail30_roots_pct']}%), hides the "
        f"cause {s['hides_cause']}, longer than the log {s['longer_than_log']}\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--heldout-logs", action="store_true", help="per-log lines for held-out too")
    ap.add_argument("--half", choices=[h for h, _ in HALVES], help="evaluate this half only")
    ap.add_argument("--without", metavar="FAMILY", help="leave one family out (`all`: each)")
    args = ap.parse_args()
    folders = {half: folder for half, folder in HALVES if args.half in (None, half)}
    results = {half: evaluate(folder) for half, folder in folders.items()}
    without = {
        half: leave_one_out(folders[half], rows, args.without)
        for half, rows in results.items()
        if args.without
    }
    if args.json:
        print(
            json.dumps(
                {
                    h: {"logs": r, "totals": totals(r)}
                    | ({"without": totals(without[h][0])} if h in without else {})
                    for h, r in results.items()
                }
            )
        )
        return
    for half, rows in results.items():
        report(half, rows, per_log=half not in HELD_OUT or args.heldout_logs)
        if half in without:
            report_without(half, *without[half], per_log=half not in HELD_OUT or args.heldout_logs)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
