"""The pytest plugin (`fixture_migrate.pytest_plugin`), run on small repositories with `pytester`."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CANONICAL = """{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "demo",
  "cases": [
    {"id": "a", "input": "hi", "coverage_tags": ["trigger"], "source_refs": ["README.md"], "expected_outcome": "hello"}
  ]
}
"""
LEGACY = """{
  "schema_version": "prompt-examples/v1",
  "skill": "demo",
  "examples": [
    {"name": "B", "user_intent": "hi", "expected_posture": "hello", "coverage_tags": ["trigger"], "source_refs": ["README.md"]}
  ]
}
"""
INVALID = CANONICAL.replace('"a"', '"c"').replace('["trigger"]', '["Not A Tag"]')


@pytest.fixture
def repo(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".md", README="x")
    evals = pytester.mkdir("skills").joinpath("demo", "evals")
    evals.mkdir(parents=True)
    (evals / "good.json").write_text(CANONICAL)
    (evals / "legacy.json").write_text(LEGACY)
    (evals / "bad.json").write_text(INVALID)
    (evals / "broken.json").write_text('{"cases": [')
    (evals / "package.json").write_text('{"name": "not a fixture"}')
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    return pytester


def test_off_by_default(repo: pytest.Pytester) -> None:
    result = repo.runpytest()
    result.assert_outcomes(passed=1)


def test_reports_files_that_are_not_canonical_or_not_valid(repo: pytest.Pytester) -> None:
    result = repo.runpytest("--fixtures-check", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines_random(
        [
            "*skills/demo/evals/legacy.json:2: not_canonical: not canonical: `fixture-migrate migrate*",
            "*skills/demo/evals/bad.json:5:*: invalid_coverage_tag: c: *",
            "*skills/demo/evals/broken.json:1:*: invalid_json: invalid JSON*",
        ]
    )
    result.stdout.fnmatch_lines_random(
        ["FAILED skills/demo/evals/legacy.json::fixtures_check*", "FAILED skills/demo/evals/bad.json::fixtures_check*"]
    )
    assert "package.json" not in result.stdout.str()


def test_ini_option_and_paths(repo: pytest.Pytester) -> None:
    repo.makeini("[pytest]\nfixtures_check = true\nfixtures_check_paths = skills/demo/evals/good.json\n")
    result = repo.runpytest("-v", "-m", "fixtures_check")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*skills/demo/evals/good.json::fixtures_check PASSED*"])


def test_duplicate_ids_are_counted_across_files(repo: pytest.Pytester) -> None:
    repo.path.joinpath("skills", "demo", "evals", "again.json").write_text(CANONICAL)
    repo.makeini(
        "[pytest]\nfixtures_check = true\nfixtures_check_paths =\n  skills/demo/evals/good.json\n  skills/demo/evals/again.json\n"
    )
    result = repo.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*skills/demo/evals/*.json:5:*: duplicate_case_id: a: *"])
