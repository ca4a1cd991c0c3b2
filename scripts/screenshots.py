"""Screenshots of every console page for review, in headless Chromium on a desktop (1440x900) and a
phone (390x844): a copy of the demo vault, one failing offload, the console on a free port.

    python scripts/screenshots.py [--out DIR]        (default: ./screenshots, which git ignores)
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SIZES = [(1440, 900), (390, 844)]  # a desktop, a phone
PAGES = [
    ("home", ""),
    ("search", "search?q=SQLITE_BUSY+during+the+nightly+backup&boost=0.002"),
    ("search-filtered", "search?q=lease&kind=log&since=2026-10-15"),
    ("tokens", "tokens"),
    ("logs", "logs"),
    ("log", None),  # the first log of /logs
    ("log-grep", "grep"),  # the same log, grep for the failure
    ("notes", "notes?filter=sqlite"),
    ("note", "notes/20_Cards/sqlite-busy-timeout.md"),
    ("status", "status"),
    ("gaps", "gaps"),
    ("error", "search?q=x&limit=abc"),
]


@contextlib.contextmanager
def console() -> Iterator[str]:
    """The URL of a console over a copy of the demo vault with one failing offload; stopped
    after."""
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(
            REPO / "examples" / "vault", vault, ignore=shutil.ignore_patterns(".k0maru")
        )
        boom = vault / "boom.py"
        boom.write_text(
            "for i in range(120):\n    print('tick', i)\nraise ValueError('bad lease')\n"
        )
        k0maru = [sys.executable, "-m", "k0maru"]
        offload = ["offload", "--vault", str(vault), "--task-id", "shots", "--"]
        subprocess.run([*k0maru, *offload, sys.executable, str(boom)], capture_output=True)
        ui = subprocess.Popen(
            [*k0maru, "ui", "--vault", str(vault), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        url = re.search(r"http://\S+/", ui.stdout.readline() if ui.stdout else "")
        try:
            assert url, "the console did not start"
            yield url.group(0)
        finally:
            ui.send_signal(signal.SIGINT)
            ui.wait(timeout=60)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium (Debian's) driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            browser.close()


def visit(page: Any, base: str, path: str | None) -> None:
    """Open one of PAGES: a path, or (None) the first log the logs page lists, ("grep") grepped."""
    if path in (None, "grep"):
        page.goto(base + "logs")
        page.click("table a >> nth=0")
        if path == "grep":
            page.goto(page.url.split("#")[0] + "?grep=Error&context=2")
    else:
        page.goto(base + path)
    page.wait_for_load_state("networkidle")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("screenshots"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with console() as base, chromium() as browser:
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            for name, path in PAGES:
                visit(page, base, path)
                shot = args.out / f"{name}-{width}.png"
                page.screenshot(path=str(shot))
                print(shot)
            page.close()


if __name__ == "__main__":
    main()
