from pathlib import Path
from typing import Any

from k0maru.index.markdown import extract_links
from k0maru.index.store import Store
from tests.helpers import scan, write


def targets(root: Path, rel: str) -> list[tuple[str, str | None, str | None, str | None]]:
    with Store.open(root) as store:
        doc = store.document_by_path(rel)
        assert doc is not None
        return [
            (link["target"], link["heading"], link["display"], link["path"])
            for link in store.links_from(doc.id)
        ]


def test_wikilink_syntax() -> None:
    links = extract_links(
        "See [[Note]], [[Note|shown]], [[Note#Part two|x]], ![[img.png]], [[#Local]] "
        "`[[in code]]`\n```\n[[in fence]]\n```\n[[Folder/Deep Note.md]]"
    )
    assert [(lk.target, lk.key, lk.heading, lk.display) for lk in links] == [
        ("Note", "note", None, None),
        ("Note", "note", None, "shown"),
        ("Note", "note", "Part two", "x"),
        ("img.png", "img.png", None, None),
        ("Folder/Deep Note.md", "folder/deep note", None, None),
    ]


def test_resolution_like_obsidian(vault: Path) -> None:
    write(
        vault,
        "Projects/Lease Design.md",
        "---\naliases: [lease plan, LD]\n---\n# Lease\n## Open questions\n",
    )
    write(vault, "archive/2025/Lease Design.md", "# old copy, deeper path loses the tie\n")
    write(
        vault,
        "src.md",
        "[[lease design]] [[LEASE DESIGN#Open questions]] [[Lease Plan|the plan]] "
        "[[ld]] [[2025/Lease Design]] [[Missing Note]]",
    )
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
        assert c is not None and b is not None
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


def _edges(root: Path) -> set[tuple[str, str]]:
    from k0maru.index.store import Store

    with Store.open(root) as store:
        return set(
            store.conn.execute(
                "SELECT s.path, d.path FROM links l JOIN documents s ON s.id = l.src_id "
                "JOIN documents d ON d.id = l.dst_id WHERE l.src_id != l.dst_id"
            )
        )


def test_markdown_links_give_the_same_graph_as_wikilinks(tmp_path: Path) -> None:
    """The demo vault rewritten with only relative Markdown links (as git repositories write docs,
    with URL-encoded names and #anchors) yields exactly the wikilink vault's edges."""
    import os
    import re
    import shutil
    from urllib.parse import quote

    from k0maru.index.store import Store
    from tests.helpers import DEMO_VAULT

    wiki = tmp_path / "wiki"
    shutil.copytree(DEMO_VAULT, wiki, ignore=shutil.ignore_patterns(".k0maru"))
    scan(wiki)
    with Store.open(wiki) as store:
        resolve = store.link_resolver()
        paths = {i: p for i, p, _ in store.list_documents()}
    md = tmp_path / "md"
    shutil.copytree(wiki, md, ignore=shutil.ignore_patterns(".k0maru"))
    rewritten = 0
    for note in md.rglob("*.md"):
        rel = note.relative_to(md).as_posix()

        def to_markdown(m: re.Match[str], rel: str = rel) -> str:
            nonlocal rewritten
            doc = resolve(m.group(1).strip().lower().removesuffix(".md"))
            if doc is None:
                return m.group(0)
            href = quote(os.path.relpath(paths[doc], os.path.dirname(rel) or "."))
            rewritten += 1
            return f"[{m.group(3) or m.group(1)}]({href}{'#' + quote(m.group(2)[1:]) if m.group(2) else ''})"

        text = note.read_text()
        note.write_text(
            re.sub(r"!?\[\[([^\[\]|#]+)(#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]", to_markdown, text)
        )
    assert rewritten > 40 and "[[" not in "".join(p.read_text() for p in md.rglob("*.md"))
    scan(md)
    assert _edges(md) == _edges(wiki) and len(_edges(wiki)) > 40


