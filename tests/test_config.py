from pathlib import Path

import pytest

from k0maru.config import load_settings
from k0maru.errors import ConfigError
from k0maru.layout import find_vault
from tests.helpers import K0, write


def test_defaults(vault: Path) -> None:
    s = load_settings(vault)
    assert s.bm25_weight_words == 0.2 and s.bm25_weight_code == 0.7 and s.min_cosine == 0.2
    assert s.include == ["**/*.md"] and s.offload_threshold == 50


def test_settings_are_read_only_and_never_share_a_default() -> None:
    from k0maru.config import FIELDS, Settings

    a, b = Settings(), Settings(pool_min=7)
    a.include.append("x/*.txt")  # a default list is the instance's own
    assert b.include == ["**/*.md"] and Settings().include == ["**/*.md"] and b.pool_min == 7
    with pytest.raises(AttributeError):
        b.pool_min = 8
    with pytest.raises(TypeError, match="unknown settings: nope"):
        Settings(nope=1)
    assert Settings(pool_min=7) == b != a
    assert [f.name for f in FIELDS][:3] == [
        "include",
        "exclude",
        "max_file_bytes",
    ]  # declaration order


def test_precedence_toml_env_flag(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(vault, ".k0maru/config.toml", "embed_batch = 10\npool_min = 7\nchunk_chars = 900\n")
    s = load_settings(vault)
    assert (s.embed_batch, s.pool_min, s.chunk_chars) == (10, 7, 900)
    monkeypatch.setenv("K0MARU_EMBED_BATCH", "20")
    monkeypatch.setenv("K0MARU_POOL_MIN", "8")
    s = load_settings(vault)
    assert (s.embed_batch, s.pool_min, s.chunk_chars) == (
        20,
        8,
        900,
    )  # env beats toml, toml beats default
    s = load_settings(vault, embed_batch=30, pool_min=None)
    assert (s.embed_batch, s.pool_min) == (30, 8)  # flag beats env; None flag = not given


def test_a_retired_key_is_ignored_with_a_warning(
    vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(vault, ".k0maru/config.toml", "rrf_k = 60\npool_min = 7\n")
    s = load_settings(vault)
    assert s.pool_min == 7 and "'rrf_k' is retired" in caplog.text


def test_invalid_value_names_the_key(vault: Path) -> None:
    write(vault, ".k0maru/config.toml", "pool_min = 'sixty'\n")
    with pytest.raises(ConfigError) as err:
        load_settings(vault)
    assert "pool_min" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("INCLUDE", "[", "K0MARU_INCLUDE is not a JSON list"),  # before: a SettingsError traceback
        ("EXCLUDE", "", "K0MARU_EXCLUDE is not a JSON list"),
        ("INCLUDE", '["[z-a]"]', "'[z-a]' is not a glob"),  # before: re.error from the walker
        ("INCLUDE", '["!"]', "'!' is not a glob"),  # before: GitIgnorePatternError
        ("EXCLUDE", r'["docs/", "a\\"]', r"'a\\' is not a glob"),  # before: left out unsaid
        ("INCLUDE", "[1]", "'include.0': Input should be a valid string"),
        ("MAX_FILE_BYTES", "lots", "'max_file_bytes'"),
        ("MIN_COSINE", "nan", "'min_cosine'"),
    ],
)
def test_a_bad_setting_from_the_environment_is_one_line(
    vault: Path, monkeypatch: pytest.MonkeyPatch, key: str, value: str, said: str
) -> None:
    monkeypatch.setenv(f"K0MARU_{key}", value)
    with pytest.raises(ConfigError) as err:
        load_settings(vault)
    assert said in str(err.value) and "\n" not in str(err.value)


def test_a_bad_glob_in_the_config_file_is_one_line(vault: Path) -> None:
    write(vault, ".k0maru/config.toml", 'include = ["notes/**/*.md", "[z-a]*.md"]\n')
    with pytest.raises(ConfigError, match=r"'include': '\[z-a\]\*.md' is not a glob"):
        load_settings(vault)
    write(vault, ".k0maru/config.toml", 'include = ["[", "**/*.txt"]\n')  # a lone [ is literal
    assert load_settings(vault).include == ["[", "**/*.txt"]


def test_unknown_key_is_rejected(vault: Path) -> None:
    write(vault, ".k0maru/config.toml", "pool_minn = 3\n")
    with pytest.raises(ConfigError, match="pool_minn"):
        load_settings(vault)


def test_broken_toml_names_the_file(vault: Path) -> None:
    write(vault, ".k0maru/config.toml", "pool_min = = 3\n")
    with pytest.raises(ConfigError, match="config.toml"):
        load_settings(vault)


def test_vault_defaults_to_git_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "a" / "b"
    deep.mkdir(parents=True)
    assert find_vault(deep) == (tmp_path / "repo").resolve()
    (tmp_path / "repo" / "a" / ".k0maru").mkdir()  # a vault inside the repository is the nearer one
    assert find_vault(deep) == (tmp_path / "repo" / "a").resolve()
    with pytest.raises(ConfigError, match="k0maru init"):  # no repository, no vault: refused ...
        find_vault(tmp_path)
    assert find_vault(tmp_path, create=True) == tmp_path.resolve()  # ... unless `init` asks


@pytest.mark.slow
def test_cli_reports_bad_env_value_in_one_line(k0: K0, vault: Path) -> None:
    r = k0("status", "--vault", str(vault), env={"K0MARU_POOL_MIN": "-3"})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "pool_min" in r.stderr


@pytest.mark.slow
def test_validated_settings_are_cached_and_follow_every_source(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second command with the same TOML, env and flags skips pydantic; any change
    re-validates."""
    import subprocess
    import sys

    (vault / ".k0maru").mkdir()
    write(vault, ".k0maru/config.toml", "pool_min = 7\n")
    probe = (
        "import sys; from pathlib import Path; from k0maru.config import load_settings; "
        f"s = load_settings(Path({str(vault)!r})); print(s.pool_min, s.embed_batch, 'pydantic' in sys.modules)"
    )

    def run(**env: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            check=True,
            env={**__import__("os").environ, **env},
        ).stdout.strip()

    assert run() == "7 32 True"  # validated, cached
    assert run() == "7 32 False"  # from the cache: no pydantic import
    assert run(K0MARU_EMBED_BATCH="5") == "7 5 True"  # env changed
    write(vault, ".k0maru/config.toml", "pool_min = 9\n")
    assert run(K0MARU_EMBED_BATCH="5") == "9 5 True"  # file changed
    (vault / ".k0maru" / "settings.cache.json").write_text("{not json")
    assert run(K0MARU_EMBED_BATCH="5") == "9 5 True"  # a broken cache is only a miss
    write(vault, ".k0maru/config.toml", "pool_min = 'x'\n")
    with pytest.raises(ConfigError, match="pool_min"):
        load_settings(vault)  # and a bad value is still refused, cache or not


def test_a_changed_default_is_not_served_from_the_settings_cache() -> None:
    """The settings cache is keyed by SCHEMA: it must cover the defaults, or a release that changes
    a default keeps serving the old one from every vault's cache."""
    import k0maru.config as config

    assert "('pool_min', 'int', 50," in config.SCHEMA
