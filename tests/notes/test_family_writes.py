"""Record families other than ADR logs (#58): proposals, runbooks, postmortems, minutes, notes
vaults, each on a small vault of the shape a real repository showed, and decisions superseded."""

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from k0maru.notes.adr import _own_titles, _sections
from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine
from k0maru.notes.supersede import is_superseded, mark_superseded, standing_first
from k0maru.service.operations import Service
from tests.helpers import write

WHEN = date(2026, 7, 20)
KEP = "# KEP-{n}: {t}\n\n## Summary\n\ns\n\n## Motivation\n\nm\n"


def flushed(vault: Path, kind: str, title: str, body: str = "Text.\n", **kw: object) -> str:
    note = FlushEngine(vault).flush(kind, title, body, when=WHEN, **kw)  # type: ignore[arg-type]
    return note.path


def test_a_number_the_title_gives_in_the_family_form_is_the_records_number(vault: Path) -> None:
    for n in (7990, 8190, 10852):
        write(vault, f"keps/{n}-r{n}/README.md", KEP.format(n=n, t=f"R {n}"))
    path = flushed(vault, "adr", "KEP-9694: Scheduling Hashing", "## Summary\n\nS.\n")
    assert path == "keps/9694-scheduling-hashing/README.md"
    assert (vault / path).read_text().startswith("# KEP-9694: Scheduling Hashing\n")
    plain = flushed(vault, "adr", "Queue Limits", "## Summary\n\nS.\n")
    assert plain == "keps/10853-queue-limits/README.md"  # no number given: the next one


def test_a_new_record_starts_in_the_first_stage_folder(vault: Path) -> None:
    for n in range(1, 6):
        write(vault, f"rfcs/implemented/000{n}-done-{n}.md", f"# Done {n}\n\n## Summary\n\nx\n")
    write(vault, "rfcs/accepted/0007-extension.md", "# Extension\n\n## Summary\n\nx\n")
    write(vault, "rfcs/accepted/0008-other.md", "# Other\n\n## Summary\n\nx\n")
    rule = ConventionSniffer(vault).sniff().rules["adr"]
    assert rule.folder == "rfcs/accepted" and "first stage" in rule.evidence[0]
    assert flushed(vault, "adr", "Done extension", "## Summary\n\nS.\n").startswith(
        "rfcs/accepted/"
    )
    hinted = flushed(vault, "adr", "Late", "## Summary\n\nS.\n", extra={"folder": "implemented"})
    assert hinted.startswith("rfcs/implemented/")


def test_dated_logs_at_the_repository_root(vault: Path) -> None:
    for day in ("2025-09-29-flags-down", "2025-10-03-sdk-bug", "2025-11-15-db-migration"):
        write(vault, f"{day}.md", "# Outage\n\n## Summary\n\ns\n\n## Timeline\n\nt\n")
    write(vault, "README.md", "# Post-mortems\n")
    assert (
        flushed(vault, "log", "Fetch wrapper broke sites")
        == "2026-07-20-fetch-wrapper-broke-sites.md"
    )


def test_cards_go_where_the_vault_keeps_its_notes_in_their_case(vault: Path) -> None:
    words = "Array Heap Queue Stack Trie Graph Binary-search-tree Apache-Kafka Hash-table CPU Cache"
    for name in words.split():
        write(vault, f"computer-engineering/{name}.md", f"# {name}\n\nText.\n")
    write(vault, "reference/Book.md", "# Book\n")
    assert flushed(vault, "card", "Apache Iceberg") == "computer-engineering/Apache-Iceberg.md"


def test_pascal_case_runbooks_and_a_double_suffix_are_kept(vault: Path) -> None:
    for name in ("KubeProxyDown", "KubeletDown", "NodeNotReady"):
        write(vault, f"runbooks/{name}.md", f"# {name}\n\n## Meaning\n\nm\n")
    assert (
        flushed(vault, "card", "Cluster VM Panic Detected") == "runbooks/ClusterVMPanicDetected.md"
    )
    for name in ("fix-a", "fix-b", "fix-c"):
        write(vault, f"manual/{name}.html.md", f"---\ntitle: {name}\n---\n\nText.\n")
    assert flushed(vault, "card", "Fix d") == "manual/fix-d.html.md"
    assert flushed(vault, "card", "Fix d", "Other.\n") == "manual/fix-d-v2.html.md"