def test_markdown_link_forms(vault: Path) -> None:
    from k0maru.index.store import Store

    write(vault, "docs/adr/0003-db.md", "# DB\n")
    write(vault, "docs/adr/index.md", "# ADRs\n")
    write(vault, "docs/My Note.md", "# Mine\n")
    write(
        vault,
        "docs/guide/start.md",
        "# Start\n\n[db](../adr/0003-db.md#context) [folder](../adr) "
        "[enc](../My%20Note.md) [ref][r] [web](https://example.com/x.md) ![pic](../img.png) "
        "[gone](../../../outside.md) [dead](nowhere.md)\n\n[r]: /docs/adr/0003-db.md\n"
        "`[code](../adr/0003-db.md)`\n",
    )
    scan(vault)
    with Store.open(vault) as store:
        start = store.document_by_path("docs/guide/start.md")
        assert start is not None
        links = [(x["target"], x["path"]) for x in store.links_from(start.id)]
    assert links == [
        ("../adr/0003-db.md#context", "docs/adr/0003-db.md"),
        ("../adr", "docs/adr/index.md"),
        ("../My%20Note.md", "docs/My Note.md"),
        ("nowhere.md", None),
        ("/docs/adr/0003-db.md", "docs/adr/0003-db.md"),
    ]


def test_a_bare_name_prefers_the_own_folder_then_the_language(vault: Path) -> None:
    """[[tar]] from a French page is the French tar page, not the shallower English one."""
    write(vault, "pages/common/tar.md", "# tar\nArchiver.\n")
    write(vault, "pages.fr/common/tar.md", "# tar\nArchiveur.\n")
    write(vault, "pages.fr/linux/tar.md", "# tar\nArchiveur (linux).\n")
    write(vault, "pages.fr/linux/gzip.md", "# gzip\nVoir [[tar]].\n")
    write(vault, "pages.fr/osx/zip.md", "# zip\nVoir [[tar]].\n")
    write(vault, "pages/osx/zip.md", "# zip\nSee [[tar]].\n")
    write(vault, "notes/a.md", "# A\nSee [[tar]].\n")
    scan(vault)
    assert targets(vault, "pages.fr/linux/gzip.md")[0][3] == "pages.fr/linux/tar.md"  # own folder
    assert targets(vault, "pages.fr/osx/zip.md")[0][3] == "pages.fr/linux/tar.md"  # language
    assert targets(vault, "pages/osx/zip.md")[0][3] == "pages/common/tar.md"
    assert targets(vault, "notes/a.md")[0][3] == "pages/common/tar.md"  # shallowest, shortest


def _wrong_links(root: Path) -> list[tuple[str, str, int | None, int | None]]:
    """Links whose stored target differs from resolving them against the whole vault now."""
    with Store.open(root) as store:
        resolve = store.link_resolver()
        rows = store.conn.execute(
            "SELECT d.path, l.target_key, l.src_id, l.dst_id FROM links l"
            " JOIN documents d ON d.id = l.src_id"
        ).fetchall()
    return [
        (p, key, dst, resolve(key, src)) for p, key, src, dst in rows if resolve(key, src) != dst
    ]


_NAMES = ["alpha", "beta", "gamma", "index", "readme", "tar", "docs", "guide"]
_FOLDERS = ["", "docs", "docs/guide", "pages.fr/common", "pages/common", "guide", "archive/docs"]
_ALIASES = ["ld", "plan", "gamma", "docs", "tar"]


def _random_note(rng: Any, folder: str) -> str:
    """A note of every link form: by name, by path, to a folder, by alias, a Markdown path."""
    forms = [
        lambda: f"[[{rng.choice(_NAMES)}]]",
        lambda: f"[[{rng.choice(_FOLDERS[1:])}/{rng.choice(_NAMES)}]]",
        lambda: f"[x](/{rng.choice(_FOLDERS[1:])})",  # a folder: its index.md or README.md
        lambda: f"[[{rng.choice(_ALIASES)}]]",
        lambda: f"[y](/{rng.choice(_FOLDERS[1:])}/{rng.choice(_NAMES)}.md)",
    ]
    links = [rng.choice(forms)() for _ in range(rng.randint(1, 6))]
    front = f"---\naliases: [{rng.choice(_ALIASES)}]\n---\n" if rng.random() < 0.3 else ""
    return f"{front}# {folder}\n\n" + " ".join(links) + "\n"


