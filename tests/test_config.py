"""[tool.fixture-migrate]: discovery, unknown keys, types, precedence, include/exclude, skill mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.config import ConfigError, compile_glob, find_config, read_config, resolve

from tests.runner import run_cli, write_files

LEGACY = """\
{
  "schema_version": "prompt-examples/v1",
  "examples": [
    {"name": "Says hi", "user_intent": "Say hi.", "expected_posture": "Greets back.", "coverage_tags": ["trigger"]}
  ]
}
"""


def _pyproject(root: Path, table: str) -> Path:
    path = root / "pyproject.toml"
    path.write_text('[project]\nname = "demo"\n\n' + table, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        pytest.param("vendor", "vendor/x.json", True, id="name-matches-dir-at-top"),
        pytest.param("vendor", "a/vendor/b/x.json", True, id="name-matches-dir-at-depth"),
        pytest.param("vendor", "vendored/x.json", False, id="name-is-whole-segment"),
        pytest.param("*.jsonl", "a/b/c.jsonl", True, id="suffix-anywhere"),
        pytest.param("skills/*/evals", "skills/x/evals/a.json", True, id="star-one-segment-dir"),
        pytest.param("skills/*/evals", "skills/x/y/evals/a.json", False, id="star-not-across-slash"),
        pytest.param("skills/**/evals/*.json", "skills/x/y/evals/a.json", True, id="double-star"),
        pytest.param("skills/**/evals/*.json", "skills/evals/a.json", True, id="double-star-zero-dirs"),
        pytest.param("./docs/", "docs/a.json", True, id="leading-dot-trailing-slash"),
        pytest.param("case-?.json", "x/case-1.json", True, id="question-mark"),
        pytest.param("case-[!0-9].json", "case-a.json", True, id="negated-class"),
        pytest.param("case-[!0-9].json", "case-1.json", False, id="negated-class-miss"),
    ],
)
def test_glob(glob, path, expected):
    assert compile_glob(glob).matches(path) is expected


def test_find_config_walks_up_past_pyproject_without_table(tmp_path):
    top = _pyproject(tmp_path, "[tool.fixture-migrate]\nexclude = ['vendor']\n")
    inner = tmp_path / "pkg"
    inner.mkdir()
    _pyproject(inner, "[tool.ruff]\nline-length = 100\n")
    deep = inner / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep) == top


def test_no_config_anywhere(tmp_path):
    assert find_config(tmp_path) is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        pytest.param(
            "[tool.fixture-migrate]\nexlcude = ['x']\n",
            "pyproject.toml:5: unknown key 'exlcude' in [tool.fixture-migrate]; did you mean 'exclude'?",
            id="top-level-typo",
        ),
        pytest.param(
            "[tool.fixture-migrate.validate]\nno_ref_check = true\n",
            "pyproject.toml:5: unknown key 'no_ref_check' in [tool.fixture-migrate.validate]; "
            "did you mean 'no-ref-check'?",
            id="subcommand-snake-case",
        ),
        pytest.param(
            "[tool.fixture-migrate.migrate]\noutput-format = 'xml'\n",
            "pyproject.toml:5: [tool.fixture-migrate.migrate] output-format must be one of 'text', 'json', 'github', "
            "not 'xml'",
            id="bad-choice",
        ),
        pytest.param(
            "[tool.fixture-migrate]\nexclude = 'vendor'\n",
            "pyproject.toml:5: [tool.fixture-migrate] exclude must be a list of glob strings, not 'vendor'",
            id="string-for-list",
        ),
        pytest.param(
            "[tool.fixture-migrate.migrate]\ncheck = 'yes'\n",
            "pyproject.toml:5: [tool.fixture-migrate.migrate] check must be true or false, not 'yes'",
            id="string-for-bool",
        ),
    ],
)
def test_bad_configuration_names_key(tmp_path, table, message):
    path = _pyproject(tmp_path, table)
    with pytest.raises(ConfigError) as caught:
        read_config(path)
    assert str(caught.value).startswith(f"{path.parent}/{message}")


def test_unknown_key_is_exit_2_naming_it(tmp_path, monkeypatch, capsys):
    _pyproject(tmp_path, "[tool.fixture-migrate]\ninclde = ['skills']\n")
    write_files(tmp_path, {"skills/demo/evals/a.json": LEGACY})
    run = run_cli(["migrate", "--check", "."], tmp_path, monkeypatch, capsys)
    assert run.code == 2
    assert "unknown key 'inclde' in [tool.fixture-migrate]; did you mean 'include'?" in run.err
    assert run.out == ""


def test_adapters_key_is_reserved(tmp_path):
    path = _pyproject(tmp_path, "[tool.fixture-migrate.adapters.my_tool]\nfields = {}\n")
    assert read_config(path) == {"adapters": {"my_tool": {"fields": {}}}}


def test_subcommand_table_applies_and_flag_overrides(tmp_path, monkeypatch, capsys):
    _pyproject(tmp_path, "[tool.fixture-migrate.migrate]\ncheck = true\noutput-format = 'json'\n")
    write_files(tmp_path, {"skills/demo/evals/a.json": LEGACY})

    from_config = run_cli(["migrate", "."], tmp_path, monkeypatch, capsys)
    assert from_config.code == 1  # check = true: nothing written, exit 1
    assert json.loads(from_config.out)["summary"]["migrated"] == 1
    assert (tmp_path / "skills/demo/evals/a.json").read_text() == LEGACY

    flag_wins = run_cli(["migrate", "--output-format", "text", "."], tmp_path, monkeypatch, capsys)
    assert flag_wins.code == 1
    assert flag_wins.out == ""
    assert "would migrate skills/demo/evals/a.json (prompt_examples_v1)" in flag_wins.err


def test_config_flag_names_another_file(tmp_path, monkeypatch, capsys):
    _pyproject(tmp_path, "[tool.fixture-migrate.migrate]\ncheck = true\n")
    other = tmp_path / "ci.toml"
    other.write_text("[tool.fixture-migrate.migrate]\ndiff = true\n", encoding="utf-8")
    write_files(tmp_path, {"skills/demo/evals/a.json": LEGACY})
    run = run_cli(["migrate", "--config", "ci.toml", "."], tmp_path, monkeypatch, capsys)
    assert run.code == 0  # ci.toml asks for a diff, not a check; pyproject.toml is not read
    assert run.out.startswith("--- a/skills/demo/evals/a.json\n+++ b/skills/demo/evals/a.json\n")


def test_config_flag_file_without_table(tmp_path, monkeypatch, capsys):
    (tmp_path / "empty.toml").write_text("[tool.other]\nx = 1\n", encoding="utf-8")
    run = run_cli(["detect", "--config", "empty.toml", "."], tmp_path, monkeypatch, capsys)
    assert run.code == 2
    assert "empty.toml: no [tool.fixture-migrate] table" in run.err


def test_include_and_exclude_select_walked_files(tmp_path, monkeypatch, capsys):
    _pyproject(tmp_path, "[tool.fixture-migrate]\ninclude = ['skills']\nexclude = ['skills/old']\n")
    write_files(
        tmp_path,
        {
            "skills/demo/evals/a.json": LEGACY,
            "skills/old/evals/b.json": LEGACY,
            "fixtures/c.json": LEGACY,
        },
    )
    run = run_cli(["migrate", "--check", "-v", "."], tmp_path, monkeypatch, capsys)
    assert run.code == 1
    assert "would migrate skills/demo/evals/a.json" in run.err
    assert "skills/old" not in run.err and "fixtures/c.json" not in run.err
    assert "Would migrate 1 file (1 case) (1 file scanned)" in run.err


def test_named_file_is_processed_unless_force_exclude(tmp_path, monkeypatch, capsys):
    _pyproject(tmp_path, "[tool.fixture-migrate]\nexclude = ['skills/old']\n")
    write_files(tmp_path, {"skills/old/evals/b.json": LEGACY, "notes.txt": "hello\n"})
    named = run_cli(["migrate", "--check", "skills/old/evals/b.json"], tmp_path, monkeypatch, capsys)
    assert named.code == 1
    forced = run_cli(
        ["migrate", "--check", "--force-exclude", "skills/old/evals/b.json", "notes.txt"], tmp_path, monkeypatch, capsys
    )
    assert forced.code == 0  # excluded, and a type fixture-migrate does not read is skipped, not an error
    assert "0 files scanned" in forced.err


def test_force_exclude_from_config(tmp_path, monkeypatch, capsys):
    _pyproject(tmp_path, "[tool.fixture-migrate]\nexclude = ['old']\nforce-exclude = true\n")
    write_files(tmp_path, {"old/b.json": LEGACY})
    assert run_cli(["migrate", "--check", "old/b.json"], tmp_path, monkeypatch, capsys).code == 0


def test_skill_mapping_and_flag(tmp_path, monkeypatch, capsys):
    _pyproject(
        tmp_path,
        '[tool.fixture-migrate.skill]\n"fixtures/review/**" = "review-skill"\n"fixtures/**" = "fallback-skill"\n',
    )
    write_files(tmp_path, {"fixtures/review/a.json": LEGACY, "fixtures/other/b.json": LEGACY})
    assert run_cli(["migrate", "fixtures"], tmp_path, monkeypatch, capsys).code == 0
    assert json.loads((tmp_path / "fixtures/review/a.json").read_text())["skill"] == "review-skill"
    assert json.loads((tmp_path / "fixtures/other/b.json").read_text())["skill"] == "fallback-skill"

    write_files(tmp_path, {"fixtures/review/c.json": LEGACY})
    assert run_cli(["migrate", "--skill", "from-flag", "fixtures"], tmp_path, monkeypatch, capsys).code == 0
    assert json.loads((tmp_path / "fixtures/review/c.json").read_text())["skill"] == "from-flag"


def test_repo_root_is_relative_to_the_config_file(tmp_path):
    _pyproject(tmp_path, "[tool.fixture-migrate]\nrepo-root = 'project'\n")
    (tmp_path / "project").mkdir()
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    settings = resolve("validate", {"paths": None, "repo_root": None, "skill": None}, set(), cwd=sub)
    assert settings.options.repo_root == (tmp_path / "project").resolve()
    flag = resolve("validate", {"paths": None, "repo_root": str(sub), "skill": None}, {"repo_root"}, cwd=sub)
    assert flag.options.repo_root == sub.resolve()


def test_repo_root_must_exist(tmp_path):
    _pyproject(tmp_path, "[tool.fixture-migrate]\nrepo-root = 'missing'\n")
    with pytest.raises(ConfigError, match="repo-root 'missing' is not a directory"):
        resolve("migrate", {"paths": None}, set(), cwd=tmp_path)


def test_validate_table(tmp_path, monkeypatch, capsys):
    canonical = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "cases": [{"id": "a", "input": "x", "coverage_tags": ["boundary"], "source_refs": ["missing.md"]}],
    }
    write_files(tmp_path, {"a.json": json.dumps(canonical)})
    without = run_cli(["validate", "a.json"], tmp_path, monkeypatch, capsys)
    assert "source_ref_missing" in without.out and "missing_boundary_evidence" in without.out
    _pyproject(tmp_path, "[tool.fixture-migrate.validate]\nno-ref-check = true\n")
    configured = run_cli(["validate", "a.json"], tmp_path, monkeypatch, capsys)
    assert "source_ref_missing" not in configured.out and "missing_boundary_evidence" in configured.out


def test_the_configuration_found_is_read_and_parsed_once(tmp_path, monkeypatch):
    import tomllib

    config = _pyproject(tmp_path, "[tool.fixture-migrate]\nexclude = ['vendor']\n")
    reads: list[Path] = []
    real_read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: reads.append(path) or real_read_bytes(path))
    parses: list[str] = []
    real_loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: parses.append(text) or real_loads(text))
    settings = resolve("validate", {"paths": None, "repo_root": None, "skill": None}, set(), cwd=tmp_path)
    assert settings.config_path == config
    assert reads == [config] and len(parses) == 1


@pytest.mark.parametrize("glob", ["../outside/*.yaml", "skills/../../outside/*.json", "/etc/*.json"])
def test_an_include_outside_the_root_is_refused(tmp_path, capsys, glob):
    from fixture_migrate.cli.app import main

    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text(f'[tool.fixture-migrate]\nrepo-root = "."\ninclude = ["{glob}"]\n')
    assert main(["migrate", "--check", "--config", str(root / "pyproject.toml"), str(root)]) == 2
    assert "[path_outside_repo]" in capsys.readouterr().err


def test_an_include_with_dots_that_stays_inside_is_kept(tmp_path, capsys):
    from fixture_migrate.cli.app import main

    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "data" / "x.json").write_text("{}")
    (root / "pyproject.toml").write_text('[tool.fixture-migrate]\nrepo-root = "."\ninclude = ["skills/../data/*.json"]\n')
    assert main(["migrate", "--check", "--config", str(root / "pyproject.toml"), str(root)]) == 0


@pytest.mark.parametrize("value", ["..", "/", "skills/../.."])
def test_a_configured_repo_root_outside_the_repository_holding_it_is_refused(tmp_path, capsys, value):
    """A repository's own `repo-root = ".."` widened the root past it, and a committed
    symlink into the wider root (to a file outside the repository) was followed and
    rewritten. The configuration may place the root inside the repository only."""
    from fixture_migrate.cli.app import main

    from tests.helpers import LEGACY

    root, victim = tmp_path / "repo", tmp_path / "victim.json"
    (root / ".git").mkdir(parents=True)
    (root / "skills/demo/evals").mkdir(parents=True)
    victim.write_text(LEGACY)
    (root / "skills/demo/evals/cases.json").symlink_to(victim)
    (root / "pyproject.toml").write_text(f'[tool.fixture-migrate]\nrepo-root = "{value}"\n')
    for config in ([], ["--config", str(root / "pyproject.toml")]):
        assert main(["migrate", *config, str(root)]) == 2
        assert "[path_outside_repo]" in capsys.readouterr().err
    assert victim.read_text() == LEGACY


def test_a_configured_repo_root_up_to_the_repository_top_is_kept(tmp_path, capsys):
    from fixture_migrate.cli.app import main

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/evals/cases.json").write_text('{"skill": "demo", "cases": []}')
    (root / "pkg/pyproject.toml").write_text('[tool.fixture-migrate]\nrepo-root = ".."\n')
    assert main(["detect", "--config", str(root / "pkg/pyproject.toml"), str(root / "skills")]) == 0
    assert "skills/demo/evals/cases.json" in capsys.readouterr().out
