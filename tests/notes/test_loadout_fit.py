"""`fit_loadout` (issue #56): the loadout is built once; where the whole answer is over its budget,
its last ranked sections go and the closing ones (`conventions`, `sources`) stay."""

from __future__ import annotations

from k0maru.llm_tokens import count_tokens
from k0maru.service.models import Loadout, LoadoutSection
from k0maru.service.operations import fit_loadout


def _answer(share: int) -> Loadout:
    sections = [
        LoadoutSection(kind="guide", source=f"g{i}.md", text="word " * 60) for i in range(8)
    ]
    sections.append(LoadoutSection(kind="conventions", source="k0maru", text="cards in 20_Cards/"))
    sections.append(LoadoutSection(kind="sources", source="loadout", text="carried: g0.md"))
    return Loadout(
        vault="v", token_budget=share, tokens_used=share, truncated=False, sections=sections
    )


def test_the_loadout_is_built_once_and_cut_from_its_end() -> None:
    shares: list[int] = []

    def build(share: int) -> Loadout:
        shares.append(share)
        return _answer(share)

    def cost(answer: Loadout) -> int:
        return count_tokens(answer.text())

    whole = cost(_answer(400))
    fitted = fit_loadout(build, 400, cost)
    assert shares == [400] and whole > 400 >= cost(fitted)
    assert [s.source for s in fitted.sections][-3:] == ["g4.md", "k0maru", "loadout"]
    assert fitted.truncated and 0 <= fitted.tokens_used - cost(fitted) <= 2  # its own number
    whole_answer = fit_loadout(build, 4000, cost)  # what fits is not touched
    assert whole_answer.sections == _answer(4000).sections and not whole_answer.truncated
    assert 0 <= whole_answer.tokens_used - cost(whole_answer) <= 2
