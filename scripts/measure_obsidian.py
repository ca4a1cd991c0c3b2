"""Measure how the console shows an Obsidian vault (issue #60): index a vault folder, render every
note's page, and count what Obsidian would not show.

Counts, per syntax, over the note pages' bodies (text outside code and `pre`):

- broken images: an `<img>` whose `src` the console does not serve (images on the web are counted
  apart, not fetched);
- `!x > y` texts: an embed shown as its text (`!shot.png > interface`);
- phantom links: links the index holds that the note never wrote as links (a footnote definition
  `[^1]: Vault ID is` read as a link to a note "Vault");
- titles: notes whose title is not Obsidian's (the file name, or a frontmatter `title:`);
- literal leftovers of `==highlight==`, `%%comments%%`, `[^footnotes]`, `~~strike~~`, `[!callouts]`
  and `$$` math shown as text; audio embeds without an `<audio>` element.

    python scripts/measure_obsidian.py DIR [--json FILE] [--show N]
    python scripts/measure_obsidian.py --git /work/.mirror/obsidianmd+obsidian-help/repo --under en

`--git` reads the folder `--under` from a bare git directory (HEAD) into a temporary vault; files
the git directory lacks (large media kept outside it) are left out.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

import mirrors

_ARTICLE = re.compile(r'<article class="card note">(.*?)</article>', re.S)
_H1 = re.compile(r'<h1 class="note-title">(.*?)</h1>', re.S)
_EMBED_TEXT = re.compile(r"![^\s!\[\]][^\n>]*? > \S")
_FOOTNOTE_DEF = re.compile(r"^[ \t]{0,3}\[\^[^\]\n]+\]:[ \t]*(\S[^\n]*)", re.M)
_AUDIO_EMBED = re.compile(r"!\[\[[^\]\n]+\.(?:mp3|wav|m4a|ogg|flac|3gp|webm)[\]|#]", re.I)
LEFTOVERS = {"==": "==", "%%": "%%", "[^": "[^", "~~": "~~", "[!": "[!", "$$": "$$"}


class _Text(HTMLParser):
    """The text of an HTML fragment outside `code` and `pre`, and its images' sources."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.images: list[str] = []
        self.audio = 0
        self._code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("code", "pre", "svg"):
            self._code += 1
        elif tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        elif tag == "audio":
            self.audio += 1
        elif tag in ("p", "li", "br", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre", "svg"):
            self._code -= 1

    def handle_data(self, data: str) -> None:
        if not self._code:
            self.parts.append(data)


def git_vault(git_dir: Path, under: str, dest: Path) -> Path:
    """The folder `under` of the bare git directory's HEAD, written under `dest`."""
    names = mirrors.ls(git_dir, under)
    for name, data in zip(names, mirrors.blobs(git_dir, [f"HEAD:{n}" for n in names]), strict=True):
        if data is not None:
            out = dest / PurePosixPath(name).relative_to(under)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    return dest


def obsidian_title(path: str, frontmatter: dict[str, Any]) -> str:
    """The title Obsidian shows: the file name (a frontmatter `title:` where the note sets one)."""
    title = frontmatter.get("title")
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    return PurePosixPath(path).name.removesuffix(".md")


def phantom_links(text: str, links: list[Any]) -> list[str]:
    """Links the index holds that the note only wrote as a footnote's definition."""
    starts = {m.group(1).split()[0].strip("<>") for m in _FOOTNOTE_DEF.finditer(text)}
    return [x.target for x in links if x.target in starts and f"[[{x.target}" not in text]


def measure_page(
    client: Any, path: str, raw: str, view: Any, served: dict[str, bool]
) -> Counter[str]:
    """The counts of one note page."""
    counts: Counter[str] = Counter(notes=1)
    page = client.get(f"/notes/{path}").get_data(as_text=True)
    match = _ARTICLE.search(page)
    parser = _Text()
    parser.feed(match.group(1) if match else "")
    text = "".join(parser.parts)
    for src in parser.images:
        if src.startswith(("http://", "https://")):
            counts["web images (not fetched)"] += 1
            continue
        if src not in served:
            ok = src.startswith("/files/") and client.get(unquote(src)).status_code == 200
            served[src] = ok
        counts["broken images"] += not served[src]
    counts["images shown"] += len(parser.images)
    counts["!x > y texts"] += len(_EMBED_TEXT.findall(text))
    counts["phantom links"] += len(phantom_links(raw, list(view.links)))
    expected = obsidian_title(path, view.frontmatter or {})
    h1 = _H1.search(page)
    shown = " ".join((h1.group(1) if h1 else "").split())
    counts["titles not Obsidian's"] += view.title != expected
    counts["page h1 not Obsidian's"] += shown != expected.replace("&", "&amp;")
    for name, mark in LEFTOVERS.items():
        counts[f"literal {name}"] += text.count(mark)
    counts["audio embeds without <audio>"] += max(0, len(_AUDIO_EMBED.findall(raw)) - parser.audio)
    return counts


def measure(vault: Path, show: int = 0) -> dict[str, int]:
    """Index `vault` and count, over every note page, what Obsidian would not show."""
    from k0maru.console.app import create_app
    from k0maru.service.operations import Service
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

    v = Vault.open(vault)
    v.index()
    service = Service(VaultSession(v))
    client = create_app(service).test_client()
    total: Counter[str] = Counter()
    served: dict[str, bool] = {}
    try:
        for file in sorted(vault.rglob("*.md")):
            path = file.relative_to(vault).as_posix()
            if any(part.startswith(".") for part in PurePosixPath(path).parts):
                continue
            view = service.note_view(path)
            counts = measure_page(client, path, file.read_text(encoding="utf-8"), view, served)
            if show and any(
                v
                for k, v in counts.items()
                if k not in ("notes", "images shown", "web images (not fetched)")
            ):
                print(path, {k: v for k, v in counts.items() if v and k != "notes"})
                show -= 1
            total += counts
    finally:
        service.close()
    keys = ["notes", "images shown", "web images (not fetched)", "broken images", "!x > y texts"]
    keys += ["phantom links"]
    keys += ["titles not Obsidian's", "page h1 not Obsidian's"]
    keys += [f"literal {name}" for name in LEFTOVERS] + ["audio embeds without <audio>"]
    return {k: total[k] for k in keys}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", nargs="?", type=Path, help="a vault folder (copied, not changed)")
    ap.add_argument("--git", type=Path, help="a bare git directory to read the vault from")
    ap.add_argument("--under", default="", help="the folder of --git to read (e.g. en)")
    ap.add_argument("--json", type=Path, help="also write the counts here")
    ap.add_argument("--show", type=int, default=0, help="print the first N pages with findings")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "vault"
        if args.git:
            git_vault(args.git, args.under, work)
        elif args.vault:
            shutil.copytree(args.vault, work, ignore=shutil.ignore_patterns(".k0maru"))
        else:
            ap.error("a vault folder or --git")
        counts = measure(work, args.show)
    width = max(len(k) for k in counts)
    for key, value in counts.items():
        print(f"{key:<{width}}  {value}")
    if args.json:
        args.json.write_text(json.dumps(counts, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
