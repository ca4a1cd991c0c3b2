from pathlib import Path

from k0maru.index.markdown import extract_links
from k0maru.index.store import Store
from tests.helpers import scan, write


def targets(root: Path, rel: str) -> list[tuple[str, str | None, str | None, str | None]]:
    with Store.open(root) as store:
        doc = store.document_by_path(rel)
        return [(link["target"], link["heading"], link["display"], link["path"]) for link in store.links_from(doc.id)]


def test_wikilink_syntax() -> None:
    links = extract_links("See [[Note]], [[Note|shown]], [[Note#Part two|x]], ![[img.png]], [[#Local]] "
                          "`[[in code]]`\n```\n[[in fence]]\n```\n[[Folder/Deep Note.md]]")
    assert [(lk.target, lk.key, lk.heading, lk.display) for lk in links] == [
        ("Note", "note", None, None), ("Note", "note", None, "shown"), ("Note", "note", "Part two", "x"),
        ("img.png", "img.png", None, None), ("Folder/Deep Note.md", "folder/deep note", None, None)]


def test_resolution_like_obsidian(vault: Path) -> None:
    write(vault, "Projects/Lease Design.md", "---\naliases: [lease plan, LD]\n---\n# Lease\n## Open questions\n")
    write(vault, "archive/2025/Lease Design.md", "# old copy, deeper path loses the tie\n")
    write(vault, "src.md", "[[lease design]] [[LEASE DESIGN#Open questions]] [[Lease Plan|the plan]] "
                           "[[ld]] [[2025/Lease Design]] [[Missing Note]]")
    scan(vault)
    assert targets(vault, "src.md") == [
        ("lease design", None, None, "Projects/Lease Design.md"),
        ("LEASE DESIGN", "Open questions", None, "Projects/Lease Design.md"),
        ("Lease Plan", None, "the plan", "Projects/Lease Design.md"),
        ("ld", None, None, "Projects/Lease Design.md"),
        ("2025/Lease Design", None, None, "archive/2025/Lease Design.md"),
        ("Missing Note", None, None, None),
    ]


def test_backlinks_and_late_targets(vault: Path) -> None:
    write(vault, "a.md", "[[b]] and [[c]]")
    write(vault, "b.md", "[[a]]")
    scan(vault)
    assert targets(vault, "a.md")[1][3] is None  # c does not exist yet
    write(vault, "c.md", "# C")
    scan(vault)
    assert targets(vault, "a.md")[1][3] == "c.md"  # resolved once it appears
    with Store.open(vault) as store:
        c = store.document_by_path("c.md")
        b = store.document_by_path("b.md")
        assert [x["path"] for x in store.backlinks(c.id)] == ["a.md"]
        assert [x["path"] for x in store.backlinks(b.id)] == ["a.md"]
    (vault / "c.md").unlink()
    scan(vault)
    assert targets(vault, "a.md")[1][3] is None  # dangling again, not pointing at a stale id


def test_alias_change_reresolves(vault: Path) -> None:
    write(vault, "target.md", "---\naliases: [old name]\n---\n")
    write(vault, "src.md", "[[old name]] [[new name]]")
    scan(vault)
    assert [t[3] for t in targets(vault, "src.md")] == ["target.md", None]
    write(vault, "target.md", "---\naliases: [new name]\n---\nchanged")
    scan(vault)
    assert [t[3] for t in targets(vault, "src.md")] == [None, "target.md"]
