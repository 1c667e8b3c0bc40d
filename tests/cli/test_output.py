"""--output-format text|json|github of migrate, validate and detect; colour; annotations."""

from __future__ import annotations

import io
import json

import pytest
from fixture_migrate.cli.output import annotation, use_colour, write_diff
from fixture_migrate.cli.report import format_error
from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.engine import first_changed_line

from tests.helpers import ROOT
from tests.runner import run_cli, run_process, write_files

EXAMPLES = ROOT / "examples" / "legacy"

CANONICAL = """\
{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "demo-review",
  "source_refs": ["skills/demo-review/SKILL.md"],
  "cases": [
    {"id": "ok", "input": "Review this.", "coverage_tags": ["trigger"], "expected_outcome": "Reviews."},
    {
      "id": "bad-tag",
      "input": "Review that.",
      "coverage_tags": ["Trigger"],
      "expected_outcome": "Reviews.",
      "source_refs": ["skills/demo-review/SKILL.md", "docs/missing.md"]
    }
  ]
}
"""

DUPLICATE_KEY = '{\n  "schema_version": "prompt-examples/v1",\n  "examples": [],\n  "examples": []\n}\n'


def _tree(tmp_path):
    write_files(
        tmp_path,
        {
            "skills/demo-review/SKILL.md": "# demo\n",
            "skills/demo-review/evals/review-examples.json": (EXAMPLES / "review-examples.json").read_text(),
            "skills/demo-prd/evals/prd-evals.json": (EXAMPLES / "prd-evals.json").read_text(),
            "skills/demo-review/evals/cases.json": CANONICAL,
            "skills/demo-review/evals/broken.json": DUPLICATE_KEY,
            "skills/demo-review/evals/package.json": '{"name": "not a fixture"}\n',
        },
    )
    (tmp_path / ".git").mkdir()  # the repo root: annotation paths are relative to it


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_migrate_check(fmt, tmp_path, monkeypatch, capsys, snapshot_text):
    _tree(tmp_path)
    run = run_cli(["migrate", "--check", "--output-format", fmt, "skills"], tmp_path, monkeypatch, capsys)
    assert run.code == 2  # the duplicate key is an error, which wins over "would change"
    if fmt == "json":
        data = json.loads(run.out)
        assert data["summary"] == {
            "files_scanned": 5,
            "migrated": 2,
            "cases_migrated": 4,
            "unchanged": 1,
            "not_fixtures": 1,
            "other_tools": {},
            "unclaimed": 0,
            "skipped": 0,
            "errors": 1,
            "moved_to_extensions": {"prompt_examples_v1": 5, "spec_prd_evals_v1": 10},
            "written": False,
            "families_not_migrated": 0,
            "not_migrated": [],
        }
    assert f"# stdout\n{run.out}# stderr\n{run.err}" == snapshot_text


def test_migrate_diff_json_holds_the_diff(tmp_path, monkeypatch, capsys):
    _tree(tmp_path)
    run = run_cli(["migrate", "--diff", "--output-format", "json", "skills/demo-prd"], tmp_path, monkeypatch, capsys)
    assert run.code == 0
    (record,) = json.loads(run.out)["files"]
    assert record["diff"].startswith(
        "--- a/skills/demo-prd/evals/prd-evals.json\n+++ b/skills/demo-prd/evals/prd-evals.json\n@@ "
    )


def test_migrate_write_summary(tmp_path, monkeypatch, capsys):
    _tree(tmp_path)
    (tmp_path / "skills/demo-review/evals/broken.json").unlink()
    run = run_cli(["migrate", "skills"], tmp_path, monkeypatch, capsys)
    assert run.code == 0
    assert run.err.splitlines()[-1] == "Migrated 2 files (4 cases); 1 already canonical (4 files scanned, 1 not a fixture)"
    quiet = run_cli(["migrate", "-q", "skills"], tmp_path, monkeypatch, capsys)
    assert (quiet.code, quiet.out, quiet.err) == (0, "", "")
    verbose = run_cli(["migrate", "-v", "skills"], tmp_path, monkeypatch, capsys)
    assert "skills/demo-review/evals/package.json: not a fixture, skipped" in verbose.err
    assert "skills/demo-prd/evals/prd-evals.json: unchanged (canonical)" in verbose.err


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_validate(fmt, tmp_path, monkeypatch, capsys, snapshot_text):
    _tree(tmp_path)
    run = run_cli(["validate", "--output-format", fmt, "skills"], tmp_path, monkeypatch, capsys)
    assert run.code == 2  # the duplicate key
    assert f"# stdout\n{run.out}# stderr\n{run.err}" == snapshot_text


