"""How well offload reads real failing runs: codes named, roots right, tokens saved, per log and per tool.

Every log of tests/data/logs (captured from the real tools by scripts/capture_logs.py, or by hand for the
first ones) goes through the real offload path (the stored log, the summary an agent gets); the
expectations file says which codes the summary must name and which `file:line` is the true first
failure. A code counts as named when it appears in the summary text; a root is right when the reported
first location ends with the expected one (a path boundary before it; the column only when expected).
Tokens are o200k BPE, the same count offload reports; a log whose summary is not clearly smaller passes
through and saves nothing.

    python scripts/eval_offload.py [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
from pathlib import Path

from k0maru.offload.findings import same_place
from k0maru.offload.runner import run_offload

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "tests" / "data" / "logs"


def evaluate() -> list[dict]:
    expectations = json.loads((LOGS / "expectations.json").read_text())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp)
        for name, want in sorted(expectations.items()):
            raw = (LOGS / name).read_bytes()
            out = io.BytesIO()
            outcome = run_offload(
                vault, None, threshold=0, task_id="eval", stdin=io.BytesIO(raw), out=out
            )
            findings = outcome.findings
            assert findings is not None
            rec = outcome.record
            summary = rec.summary if rec else out.getvalue().decode("utf-8", "replace")
            # named: a code the extractors found, or one the summary shows (e.g. node's [ERR_ASSERTION] beside
            # the AssertionError); a log that passes through must have its codes found all the same
            named = [
                c
                for c in want["codes"]
                if c in findings.error_codes or (rec is not None and c in summary)
            ]
            raw_tokens = rec.raw_tokens if rec else None
            rows.append(
                {
                    "log": name,
                    "tool": want["tool"],
                    "lines": outcome.lines,
                    "codes_expected": len(want["codes"]),
                    "codes_named": len(named),
                    "missed": [c for c in want["codes"] if c not in named],
                    "root_expected": want["root"],
                    "root_found": findings.first_location,
                    "root_right": same_place(findings.first_location, want["root"]),
                    "raw_tokens": raw_tokens,
                    "summary_tokens": rec.summary_tokens if rec else None,
                    "saved_pct": round(100 * (1 - rec.summary_tokens / rec.raw_tokens), 1)
                    if rec
                    else 0.0,
                    "passed_through": outcome.passed_through,
                }
            )
    return rows


def totals(rows: list[dict]) -> dict:
    codes = sum(r["codes_expected"] for r in rows)
    long = [r["saved_pct"] for r in rows if r["lines"] > 200]
    by_tool: dict[str, dict] = {}
    for r in rows:
        t = by_tool.setdefault(r["tool"], {"logs": 0, "codes": 0, "named": 0, "roots_right": 0})
        t["logs"] += 1
        t["codes"] += r["codes_expected"]
        t["named"] += r["codes_named"]
        t["roots_right"] += r["root_right"]
    return {
        "logs": len(rows),
        "tools": len(by_tool),
        "codes_named_pct": round(100 * sum(r["codes_named"] for r in rows) / codes, 1)
        if codes
        else 100.0,
        "roots_right_pct": round(100 * sum(r["root_right"] for r in rows) / len(rows), 1),
        "median_saved_pct_over_200_lines": statistics.median(long) if long else None,
        "logs_over_200_lines": len(long),
        "raw_tokens": sum(r["raw_tokens"] or 0 for r in rows),
        "summary_tokens": sum(r["summary_tokens"] or 0 for r in rows),
        "by_tool": by_tool,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = evaluate()
    summary = totals(rows)
    if args.json:
        print(json.dumps({"logs": rows, "totals": summary}))
        return
    print(
        f"{'log':<36}{'lines':>6}{'codes':>7}{'root':>6}{'tokens':>8}{'summary':>9}{'saved':>7}  root found"
    )
    for r in rows:
        mark = "ok" if r["root_right"] else "MISS"
        codes = f"{r['codes_named']}/{r['codes_expected']}"
        tokens = r["raw_tokens"] if r["raw_tokens"] is not None else "-"
        summ = r["summary_tokens"] if r["summary_tokens"] is not None else "pass"
        print(
            f"{r['log'][:35]:<36}{r['lines']:>6}{codes:>7}{mark:>6}{tokens:>8}{summ:>9}{r['saved_pct']:>6.1f}%  "
            f"{r['root_found']}"
            + (f"  (want {r['root_expected']})" if not r["root_right"] else "")
            + (f"  missed {r['missed']}" if r["missed"] else "")
        )
    print()
    for tool, t in sorted(summary["by_tool"].items()):
        print(
            f"  {tool:<11} {t['logs']:>2} logs  codes {t['named']}/{t['codes']}  roots {t['roots_right']}/{t['logs']}"
        )
    print(
        f"\n{summary['logs']} logs from {summary['tools']} tools: codes named {summary['codes_named_pct']}%, "
        f"roots right {summary['roots_right_pct']}%, median saving on the {summary['logs_over_200_lines']} "
        f"logs over 200 lines {summary['median_saved_pct_over_200_lines']}%; "
        f"{summary['raw_tokens']:,} -> {summary['summary_tokens']:,} tokens"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
