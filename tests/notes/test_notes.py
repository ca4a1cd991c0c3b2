"""Convention sniffing on several vault shapes, the flush engine (idempotent, versioned, atomic,
concurrent) and the distiller on real traces."""

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
import yaml

from k0maru.index.markdown import split_frontmatter
from k0maru.notes.conventions import ConventionSniffer, KindRule
from k0maru.notes.flush import FlushEngine
from k0maru.wiring.vault import Vault
from tests.helpers import DEMO_VAULT, K0, errors, write

DATA = Path(__file__).parents[1] / "data" / "logs"


def sniff(root: Path) -> dict[str, KindRule]:
    return ConventionSniffer(root).sniff().rules


def test_johnny_decimal_obsidian_vault(vault: Path) -> None:
    for name in ("Lease Design", "Retry Policy", "Sqlite Busy"):
        write(vault, f"20_Cards/{name}.md", f"# {name}\n")
    for d in ("2026-01-02", "2026-01-05"):
        write(vault, f"00_Logs/{d} standup.md", "log")
    write(vault, "10_Projects/Migration.md", "p")
    rules = sniff(vault)
    assert rules["card"].folder == "20_Cards" and rules["card"].slug_style == "title"
    assert rules["log"].folder == "00_Logs" and rules["log"].naming == "date-slug"
    assert rules["skill"].folder == "30_Skills"  # next free Johnny-Decimal area
    assert any("folder name" in e for e in rules["card"].evidence)


def test_flat_docs_adr_layout(vault: Path) -> None:
    write(vault, "docs/adr/0001-use-postgres.md", "# 1")
    write(vault, "docs/adr/0002-use-kafka.md", "# 2")
    write(vault, "docs/adr/0017-drop-kafka.md", "# 17")
    write(vault, "decisions/2026-02-01-pick-vendor.md", "d")
    write(vault, "journal/2026-03-01.md", "j")
    write(vault, "journal/2026-03-02.md", "j")
    rules = sniff(vault)
    assert (rules["adr"].folder, rules["adr"].naming, rules["adr"].number_width) == (
        "docs/adr",
        "adr-number",
        4,
    )
    assert rules["decision"].folder == "decisions" and rules["decision"].naming == "date-slug"
    assert rules["log"].folder == "journal"
    sniffer = ConventionSniffer(vault)
    assert sniffer.next_adr_number(rules["adr"]) == 18
    assert (
        sniffer.file_name(rules["adr"], "Adopt pre-commit", date(2026, 1, 1))
        == "0018-adopt-pre-commit.md"
    )


def test_adr_prefixed_numbering(vault: Path) -> None:
    write(vault, "architecture/adr-001-first.md", "a")
    write(vault, "architecture/adr-002-second.md", "b")
    rules = sniff(vault)
    assert rules["adr"].folder == "architecture" and rules["adr"].naming == "adr-prefixed"
    name = ConventionSniffer(vault).file_name(rules["adr"], "Third one", date(2026, 1, 1))
    assert name == "adr-003-third-one.md"


def test_messy_mixed_vault_uses_frontmatter_kinds(vault: Path) -> None:
    write(vault, "stuff/a.md", "---\nkind: card\n---\n")
    write(vault, "stuff/b.md", "---\nkind: card\n---\n")
    write(vault, "misc/2026-01-01-x.md", "---\nkind: log\n---\n")
    write(vault, "misc/2026-01-02-y.md", "---\nkind: log\n---\n")
    write(vault, "misc/readme.md", "plain")
    write(vault, "random_notes/some_thing.md", "x")
    rules = sniff(vault)
    assert rules["card"].folder == "stuff" and rules["log"].folder == "misc"
    assert rules["adr"].folder == "docs/adr" and rules["adr"].source == "default"


def test_explicit_rules_win(vault: Path) -> None:
    write(vault, "docs/adr/0001-x.md", "x")
    write(vault, "templates/card.md", "---\nstatus: draft\nowner: platform\n---\n")
    write(
        vault,
        ".k0maru/rules.md",
        "# Rules\n- adr: architecture/decisions\n- card: kb\n"
        "- card naming: `title_words.md`\n- card template: templates/card.md\n",
    )
    write(vault, "AGENTS.md", "- adr: ignored/because/rules-md-comes-first\n")
    rules = sniff(vault)
    assert rules["adr"].folder == "architecture/decisions" and rules["adr"].source == "rules"
    assert rules["card"].folder == "kb" and rules["card"].slug_style == "snake"
    assert rules["card"].template == {"status": "draft", "owner": "platform"}


