"""`fixture-migrate suggest`: a drafted adapter table, pasted into pyproject.toml, makes the
next `migrate` migrate the family in place (suggest -> paste -> migrate -> validate).

Seven local shapes, written here: keyword trigger lists, positive/negative prompt lists,
a bare JSON array of cases, a case list with an input but no expected outcome, records
under another key, a YAML tests list, and JSON Lines.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from fixture_migrate.cli.app import main

KEYWORDS = {
    "skill_name": "tasks",
    "should_trigger": ["break this spec into a backlog", "write the epics"],
    "should_not_trigger": ["groom the backlog"],
}
POSITIVE_NEGATIVE = {
    "skill_name": "cleanup",
    "positive": [{"prompt": "Use $cleanup on my disk.", "reason": "explicit"}],
    "negative": [{"prompt": "My disk is full.", "reason": "no invocation"}],
}
BARE_ARRAY = [
    {"id": "t1", "type": "happy", "input": "Summarize the memo.", "expected_behavior": "Three bullets.", "tags": ["x"]},
    {"id": "t2", "type": "edge", "input": "Summarize nothing.", "expected_behavior": "Asks for text.", "tags": []},
]
INPUT_ONLY = {
    "version": 3,
    "skill": "graph",
    "cases": [{"id": "slice", "prompt": "Plan the slice.", "limits": {"budget": 1200}}],
}
OTHER_KEY = {"items": [{"id": "q1", "question": "2+2?", "answer": "4", "difficulty": "easy"}]}
YAML_TESTS = (
    "tests:\n  - id: a\n    query: Book a flight\n    ideal: Asks for dates\n    must_not: [books without asking]\n"
)
JSONL = '{"id": "j1", "instruction": "Translate hi", "target": "hola"}\n{"id": "j2", "instruction": "Translate bye", "target": "adios"}\n'

SHAPES = [
    pytest.param("trigger-queries.json", json.dumps(KEYWORDS, indent=2), True, id="keyword-trigger-lists"),
    pytest.param("trigger-cases.json", json.dumps(POSITIVE_NEGATIVE, indent=2), True, id="positive-negative"),
    pytest.param("cases.json", json.dumps(BARE_ARRAY, indent=2), True, id="bare-json-array"),
    pytest.param("graph.json", json.dumps(INPUT_ONLY, indent=2), False, id="input-only"),
    pytest.param("quiz.json", json.dumps(OTHER_KEY, indent=2), True, id="records-under-items"),
    pytest.param("flights.yaml", YAML_TESTS, True, id="yaml-tests"),
    pytest.param("translate.jsonl", JSONL, True, id="json-lines"),
]


def _load(path: Path):
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text) if path.suffix == ".yaml" else json.loads(text)


@pytest.mark.parametrize(("name", "text", "has_expected"), SHAPES)
def test_suggest_paste_migrate_validate(tmp_path, capsys, name, text, has_expected):
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    source = evals / name
    source.write_text(text, encoding="utf-8")
    common = ["--repo-root", str(tmp_path)]

    assert main(["suggest", *common, str(source)]) == 0
    table = capsys.readouterr().out
    assert "[tool.fixture-migrate.adapters." in table and "files = [" in table
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(table, encoding="utf-8")  # pasted as printed
    config = ["--config", str(pyproject), *common]

    assert main(["migrate", *config, str(source)]) == 0
    err = capsys.readouterr().err
    assert "migrated" in err
    written = source.with_suffix(".json") if source.suffix == ".jsonl" else source
    data = _load(written)
    assert data["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    assert data["cases"]
    for case in data["cases"]:
        assert isinstance(case["input"], str) and case["input"].strip()
        if has_expected:
            assert case.get("expected_outcome") or case.get("forbidden_signals"), case

    assert main(["migrate", "--check", *config, str(written)]) == 0  # idempotent
    capsys.readouterr()
    code = main(["validate", "--no-ref-check", "--output-format", "json", *config, str(written)])
    assert code in (0, 1)
    codes = {error["reason_code"] for error in json.loads(capsys.readouterr().out)}
    assert codes <= {"missing_coverage_tags", "missing_source_refs", "missing_skill"}


def test_suggest_names_what_it_could_not_place(tmp_path, capsys):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(INPUT_ONLY), encoding="utf-8")
    assert main(["suggest", "--repo-root", str(tmp_path), str(path)]) == 0
    out = capsys.readouterr().out
    assert 'input = "prompt"' in out
    assert '# expected_outcome = "FIELD"' in out and "limits" in out


def test_suggest_generalizes_only_across_the_files_given(tmp_path, capsys):
    paths = []
    for skill in ("a", "b"):
        folder = tmp_path / "skills" / skill / "evals"
        folder.mkdir(parents=True)
        paths.append(folder / "trigger-cases.json")
        paths[-1].write_text(json.dumps(POSITIVE_NEGATIVE), encoding="utf-8")
    assert main(["suggest", "--repo-root", str(tmp_path), *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert 'files = ["skills/*/evals/trigger-cases.json"]' in out
    assert 'should_trigger = ["positive"]' in out and 'should_not_trigger = ["negative"]' in out
    assert main(["suggest", "--repo-root", str(tmp_path), str(paths[0])]) == 0
    assert 'files = ["skills/a/evals/trigger-cases.json"]' in capsys.readouterr().out


def test_a_declared_family_claims_only_its_files(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixture-migrate.adapters.graph]\nfiles = ["evals/graph.json"]\ninput = "prompt"\n', encoding="utf-8"
    )
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "graph.json").write_text(json.dumps(INPUT_ONLY), encoding="utf-8")
    (tmp_path / "other.json").write_text(json.dumps(INPUT_ONLY), encoding="utf-8")
    config = ["--config", str(tmp_path / "pyproject.toml"), "--repo-root", str(tmp_path)]
    assert main(["detect", "-v", *config, str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "evals/graph.json: graph (family)" in out and "declared in pyproject.toml" in out
    assert "other.json: unclaimed local family" in out


def test_a_bad_declared_table_is_a_configuration_error(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixture-migrate.adapters.graph]\nfiles = "evals/graph.json"\ninput = "prompt"\n', encoding="utf-8"
    )
    code = main(["migrate", "--config", str(tmp_path / "pyproject.toml"), "--repo-root", str(tmp_path), str(tmp_path)])
    assert code == 2
    assert "`files` must be a list" in capsys.readouterr().err


# -- user data in a draft lands only inside TOML strings (issue 22, item 1) --

_HOSTILE_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", categories=None)
    | st.sampled_from(['"', "\\", "\n", "\r", "\x00", "\x7f", "\u2028", "\u202e", "\ufeff", "[", "]", "#", "'"]),
    min_size=1,
    max_size=12,
)


def _one_table(draft: str, name: str) -> dict:
    parsed = tomllib.loads(draft)
    assert list(parsed) == ["tool"] and list(parsed["tool"]) == ["fixture-migrate"]
    assert list(parsed["tool"]["fixture-migrate"]) == ["adapters"]
    assert list(parsed["tool"]["fixture-migrate"]["adapters"]) == [name]
    return parsed["tool"]["fixture-migrate"]["adapters"][name]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    file_names=st.lists(_HOSTILE_TEXT.filter(lambda s: "/" not in s and s not in (".", "..")), min_size=1, max_size=4),
    keys=st.lists(_HOSTILE_TEXT, min_size=1, max_size=4, unique=True),
    records_key=_HOSTILE_TEXT,
    list_keys=st.lists(_HOSTILE_TEXT, max_size=3, unique=True),
)
def test_a_draft_parses_to_exactly_the_table_it_announces(file_names, keys, records_key, list_keys):
    from fixture_migrate.claiming.suggest import Shape, draft_table

    base = Path("/repo")
    paths = [base / "evals" / f"{name}.json" for name in file_names]
    records = [{key: f"value of {key}" for key in keys}, {"input": "hi", "id": "a"}]
    shapes = [Shape(records_key, tuple(list_keys), records)]
    draft = draft_table("local-cases", paths, shapes, base)
    table = _one_table(draft, "local-cases")
    assert all(line.startswith("#") or " = " in line or line.startswith("[") for line in draft.splitlines())
    if records_key not in ("cases", "examples"):
        assert table["records"] == records_key  # the value itself, escaped and read back
    assert set(table.get("should_trigger", []) + table.get("should_not_trigger", [])) == set(list_keys)


def test_a_file_name_with_a_line_break_cannot_inject_a_table(tmp_path, capsys):
    evals = tmp_path / "evals"
    evals.mkdir()
    name = 'x\n[tool.fixture-migrate.adapters.evil]\nfiles = ["*.json"]\n#.json'
    (evals / name).write_text(json.dumps(BARE_ARRAY), encoding="utf-8")
    (evals / "bystander.json").write_text('{"not": "a fixture"}', encoding="utf-8")
    assert main(["suggest", "--repo-root", str(tmp_path), str(evals / name)]) == 0
    draft = capsys.readouterr().out
    table = _one_table(draft, "x-tool-fixture-migrate-adapters-evil-files-json")
    assert len(table["files"]) == 1 and "\n" in table["files"][0]
    assert "\\x0a[tool.fixture-migrate.adapters.evil]" in draft  # shown escaped in the comment


def test_a_key_that_closes_a_string_cannot_break_the_draft(tmp_path, capsys):
    path = tmp_path / "quiz.json"
    key = 'weird"key\n[tool.x]'
    path.write_text(json.dumps({"items": [{"id": "q1", "question": "2+2?", key: "x"}]}), encoding="utf-8")
    assert main(["suggest", "--repo-root", str(tmp_path), str(path)]) == 0
    draft = capsys.readouterr().out
    table = _one_table(draft, "quiz")
    assert table["records"] == "items"
    assert 'weird"key\\x0a[tool.x]' in draft


def test_a_lone_surrogate_is_a_one_character_glob_in_a_name_and_refused_in_a_key():
    from fixture_migrate.claiming.suggest import Shape, UnwritableName, draft_table

    base = Path("/repo")
    records = [{"id": "a", "input": "hi"}]
    draft = draft_table("t", [base / "a\udcff.json"], [Shape(None, (), records)], base)
    table = _one_table(draft, "t")
    assert table["files"] == ["a?.json"]
    assert "a\\udcff.json" in draft  # the comment shows it escaped
    with pytest.raises(UnwritableName, match="lone surrogate"):
        draft_table("t", [base / "a.json"], [Shape("items\ud800", (), records)], base)
