"""The distiller in-process (#38): one card per failure, updated when the failure is seen again,
never cited by `seen before` while it records no fix, and a Hermes export that claims no fix it
lacks."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from k0maru.errors import K0maruError
from k0maru.service.offload import offload
from k0maru.service.operations import Service

LOGS = Path(__file__).parents[1] / "data" / "logs"
NOISE = "".join(f"step {i}: compiling unit_{i}.c ok\n" for i in range(300))


def failing_log(key: str) -> str:
    """A long log ending in the same KeyError at the same place; only the missing key differs."""
    return NOISE + (
        'Traceback (most recent call last):\n  File "app/cache.py", line 12, in get\n'
        f"    return self.items[key]\nKeyError: 'missing {key}'\n"
    )


def offloaded(vault: Path, text: str) -> tuple[str, str]:
    """(node id, summary) of `text` offloaded as piped input."""
    out = io.BytesIO()
    run = offload(str(vault), None, task_id="t", stdin=io.BytesIO(text.encode()), out=out)
    assert run.record is not None
    return run.record["node_id"], out.getvalue().decode()


@pytest.fixture
def service(demo: Path) -> Iterator[Service]:
    with Service.open(str(demo)) as svc:
        yield svc


def test_the_same_failure_again_updates_its_card(demo: Path, service: Service) -> None:
    nodes = [offloaded(demo, failing_log(f"user-{i}"))[0] for i in range(4)]
    cards = [service.distill(None, node) for node in nodes]
    assert {c.note_path for c in cards} == {cards[0].note_path}
    assert [c.note_outcome for c in cards] == ["created", "updated", "updated", "updated"]
    text = (demo / cards[0].note_path).read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["seen_count"] == 4 and front["sightings"].split() == nodes
    assert f"Seen 4 times; last on {front['last_seen']} from offloaded log {nodes[-1]}" in text
    assert "node" not in text.replace(nodes[-1], "").lower()  # #58: no stock word for recall
    again = service.distill(None, nodes[1])  # a sighting already counted
    assert again.note_outcome == "up_to_date" and (demo / again.note_path).read_text() == text
    assert sorted(p.name for p in (demo / "50_Skills").glob("keyerror*")) == [
        Path(cards[0].note_path).name
    ]
    hits = service.recall("how did we fix KeyError missing", limit=5).hits
    assert sum(h.path.startswith("50_Skills/") for h in hits) == 1


def test_an_update_keeps_what_the_user_wrote_in_the_card(demo: Path, service: Service) -> None:
    first = service.distill(failing_log("a"), None)
    path = demo / first.note_path
    edited = path.read_text().replace(
        "## Evidence", "My note: check the cache warm-up.\n\n## Evidence"
    )
    path.write_text(edited)
    assert service.distill(failing_log("b"), None).note_outcome == "updated"
    now = path.read_text()
    changed = [
        old.split(":")[0].split()[0]
        for old, new in zip(edited.splitlines(), now.splitlines(), strict=True)
        if old != new
    ]
    assert changed == ["seen_count", "sightings", "Seen"]


def test_seen_before_names_no_card_without_a_fix(demo: Path, service: Service) -> None:
    node, _ = offloaded(demo, failing_log("a"))
    card = service.distill(None, node)
    text = (demo / card.note_path).read_text()
    assert "No fix recorded yet" in text
    _, summary = offloaded(demo, failing_log("b"))
    assert "first failure: app/cache.py:12" in summary and "seen before" not in summary
    fixed = text.replace(
        "- No fix recorded yet: when a fix works, replace this line with what it was.",
        "- Warm the cache before the first request.",
    )
    (demo / card.note_path).write_text(fixed)
    service.scan()
    _, summary = offloaded(demo, failing_log("c"))
    assert f"seen before: {card.note_path}\n" in summary


def test_a_card_without_a_fix_exports_no_claim_of_one(
    demo: Path, service: Service, tmp_path: Path
) -> None:
    card = service.distill(failing_log("a"), None, "stdin", str(tmp_path / "h"))
    skill = Path(card.hermes_path or "")
    front = yaml.safe_load(skill.read_text().split("---\n")[1])
    assert "fix found before" not in front["description"]
    assert "no fix is recorded yet" in front["description"]
    again = service.distill(failing_log("b"), None, "stdin", str(tmp_path / "h"))
    assert again.hermes_path == card.hermes_path and again.hermes_outcome == "updated"
    assert "Seen 2 times" in skill.read_text()
    assert [p.name for p in skill.parent.parent.iterdir()] == [skill.parent.name]  # no -v2
    rust = service.distill((LOGS / "rustc_e0502.log").read_text(), None, "stdin", str(tmp_path))
    description = yaml.safe_load(Path(rust.hermes_path or "").read_text().split("---\n")[1])
    assert "the fix found before" in description["description"]  # the team's note records one


def test_one_card_per_failure(service: Service) -> None:
    """unittest's log holds a KeyError in one test and an unrelated AssertionError in another."""
    card = service.distill((LOGS / "unittest_failures.log").read_text(), None)
    assert card.error_codes == ["KeyError"] and card.location is not None
    assert "AssertionError" not in card.card_markdown and "20 != 30" not in card.card_markdown
    assert "1 other failure(s)" in card.card_markdown
    other = service.distill((LOGS / "java_caused_by.log").read_text(), None)
    assert "NumberFormatException" in other.error_codes  # a cause at the same place is the same one


@pytest.mark.parametrize(
    ("trace", "code", "where"),
    [
        (
            "  File \"/app/lease.py\", line 41, in renew\n    self.ttl[key]\nKeyError: 'lease-9'\n",
            "KeyError",
            "/app/lease.py:41",
        ),
        ("ValueError: invalid literal for int() with base 10: 'x'\n", "ValueError", None),
    ],
)
def test_a_trace_without_its_traceback_line_is_read(
    service: Service, trace: str, code: str, where: str | None
) -> None:
    card = service.distill(trace, None)
    assert card.error_codes == [code] and card.location == where
    assert "Traceback (most recent call last)" not in card.card_markdown  # not invented


def test_trace_and_node_together_are_refused_in_one_line(demo: Path, service: Service) -> None:
    node, _ = offloaded(demo, failing_log("a"))
    before = sorted(demo.rglob("*.md"))
    with pytest.raises(K0maruError) as err:
        service.distill(failing_log("b"), node)
    assert "not both" in str(err.value) and "\n" not in str(err.value)
    assert sorted(demo.rglob("*.md")) == before
