"""validate_cases: one test per reason code, plus the order of checks and this tool's own codes."""

from pathlib import Path

import pytest
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import CaseIdRegistry, RefChecker, validate_case, validate_cases


def normalized(**case):
    """A valid normalized case, changed by `case`."""
    base = {
        "schema_version": c.CANONICAL_SCHEMA_VERSION,
        "skill": "demo",
        "id": "a",
        "input": "do it",
        "expected_outcome": "done",
        "coverage_tags": ["trigger"],
        "source_refs": ["README.md"],
        "source_ref_authority": "source",
        "boundary_note": "",
        "forbidden_signals": [],
        "source_file": "skills/demo/evals/x.json",
    }
    base.update(case)
    return base


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "README.md").write_text("x")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "x.md").write_text("x")
    return tmp_path


def codes(entry, repo, *, check=True):
    return [e["reason_code"] for e in validate_case(entry, RefChecker(repo, check_exists=check))]


def test_valid_case_has_no_error(repo):
    assert codes(normalized(), repo) == []


@pytest.mark.parametrize(
    "change, code",
    [
        pytest.param({"skill": None}, c.MISSING_SKILL, id="missing_skill"),
        pytest.param({"skill": " "}, c.MISSING_SKILL, id="blank-skill"),
        pytest.param({"id": ""}, c.MISSING_ID, id="missing_id"),
        pytest.param({"input": ""}, c.MISSING_INPUT, id="missing_input"),
        pytest.param({"coverage_tags": []}, c.MISSING_COVERAGE_TAGS, id="missing_coverage_tags"),
        pytest.param({"coverage_tags": ["Trigger"]}, c.INVALID_COVERAGE_TAG, id="invalid_coverage_tag"),
        pytest.param({"coverage_tags": ["ok\n"]}, c.INVALID_COVERAGE_TAG, id="trailing-newline-is-invalid"),
        pytest.param({"coverage_tags": ["-x"]}, c.INVALID_COVERAGE_TAG, id="leading-dash-invalid"),
        pytest.param({"source_refs": []}, c.MISSING_SOURCE_REFS, id="missing_source_refs"),
        pytest.param({"source_ref_authority": "primary"}, c.INVALID_SOURCE_REF_AUTHORITY, id="invalid_authority"),
        pytest.param({"source_refs": ["https://example.test/x"]}, c.INVALID_SOURCE_REF, id="url"),
        pytest.param({"source_refs": ["/abs/x.md"]}, c.INVALID_SOURCE_REF, id="absolute"),
        pytest.param({"source_refs": ["dir\\x.md"]}, c.INVALID_SOURCE_REF, id="backslash"),
        pytest.param({"source_refs": ["#anchor-only"]}, c.INVALID_SOURCE_REF, id="empty-path"),
        pytest.param({"source_refs": [""]}, c.INVALID_SOURCE_REF, id="blank"),
        pytest.param({"source_refs": ["nope.md#Heading"]}, c.SOURCE_REF_MISSING, id="source_ref_missing"),
        pytest.param({"expected_outcome": [" ", {"a": ""}]}, c.MISSING_EXPECTED_OUTCOME, id="missing_expected_outcome"),
        pytest.param(
            {"coverage_tags": ["expected"], "expected_outcome": None}, c.MISSING_EXPECTED_OUTCOME, id="expected-bucket"
        ),
        pytest.param(
            {"coverage_tags": ["boundary"], "expected_outcome": None}, c.MISSING_BOUNDARY_EVIDENCE, id="boundary"
        ),
    ],
)
def test_each_reason_code(change, code, repo):
    assert codes(normalized(**change), repo) == [code]


def test_generated_paths_need_historical_authority(repo):
    entry = normalized(source_refs=[".claude/x.md"])
    assert codes(entry, repo) == [c.SOURCE_REF_NOT_SOURCE_AUTHORITY]
    assert codes(normalized(source_refs=[".claude/x.md"], source_ref_authority="historical"), repo) == []


def test_historical_refs_are_not_looked_up(repo):
    assert codes(normalized(source_refs=["gone.md"], source_ref_authority="advisory"), repo) == []


