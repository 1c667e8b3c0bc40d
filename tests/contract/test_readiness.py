"""validate --readiness: valid cases per coverage bucket and skill, as the reference defines coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.readiness import (
    bucket_coverage_basis,
    case_has_bucket_coverage,
    file_name_matches_bucket,
    readiness,
)
from fixture_migrate.contract.validate import RefChecker

from tests.runner import run_cli, write_files

V1 = c.CANONICAL_SCHEMA_VERSION
NO_REFS = RefChecker(Path("."), check_exists=False)

CASES = {
    "trigger": {"id": "t", "input": "Plan this.", "coverage_tags": ["trigger"], "expected_outcome": "Plans."},
    "boundary": {"id": "b", "input": "Code this.", "coverage_tags": ["boundary"], "boundary_note": "Not ours."},
    "failure": {"id": "f", "input": "Broken plan.", "coverage_tags": ["failure"], "expected_outcome": "Refuses."},
    "expected": {"id": "e", "input": "Good plan.", "coverage_tags": ["expected"], "expected_outcome": "A plan."},
}


def _file(skill: str, cases: list[dict], **extra) -> str:
    payload = {"schema_version": V1, "skill": skill, "source_refs": ["SKILL.md"], **extra, "cases": cases}
    return json.dumps(payload, indent=2) + "\n"


def _case(file: str = "skills/demo/evals/cases.json", **changes) -> dict:
    payload = {"schema_version": V1, "skill": "demo", "source_refs": ["SKILL.md"], "cases": [changes]}
    (case,) = normalize_payload(payload, source_file=file)
    return case


@pytest.mark.parametrize(
    ("name", "bucket", "expected"),
    [
        ("skills/x/evals/trigger-cases.json", "trigger", True),
        ("skills/x/evals/Boundary_Cases.json", "boundary", True),
        ("skills/x/evals/expected-behavior-cases.json", "expected", True),
        ("skills/trigger/evals/cases.json", "trigger", False),  # the base name only
        (None, "failure", False),
    ],
)
def test_file_name_matches_bucket(name, bucket, expected):
    assert file_name_matches_bucket(name, bucket) is expected


def test_declared_tag_on_a_valid_case_covers():
    case = _case(id="a", input="Do it.", coverage_tags=["trigger"], expected_outcome="Done.")
    assert case_has_bucket_coverage(case, "trigger", NO_REFS)
    assert bucket_coverage_basis(case, "trigger") == "declared_coverage_tags"
    assert not case_has_bucket_coverage(case, "boundary", NO_REFS)
    assert not case_has_bucket_coverage(case, "not-a-bucket", NO_REFS)


def test_declared_tag_on_an_invalid_case_does_not_cover():
    case = _case(id="a", input="Do it.", coverage_tags=["trigger"])  # trigger needs an outcome
    assert not case_has_bucket_coverage(case, "trigger", NO_REFS)


def test_legacy_file_name_fallback_only_when_allowed():
    case = _case(file="skills/demo/evals/boundary-cases.json", id="a", input="Do it.", boundary_note="Not ours.")
    assert bucket_coverage_basis(case, "boundary") == "legacy_filename_fallback"
    assert not case_has_bucket_coverage(case, "boundary", NO_REFS)
    assert case_has_bucket_coverage(case, "boundary", NO_REFS, allow_legacy_filename_fallback=True)
    # the tag the fallback adds brings its own rule: a boundary case needs evidence
    bare = _case(file="skills/demo/evals/boundary-cases.json", id="a", input="Do it.")
    assert not case_has_bucket_coverage(bare, "boundary", NO_REFS, allow_legacy_filename_fallback=True)


def test_missing_source_ref_counts_against_a_case_when_refs_are_checked(tmp_path):
    case = _case(id="a", input="Do it.", coverage_tags=["trigger"], expected_outcome="Done.")
    assert not case_has_bucket_coverage(case, "trigger", RefChecker(tmp_path))
    (tmp_path / "SKILL.md").write_text("# skill\n")
    assert case_has_bucket_coverage(case, "trigger", RefChecker(tmp_path))


def test_next_steps_name_what_to_fix():
    tagged_invalid = {**CASES["trigger"], "expected_outcome": ""}
    payload = {"schema_version": V1, "skill": "demo", "source_refs": ["SKILL.md"], "cases": [tagged_invalid]}
    (skill,) = readiness(normalize_payload(payload, source_file="skills/demo/evals/cases.json"), NO_REFS)
    assert skill.next_steps() == [
        "fix the validation errors of t (tagged trigger)",
        "add a valid case tagged 'boundary'",
    ]


@pytest.mark.parametrize("missing", c.BUCKETS)
def test_skill_without_one_bucket(missing):
    cases = [case for bucket, case in CASES.items() if bucket != missing]
    payload = {"schema_version": V1, "skill": "demo", "source_refs": ["SKILL.md"], "cases": cases}
    (skill,) = readiness(normalize_payload(payload, source_file="skills/demo/evals/cases.json"), NO_REFS)
    assert skill.skill == "demo"
    assert skill.ready is (missing in c.OPTIONAL_BUCKETS)
    assert skill.missing == ([missing] if missing in c.REQUIRED_BUCKETS else [])
    covered = {bucket.bucket: bucket.basis for bucket in skill.buckets}
    assert covered == {b: (None if b == missing else "declared_coverage_tags") for b in c.BUCKETS}


def _tree(root: Path) -> None:
    write_files(
        root,
        {
            "skills/alpha/SKILL.md": "# alpha\n",
            "skills/beta/SKILL.md": "# beta\n",
            "skills/alpha/evals/cases.json": _file(
                "alpha", [CASES["trigger"], CASES["boundary"], {**CASES["failure"], "input": ""}]
            ),
            "skills/beta/evals/trigger-cases.json": _file("beta", [CASES["trigger"]]),
            "skills/beta/evals/boundary-cases.json": _file(
                "beta", [{"id": "legacy-b", "input": "Code this.", "boundary_note": "Not ours."}]
            ),
        },
    )
    for name in ("alpha", "beta"):
        for path in (root / "skills" / name / "evals").iterdir():
            data = json.loads(path.read_text())
            data["source_refs"] = [f"skills/{name}/SKILL.md"]
            path.write_text(json.dumps(data, indent=2) + "\n")


def test_readiness_text(tmp_path, monkeypatch, capsys, snapshot_text):
    _tree(tmp_path)
    run = run_cli(["validate", "--readiness", "--repo-root", ".", "skills"], tmp_path, monkeypatch, capsys)
    assert run.code == 1  # beta has no declared boundary case; alpha has an invalid failure case
    assert run.out == snapshot_text


def test_readiness_json(tmp_path, monkeypatch, capsys, snapshot_json):
    _tree(tmp_path)
    run = run_cli(
        ["validate", "--readiness", "--repo-root", ".", "--output-format", "json", "skills"],
        tmp_path,
        monkeypatch,
        capsys,
    )
    data = json.loads(run.out)
    assert [error["reason_code"] for error in data["errors"]] == ["missing_input", "missing_coverage_tags"]
    by_skill = {entry["skill"]: entry for entry in data["readiness"]}
    assert by_skill["alpha"]["ready"] is True
    assert by_skill["alpha"]["buckets"]["failure"]["invalid_cases"] == ["f"]
    assert by_skill["beta"]["ready"] is False
    assert by_skill["beta"]["missing"] == ["boundary"]
    assert by_skill["beta"]["buckets"]["boundary"]["basis"] == "legacy_filename_fallback"
    assert by_skill["beta"]["buckets"]["boundary"]["legacy_filename_fallback_cases"] == ["legacy-b"]
    assert data == snapshot_json


def test_ready_tree_exits_0(tmp_path, monkeypatch, capsys):
    write_files(tmp_path, {"skills/alpha/evals/cases.json": _file("alpha", [CASES["trigger"], CASES["boundary"]])})
    run = run_cli(["validate", "--readiness", "--no-ref-check", "skills"], tmp_path, monkeypatch, capsys)
    assert run.code == 0, run.out
    assert run.out.splitlines()[:2] == [
        "readiness: 1 of 1 skill ready (required buckets: trigger, boundary; optional: failure, expected)",
        "alpha: ready",
    ]


def test_readiness_github(tmp_path, monkeypatch, capsys):
    _tree(tmp_path)
    run = run_cli(
        ["validate", "--readiness", "--repo-root", ".", "--output-format", "github", "skills"],
        tmp_path,
        monkeypatch,
        capsys,
    )
    assert run.code == 1
    assert run.out.splitlines()[-1] == (
        "::error file=skills/beta/evals/boundary-cases.json,line=1,title=readiness::skill beta is not ready: "
        "no valid boundary case; add 'boundary' to the coverage_tags of legacy-b"
    )
