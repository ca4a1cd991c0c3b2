"""How well index/languages.py tells a note's language (issue #26): on tldr pages whose folder says
their language (`pages.<lang>/common`, a seeded sample of 100 per language), the share the detector
names correctly, names wrongly or leaves unnamed (stemmed as English), and how often the text
overrules a language folder. Then the languages it has no function words for (`UNSUPPORTED`:
Latin-script Bosnian and Uzbek, Cyrillic, CJK, Thai, Lao, Malayalam, Bengali): any language it names
for those is wrong.

    python scripts/measure_languages.py [--tldr GIT_DIR] [--pages 100]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

import mirrors
from mirrors import MIRRORS

from k0maru.index.languages import detect, folder_language, note_language

FOLDERS = {
    "pages": "english",
    **{
        f"pages.{code}": lang
        for code, lang in {
            "de": "german", "fr": "french", "es": "spanish", "it": "italian",
            "pt_BR": "portuguese", "nl": "dutch", "sv": "swedish", "da": "danish", "pl": "polish",
            "tr": "turkish", "id": "indonesian", "fi": "finnish", "ro": "romanian", "cs": "czech",
            "ca": "catalan", "no": "norwegian", "hu": "hungarian",
        }.items()
    },
}  # fmt: skip
UNSUPPORTED = {
    "pages.bs": "bosnian", "pages.uz": "uzbek", "pages.uk": "ukrainian", "pages.bg": "bulgarian",
    "pages.ja": "japanese", "pages.ko": "korean", "pages.zh": "chinese", "pages.th": "thai",
    "pages.lo": "lao", "pages.ml": "malayalam", "pages.bn": "bengali",
}  # fmt: skip


def pages(git_dir: Path, folder: str, n: int, rng: random.Random) -> list[tuple[str, str]]:
    names = mirrors.ls(git_dir, f"{folder}/common")
    picked = rng.sample(names, min(n, len(names)))
    texts = mirrors.blobs(git_dir, [f"HEAD:{p}" for p in picked])
    return [(path, (text or b"").decode()) for path, text in zip(picked, texts, strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tldr", type=Path, default=MIRRORS / "tldr-pages+tldr/repo")
    ap.add_argument("--pages", type=int, default=100)
    args = ap.parse_args()
    rng = random.Random(26)
    total: Counter[str] = Counter()
    print(
        f"{'language':12} {'pages':>5} {'right':>6} {'wrong':>6} {'none':>6} {'folder overruled':>17}"
    )
    for folder, lang in FOLDERS.items():
        got = [
            (path, text, detect(text)) for path, text in pages(args.tldr, folder, args.pages, rng)
        ]
        if not got:  # no such folder in this checkout
            continue
        right = sum(g == lang for _, _, g in got)
        none = sum(g is None for _, _, g in got)
        overruled = sum(
            folder_language(path) is not None
            and note_language({}, path, text) != folder_language(path)
            for path, text, _ in got
        )
        total.update(pages=len(got), right=right, none=none, overruled=overruled)
        print(
            f"{lang:12} {len(got):5} {right / len(got):6.0%} {(len(got) - right - none) / len(got):6.0%}"
            f" {none / len(got):6.0%} {overruled:17}"
        )
    named = total["pages"] - total["none"]
    print(
        f"all: {total['right'] / total['pages']:.1%} named right; of those named "
        f"{total['right'] / max(named, 1):.1%} right ({named - total['right']} wrong of {named}); "
        f"{total['overruled']} folder(s) overruled"
    )
    print(f"\n{'not supported':14} {'pages':>5} {'named':>6}  as")
    wrong: Counter[str] = Counter()
    for folder, lang in UNSUPPORTED.items():
        seen = [detect(text) for _, text in pages(args.tldr, folder, args.pages, rng)]
        if not seen:
            continue
        langs = Counter(g for g in seen if g is not None)
        wrong.update(pages=len(seen), named=sum(langs.values()))
        as_ = ", ".join(f"{g} {n}" for g, n in langs.most_common(3)) or "-"
        print(f"{lang:14} {len(seen):5} {sum(langs.values()) / len(seen):6.0%}  {as_}")
    print(f"not supported: {wrong['named']} of {wrong['pages']} pages named a language")


if __name__ == "__main__":
    main()
