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

import re
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


TRICKY = {
    # The members before `id` hold what a careless scan would take for it: an `id` nested
    # deeper, text that reads `"id":`, escapes, empty containers; `id` written escaped.
    "skills/skill-03/evals/tricky.json": (
        "{\n"
        f'  "schema_version": "{CANONICAL}",\n'
        '  "skill": "skill-03",\n'
        '  "notes": {"id": "d-0", "cases": [{"id": "d-1"}]},\n'
        '  "source_refs": ["skills/skill-03/SKILL.md"],\n'
        '  "cases": [\n'
        '    {"extensions": {"id": "d-0"}, "input": "say \\"id\\": \\"d-0\\"", "\\u0069d": "d-0", "expected_outcome": "x"},\n'
        '    {"input": "a", "e": {}, "f": [], "id"\n      :\n\t"d-1", "expected_outcome": "x"},\n'
        '    {"name": "D 2", "input": "a", "expected_outcome": "x"},\n'
        '    {"name": "D 2", "id": "", "input": "a", "expected_outcome": "x"},\n'
        '    {"input": "no id or name", "expected_outcome": "x"},\n'
        '    {"input": "no id or name", "expected_outcome": "x"}\n'
        "  ]\n"
        "}\n"
    ),
    # One line, CRLF line ends, a BOM, a case list under `examples`, after a long member.
    "skills/skill-03/evals/z-compact.json": (
        f'{{"schema_version":"{CANONICAL}","skill":"skill-03","source_refs":["skills/skill-03/SKILL.md"],'
        '"cases":[{"id":"d-0","input":"a","expected_outcome":"x"},{"id":"d-1","input":"é","expected_outcome":"x"}]}'
    ),
    "skills/skill-03/evals/y-crlf.json": (
        "\ufeff{\r\n"
        '  "skill": "skill-03",\r\n'
        '  "description": "' + "long text " * 200 + '",\r\n'
        '  "examples": [\r\n'
        '    {"id": "d-0", "input": "a", "coverage_tags": ["trigger"], "expected_outcome": "x"},\r\n'
        '    {"id": "d-2", "input": "a", "coverage_tags": ["Bad Tag"], "expected_outcome": "x"}\r\n'
        "  ]\r\n"
        "}\r\n"
    ),
    # A repeated key: read as JSON.parse reads it, its duplicates have no place.
    "skills/skill-03/evals/x-repeated.json": (
        '{"skill": "skill-03", "skill": "skill-03", "cases": [{"id": "d-0", "input": "a", "expected_outcome": "x"}]}\n'
    ),
}

_TEXT_LINE = re.compile(r"^(?P<file>[^:\n]+)(?::(?P<line>\d+):(?P<column>\d+))?: (?P<id>.*?): duplicate_case_id: (?P<message>.*)$")
_GITHUB_LINE = re.compile(
    r"^::error file=(?P<file>[^,]+)(?:,line=(?P<line>\d+),col=(?P<column>\d+))?,title=duplicate_case_id::(?P<id>.*?): (?P<message>.*)$"
)