def _random_change(rng: Any, root: Path, present: dict[str, str]) -> None:
    """One note added, removed, renamed or moved, or edited (other links, other aliases)."""
    op, rel = rng.randrange(4), rng.choice(sorted(present))
    folder, name = rng.choice(_FOLDERS), rng.choice(_NAMES)
    new = f"{folder}/{name}.md".lstrip("/")
    if op == 0:
        present[new] = folder
        write(root, new, _random_note(rng, folder))
    elif op == 1 and len(present) > 5:
        (root / rel).unlink()
        del present[rel]
    elif op == 2 and new not in present:
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).rename(root / new)
        present[new] = present.pop(rel)
    else:
        write(root, rel, _random_note(rng, present[rel]))


def test_links_stay_resolved_as_notes_come_go_and_move(vault: Path) -> None:
    """After each incremental scan (notes added, removed, renamed, moved between folders, aliases
    changed), every stored link points where resolving it against the whole vault would:
    re-resolving only the links of the names that changed misses none."""
    import random

    rng = random.Random(31)
    present: dict[str, str] = {}
    for _ in range(25):
        folder = rng.choice(_FOLDERS)
        rel = f"{folder}/{rng.choice(_NAMES)}.md".lstrip("/")
        present[rel] = folder
        write(vault, rel, _random_note(rng, folder))
    scan(vault)
    assert _wrong_links(vault) == []
    for _round in range(30):
        for _ in range(rng.randint(1, 3)):
            _random_change(rng, vault, present)
        scan(vault)
        assert _wrong_links(vault) == []
    with Store.open(vault) as store:
        resolved = store.conn.execute("SELECT count(*) FROM links WHERE dst_id IS NOT NULL")
        assert resolved.fetchone()[0] > 20


def test_only_the_links_of_changed_names_are_read_again(vault: Path) -> None:
    """A new note re-resolves the links that could mean it, and leaves the names it does not touch
    waiting for nothing: the scan's re-resolution reads the links of its names only."""
    from k0maru.index.link_resolution import key_name, note_names

    assert note_names("Docs/Guide/README.md") == {"readme", "guide"}
    assert note_names("a/Lease Design.md") == {"lease design"}
    assert key_name("/docs/guide") == "guide" and key_name("tar") == "tar"
    write(vault, "src.md", "[[alpha]] [[beta]] [x](/guide)")
    scan(vault)
    with Store.open(vault) as store:
        src = store.document_by_path("src.md")
        assert src is not None
        with store.transaction():  # a wrong target, which re-resolving the link would correct
            stale = store.conn.execute(
                "UPDATE links SET dst_id = ? WHERE target_key = 'beta'", (src.id,)
            )
            assert stale.rowcount == 1
    write(vault, "alpha.md", "# A\n")
    write(vault, "guide/readme.md", "# Guide\n")
    scan(vault)
    with Store.open(vault) as store:
        src = store.document_by_path("src.md")
        assert src is not None
        dst = {x["target"]: x["doc_id"] for x in store.links_from(src.id)}
    assert dst["alpha"] is not None and dst["/guide"] is not None
    assert dst["beta"] == src.id  # not a name that changed: left as it was, never read


def test_the_migration_names_every_link_key_as_the_scanner_does(vault: Path) -> None:
    from k0maru.index.link_resolution import key_name
    from k0maru.index.schema import MIGRATIONS

    keys = ["note", "a/b", "/docs/adr", "/x", "a/", "", "/", "été/ça", "a/b/c.d"]
    with Store.open(vault) as store:
        added = next(m for m in MIGRATIONS if "UPDATE links SET target_name = " in m)
        step = added.split("UPDATE links SET target_name = ", 1)[1].split(";", 1)[0]
        for key in keys:
            got = store.conn.execute(f"SELECT {step.replace('target_key', '?')}", [key] * 3)
            assert got.fetchone()[0] == key_name(key), key


def test_a_shared_alias_resolves_the_same_whatever_the_indexing_order(vault: Path) -> None:
    """Two notes with one alias: the link goes to the first by path, as a fresh index of the same
    files says, not to whichever note was indexed first."""
    write(vault, "z.md", "---\naliases: [shared]\n---\n# Z\n")
    write(vault, "src.md", "See [[shared]].\n")
    scan(vault)
    write(vault, "a.md", "---\naliases: [shared]\n---\n# A\n")
    scan(vault)
    assert targets(vault, "src.md") == [("shared", None, None, "a.md")]
