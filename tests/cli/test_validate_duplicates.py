"""`validate` over a tree with many duplicate case ids: the same output as before the run
kept compact keys and loaded each file once (snapshots made with the earlier code), under
one process and two, in every output format.

The tree mixes the shapes a duplicate is placed from: JSON files of the bench generator
(whole legacy families repeat `d-0`, `d-1`, ... per skill), YAML and Python files whose
duplicates are placed by their own span trees, a file whose duplicates sit beside other
errors (placed in the worker), a file whose cases name different source files, ids
that are not strings, and a repeat inside one file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.runner import run_cli, write_files

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import generate  # noqa: E402

CANONICAL = "spec-first.workflow-eval-fixtures.v1"

EXTRA = {
    "skills/skill-00/evals/more.yaml": (
        f"schema_version: {CANONICAL}\n"
        "skill: skill-00\n"
        "source_refs: [skills/skill-00/SKILL.md]\n"
        "cases:\n"
        "  - id: d-0\n    input: again\n    coverage_tags: [trigger]\n    expected_outcome: x\n"
        "  - id: d-1\n    input: again\n    coverage_tags: [trigger]\n    expected_outcome: x\n"
        "  - id: only-here\n    input: once\n    coverage_tags: [trigger]\n    expected_outcome: x\n"
    ),
    "skills/skill-00/evals/more_cases.py": (
        "CASES = [\n"
        "    {'id': 'd-0', 'input': 'py', 'expected_outcome': 'x', 'skill': 'skill-00'},\n"
        "    {'id': 'd-2', 'input': 'py', 'expected_outcome': 'x', 'skill': 'skill-00'},\n"
        "]\n"
    ),
    "skills/skill-01/evals/mixed.json": (
        "{\n"
        f'  "schema_version": "{CANONICAL}",\n'
        '  "skill": "skill-01",\n'
        '  "source_refs": ["skills/skill-01/SKILL.md"],\n'
        '  "cases": [\n'
        '    {"id": "d-0", "input": "a", "expected_outcome": "x"},\n'
        '    {"id": "d-1", "input": "a", "expected_outcome": "x", "coverage_tags": ["nope"]},\n'
        '    {"id": "d-1", "input": "a"},\n'
        '    {"id": 7, "input": "a", "expected_outcome": "x"},\n'
        '    {"id": 7, "input": "b", "expected_outcome": "x"},\n'
        '    {"id": "s-0", "input": "c", "expected_outcome": "x", "source_file": "elsewhere.json"}\n'
        "  ]\n"
        "}\n"
    ),
    "skills/skill-02/evals/again.json": (
        "{\n"
        f'  "schema_version": "{CANONICAL}",\n'
        '  "skill": "skill-02",\n'
        '  "source_refs": ["skills/skill-02/SKILL.md"],\n'
        '  "cases": [{"id": "d-0", "input": "a", "expected_outcome": "x"},'
        ' {"id": "d-0", "input": "a", "expected_outcome": "x"}]\n'
        "}\n"
    ),
}


def _valid(skill: str, ids: list[str]) -> str:
    """A canonical JSON file whose only possible errors are duplicate ids."""
    cases = ",\n".join(
        f'    {{"id": "{case_id}", "input": "in", "coverage_tags": ["trigger"], "expected_outcome": "out"}}'
        for case_id in ids
    )
    return (
        f'{{\n  "schema_version": "{CANONICAL}",\n  "skill": "{skill}",\n'
        f'  "source_refs": ["skills/{skill}/SKILL.md"],\n  "cases": [\n{cases}\n  ]\n}}\n'
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dups")
    generate(root, 240, canonical_share=0.25, seed=11)
    write_files(root, EXTRA)
    # Files whose only errors are duplicates: placed by the run, not by the worker.
    write_files(
        root,
        {
            f"skills/skill-0{n % 4}/evals/valid-{n:02d}.json": _valid(f"skill-0{n % 4}", [f"d-{i}" for i in range(n % 7 + 1)])
            for n in range(40)
        },
    )
    return root


@pytest.mark.parametrize("output_format", ["text", "json", "github"])
def test_many_duplicates_give_the_earlier_output(tree, output_format, monkeypatch, capsys, snapshot_text):
    runs = [
        run_cli(
            ["validate", "--no-ref-check", "--output-format", output_format, "--jobs", jobs, "--repo-root", ".", "."],
            tree,
            monkeypatch,
            capsys,
        )
        for jobs in ("1", "2")
    ]
    assert runs[0] == runs[1]
    assert runs[0].code == 1
    assert runs[0].out.count("duplicate") > 400
    assert runs[0].out + "--- stderr ---\n" + runs[0].err == snapshot_text


def test_case_keys_agree_with_a_dict_through_growth():
    from fixture_migrate.migration.validation import CaseKeys, case_key

    table, expected = CaseKeys(size=8), {}
    # Keys that share their low bits probe past each other; digests of real ids fill the rest.
    keys = [(n << 40) | 5 for n in range(1, 50)] + [case_key(f"skill-{n % 7}", f"id-{n % 3000}") for n in range(9000)] * 2
    for number, key in enumerate(keys):
        assert table.first(key, number) == expected.get(key, -1)
        expected.setdefault(key, number)
    assert len(table) == len(expected) == len(set(keys)) > 1000
    assert case_key("s", "x") == case_key("s", "x") != 0