@pytest.fixture(scope="module")
def duplicates_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tree of duplicates as the benchmark makes them (the canonical files of a skill repeat
    `case-0`, `case-1`, ...), with the YAML and Python files above and the tricky JSON ones."""
    root = tmp_path_factory.mktemp("repeated")
    generate(root, 300, canonical_share=0.9, seed=5, repeated_ids=True)
    write_files(root, {**EXTRA, **TRICKY})
    return root


def _placed(pattern: re.Pattern[str], out: str) -> list[tuple[str, int | None, int | None, str, str]]:
    found = []
    for line in out.splitlines():
        match = pattern.match(line)
        if match:
            where = (int(match["line"]), int(match["column"])) if match["line"] else (None, None)
            found.append((match["file"], *where, match["id"], match["message"]))
    return found


@pytest.mark.parametrize("output_format, pattern", [("text", _TEXT_LINE), ("github", _GITHUB_LINE)])
def test_duplicates_are_placed_as_the_span_tree_places_them(
    duplicates_tree, output_format, pattern, monkeypatch, capsys
):
    """Every duplicate's line and column, under one process and two, is where the public
    API puts it: each error placed on its own, through the file's full span tree."""
    import fixture_migrate

    expected = [
        (error["source_file"], error.get("line"), error.get("column"), error["id"] or "-", error["message"])
        for error in fixture_migrate.validate(duplicates_tree, repo_root=duplicates_tree, check_refs=False)
        if error["reason_code"] == "duplicate_case_id"
    ]
    assert len(expected) > 500
    tricky = [entry for entry in expected if entry[0].startswith("skills/skill-03/evals/")]
    assert {entry[0].rsplit("/", 1)[1] for entry in tricky} >= {"tricky.json", "z-compact.json", "y-crlf.json", "x-repeated.json"}
    assert any(entry[1] is None for entry in tricky)  # the file read despite a repeated key
    for jobs in ("1", "2"):
        run = run_cli(
            ["validate", "--no-ref-check", "--output-format", output_format, "--jobs", jobs, "--repo-root", ".", "."],
            duplicates_tree,
            monkeypatch,
            capsys,
        )
        assert _placed(pattern, run.out) == expected


def test_a_files_duplicate_errors_are_those_duplicate_error_makes():
    from fixture_migrate.migration.validation import DuplicateErrors, duplicate_error

    values = ["s", "", None, 0, 1, 2.5, True, False, [], ["a", None], {}, {"a": 1}, "x: y"]
    for skill in values:
        for source_file in values:
            same = DuplicateErrors(skill, source_file)
            for case_id in values:
                made = same.error(case_id, "first.json")
                assert made == duplicate_error(skill, case_id, source_file, "first.json")
                assert list(made) == list(duplicate_error(skill, case_id, source_file, "first.json"))


def test_case_keys_met_in_batches_agree_with_a_dict_through_growth():
    from fixture_migrate.migration.validation import CaseKeys, case_key

    table, expected = CaseKeys(size=8), {}
    keys = [(n << 40) | 5 for n in range(1, 50)] + [case_key(f"skill-{n % 7}", f"id-{n % 3000}") for n in range(9000)] * 2
    for number, start in enumerate(range(0, len(keys), 37)):
        batch = keys[start : start + 37 + number % 5]  # overlapping batches, repeats within one
        wanted = []
        for index, key in enumerate(batch):
            if key in expected:
                wanted.append((index, expected[key]))
            else:
                expected[key] = number
        assert table.meet(batch, number) == wanted
    assert len(table) == len(expected) > 1000


def test_case_places_sent_between_processes_are_the_places_made_in_one(tmp_path):
    """What a worker sends (a pickled `CasePlaces`: a JSON file's bytes and its cases' member
    paths) gives, once unpickled, every place the same object gives in the process that read
    the file; checked here without relying on the machine having a second CPU."""
    import pickle

    from fixture_migrate.config import Options
    from fixture_migrate.contract.validate import RefChecker
    from fixture_migrate.migration.engine import Engine
    from fixture_migrate.migration.reader import Reader
    from fixture_migrate.migration.validation import check_file

    write_files(tmp_path, {**EXTRA, **TRICKY})
    reader = Reader(Engine(Options(tmp_path)))
    refs = RefChecker(tmp_path, check_exists=False)
    compared = 0
    for name in sorted({**EXTRA, **TRICKY}):
        path = tmp_path / name
        here = check_file(reader, path, refs, place=True)
        sent = pickle.loads(pickle.dumps(check_file(reader, path, refs, place=True)))
        if here.dup_places is None:
            continue
        assert sent.dup_places is not None
        for index in range(len(here.keys)):
            assert sent.dup_places[index] == here.dup_places[index], (name, index)
            compared += here.dup_places[index] is not None
    assert compared >= 12  # the JSON ones, YAML and Python ones placed