def test_demo_vault_agents_md() -> None:
    rules = sniff(DEMO_VAULT)
    assert rules["adr"].folder == "docs/adr" and rules["adr"].naming == "adr-number"
    assert rules["log"].folder == "00_Logs" and rules["log"].naming == "date-slug"
    assert rules["skill"].folder == "50_Skills"


@pytest.mark.slow
def test_conventions_cli(k0: K0) -> None:
    r = k0("conventions", "--vault", str(DEMO_VAULT), "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout)["kinds"]["card"]["folder"] == "20_Cards"
    r = k0("conventions", "--vault", str(DEMO_VAULT))
    assert "evidence: AGENTS.md:" in r.stdout


def test_flush_created_up_to_date_versioned(vault: Path) -> None:
    write(vault, "docs/adr/0001-x.md", "x")
    write(vault, "docs/adr/0002-y.md", "y")
    engine = FlushEngine(vault)
    a = engine.flush(
        "adr",
        "Lease renewal batching",
        "We batch renewals.",
        ["locking"],
        ["Lease Design", "Nope"],
        resolve=lambda name: name if name == "Lease Design" else None,
    )
    assert a.outcome == "created" and a.path == "docs/adr/0003-lease-renewal-batching.md"
    assert a.linked == ["Lease Design"] and a.unresolved == ["Nope"]
    text = (vault / a.path).read_text()
    fm, body, err = split_frontmatter(text)
    assert err is None and fm["kind"] == "adr" and fm["tags"] == ["locking"] and fm["date"]
    assert (
        fm["related_notes"] == ["[[Lease Design]]"]
        and "[[Lease Design]]" in body
        and "[[Nope]]" not in text
    )
    again = engine.flush(
        "adr",
        "Lease renewal batching",
        "We batch renewals.",
        ["locking"],
        ["Lease Design", "Nope"],
        resolve=lambda name: name if name == "Lease Design" else None,
        when=date(2030, 1, 1),
    )
    assert (
        again.outcome == "up_to_date" and again.path == a.path
    )  # a later day is still the same note
    changed = engine.flush(
        "adr", "Lease renewal batching", "We batch renewals every 10 s.", ["locking"]
    )
    assert (  # a numbered log takes the next number: never two records numbered 0003 (#39)
        changed.outcome == "created" and changed.path == "docs/adr/0004-lease-renewal-batching.md"
    )
    old = (vault / a.path).read_text()  # its text kept, marked superseded by the new one
    assert old.replace("\nSuperseded by [[0004-lease-renewal-batching]]\n", "") == text
    assert "Supersedes [[0003-lease-renewal-batching]]" in (vault / changed.path).read_text()
    third = engine.flush("adr", "Lease renewal batching", "Third text.", [])
    assert third.path == "docs/adr/0005-lease-renewal-batching.md"
    cards = [engine.flush("card", "Lease", text, []).path for text in ("One.", "Two.")]
    assert cards == ["cards/lease.md", "cards/lease-v2.md"]  # -vN stays for unnumbered notes


def test_titles_in_any_script_name_their_notes(vault: Path) -> None:
    """A title's words name the file in whatever script it is written (they were all `note`, then
    `note-v2` ...); a name the Agent Skills spec limits to a-z0-9 keeps its ASCII words only."""
    from k0maru.notes.conventions import slugify

    write(vault, "docs/adr/0001-x.md", "x")
    engine = FlushEngine(vault)
    ru = engine.flush("adr", "Блокировка базы данных", "Повторять при SQLITE_BUSY.", [])
    zh = engine.flush("adr", "数据库锁：重试策略", "出现 SQLITE_BUSY 时重试。", [])
    assert (
        ru.path == "docs/adr/0002-блокировка-базы-данных.md"
        and zh.path == "docs/adr/0003-数据库锁-重试策略.md"
    )
    assert (vault / ru.path).read_text(encoding="utf-8").count("Блокировка базы данных") >= 1
    assert (
        slugify("数" * 200) == "数" * 60
    )  # 180 bytes of UTF-8: room left for a date, `-v2` and `.md`
    assert slugify("Rust E0502 ошибка заимствования café", ascii_only=True) == "rust-e0502-cafe"


@pytest.mark.slow
def test_twenty_concurrent_flushes(vault: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from k0maru.notes.flush import FlushEngine; "
        "r = FlushEngine(Path(sys.argv[1])).flush('card', 'Shared title', 'body ' + sys.argv[2]); print(r.outcome)"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(vault), str(i % 3)], stdout=subprocess.PIPE, text=True
        )
        for i in range(20)
    ]
    outcomes = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    files = sorted((vault / "cards").glob("*.md"))
    assert [f.name for f in files] == [
        "shared-title-v2.md",
        "shared-title-v3.md",
        "shared-title.md",
    ]
    bodies = sorted(f.read_text().rsplit("\n", 2)[-2] for f in files)
    assert bodies == ["body 0", "body 1", "body 2"]  # one file per distinct content, nothing lost
    assert (
        outcomes.count("created") == 1
        and outcomes.count("versioned") == 2
        and outcomes.count("up_to_date") == 17
    )
    assert not list((vault / "cards").glob(".*.tmp"))  # no partial files left behind


