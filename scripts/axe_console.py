"""axe-core on every console page, in headless Chromium on a desktop (1440x900) and a phone
(390x844).

    npm install --prefix /tmp/axe axe-core
    python scripts/axe_console.py --axe /tmp/axe/node_modules/axe-core/axe.min.js [--json]

Uses the pages and the console of scripts/screenshots.py; prints each violation (rule, impact, how
many nodes, the first node's target and summary) per page and size; exits 1 when there is any."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from screenshots import PAGES, SIZES, chromium, console, visit  # noqa: E402


def violations(page: Any, axe: str) -> list[dict[str, Any]]:
    page.add_script_tag(content=axe)
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--axe", type=Path, required=True, help="axe.min.js of the axe-core package")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    axe = args.axe.read_text(encoding="utf-8")
    report: dict[str, list[dict[str, Any]]] = {}
    with console() as base, chromium() as browser:
        for width, height in SIZES:
            size = {"width": width, "height": height}
            page = browser.new_page(
                viewport=size, bypass_csp=True
            )  # the console allows no inline script
            for name, path in PAGES:
                visit(page, base, path)
                report[f"{name}@{width}"] = violations(page, axe)
            page.close()
    if args.json:
        print(json.dumps(report, indent=1))
    for where, found in report.items():
        for v in found:
            first = v["nodes"][0]
            print(f"{where}: {v['id']} ({v['impact']}) x{len(v['nodes'])}: {first['target']}")
            print(f"    {first.get('failureSummary', '').splitlines()[-1].strip()}")
    print(f"{sum(len(f) for f in report.values())} violation(s) on {len(report)} page views")
    return 1 if any(report.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
