"""Per-syntax size limits: a fixture over its syntax's limit is refused before any of it is
read, with a message that names the limit and how to raise it; the limit can be raised."""

from __future__ import annotations

import os

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import limits
from fixture_migrate.formats.limits import SIZE_LIMITS, max_bytes, size_variable

PYTHON_CASE = "    {'name': 'x', 'user_intent': 'y', 'expected': 'z'},\n"


def big_python(size: int) -> str:
    return "CASES = [\n" + PYTHON_CASE * (size // len(PYTHON_CASE) + 1) + "]\n"


@pytest.mark.parametrize("command", [["migrate", "--check"], ["normalize"], ["validate"], ["detect"]])
def test_a_python_fixture_over_its_limit_is_refused_unread(tmp_path, capsys, monkeypatch, command):
    module = tmp_path / "cases.py"
    module.write_text(big_python(SIZE_LIMITS["python"] + 1))
    monkeypatch.setattr(os, "read", lambda *a: pytest.fail("a file over the limit was read"))
    code = main([*command, "--repo-root", str(tmp_path), str(module)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"over the {SIZE_LIMITS['python']:,}-byte limit (16 MiB): not read; the limit of Python fixtures" in err
    assert "raise the limit with FIXTURE_MIGRATE_MAX_PYTHON_BYTES=BYTES [too_large]" in err


def test_a_yaml_fixture_over_its_limit_is_refused_unread(tmp_path, capsys, monkeypatch):
    fixture = tmp_path / "cases.yaml"
    fixture.write_bytes(b"a: " + b"x" * (SIZE_LIMITS["yaml"] - 3) + b"\n")
    monkeypatch.setattr(os, "read", lambda *a: pytest.fail("a file over the limit was read"))
    code = main(["migrate", "--check", "--repo-root", str(tmp_path), str(fixture)])
    err = capsys.readouterr().err
    assert code == 2
    assert "over the 16,777,216-byte limit (16 MiB): not read; the limit of YAML fixtures" in err
    assert "raise the limit with FIXTURE_MIGRATE_MAX_YAML_BYTES=BYTES [too_large]" in err


def test_the_limit_is_raised_by_its_variable(tmp_path, capsys, monkeypatch):
    # A built-in limit of 4 KiB stands in for the real one: the same path, without
    # migrating megabytes of Python.
    monkeypatch.setitem(SIZE_LIMITS, "python", 4 << 10)
    module = tmp_path / "evals" / "cases.py"
    module.parent.mkdir()
    module.write_text(big_python(SIZE_LIMITS["python"] + 1))
    args = ["migrate", "--check", "-q", "--repo-root", str(tmp_path), str(module)]
    assert main(args) == 2  # over the built-in limit
    assert "[too_large]" in capsys.readouterr().err
    monkeypatch.setenv(size_variable("python"), "1MiB")
    assert main(args) == 1


@pytest.mark.parametrize(
    "value, expected",
    [("2097152", 2 << 20), ("64KiB", 64 << 10), ("3 MiB", 3 << 20), ("", SIZE_LIMITS["yaml"]), ("  ", SIZE_LIMITS["yaml"])],
)
def test_limit_values(monkeypatch, value, expected):
    monkeypatch.setenv("FIXTURE_MIGRATE_MAX_YAML_BYTES", value)
    assert max_bytes("yaml", limits.MAX_FILE_BYTES) == expected


def test_json_keeps_the_read_limit_unless_its_variable_says(monkeypatch):
    assert limits.limit_for("a.json").bytes == limits.MAX_FILE_BYTES == 16 << 20
    monkeypatch.setenv("FIXTURE_MIGRATE_MAX_JSON_BYTES", "1KiB")
    assert limits.limit_for("a.json").bytes == 1024
    assert limits.limit_for("a.csv").bytes == limits.MAX_FILE_BYTES


BAD_VALUES = ["lots", "-1", "1e9", "abc", "4mib", "4.5MiB", "1KB", "\u0664\u0660\u0669\u0666", "\uff11\uff12", "0x10"]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_an_unparsable_limit_is_an_error_naming_the_variable(tmp_path, capsys, monkeypatch, value):
    """Never silently ignored (the built-in limit would apply unseen), and only ASCII digits
    are a number (`\\d` would accept Arabic-Indic or full-width digits)."""
    monkeypatch.setenv("FIXTURE_MIGRATE_MAX_YAML_BYTES", value)
    (tmp_path / "a.json").write_text("{}")
    for command in (["migrate", "--check"], ["validate"], ["normalize"]):
        code = main([*command, "--repo-root", str(tmp_path), str(tmp_path / "a.json")])
        err = capsys.readouterr().err
        assert code == 2, (command, err)
        assert "FIXTURE_MIGRATE_MAX_YAML_BYTES" in err and "is not a size" in err
    with pytest.raises(FixtureError) as caught:
        max_bytes("yaml", limits.MAX_FILE_BYTES)
    assert caught.value.code == "bad_size_limit"