@pytest.mark.parametrize(
    "evidence", [{"boundary_note": "why"}, {"forbidden_signals": ["x"]}, {"expected_outcome": "o"}]
)
def test_boundary_evidence_is_any_of_three(evidence, repo):
    entry = normalized(**{"coverage_tags": ["boundary"], "expected_outcome": None, **evidence})
    assert codes(entry, repo) == []


def test_order_of_checks_is_the_references(repo):
    entry = normalized(
        skill="",
        id="",
        input="",
        coverage_tags=["trigger", "Bad"],
        source_refs=["http://x", "missing.md"],
        source_ref_authority="nope",
        expected_outcome=None,
    )
    assert codes(entry, repo) == [
        c.MISSING_SKILL,
        c.MISSING_ID,
        c.MISSING_INPUT,
        c.INVALID_COVERAGE_TAG,
        c.INVALID_SOURCE_REF_AUTHORITY,
        c.INVALID_SOURCE_REF,
        c.MISSING_EXPECTED_OUTCOME,
    ]


def test_error_object_shape_and_messages(repo):
    (error,) = validate_case(normalized(coverage_tags=["Bad Tag"], id=""), RefChecker(repo))[1:]
    assert error == {
        "reason_code": c.INVALID_COVERAGE_TAG,
        "message": "invalid coverage tag: Bad Tag",
        "skill": "demo",
        "id": None,
        "source_file": "skills/demo/evals/x.json",
    }
    (authority,) = validate_case(normalized(source_ref_authority=["a", None]), RefChecker(repo))
    assert authority["message"] == "invalid source_ref_authority: a,"


def test_duplicate_case_id_across_files_names_the_previous_file(repo):
    ids = CaseIdRegistry()
    first = normalize_payload({"skill": "s", "cases": [{"id": "x"}]}, source_file="a.json")
    second = normalize_payload({"skill": "s", "cases": [{"id": "x"}, {"id": "y"}]}, source_file="b.json")
    refs = RefChecker(repo, check_exists=False)
    assert [e for e in validate_cases(first, refs, ids) if e["reason_code"] == c.DUPLICATE_CASE_ID] == []
    dupes = [e for e in validate_cases(second, refs, ids) if e["reason_code"] == c.DUPLICATE_CASE_ID]
    assert dupes == [
        {
            "reason_code": c.DUPLICATE_CASE_ID,
            "message": "duplicate case id for s: x",
            "skill": "s",
            "id": "x",
            "source_file": "b.json",
            "previous_source_file": "a.json",
        }
    ]


def test_duplicate_key_is_the_references_string_key(repo):
    # `${skill}:${id}`: skill "a:b" with id "c" collides with skill "a" and id "b:c".
    cases = [normalized(skill="a:b", id="c"), normalized(skill="a", id="b:c")]
    errors = validate_cases(cases, RefChecker(repo, check_exists=False))
    assert [e["reason_code"] for e in errors] == [c.DUPLICATE_CASE_ID]


def test_no_ref_check_skips_only_existence(repo):
    entry = normalized(source_refs=["missing.md", ".claude/x.md"])
    assert codes(entry, repo, check=False) == [c.SOURCE_REF_NOT_SOURCE_AUTHORITY]


@pytest.mark.parametrize("ref", ["../outside.md", "skills/../../outside.md#x"])
def test_ref_leaving_the_root_is_flagged_and_never_looked_up(ref, tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "outside.md").write_text("exists, but outside the root")
    entry = normalized(source_refs=[ref])
    assert codes(entry, root) == [c.SOURCE_REF_MISSING, c.SOURCE_REF_OUTSIDE_REPO]
    assert codes(entry, root, check=False) == [c.SOURCE_REF_OUTSIDE_REPO]


def test_symlink_leaving_the_root_is_flagged(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "secret.md").write_text("x")
    (root / "link.md").symlink_to(tmp_path / "secret.md")
    assert codes(normalized(source_refs=["link.md"]), root) == [c.SOURCE_REF_MISSING, c.SOURCE_REF_OUTSIDE_REPO]


def test_ref_checker_caches_lookups(tmp_path):
    checker = RefChecker(Path(tmp_path))
    assert checker.lookup("a.md") == (False, False)
    (tmp_path / "a.md").write_text("x")
    assert checker.lookup("a.md") == (False, False), "one run sees one answer per path"
