"""Screenshots of every console page for review, in headless Chromium at 1400x1000 (and 420 wide):
a copy of the demo vault, one failing offload, the console on a free port.

    python scripts/screenshots.py [--out DIR]        (default: ./screenshots, which git ignores)
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = [
    ("search", "search?q=SQLITE_BUSY+during+the+nightly+backup&boost=0.002"),
    ("search-filtered", "search?q=lease&kind=log&since=2026-10-15"),
    ("tokens", "tokens"),
    ("logs", "logs"),
    ("log", None),
    ("notes", "notes?filter=sqlite"),
    ("note", "notes/20_Cards/sqlite-busy-timeout.md"),
    ("status", "status"),
    ("error", "search?q=x&limit=abc"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("screenshots"))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(
            REPO / "examples" / "vault", vault, ignore=shutil.ignore_patterns(".k0maru")
        )
        boom = vault / "boom.py"
        boom.write_text(
            "for i in range(120):\n    print('tick', i)\nraise ValueError('bad lease')\n"
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "k0maru",
                "offload",
                "--vault",
                str(vault),
                "--task-id",
                "shots",
                "--",
                sys.executable,
                str(boom),
            ],
            capture_output=True,
        )
        ui = subprocess.Popen(
            [sys.executable, "-m", "k0maru", "ui", "--vault", str(vault), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        url = re.search(r"http://\S+/", ui.stdout.readline() if ui.stdout else "")
        try:
            assert url, "the console did not start"
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                    args=[
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-background-networking",
                    ],
                )
                for width in (1400, 420):
                    page = browser.new_page(viewport={"width": width, "height": 1000})
                    for name, path in PAGES:
                        if path is None:
                            page.goto(url.group(0) + "logs")
                            page.click("table a >> nth=0")
                        else:
                            page.goto(url.group(0) + path)
                        page.wait_for_load_state("networkidle")
                        shot = args.out / f"{name}-{width}.png"
                        page.screenshot(path=str(shot))
                        print(shot)
                    page.close()
                browser.close()
        finally:
            ui.send_signal(signal.SIGINT)
            ui.wait(timeout=10)


if __name__ == "__main__":
    main()
