"""The `k0maru` command line. Heavy modules are imported inside the commands that need them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from k0maru import __version__
from k0maru.errors import K0maruError

Handler = Callable[[argparse.Namespace], int]


def _emit(args: argparse.Namespace, payload: Any, human: Callable[[], None]) -> None:
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, default=str))
    else:
        human()


def _warn(lines: Sequence[str]) -> None:
    for line in lines:
        print(f"k0maru: warning: {line}", file=sys.stderr)


def _vault(args: argparse.Namespace, **flags: Any):
    from k0maru.service.vault import Vault

    return Vault.open(args.vault, **flags)


# ---- init / scan / status ------------------------------------------------------------------------
def cmd_init(args: argparse.Namespace) -> int:
    with _vault(args) as vault:
        done = vault.init()
        _emit(args, {"vault": str(vault.root), "done": done},
              lambda: print("\n".join(f"k0maru: {d}" for d in done) + f"\nk0maru: vault {vault.root} ready"))
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    from k0maru.progress import LazyProgress

    with _vault(args, include=args.include, max_file_bytes=args.max_file_bytes, embed=args.embed) as vault:
        if args.rebuild:
            moved = vault.rebuild()
            if moved:
                print(f"k0maru: moved the old index to {moved}", file=sys.stderr)
        show = not args.json
        with LazyProgress("scanning", show) as sp, LazyProgress("embedding", show) as ep:
            report = vault.index(full=args.full or args.rebuild, scan_progress=sp, embed_progress=ep, lexical=True)
        data = report.as_dict()
        _warn(data["warnings"])
        if args.json:
            print(json.dumps({k: data[k] for k in ("added", "modified", "unchanged", "removed", "skipped",
                                                   "elapsed_ms", "touched", "files_read", "embedded")}))
        else:
            print(f"added {data['added']}  modified {data['modified']}  unchanged {data['unchanged']}  "
                  f"removed {data['removed']}  skipped {data['skipped']}  embedded {data['embedded']}  "
                  f"in {data['elapsed_ms']:.1f} ms")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from k0maru.index.store import db_path

    with _vault(args) as vault:
        if not db_path(vault.root).exists():  # status only reports; it never creates an index
            raise K0maruError(f"no index in {vault.root}; run `k0maru scan` (or `k0maru init`) there first")
        info = vault.status()

        def human() -> None:
            import time

            last = info["last_scan"]
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last["started_at"])) if last else "never"
            print(f"vault      {info['vault']}")
            print(f"index      {info['index']} ({info['db_size_bytes'] / 1e6:.2f} MB, schema v{info['schema_version']})")
            print(f"sqlite     {info['sqlite']}")
            print(f"model      {info['model'] or 'none: ' + str(info['model_warning'])}")
            print(f"documents  {info['documents']}   chunks {info['chunks']} ({info['chunks_embedded']} embedded)")
            print(f"links      {info['links']} ({info['links_resolved']} resolved)   offloads {info['offloads']}")
            print(f"last scan  {when}" + (f" ({last['elapsed_ms']:.1f} ms, +{last['added']} ~{last['modified']}"
                                          f" -{last['removed']})" if last else ""))

        _emit(args, info, human)
    return 0


# ---- search ---------------------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace) -> int:
    from k0maru.progress import LazyProgress

    with _vault(args) as vault:
        if not args.no_scan:
            with LazyProgress("scanning", not args.json) as sp, LazyProgress("embedding", not args.json) as ep:
                report = vault.index(record=False, scan_progress=sp, embed_progress=ep)
            _warn(report.as_dict()["warnings"])
        result = vault.recall.search(" ".join(args.query), limit=args.limit, mode=args.mode)
        _warn(result.warnings)
        if args.json:
            print(json.dumps({"query": result.query, "mode": result.mode, "pool": result.pool,
                              "hits": [h.as_dict() for h in result.hits], "warnings": result.warnings}))
            return 0
        if not result.hits:
            print("no results")
        for i, hit in enumerate(result.hits, start=1):
            print(f"{i:>2}. {hit.title}  [{hit.path}]  score={hit.score:.5f}")
            if args.explain:
                bm = f"#{hit.bm25_rank} ({hit.bm25_score:.3f})" if hit.bm25_rank else "-"
                vc = f"#{hit.vector_rank} (cos {hit.cosine:.3f})" if hit.vector_rank else (
                    f"- (cos {hit.cosine:.3f}, no vote)" if hit.cosine is not None else "-")
                links = hit.boost_links
                shown = "; ".join(links[:2]) + (f"; +{len(links) - 2} more" if len(links) > 2 else "")
                print(f"    bm25 {bm}   vector {vc}   rrf {hit.rrf:.5f}   graph +{hit.graph_boost:.4f}"
                      + (f" ({shown})" if links else ""))
            print(f"    {hit.snippet}")
    return 0


# ---- parser -----------------------------------------------------------------------------------------
def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vault", metavar="DIR", help="vault root (default: enclosing git repo, else cwd)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="k0maru", description="Local memory for coding agents.")
    parser.add_argument("--version", action="version", version=f"k0maru {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p)
        p.set_defaults(handler=handler)
        return p

    add("init", cmd_init, "create .k0maru/ (config, index) and ignore it in git")
    p = add("scan", cmd_scan, "index new and changed notes incrementally, then embed new chunks")
    p.add_argument("--full", action="store_true", help="re-read and re-parse every file")
    p.add_argument("--rebuild", action="store_true", help="move a corrupt index aside and rebuild it")
    p.add_argument("--include", action="append", metavar="GLOB", help="files to index (default **/*.md)")
    p.add_argument("--max-file-bytes", type=int, metavar="N", help="skip files larger than N bytes")
    p.add_argument("--no-embed", dest="embed", action="store_const", const=False, help="skip embeddings")
    add("status", cmd_status, "index counts, database size, model and last scan")
    p = add("search", cmd_search, "hybrid search (BM25 + vectors + graph boost) over the vault")
    p.add_argument("query", nargs="+")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--mode", choices=["bm25", "vector", "hybrid"], default="hybrid")
    p.add_argument("--explain", action="store_true", help="show ranks, scores, RRF parts and graph boosts")
    p.add_argument("--no-scan", action="store_true", help="skip the incremental scan before searching")
    _register_extensions(add)
    return parser


def _register_extensions(add: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    """Commands of the other subsystems (offload, notes, agents, git, console)."""
    from k0maru.cli import more as cli_more

    cli_more.register(add)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        return args.handler(args)
    except K0maruError as exc:
        print(f"k0maru: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("k0maru: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