@pytest.mark.slow
def test_flush_cli_indexes_immediately(demo: Path, k0: K0) -> None:
    body = demo / "body.txt"
    body.write_text("Renew leases in batches of 500 per call to cut write load.")
    r = k0(
        "flush",
        "--vault",
        str(demo),
        "--kind",
        "decision",
        "--title",
        "Batch lease renewals",
        "--body-file",
        str(body),
        "--tags",
        "locking,perf",
        "--related",
        "lease-renewal-redesign,Ghost Note",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["path"] == f"decisions/{date.today().isoformat()}-batch-lease-renewals.md"
    assert result["linked"] == ["lease-renewal-redesign"] and result["unresolved"] == ["Ghost Note"]
    r = k0(
        "search", "--vault", str(demo), "--no-scan", "--json", "--mode", "bm25", "batches of 500"
    )
    assert json.loads(r.stdout)["hits"][0]["path"] == result["path"]
    fm = yaml.safe_load((demo / result["path"]).read_text().split("---")[1])
    assert fm["tags"] == ["locking", "perf"] and fm["category"] == "decisions"


@pytest.mark.slow
def test_related_notes_by_title_or_path_become_resolvable_links(demo: Path, k0: K0) -> None:
    related = "SQLITE_BUSY and busy_timeout,30_Runbooks/restore-from-backup.md,Lease renewal redesign,Ghost Note"
    r = k0(
        "flush",
        "--vault",
        str(demo),
        "--kind",
        "card",
        "--title",
        "Backup pauses writers",
        "--related",
        related,
        "--json",
        input="The nightly backup holds a read lock for 40 s.",
    )
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["linked"] == [
        "sqlite-busy-timeout|SQLITE_BUSY and busy_timeout",
        "restore-from-backup",
        "lease-renewal-redesign|Lease renewal redesign",
    ]
    assert result["unresolved"] == ["Ghost Note"]
    with Vault.open(demo) as v:
        doc = v.store.document_by_path(result["path"])
        assert doc is not None
        src = doc.id
        targets = {
            path
            for (path,) in v.store.conn.execute(
                "SELECT d.path FROM links l JOIN documents d ON d.id = l.dst_id WHERE l.src_id = ?",
                (src,),
            )
        }
    assert targets == {
        "20_Cards/sqlite-busy-timeout.md",
        "30_Runbooks/restore-from-backup.md",
        "10_Projects/lease-renewal-redesign.md",
    }


@pytest.mark.slow
def test_flush_refuses_bad_input(demo: Path, k0: K0) -> None:
    r = k0("flush", "--vault", str(demo), "--kind", "card", "--title", "x", input="   ")
    assert r.returncode == 2 and "empty body" in r.stderr


@pytest.mark.slow
def test_distill_rust_trace_is_specific(demo: Path, k0: K0, tmp_path: Path) -> None:
    hermes = tmp_path / "hermes"
    r = k0(
        "distill",
        "--vault",
        str(demo),
        "--trace-file",
        str(DATA / "rustc_e0502.log"),
        "--export-hermes",
        str(hermes),
        "--json",
    )
    assert r.returncode == 0, r.stderr
    card = json.loads(r.stdout)
    assert (
        card["error_codes"] == ["E0502"]
        and card["location"] == "borrow.rs:4:5"
        and card["stack"] == "rust"
    )
    text = (demo / card["note_path"]).read_text()
    assert card["note_path"].startswith("50_Skills/")
    for section in ("## Symptoms", "## Diagnosis path", "## Fix", "## Evidence"):
        assert section in text
    assert "`borrow.rs:4:5`" in text and "immutable borrow occurs here" in text
    assert (
        "copy the job id out of `head` first" in text
    )  # the fix the team used before, found by recall
    assert "[[2026-10-11-borrow-checker-e0502-in-scheduler]]" in text
    skill = Path(card["hermes_path"])
    assert skill.parent.parent == hermes / "rust" and skill.name == "SKILL.md"
    raw = skill.read_text()
    assert raw.startswith("---\n")
    fm = yaml.safe_load(raw.split("---\n")[1])
    assert len(fm["name"]) <= 64 and fm["name"] == fm["name"].lower() and " " not in fm["name"]
    assert len(fm["description"]) <= 1024 and "E0502" in fm["description"]
    assert fm["metadata"]["hermes"]["tags"] == ["rust", "E0502"]
    assert fm["license"] == "MIT"  # the demo vault has no LICENSE file and none is configured
    assert [p.name for p in hermes.iterdir()] == [
        "rust"
    ]  # the skill and nothing else: no lock file
    assert (
        yaml.safe_load(text.split("---\n")[1])["source"] == "rustc_e0502.log"
    )  # not the machine's path
    again = json.loads(
        k0(
            "distill",
            "--vault",
            str(demo),
            "--trace-file",
            str(DATA / "rustc_e0502.log"),
            "--export-hermes",
            str(hermes),
            "--json",
        ).stdout
    )
    assert again["note_outcome"] == "up_to_date" and again["hermes_outcome"] == "up_to_date"


@pytest.mark.slow
def test_distill_asan_and_python_traces(demo: Path, k0: K0) -> None:
    r = k0(
        "distill", "--vault", str(demo), "--trace-file", str(DATA / "gcc_asan_uaf.log"), "--json"
    )
    card = json.loads(r.stdout)
    assert card["error_codes"] == ["heap-use-after-free"] and card["location"].endswith("uaf.c:5")
    text = (demo / card["note_path"]).read_text()
    assert "freed at: main /tmp/cap/uaf.c:4" in text and "reference-count" in text
    trace = (
        'Traceback (most recent call last):\n  File "/app/tidewater/worker.py", line 118, in _renew_loop\n'
        "    self._done.set_result(None)\nasyncio.exceptions.InvalidStateError: invalid state\n"
    )
    r = k0("distill", "--vault", str(demo), "--json", input=trace)
    card = json.loads(r.stdout)
    assert (
        card["error_codes"][0] == "InvalidStateError"  # then as the log qualifies it
        and card["location"] == "/app/tidewater/worker.py:118"
    )
    assert "future.done()" in (demo / card["note_path"]).read_text()


@pytest.mark.slow
def test_distill_from_offloaded_node(demo: Path, k0: K0) -> None:
    script = write(
        demo, "fail.py", "for i in range(2000):\n    print('step', i)\nraise KeyError('lease-42')\n"
    )
    k0("offload", "--vault", str(demo), "--task-id", "t", "--", sys.executable, str(script))
    node = json.loads(k0("log", "list", "--vault", str(demo), "--json").stdout)[0]["node_id"]
    card = json.loads(k0("distill", "--vault", str(demo), "--node", node, "--json").stdout)
    assert card["error_codes"] == ["KeyError"] and card["location"] == f"{script}:3"
    assert "raise KeyError('lease-42')" in (demo / card["note_path"]).read_text()


@pytest.mark.slow
@pytest.mark.parametrize(
    "text", ["all good\nnothing to see\n", "everything is fine, no error here\n"]
)
def test_distill_refuses_what_is_not_a_failure(demo: Path, k0: K0, text: str) -> None:
    before = sorted(p.relative_to(demo) for p in demo.rglob("*.md"))
    r = k0("distill", "--vault", str(demo), input=text)
    assert (
        r.returncode == 2 and "no failure found in stdin" in r.stderr and "tracebacks" in r.stderr
    )
    assert (
        len(errors(r.stderr).strip().splitlines()) == 1
        and sorted(p.relative_to(demo) for p in demo.rglob("*.md")) == before
    )


@pytest.mark.slow
def test_distilled_names_end_between_words_and_the_licence_is_the_vault_s(
    demo: Path, k0: K0, tmp_path: Path
) -> None:
    (demo / "LICENSE").write_text("Apache License\nVersion 2.0, January 2004\n")
    trace = DATA / "cargo_build_plain_e0382.log"
    card = json.loads(
        k0(
            "distill",
            "--vault",
            str(demo),
            "--trace-file",
            str(trace),
            "--export-hermes",
            str(tmp_path / "h"),
            "--json",
        ).stdout
    )
    skill = Path(card["hermes_path"])
    name = skill.parent.name
    words = ["rust", "e0382", "borrow", "of", "moved", "value", "v"]
    assert name.split("-") == words[: len(name.split("-"))]  # whole words only
    assert Path(card["note_path"]).stem.split("-")[-1] in {
        w.lower() for w in card["title"].split()
    } | {"v"}
    assert yaml.safe_load(skill.read_text().split("---\n")[1])["license"] == "Apache-2.0"
