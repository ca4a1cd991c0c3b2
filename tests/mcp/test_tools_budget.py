"""recall_memory's answer within its token budget: a trial over the budget is counted only until
one part of it is over (the text block is not rendered when the JSON already is), and every hit is
tried first; the answer is the one that counting every trial whole gives."""

from __future__ import annotations

from pathlib import Path

from k0maru.llm_tokens import count_tokens
from k0maru.mcp.tools import recall_memory, recall_text
from k0maru.search.results import RecallResult
from k0maru.service.operations import Service, answer_tokens

QUERIES = ("SQLITE_BUSY during the nightly backup", "why do leases expire", "E0502")
BUDGETS = (100, 150, 400, 1000, 3000)


def test_a_budget_is_met_as_counting_every_trial_whole_meets_it(demo: Path) -> None:
    costs: list[tuple[int | None, bool]] = []  # (over, whether the text was counted) per cost

    def whole_cost(answer: RecallResult, over: int | None) -> int:
        costs.append((over, True))
        return max(answer_tokens(answer), count_tokens(recall_text(answer)))

    texts = 0
    with Service.open(str(demo)) as service:
        for query in QUERIES:
            for budget in BUDGETS:
                costs.clear()
                counted = service.recall(query, token_budget=budget, cost=whole_cost)
                texts += sum(text for _, text in costs)
                answer = recall_memory(service, query, token_budget=budget)
                assert answer == counted, (query, budget)
                assert answer.hits or budget < 250, (query, budget)  # fewer hits fit
                if answer.hits:
                    assert answer_tokens(answer) <= budget
                    assert count_tokens(recall_text(answer)) <= budget
                if answer.hits and not answer.left_out and len(costs) > 1:  # all kept: one trial
                    assert costs[1][0] == budget and len(costs) <= 7, (query, budget)
    assert texts > 0