def test_no_empty_key_the_records_fill_and_given_values_are_written(vault: Path) -> None:
    """A key most records fill alike gets their value; one they fill each their own way, or one
    fewer give, is written only when given: never an empty key the records do not leave empty."""
    for n, (section, team) in enumerate((("A", "x"), ("B", "y"), ("C", ""), ("D", "")), start=1):
        head = f'owner: "#team"\ntitle: T{n}\nsection: {section}\n' + (
            f"team: {team}\n" if team else ""
        )
        write(vault, f"docs/manual/howto-{n}.md", f"---\n{head}---\n\nText {n}.\n")
    text = (vault / flushed(vault, "card", "Fix it")).read_text()
    assert 'owner: "#team"' in text and "section" not in text and "\nteam" not in text
    given = flushed(vault, "card", "Fix that", extra={"team": "z", "section": "E"}, tags=["a b"])
    assert "team: z\n" in (vault / given).read_text()
    assert "section: E\n" in (vault / given).read_text()


def test_a_family_filed_by_year_takes_the_records_year(vault: Path) -> None:
    for day in ("2024-03-01", "2024-04-01"):
        write(vault, f"meetings/2024/{day}.md", f"# Meeting {day}\n\n## Notes\n\nn\n")
    write(vault, "meetings/2023/2023-03-01.md", "# Meeting\n\n## Notes\n\nn\n")
    assert flushed(vault, "log", "Meeting").startswith("meetings/2026/")


def test_a_new_decision_never_starts_in_the_archive(vault: Path) -> None:
    """A newcomer's Obsidian vault: two decisions in a project folder, a deprecated one filed by
    year under Archive/; a new decision went to `Archive/2026/`."""
    for name in ("Idempotency keys", "Retry budget"):
        write(vault, f"Projects/Harbor/Design/{name}.md", f"---\nkind: decision\n---\n# {name}\n")
    write(vault, "Archive/2025/Old decision.md", "---\nkind: decision\n---\n# Old decision\n")
    write(vault, "Archive/2025/Big dump.md", "# Big dump\n")
    path = flushed(vault, "decision", "Dead-letter queue for every topic")
    assert path.startswith("Projects/Harbor/Design/")


def test_a_log_headed_by_its_date_keeps_its_title(vault: Path) -> None:
    """A newcomer's daily notes (`Daily/2026-11-07.md`, `# 2026-11-07`): a flushed log's title
    was in neither its name nor its heading, and dropped."""
    for day in range(1, 8):
        iso = f"2026-11-0{day}"
        fm = f"---\ndate: {iso}\ntags: [daily{', ops' if day % 2 else ''}]\n---\n"
        write(vault, f"Daily/{iso}.md", f"{fm}# {iso}\n- Standup: x\n")
    path = flushed(vault, "log", "Lag follow-up", "Partition 7 is fine.\n", tags=["lag"])
    assert path == "Daily/2026-07-20.md"
    text = (vault / path).read_text()
    assert "# 2026-07-20\n" in text and "\n**Lag follow-up**\n\nPartition 7 is fine." in text
    assert "tags: [daily, lag]" in text  # the tag every daily note carries, then the one given


def test_the_trailer_path_writes_the_familys_sections_only() -> None:
    family = ["Summary", "Motivation", "Proposal", "Alternatives"]
    context, decision = _own_titles(family)
    assert (context, decision) == ("Summary", "Proposal")
    assert _sections("", "Why.", "Do X.", _own_titles(["Summary", "Notes"])) == [
        "## Summary\n\nWhy.\n\nDo X."  # no decision section in the family: no `## Decision`
    ]
    assert _own_titles([]) == ("Context", "Decision")  # k0maru's own form