def test_validate_verbose_names_every_file_quiet_only_errors(tmp_path, monkeypatch, capsys):
    _tree(tmp_path)
    verbose = run_cli(["validate", "-v", "skills"], tmp_path, monkeypatch, capsys)
    assert "skills/demo-review/evals/package.json: not a fixture" in verbose.err.splitlines()
    assert "skills/demo-review/evals/cases.json: canonical" in verbose.err.splitlines()
    quiet = run_cli(["validate", "-q", "skills"], tmp_path, monkeypatch, capsys)
    assert quiet.err.splitlines() == [line for line in verbose.err.splitlines() if ": error: " in line]


def test_validate_github_places_the_member(tmp_path, monkeypatch, capsys):
    _tree(tmp_path)
    run = run_cli(
        ["validate", "--output-format", "github", "skills/demo-review/evals/cases.json"], tmp_path, monkeypatch, capsys
    )
    lines = run.out.splitlines()
    # the invalid tag: the coverage_tags member of case 2; the missing ref: that array item
    assert (
        "::error file=skills/demo-review/evals/cases.json,line=10,col=24,title=invalid_coverage_tag::"
        "bad-tag: invalid coverage tag: Trigger"
    ) in lines
    assert (
        "::error file=skills/demo-review/evals/cases.json,line=12,col=54,title=source_ref_missing::"
        "bad-tag: source_ref path does not exist: docs/missing.md"
    ) in lines


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_detect(fmt, tmp_path, monkeypatch, capsys, snapshot_text):
    _tree(tmp_path)
    run = run_cli(["detect", "--output-format", fmt, "skills"], tmp_path, monkeypatch, capsys)
    assert run.code == 2
    assert f"# stdout\n{run.out}# stderr\n{run.err}" == snapshot_text


def test_annotation_escapes():
    assert annotation("error", "50% done\nnext: a,b", file="a:b,c.json", line=3, col=4, title="t") == (
        "::error file=a%3Ab%2Cc.json,line=3,col=4,title=t::50%25 done%0Anext: a,b\n"
    )
    assert annotation("notice", "bell \x07") == "::notice::bell \\x07\n"


def test_first_changed_line():
    assert first_changed_line(b"a\nb\nc\n", b"a\nB\nc\n") == 2
    assert first_changed_line(b"a\n", b"a\nb\n") == 2
    assert first_changed_line(b"a", b"a") == 1


def test_error_says_what_to_do_next():
    error = FixtureError("duplicate key 'id' in one object", code="duplicate_key", line=3, column=5)
    assert format_error("a.json", error) == (
        "a.json:3:5: error: duplicate key 'id' in one object [duplicate_key] "
        "(help: keep one of the two members (a JSON reader keeps only the last), then run again)"
    )


DIFF = "--- a/x.json\n+++ b/x.json\n@@ -1 +1 @@\n-old\n+new\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_diff_is_coloured_on_a_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    out = _Terminal()
    write_diff(out, DIFF)
    text = out.getvalue()
    assert "\x1b[" in text
    assert "\x1b[31m-old" in text and "\x1b[32m+new" in text
    # the colour codes are the only addition
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", text) == DIFF


def test_no_colour_with_no_color_or_a_pipe(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(_Terminal())
    out = _Terminal()
    write_diff(out, DIFF)
    assert out.getvalue() == DIFF
    monkeypatch.delenv("NO_COLOR")
    assert use_colour(_Terminal())
    assert not use_colour(io.StringIO())


def test_piped_diff_has_no_escape_codes(tmp_path):
    _tree(tmp_path)
    run = run_process(["migrate", "--diff", "skills/demo-prd"], tmp_path, env={"TERM": "xterm-256color"})
    assert run.code == 0
    assert run.out.startswith("--- a/skills/demo-prd/evals/prd-evals.json\n")
    assert "\x1b" not in run.out and "\x1b" not in run.err
