"""--version, shell completion, examples in every --help, errors that say what to do next."""

from __future__ import annotations

import pytest
from fixture_migrate import __version__

from tests.runner import run_cli, run_process

SUBCOMMANDS = ("migrate", "normalize", "validate", "detect", "adapters", "schema")

# typer finds the user's shell for `--show-completion` / `--install-completion` by walking
# the process tree (shellingham); under a scheduler, a container or an IDE there may be no
# shell ancestor at all. With this variable typer does not look: the options take the shell
# by name (`--show-completion bash`), so these tests do not depend on who started pytest.
NO_SHELL_DETECTION = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


@pytest.fixture(autouse=True)
def _no_shell_detection(monkeypatch):
    for name, value in NO_SHELL_DETECTION.items():
        monkeypatch.setenv(name, value)


def test_version(tmp_path, monkeypatch, capsys):
    run = run_cli(["--version"], tmp_path, monkeypatch, capsys)
    assert (run.code, run.out) == (0, f"fixture-migrate {__version__}\n")


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_every_help_has_an_example(subcommand, tmp_path, monkeypatch, capsys):
    run = run_cli([subcommand, "--help"], tmp_path, monkeypatch, capsys)
    assert run.code == 0
    assert "Example" in run.out
    assert f"  fixture-migrate {subcommand}" in run.out


def test_top_level_help_offers_completion(tmp_path, monkeypatch, capsys):
    run = run_cli(["--help"], tmp_path, monkeypatch, capsys)
    assert "--install-completion" in run.out and "--show-completion" in run.out
    for subcommand in SUBCOMMANDS:
        assert f"  {subcommand} " in run.out


def test_show_completion_prints_a_bash_script(tmp_path):
    run = run_process(["--show-completion", "bash"], tmp_path, env=NO_SHELL_DETECTION)
    assert run.code == 0
    assert "_fixture_migrate_completion()" in run.out
    assert run.out.rstrip().endswith("complete -o default -F _fixture_migrate_completion fixture-migrate")


def test_missing_path_says_what_to_do(tmp_path, monkeypatch, capsys):
    run = run_cli(["migrate", "--check", "nowhere.json"], tmp_path, monkeypatch, capsys)
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        "nowhere.json: error: no such file or directory [io] (help: check the path and its permissions)"
    )


def test_bad_json_names_place_and_fix(tmp_path, monkeypatch, capsys):
    (tmp_path / "a.json").write_text('{"cases": [}\n', encoding="utf-8")
    run = run_cli(["migrate", "a.json"], tmp_path, monkeypatch, capsys)
    assert run.code == 2
    assert run.err.startswith("a.json:1:12: error: invalid JSON: ")
    assert run.err.splitlines()[0].endswith("[invalid_json] (help: fix the syntax at that place, then run again)")