def test_a_superseding_decision_is_linked_both_ways(vault: Path) -> None:
    for n in (1, 2):
        write(
            vault,
            f"docs/adr/000{n}-r{n}.md",
            f"# {n}. R{n}\n\nStatus: Accepted\n\n## Context\n\nc\n",
        )
    first = FlushEngine(vault).flush("adr", "Cache", "## Context\n\nMemcached.\n", when=WHEN)
    second = FlushEngine(vault).flush("adr", "Cache", "## Context\n\nRedis.\n", when=WHEN)
    assert second.supersedes == first.path == "docs/adr/0003-cache.md"
    old, new = (vault / first.path).read_text(), (vault / second.path).read_text()
    assert "Status: Superseded by [[0004-cache]]" in old and "Supersedes [[0003-cache]]" in new
    again = FlushEngine(vault).flush("adr", "Cache", "## Context\n\nRedis.\n", when=WHEN)
    assert again.outcome == "up_to_date" and again.path == second.path
    assert standing_first(vault, [first.path, second.path]) == ([1, 0], {0: second.path})
    assert standing_first(vault, [second.path, first.path]) == ([0, 1], {1: "0004-cache"})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "---\nstatus: accepted\n---\n# X\n",
            "---\nstatus: superseded\nsuperseded-by: [[n]]\n---\n# X\n",
        ),
        ("# X\n\n## Status\n\nAccepted\n", "# X\n\n## Status\n\nSuperseded by [[n]]\n"),
        ("# X\n\nBody.\n", "# X\n\nSuperseded by [[n]]\n\nBody.\n"),
    ],
)
def test_the_old_record_is_marked_as_its_family_marks_it(text: str, want: str) -> None:
    assert mark_superseded(text, "[[n]]").replace('"[[n]]"', "[[n]]") == want
    assert is_superseded(want) and not is_superseded(text)


@pytest.fixture
def service(vault: Path) -> Iterator[Service]:
    with Service.open(str(vault)) as svc:
        yield svc


def test_recall_puts_the_standing_decision_first(vault: Path, service: Service) -> None:
    body = "## Context\n\nThe dashboard cache {0}.\n\n## Decision\n\nUse {0} for the dashboard cache.\n"
    old = service.flush("decision", "Dashboard cache store", body.format("memcached"), [], [])
    new = service.flush("decision", "Dashboard cache store", body.format("redis"), [], [])
    assert new.supersedes == old.path
    hits = [h.path for h in service.recall("dashboard cache memcached", mode="bm25").hits]
    assert hits.index(new.path) < hits.index(old.path)


def test_conventions_say_what_flush_writes_and_the_folder_hint_passes_through(
    vault: Path, service: Service
) -> None:
    for n, who in ((1, "author: a\n"), (2, "author: b\n"), (3, "")):
        head = f"---\ntitle: R{n}\nowner: o\n{who}---\n# R{n}\n\n## Summary\n\nx\n"
        write(vault, f"rfcs/implemented/000{n}-r{n}.md", head)
        write(vault, f"rfcs/accepted/000{n + 4}-a{n}.md", head.replace("R", "A"))
    adr = service.conventions().kinds["adr"]
    told = adr.explained
    assert adr.folder == "rfcs/accepted" and "parallel folders" in adr.evidence[0]
    assert "frontmatter: title: {title}, owner: o, author (only when given)" in "\n".join(told)
    assert any(line.startswith("a new text:") for line in told)
    note = service.flush("adr", "Late one", "## Summary\n\nS.\n", [], [], folder="implemented")
    assert note.path == "rfcs/implemented/0008-late-one.md"
    assert "folder" not in (vault / note.path).read_text()  # a hint, not a field


def test_an_index_of_the_records_gets_the_new_ones_row(vault: Path) -> None:
    rows = (
        "| TEP | Title | Status | Updated |\n|---|---|---|---|\n"
        "| [TEP-0001](0001-alpha.md) | Alpha | implemented | 2020-01-02 |\n"
        "| [TEP-0002](0002-beta.md) | Beta | proposed | 2021-03-04 |\n\nMore text.\n"
    )
    write(vault, "teps/README.md", "# TEPs\n\n" + rows)
    for n, t in ((1, "Alpha"), (2, "Beta")):
        head = f"---\nstatus: proposed\ntitle: {t}\n---\n"
        write(vault, f"teps/000{n}-{t.lower()}.md", f"{head}# TEP-000{n}: {t}\n\n## Summary\n\nx\n")
    told = ConventionSniffer(vault).sniff().rules["adr"].explain()
    assert "index: teps/README.md lists the records: a new one gets a line" in told
    note = FlushEngine(vault).flush("adr", "Fail fast", "## Summary\n\nS.\n", when=WHEN)
    assert note.path == "teps/0003-fail-fast.md"
    index = (vault / "teps/README.md").read_text()
    assert "| [TEP-0002](0002-beta.md) | Beta | proposed | 2021-03-04 |\n" in index
    assert "| [TEP-0003](0003-fail-fast.md) | Fail fast | proposed | 2026-07-20 |\n\nMore" in index
    assert note.warnings == [
        "added a line for 0003-fail-fast.md to teps/README.md, made from its last one's: check it"
    ]
    again = FlushEngine(vault).flush("adr", "Fail fast", "## Summary\n\nS.\n", when=WHEN)
    assert again.outcome == "up_to_date" and again.warnings == []
    assert (vault / "teps/README.md").read_text() == index


