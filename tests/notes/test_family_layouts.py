"""Record sets found by the shape of their members, without a folder word (#58): stage folders of
slug-named docs, year folders of dated minutes, record folders holding one shared file name,
dated proposals a guide names, id-named records; and that `conventions` says what flush writes."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.flush import FlushEngine

WHEN = date(2026, 5, 6)
BODY = "## Summary\n\nWhat it is.\n\n## Details\n\nHow.\n"


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def said_and_written(root: Path, kind: str, title: str, **kw: object) -> tuple[list[str], str]:
    """What `conventions --explain` says of the kind, and the path flush writes."""
    said = ConventionSniffer(root).sniff().rules[kind]
    result = FlushEngine(root).flush(kind, title, BODY, when=WHEN, **kw)  # type: ignore[arg-type]
    return [*said.explain(), *said.evidence], result.path


def test_stage_folders_of_slug_named_docs_are_a_proposal_family(tmp_path: Path) -> None:
    for year, names in (("2021", ("a-thing", "b-thing")), ("2022", ("c-thing", "d-thing"))):
        for name in names:
            write(tmp_path, f"accepted/{year}/{name}.md", f"# {name}\n\n{BODY}")
    for name in ("e-idea", "f-idea"):
        write(tmp_path, f"proposed/{name}.md", f"# {name}\n\n{BODY}")
    write(tmp_path, "guides/how-to-build.md", "# Build\n\ntext\n")
    said, path = said_and_written(tmp_path, "adr", "Simplify the RID model")
    # a new design starts in the first stage; the accepted years are one folder of the family
    assert path == "proposed/simplify-the-rid-model.md"
    assert any("new records start in proposed/, the first stage" in line for line in said)
    assert any(line.startswith("folder: proposed/") for line in said)
    again = FlushEngine(tmp_path).flush("adr", "Third", BODY, when=WHEN)
    assert any(
        "proposed/ of 2 parallel adr folders: new records start" in w for w in again.warnings
    )
    hinted = FlushEngine(tmp_path).flush(
        "adr", "Other", BODY, when=WHEN, extra={"folder": "accepted"}
    )
    assert hinted.path == "accepted/2026/other.md"  # the hint, then the record's year
    assert any("the folder hint 'accepted'" in w for w in hinted.warnings)


def test_a_year_folder_of_dated_minutes_is_the_log_folder(tmp_path: Path) -> None:
    for day in ("01-14", "01-28", "02-11"):
        write(tmp_path, f"main/2025/CG-{day}.md", f"# CG meeting {day}\n\n## Agenda\n\nx\n")
    write(tmp_path, "docs/guide.md", "# Guide\n\ntext\n")
    said, path = said_and_written(tmp_path, "log", "CG meeting")
    assert path == "main/2026/CG-05-06.md"  # the next year's folder, the family's name form
    assert any("3 dated files" in line for line in said)
    assert any("name: {prefix}{mmdd}.md" in line for line in said)
    assert any("year: a record goes to its own year's folder, main/YYYY/" in line for line in said)
    adr = ConventionSniffer(tmp_path).sniff().rules["adr"]
    assert adr.folder == "docs/adr"  # `CG-01-14` is a day's minutes, not a numbered record


def test_lead_word_dated_names_count_as_dated(tmp_path: Path) -> None:
    for day in ("2026-01-15", "2026-02-05", "2026-03-05"):
        write(tmp_path, f"notes/2026/summary-{day}.md", f"# Summary {day}\n\n## Notes\n\nx\n")
    write(tmp_path, "agendas/2026/01-wg-primary.md", "# Agenda\n\nx\n")
    said, path = said_and_written(tmp_path, "log", "Meeting summary")
    assert path == "notes/2026/summary-2026-05-06.md"
    assert any(line.startswith("folder: notes/2026/") for line in said)


def test_record_folders_sharing_one_file_name_are_records(tmp_path: Path) -> None:
    for n, slug in ((21, "passt"), (76, "templates"), (248, "convergence")):
        write(tmp_path, f"veps/sig-compute/{n}-{slug}/vep.md", f"# VEP {n}: {slug}\n\n{BODY}")
    write(tmp_path, "veps/sig-compute/76-templates/appendix.md", "# Appendix\n\nx\n")
    write(tmp_path, "veps/NNNN-vep-template/vep.md", "# VEP NNNN: Title\n\n" + BODY)
    said, path = said_and_written(tmp_path, "adr", "Persistent reservation")
    assert path == "veps/sig-compute/249-persistent-reservation/vep.md"
    assert any("name: {num}{sep}{slug}/vep.md" in line for line in said)


def test_root_level_dated_proposals_named_by_their_guide(tmp_path: Path) -> None:
    write(tmp_path, "README.md", "# Proposals\n\nThis repository stores proposals.\n")
    for name in ("20240102-BRS-workflow", "20250320-RS-multi-app", "20260304-CR-server"):
        write(tmp_path, f"{name}.md", f"# {name}\n\n{BODY}")
    write(tmp_path, "guides/api.md", "# API\n\nx\n")
    said, path = said_and_written(tmp_path, "adr", "Event timer tracking")
    assert path == "20260506-event-timer-tracking.md"
    assert any("3 dated records its README.md calls" in line for line in said)


def test_root_level_dated_records_need_a_guide_naming_them(tmp_path: Path) -> None:
    for name in ("20240102-outage", "20250320-slow-db", "20260304-dns"):
        write(tmp_path, f"{name}.md", f"# {name}\n\n{BODY}")
    _, path = said_and_written(tmp_path, "adr", "Use X")
    assert path.startswith("docs/adr/")  # postmortems at the root are no proposals


def test_id_named_records_with_fixed_frontmatter_are_a_log_family(tmp_path: Path) -> None:
    ids = ("0b8e1c2a-1111-4222-8333-944455556666", "9e37c7fa-26e9-4154-8e12-1d8688906edf")
    for n, uid in enumerate((*ids, "3f1d2c4b-aaaa-4bbb-8ccc-dddd00001111")):
        write(
            tmp_path,
            f"data/{uid}.md",
            f"---\nuuid: {uid}\ntitle: Outage {n}\nurl: https://x/{n}\n---\n\nWhat broke.\n",
        )
    said, path = said_and_written(tmp_path, "log", "Bungie outage")
    assert path.startswith("data/")
    assert any("3 id-named records with the same frontmatter keys" in line for line in said)
    assert (tmp_path / path).read_text(encoding="utf-8").startswith("---\nuuid:")


def test_parallel_folders_are_matched_by_their_members_titles_too(tmp_path: Path) -> None:
    titles = {"sig-a": ("Pod eviction", "Node drain"), "sig-b": ("Metrics export", "Log rotation")}
    n = 0
    for group, pair in titles.items():
        for title in pair:
            n += 1
            write(tmp_path, f"keps/{group}/{n:04d}-k{n}/README.md", f"# {title}\n\n{BODY}")
    said, path = said_and_written(tmp_path, "adr", "Prometheus metrics dashboards")
    # no word of the title is in a folder or file name: the members' headings name the group
    assert path == "keps/sig-b/0005-prometheus-metrics-dashboards/README.md"
    assert any("parallel folders" in line for line in said)
    hinted = FlushEngine(tmp_path).flush("adr", "X", BODY, when=WHEN, extra={"folder": "sig-a"})
    assert hinted.path.startswith("keps/sig-a/")  # the hint wins


def test_a_topic_folder_of_how_tos_is_the_card_folder(tmp_path: Path) -> None:
    for name, what in (
        ("balance-workloads", "How to balance workloads"),
        ("network-error", "How to troubleshoot network errors"),
        ("cilium", "If the CNI misbehaves"),
        ("check-apis", "How to use Pluto to find deprecated APIs"),
    ):
        head = f"---\ntitle: {name}\nowner:\ndescription: {what}\n---\n\n"
        write(tmp_path, f"content/docs/ops/ops-recipes/{name}.md", head + BODY)
    for name in ("vision", "values", "hiring"):
        write(tmp_path, f"content/docs/people/{name}.md", f"---\ntitle: {name}\n---\n\nText.\n")
    said, path = said_and_written(tmp_path, "card", "Ensure the image is in our registry")
    assert path == "content/docs/ops/ops-recipes/ensure-the-image-is-in-our-registry.md"
    assert any("3 of the latest 4 notes are how-tos" in line for line in said)
    text = (tmp_path / path).read_text(encoding="utf-8")
    assert text.startswith("---\ntitle: Ensure the image is in our registry\nowner:\n")


def test_an_issue_numbered_folder_is_one_record_not_a_group(tmp_path: Path) -> None:
    for n in (12345, 23456, 34567):
        write(tmp_path, f"design/{n}-leak-{n}.md", f"# Proposal: leak {n}\n\n{BODY}")
    for part in ("proposal", "goroutine-leak-details"):
        write(tmp_path, f"design/24543/{part}.md", f"# Goroutine leak {part}\n\n{BODY}")
    _, path = said_and_written(tmp_path, "adr", "Goroutine leak detection")
    assert path == "design/34568-goroutine-leak-detection.md"


def test_the_latest_year_folder_gives_the_familys_form(tmp_path: Path) -> None:
    for day in ("01-14", "01-28", "02-11", "02-25"):
        write(tmp_path, f"main/2025/CG-{day}.md", f"# CG {day}\n\n## Agenda\n\nx\n")
    for day in ("01-13", "01-27", "02-10"):
        write(tmp_path, f"main/2026/CG-2026-{day}.md", f"# CG {day}\n\n## Agenda\n\nx\n")
    said, path = said_and_written(tmp_path, "log", "CG meeting")
    assert path == "main/2026/CG-2026-05-06.md"  # 2026's names, though 2025 holds more
    assert any(line.startswith("folder: main/2026/") for line in said)


def test_lower_case_lead_numbered_records_are_a_proposal_family(tmp_path: Path) -> None:
    for n in (84, 85, 86):
        write(tmp_path, f"core/cap-{n:04d}.md", f"## Preamble\n\nCAP: {n:04d}\n\n{BODY}")
    for n in (1, 2):
        write(tmp_path, f"ecosystem/sep-{n:04d}.md", f"## Preamble\n\nSEP: {n:04d}\n\n{BODY}")
    write(tmp_path, "docs/guide.md", "# Guide\n\ntext\n")
    said, path = said_and_written(tmp_path, "adr", "cap-0087")
    assert path == "core/cap-0087.md"  # the family whose members the title is named as
    assert any("3 files numbered cap-N" in line for line in said)


def test_numbered_issues_and_month_records_are_log_families(tmp_path: Path) -> None:
    for n in (405, 406, 407):
        write(tmp_path, f"docs/issue-{n}.md", f"# Weekly (No. {n}): x\n\n## News\n\nx\n")
    write(tmp_path, "docs/free-music.md", "# Free music\n\ntext\n")
    said, path = said_and_written(tmp_path, "log", "Weekly (No. 408): y")
    assert path == "docs/issue-408.md"
    assert any("3 numbered issues (issue-N)" in line for line in said)
    monthly = tmp_path / "m"
    for month in ("2024-06", "2024-07"):
        write(monthly, f"updates/{month}-council-update.md", f"# Update {month}\n\n{BODY}")
    assert said_and_written(monthly, "log", "Council update")[1] == (
        "updates/2026-05-council-update.md"  # the month's name form, the record's month
    )
    folders = tmp_path / "f"
    for month in ("2026-03", "2026-04"):
        write(folders, f"content/this-month/{month}/index.md", f"# This month {month}\n\nx\n")
    _, path = said_and_written(folders, "log", "This month")
    assert path == "content/this-month/2026-05/index.md"  # a folder of its own per month


def test_dated_names_say_the_date_once_and_keep_a_dot(tmp_path: Path) -> None:
    for day in ("2022-01-27", "2022-03-02"):
        write(tmp_path, f"incident-reports/{day}-outage.md", f"# {day}, outage\n\n{BODY}")
    _, path = said_and_written(tmp_path, "log", "2022-01-27, pod limit reached")
    assert path == "incident-reports/2026-05-06-pod-limit-reached.md"  # the date not said twice
    dotted = tmp_path / "d"
    for name in ("20250101.first-thing", "20250202.second-thing"):
        write(dotted, f"design/{name}.md", f"# Proposal: {name[9:]}\n\n{BODY}")
    write(dotted, "design/README.md", "# Design docs\n\nOur design proposals.\n")
    result = FlushEngine(dotted).flush("adr", "Design: Renewal info", BODY, when=WHEN)
    assert result.path == "design/20260506.design-renewal-info.md"
    text = (dotted / result.path).read_text(encoding="utf-8")
    assert text.startswith("# Design: Renewal info\n")  # its own lead, not `Proposal: Design:`


def test_topic_folders_under_one_top_folder_hold_cards(tmp_path: Path) -> None:
    for topic, names in (
        ("web", ("nginx-restart", "nginx-logs")),
        ("redis", ("redis-memory", "redis-failover")),
        ("postgres", ("replication-lag", "vacuum")),
    ):
        for name in names:
            write(tmp_path, f"docs/{topic}/{name}.md", f"# {name}\n\ntext\n")
    write(tmp_path, "README.md", "# Runbooks\n")
    said, path = said_and_written(tmp_path, "card", "Nginx is down")
    assert path == "docs/web/nginx-is-down.md"  # the topic folder sharing `nginx`, not cards/
    assert any("filed by topic in 3 folders" in line for line in said)


def test_short_numbered_chapters_are_no_proposal_family(tmp_path: Path) -> None:
    for n in (1, 2, 3):
        write(tmp_path, f"book/chapter-{n:02d}.md", f"# Chapter {n}\n\ntext\n")
    _, path = said_and_written(tmp_path, "adr", "Use SQLite")
    assert path.startswith("docs/adr/")  # `chapter-01.md` is no `cap-0087.md`


def test_a_draft_folder_of_one_record_learns_with_the_published_ones(tmp_path: Path) -> None:
    def issue(n: int) -> str:
        return f"Title: Weekly {n}\nNumber: {n}\nDate: 2026-04-0{n}\nCategory: Weekly\n\n## News\n\nx\n"

    for n in (1, 2, 3):
        write(tmp_path, f"content/2026-04-0{n}-weekly.md", issue(n))
    write(tmp_path, "draft/2026-04-04-weekly.md", issue(4))
    said, path = said_and_written(tmp_path, "log", "Weekly")
    assert path == "draft/2026-05-06-weekly.md"
    text = (tmp_path / path).read_text(encoding="utf-8")
    # the counter and the value every issue shares, from the published issues beside the draft
    assert "Number: 5\nDate: 2026-05-06\nCategory: Weekly\n" in text
    assert any("of draft/ and its family's other folders" in line for line in said)
