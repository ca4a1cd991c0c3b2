"""The loadout's budget is a ceiling, not a target (issue #57): a guide section that states far
less per token than the best ones is left out though there is room, and the closing section says
so; the commands and decisions are not held to that floor. With a focus, what concerns it comes
first by what it states per token."""

from __future__ import annotations

from collections import Counter

from k0maru.notes.loadout import fit_plan
from k0maru.notes.loadout_plan import Item, Plan, focus_terms


def _guide(name: str, score: float, focus: float = 0.0) -> Item:
    line = f"Run `make {name}` before you open a pull request."
    return Item("guide", f"CONTRIBUTING.md#{name}", [line], score, focus=focus)


def test_a_section_that_states_little_is_left_out_though_there_is_room() -> None:
    strong = [_guide(f"step{i}", 10.0) for i in range(4)]
    weak = _guide("weak", 0.5)
    command = Item("commands", "Makefile (read from the file)", ["make lint"], 0.5)
    plan = Plan([*strong, weak, command], read=Counter({"CONTRIBUTING.md": 5}))
    sections, used, _ = fit_plan(plan, [], 4000)
    sources = [s["source"] for s in sections]
    assert "CONTRIBUTING.md#weak" not in sources and used < 1000
    assert "Makefile (read from the file)" in sources  # a command is not held to the floor
    assert "1 section stating too little per token" in sections[-1]["text"]


def test_with_a_focus_its_sections_come_first_by_what_they_state() -> None:
    plan = Plan([_guide("a", 50.0), _guide("b", 40.0, focus=0.5), _guide("c", 9.0, focus=1.0)])
    sections, _, _ = fit_plan(plan, [], 4000, focused=True)
    assert [s["source"].split("#")[1] for s in sections[:3]] == ["b", "c", "a"]


def test_a_focus_word_loses_one_plural_s_only() -> None:
    assert focus_terms("adding syntax to the CSS grammar under src/api") == [
        "syntax",
        "css",
        "gramma",
        "src/api",
    ]
    assert focus_terms("fixing the tests") == ["test"]
