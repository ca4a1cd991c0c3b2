"""The dashboard reads the counts the index keeps (no walk, no file read back), and a page lists
what the index leaves out: skipped files with why, links that lead to no note (#42). Flask's test
client."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from k0maru.console.app import create_app
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write
from tests.service.test_damage import offload

LINKER = "# Linker\n\n[[nowhere]], [[Kept]], ![[present.png]], ![[gone.png]] and [[#Local]].\n\n## Local\n"


@pytest.fixture
def client(vault: Path) -> Iterator[Any]:
    write(vault, ".k0maru/config.toml", "embed = false\nmax_file_bytes = 2000\n")
    write(vault, "kept.md", "# Kept\n\nplain text\n")
    write(vault, "linker.md", LINKER)
    write(vault, "big.md", "# Big\n\n" + "words " * 1000)
    (vault / "wide.md").write_bytes("# Wide\n".encode("utf-16"))
    (vault / "present.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    os.symlink("/etc", vault / "outside")
    svc = Service(VaultSession(Vault.open(vault)))
    svc.scan()
    yield create_app(svc).test_client()
    svc.close()


def test_gaps_page_lists_skipped_files_with_why_and_unresolved_links(client: Any) -> None:
    page = client.get("/gaps").get_data(as_text=True)
    assert "<h1" in page
    assert "big.md" in page and "above max_file_bytes=2,000" in page
    assert "wide.md" in page and "re-save it as UTF-8" in page
    assert "outside" in page and "outside the vault; not followed" in page
    assert "[[nowhere]]" in page and "no note of that name" in page
    assert "[[gone.png]]" in page and "attachment not found" in page
    assert "present.png" not in page and "[[Kept]]" not in page  # they lead somewhere
    assert 'href="/notes/linker.md"' in page


def test_dashboard_and_status_link_to_the_gaps_page(client: Any) -> None:
    home = client.get("/").get_data(as_text=True)
    assert 'href="/gaps"' in home
    assert 'href="/gaps"' in client.get("/status").get_data(as_text=True)


def test_dashboard_reads_counts_without_walking_or_reading_files(vault: Path, client: Any) -> None:
    for node in ("n1", "n2", "n3"):  # offload records with their sidecars
        offload(vault, node)
    client.get("/")  # warm: templates and modules load once
    touched: list[str] = []
    recording = [True]  # an audit hook cannot be removed: it stops recording instead

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if recording[0] and event in ("open", "os.listdir", "os.scandir") and args:
            touched.append(f"{event} {args[0]}")

    sys.addaudithook(audit)
    page = client.get("/").get_data(as_text=True)
    recording[0] = False
    inside = str(vault)
    # the latest offloads list `.k0maru/refs` (records.restore, for records a rebuild lost): a
    # listing
    allowed = ("worker.lock", ".k0maru", ".k0maru/refs")
    read = [t for t in touched if inside in t and not t.endswith(allowed)]
    assert read == [], read
    # the counts are the index's: 2 notes (big.md and wide.md skipped), 1 link to no note
    # ([[nowhere]]: the embeds name attachments, which /gaps lists apart, #60)
    assert '<span class="label">notes</span><span class="value">2</span>' in page
    assert '<span class="label">links to no note</span><span class="value">1</span>' in page


def test_gaps_page_lists_links_to_a_heading_the_note_lacks(vault: Path) -> None:
    """`[[Note#No Such Heading]]` leads to a note but not to a heading of it; headings named by
    text, by slug, over no text of their own, block references and Markdown links' anchors (the
    renderer makes those, test_z2_gaps) are not listed."""
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(vault, "target.md", "# Target\n\n## Parent\n\n### Child\n\nbody ^blk\n")
    write(
        vault,
        "linker.md",
        "# Linker\n\n[[target#No Such Heading]], [[target#Child]], [[target#parent]],"
        " [[target#^blk]], [slug](target.md#child) and [bad](target.md#nowhere-at-all).\n",
    )
    svc = Service(VaultSession(Vault.open(vault)))
    svc.scan()
    try:
        page = create_app(svc).test_client().get("/gaps").get_data(as_text=True)
    finally:
        svc.close()
    section = page[page.index('id="headings"') :]
    assert "[[target#No Such Heading]]" in section and "the note has no such heading" in section
    for found in ("#Child]]", "#parent]]", "#^blk", "#child]]", "nowhere-at-all"):
        assert found not in section, found