def test_a_list_index_gets_an_item_and_an_unread_one_is_said(vault: Path) -> None:
    write(
        vault,
        "runbooks/README.md",
        "# Runbooks\n\n- [Disk full](disk-full.md)\n- [CPU hot](cpu-hot.md)\n",
    )
    for name, title in (("disk-full", "Disk full"), ("cpu-hot", "CPU hot")):
        write(vault, f"runbooks/{name}.md", f"# {title}\n\n## Steps\n\nx\n")
    note = FlushEngine(vault).flush("card", "Queue stuck", "## Steps\n\nS.\n", when=WHEN)
    assert note.path == "runbooks/queue-stuck.md"
    assert (
        (vault / "runbooks/README.md")
        .read_text()
        .endswith("- [CPU hot](cpu-hot.md)\n- [Queue stuck](queue-stuck.md)\n")
    )
    write(vault, "teps/README.md", "| [one](0001-a.md) | x |\n| [two](0002-b.md) | y |\n")
    for n, t in ((1, "a"), (2, "b")):
        write(vault, f"teps/000{n}-{t}.md", f"# TEP-000{n}: {t}\n\n## Summary\n\nx\n")
    told = FlushEngine(vault).flush("adr", "Fail fast", "## Summary\n\nS.\n", when=WHEN)
    assert told.warnings == [
        "teps/README.md lists 2 records: add a row or line for 0003-fail-fast.md"
    ]


def test_a_year_in_the_names_prefix_is_the_records_year_in_its_own_case(vault: Path) -> None:
    for name in (
        "PM2023-001 - Disk full on db",
        "PM2023-002 - Lost the cache",
        "PM2024-001 - Bad AMI",
    ):
        write(vault, f"{name}.md", f"# {name}\n\n## Summary\n\ns\n")
    note = FlushEngine(vault).flush(
        "log", "Pods not able to start on AMI update", "## Summary\n\nS.\n", when=date(2024, 4, 16)
    )
    assert note.path == "PM2024-002 - Pods not able to start on AMI update.md"  # sentence case kept


def test_a_new_issue_starts_in_the_drafts_folder_beside_the_published_one(vault: Path) -> None:
    for day in ("2026-08-05", "2026-08-12", "2026-08-19"):
        write(vault, f"content/{day}-this-week.md", f"---\ntitle: This week\n---\n\nNews {day}.\n")
    write(vault, "draft/2026-08-26-this-week.md", "---\ntitle: This week\n---\n\nNext.\n")
    assert flushed(vault, "log", "This week", "Later.\n").startswith("draft/")


def test_a_counter_ending_the_names_is_padded_as_they_pad_it(vault: Path) -> None:
    for n in (61, 62):
        write(
            vault, f"news/this-week-in-fluvio-00{n}.md", f"Title: This Week in Fluvio #{n}\n\nx\n"
        )
    assert flushed(vault, "log", "This Week in Fluvio 63") == "news/this-week-in-fluvio-0063.md"
    assert flushed(vault, "log", "Weekly news") == "news/weekly-news-0064.md"


def test_a_keps_metadata_file_is_written_beside_it(vault: Path) -> None:
    for n, status in ((4827, "implementable"), (4828, "implementable"), (5808, "provisional")):
        write(vault, f"keps/sig-x/{n}-r{n}/README.md", KEP.format(n=n, t=f"R {n}"))
        meta = f"title: R {n}\nkep-number: {n}\nowning-sig: sig-x\nstatus: {status}\nlast-updated: 2025-0{n % 9}-01\nauthors:\n  - a{n}\n"
        write(vault, f"keps/sig-x/{n}-r{n}/kep.yaml", meta)
    note = FlushEngine(vault).flush("adr", "KEP-5905: Mixins", "## Summary\n\nS.\n", when=WHEN)
    assert note.path == "keps/sig-x/5905-mixins/README.md"
    assert note.warnings == [
        "also wrote keps/sig-x/5905-mixins/kep.yaml, as the family's records keep one: check its values"
    ]
    assert (vault / "keps/sig-x/5905-mixins/kep.yaml").read_text() == (
        "title: Mixins\nkep-number: 5905\nowning-sig: sig-x\nstatus: implementable\nlast-updated: 2026-07-20\n"
    )  # the authors differ from record to record: left out
