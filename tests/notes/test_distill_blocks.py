"""A card's evidence and hints are its own failure's: a pytest log with three failing tests gave
the first one's card the second's ZeroDivisionError as "The tool says" and as evidence (a
newcomer's real run, below), because the excerpt ran to the next other failure's line, deep in
that test's block. It stops at the rule that starts the next test's block."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from k0maru.notes.distill import block_end
from k0maru.service.operations import Service

PYTEST = """\
=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(2, 2) == 4
E       assert 5 == 4
E        +  where 5 = add(2, 2)

tests/test_calc.py:5: AssertionError
________________________________ test_div_zero _________________________________

    def test_div_zero():
>       assert div(1, 0) == 0
               ^^^^^^^^^

tests/test_calc.py:9:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

a = 1, b = 0

    def div(a, b):
>       return a / b
               ^^^^^
E       ZeroDivisionError: division by zero

calc.py:2: ZeroDivisionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_add - assert 5 == 4
FAILED tests/test_calc.py::test_div_zero - ZeroDivisionError: division by zero
========================= 2 failed in 0.05s =========================
"""


@pytest.fixture
def service(demo: Path) -> Iterator[Service]:
    with Service.open(str(demo)) as svc:
        yield svc


def test_the_first_failures_card_holds_nothing_of_the_second(service: Service) -> None:
    card = service.distill(PYTEST, None).card_markdown
    assert "assert 5 == 4" in card
    assert "ZeroDivisionError" not in card.split("## Diagnosis path", 1)[1]


def test_a_block_ends_at_a_titled_rule_not_at_a_frame_rule() -> None:
    lines = PYTEST.splitlines()
    assert lines[23].startswith("E       ZeroDivisionError")  # the next failure: line 24
    assert block_end(lines, 5, 24) == 10  # `____ test_div_zero ____` is line 10
    lines[9] = "_ _ _ _ _ _ _ _ _ _"  # pytest's rule between two frames of one failure
    assert block_end(lines, 5, 24) == 24
