"""/gaps lists a wikilink to a heading its note lacks, never a Markdown link's anchor (MkDocs and
GitHub slug headings apart, and a `<span id=…>` is an anchor too), and shows each link once."""

from __future__ import annotations

from pathlib import Path

from k0maru.console.app import create_app
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write


def _gaps(vault: Path) -> str:
    svc = Service(VaultSession(Vault.open(vault)))
    svc.scan()
    try:
        return str(create_app(svc).test_client().get("/gaps").get_data(as_text=True))
    finally:
        svc.close()


def test_markdown_anchors_are_not_missing_headings_and_links_show_once(vault: Path) -> None:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    write(
        vault,
        "reference/api-server.md",
        '# API server\n\n## DT_DEX Engine\n\n<span id="dtdex-engine-timeout-ms"></span>\n'
        "`dt.dex.engine.timeout.ms`\n",
    )
    write(
        vault,
        "guide/linker.md",
        "# Linker\n\n[span](../reference/api-server.md#dtdex-engine-timeout-ms),"
        " [mkdocs slug](../reference/api-server.md#dt_dex-engine),"
        " [[api-server#No Such Heading]] and [gone](../reference/gone.md#some-part).\n",
    )
    page = _gaps(vault)
    headings = page[page.index('id="headings"') :]
    assert "[[api-server#No Such Heading]]" in headings
    assert "api-server.md#" not in headings
    assert "[[../reference/gone.md#some-part]]" in page  # the target holds its anchor: shown once
    assert "#some-part#some-part" not in page
