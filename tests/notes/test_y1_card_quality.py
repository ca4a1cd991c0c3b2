"""A skill card's title and error codes, on the failures a newcomer distilled and on every captured
log under tests/data/logs: the title is cut between words (and says so), a code a message names
(`code=MSG_SIZE_TOO_LARGE`, `[ERR_ASSERTION]`, `ECONNREFUSED`) is listed, and a word that only says
a line failed (`error`, `FAIL`) is never a code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.notes.distill import NO_CODE, card_codes, card_title
from k0maru.offload.traces import analyze_trace
from k0maru.service.operations import Service

LOGS = Path(__file__).parents[1] / "data" / "logs"
KAFKA = (
    "Traceback (most recent call last):\n"
    '  File "/srv/harbor/consumer.py", line 88, in poll\n'
    "    msg = self.consumer.poll(1.0)\n"
    "confluent_kafka.KafkaException: KafkaError{code=MSG_SIZE_TOO_LARGE,val=10,"
    'str="Broker: Message size too large"}\n'
)


@pytest.fixture
def service(demo: Path) -> Iterator[Service]:
    with Service.open(str(demo)) as svc:
        yield svc


def test_a_long_title_is_cut_at_a_word_and_a_named_code_is_listed(service: Service) -> None:
    card = service.distill(KAFKA, None)
    assert card.title.endswith(" too…") and "MSG_SIZE_TOO_LARGE" in card.error_codes
    assert card.error_codes[0] == "KafkaException"
    assert "title: 'KafkaException KafkaError{" in card.card_markdown


def test_a_bare_error_word_is_no_code(service: Service) -> None:
    card = service.distill("error --> src/main.rs:4:5\n", None)
    assert card.error_codes == [] and card.title == "error at src/main.rs:4:5"
    assert "Error codes: none." in card.card_markdown
    gcc = service.distill((LOGS / "gcc_compile_errors.log").read_text(), None)
    assert gcc.error_codes == [] and gcc.title.startswith("‘undefined_count’ undeclared")


def primaries() -> Iterator[tuple[str, str]]:
    for path in sorted(LOGS.glob("*.log")):
        yield path.name, path.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize(("name", "text"), list(primaries()), ids=[n for n, _ in primaries()])
def test_every_captured_log_gets_a_sound_title_and_codes(name: str, text: str) -> None:
    findings = analyze_trace(text)
    failures = sorted(findings.failures, key=lambda f: f.line)
    if not failures:
        return
    primary = next((f for f in failures if f.location and f.stack != "generic"), failures[0])
    codes = card_codes(findings.error_codes, [primary], primary)
    title = card_title(primary)
    assert not NO_CODE & set(codes), name
    assert title and len(title) <= 90, name
    full = " ".join(f"{primary.code} {primary.message}".split())
    kept = title.removesuffix("…")
    if title.endswith("…"):  # cut between words: a space (or a dropped `,;:`) came next
        at = full.find(kept)
        assert at >= 0 and full[at + len(kept)] in " ,;:", name
    else:
        assert kept in full or title == f"{primary.code} at {primary.location}", name


def test_codes_named_in_messages_of_real_logs() -> None:
    node = analyze_trace((LOGS / "mocha_assert.log").read_text(encoding="utf-8"))
    first = min(node.failures, key=lambda f: f.line)
    assert card_codes(node.error_codes, [first], first) == ["AssertionError", "ERR_ASSERTION"]
    cmake = analyze_trace((LOGS / "cmake_configure_error.log").read_text(encoding="utf-8"))
    first = next(f for f in cmake.failures if f.location)
    assert "CMAKE_MODULE_PATH" in first.message  # a variable in the message's prose: no code
    assert card_codes(cmake.error_codes, [first], first) == []
