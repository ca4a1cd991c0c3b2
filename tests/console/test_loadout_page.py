"""The console's loadout page shows the loadout an agent gets first, as `Service.loadout` gives it
to `k0maru loadout`: every section with its source, the budget and the focus it was asked for; a
bad budget or an over-long focus is one line (#57, #60). Flask's test client, a real index."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from k0maru.console.app import create_app
from k0maru.limits import LOADOUT_BUDGET
from k0maru.service.operations import Service
from k0maru.service.session import VaultSession
from k0maru.wiring.vault import Vault
from tests.helpers import write

FILES = {
    "AGENTS.md": "# Agents\n\n- Run `make test` before every commit.\n- Never edit generated files.\n",
    "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\nRun `pytest -q` from the root.\n\n"
    "## Auth\n\nChanges under src/auth/ must keep the token checks constant-time.\n",
    "README.md": "# Demo\n\nA demo service.\n",
}


@pytest.fixture
def svc(vault: Path) -> Iterator[Service]:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    for name, text in FILES.items():
        write(vault, name, text)
    service = Service(VaultSession(Vault.open(vault)))
    service.scan()
    yield service
    service.close()


def sections(page: str) -> list[tuple[str, str, str]]:
    """(kind, source, text) of each section the page shows."""
    found = re.findall(
        r'<section class="card loadout">\s*<h2><span class="badge linked">([^<]*)</span> '
        r'<(?:span|a) class="cmd"[^>]*>([^<]*)</(?:span|a)></h2>\s*'
        r'<pre class="loadout-text" tabindex="0">(.*?)</pre>',
        page,
        re.S,
    )
    return [(unescape(k), unescape(s), unescape(t)) for k, s, t in found]


def page(client: Any, url: str) -> str:
    resp = client.get(url)
    assert resp.status_code == 200, url
    text: str = resp.get_data(as_text=True)
    return text


def test_the_page_shows_the_loadout_the_service_gives(svc: Service) -> None:
    client = create_app(svc).test_client()
    shown = page(client, "/loadout")
    answer = svc.loadout(LOADOUT_BUDGET)
    assert answer.sections
    assert sections(shown) == [(s.kind, s.source, s.text) for s in answer.sections]
    assert "make test" in shown
    assert f"{answer.tokens_used:,} of {LOADOUT_BUDGET:,} tokens" in shown
    assert '<a href="/loadout" class="active">Loadout</a>' in shown


def test_the_focus_and_budget_reach_the_service(svc: Service) -> None:
    client = create_app(svc).test_client()
    shown = page(client, "/loadout?focus=I%27m+changing+src/auth/&budget=600")
    answer = svc.loadout(600, focus="I'm changing src/auth/")
    assert sections(shown) == [(s.kind, s.source, s.text) for s in answer.sections]
    assert sections(shown)[0][1] == "CONTRIBUTING.md#Auth"  # what concerns the focus first
    # a source that is a note opens it, at the heading
    assert '<a class="cmd" href="/notes/CONTRIBUTING.md#auth">CONTRIBUTING.md#Auth</a>' in shown
    assert f"of {600:,} tokens" in shown
    assert "what concerns <q>I&#39;m changing src/auth/</q> first" in shown
    assert 'name="focus" value="I&#39;m changing src/auth/"' in shown


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("budget=10", "budget must be between 200 and 32000"),
        ("budget=lots", "budget must be an integer"),
        ("focus=" + "x" * 501, "focus is 501 characters; the limit is 500"),
    ],
)
def test_bad_input_is_one_line(svc: Service, query: str, said: str) -> None:
    resp = create_app(svc).test_client().get("/loadout?" + query)
    assert resp.status_code == 400 and said in resp.get_data(as_text=True)
    assert "Traceback" not in resp.get_data(as_text=True)
