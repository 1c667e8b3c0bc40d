"""Claiming by evidence (DESIGN.md, "Claiming a file") and the vocabulary of local fields.

Every claim rule and every vocabulary entry with a small sample: what is migrated in
place, what is left for `import`, what is named as unclaimed, what is not a fixture; and
which local field lands in which canonical field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.claiming.rules import Verdict, decide
from fixture_migrate.claiming.registry import migration_registry
from fixture_migrate.cli.app import main
from fixture_migrate.formats import Unit

from tests.helpers import plan


def claim(data, syntax="json", path="skills/demo/evals/x.json"):
    return decide(
        migration_registry(),
        Unit(data, "case_list" if isinstance(data, list) else "payload"),
        syntax=syntax,
        path=Path(path),
    )


# --- claim rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "status", "adapter"),
    [
        pytest.param(
            {"cases": [{"id": "a", "prompt": "p", "expected_behavior": "e"}]},
            Verdict.CLAIMED,
            "generic",
            id="input-and-expected",
        ),
        pytest.param({"examples": [{"query": "q", "ideal": "i"}]}, Verdict.CLAIMED, "generic", id="examples-list"),
        pytest.param(
            {"skill_name": "s", "should_trigger": ["go"], "should_not_trigger": ["stop"]},
            Verdict.CLAIMED,
            "generic",
            id="keyword-trigger-lists",
        ),
        pytest.param(
            {"positive": [{"prompt": "p", "reason": "r"}], "near_miss": [{"prompt": "n"}]},
            Verdict.CLAIMED,
            "generic",
            id="prompt-trigger-lists",
        ),
        pytest.param(
            [{"id": "1", "type": "t", "input": "i", "expected_behavior": "e", "tags": []}],
            Verdict.CLAIMED,
            "generic",
            id="bare-array-with-evidence",
        ),
        pytest.param(
            {"schema": 1, "skill": "s", "cases": [{"id": "a", "base": "b", "operations": []}]},
            Verdict.UNCLAIMED,
            None,
            id="mutation-specs-id-only",
        ),
        pytest.param(
            {
                "schema_version": "r.v1",
                "generated_at": "t",
                "cases": [{"id": "a", "input_files": ["x"], "expected_outcome": "o"}],
            },
            Verdict.NOT_FIXTURE,
            None,
            id="report-without-input",
        ),
        pytest.param(
            {"cases": [{"id": "a", "prompt": "p", "constraints": {"n": 1}}]},
            Verdict.CLAIMED,
            "generic",
            id="input-without-expected",
        ),
        pytest.param(
            {"cases": [{"id": "a", "prompt": "p", "ideal": "i"}, {"id": "b", "prompt": "q"}]},
            Verdict.CLAIMED,
            "generic",
            id="one-record-lacks-expected",
        ),
        pytest.param(
            {"golden_cases": [{"id": "a", "query": "q", "expected_skill": "s"}]},
            Verdict.CLAIMED,
            "generic",
            id="records-under-another-key",
        ),
        pytest.param(
            [{"query": "route me", "expected_skill": "s", "category": "routing"}],
            Verdict.CLAIMED,
            "generic",
            id="bare-list-of-queries",
        ),
        pytest.param(
            {"cases": [{"id": "a", "prompt": "p"}, {"id": "b", "prompt": "q"}, {"id": "c", "steps": [1]}]},
            Verdict.CLAIMED,
            "generic",
            id="one-odd-record-does-not-sink-the-file",
        ),
        pytest.param(
            {"cases": [{"id": "a", "prompt": "p"}, {"id": "b", "steps": [1]}, {"id": "c", "steps": [2]}]},
            Verdict.UNCLAIMED,
            None,
            id="most-records-without-input",
        ),
        pytest.param(
            {"$schema": "x", "examples": [{"input": "i", "expected": "e"}]}, Verdict.NOT_FIXTURE, None, id="json-schema"
        ),
        pytest.param({"name": "x", "version": 1}, Verdict.NOT_FIXTURE, None, id="config"),
        pytest.param([{"role": "user", "text": "hi"}], Verdict.UNCLAIMED, None, id="chat-messages-in-evals"),
        pytest.param(
            {"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "expected_output": "o"}]},
            Verdict.OTHER_TOOL,
            None,
            id="skill-creator-evals",
        ),
        pytest.param([{"query": "q", "should_trigger": True}], Verdict.OTHER_TOOL, None, id="skill-creator-trigger-set"),
        pytest.param(
            {"prompts": ["p"], "providers": ["openai:x"], "tests": [{"vars": {"q": "x"}}]},
            Verdict.OTHER_TOOL,
            None,
            id="promptfoo-config",
        ),
        pytest.param(
            [{"vars": {"q": "x"}, "assert": [{"type": "contains", "value": "y"}]}],
            Verdict.OTHER_TOOL,
            None,
            id="promptfoo-tests",
        ),
    ],
)
def test_claim_rules(data, status, adapter):
    found = claim(data)
    assert found.status == status, found.reason
    assert (found.adapter.name if found.adapter else None) == adapter
    assert found.reason


def test_other_tools_name_the_import_format():
    found = claim({"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "expected_output": "o"}]})
    assert found.import_from == "skill-creator" and "import --from skill-creator" in found.reason


def test_a_payload_naming_its_own_schema_version_is_no_other_tools_file():
    # Cases of {input, expected_output} look like DeepEval goldens, but no supported tool writes a
    # schema_version: the file declares a local family (found by the property test's fuzzing).
    data = {"schema_version": "some-local-family/v3", "cases": [{"input": "go", "expected_output": None}]}
    found = claim(data)
    assert found.status != Verdict.OTHER_TOOL and found.import_from is None
    assert claim({"cases": [{"input": "go", "expected_output": "x"}]}).import_from == "deepeval"


def test_openai_evals_samples_are_left_for_import():
    found = claim(
        [{"input": [{"role": "user", "content": "2+2?"}], "ideal": "4"}], syntax="jsonl", path="samples.jsonl"
    )
    assert found.status == Verdict.OTHER_TOOL and found.import_from == "openai-evals"


def test_known_families_win_over_evidence():
    data = {"schema_version": "yao.semantic-trigger-cases.v1", "should_trigger": ["go"]}
    assert claim(data).adapter.name == "yao_semantic_trigger_cases_v1"


def test_unclaimed_files_are_byte_identical_and_named(tmp_path, capsys):
    specs = tmp_path / "mutations.json"
    text = json.dumps({"schema": 1, "skill": "s", "cases": [{"id": "a", "base": "b", "operations": []}]})
    specs.write_text(text)
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert specs.read_text() == text
    assert "not migrated: 1 file of a local family" in err and "mutations.json" in err and "fixture-migrate suggest" in err
    assert "1 family not migrated (1 file)" in err


def test_a_python_dict_holding_a_name_is_not_a_fixture(tmp_path, capsys):
    module = tmp_path / "runner.py"
    module.write_text('RUNNER_ID = "r"\nSTATE = {"schema_version": 1, "runner": RUNNER_ID}\n')
    assert main(["migrate", "--repo-root", str(tmp_path), str(module)]) == 0
    assert "1 not a fixture" in capsys.readouterr().err


def test_a_python_dict_of_a_known_family_holding_a_name_stays_an_error(tmp_path, capsys):
    module = tmp_path / "test_cases.py"
    module.write_text(
        'P = "x"\nFIXTURE = {"schema_version": "prompt-examples/v1", "examples": [{"name": "a", "user_intent": P}]}\n'
    )
    assert main(["migrate", "--repo-root", str(tmp_path), str(module)]) == 2
    assert "[not_a_literal]" in capsys.readouterr().err


def test_detect_json_is_valid_json_and_explains(tmp_path, capsys):
    (tmp_path / "empty.py").write_text("import os\n")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.json").write_text(json.dumps({"skill": "s", "cases": [{"prompt": "p", "answer": "a"}]}))
    assert main(["detect", "--output-format", "json", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    records = json.loads(capsys.readouterr().out)
    by_path = {Path(r["path"]).name: r for r in records}
    assert by_path["empty.py"]["status"] == "not_fixture"
    assert by_path["cases.json"]["adapter"] == "generic" and "prompt" in by_path["cases.json"]["reason"]
    assert by_path["cases.json"]["rule"] == "territory_records"
    assert main(["detect", "-v", "--repo-root", str(tmp_path), str(tmp_path / "evals" / "cases.json")]) == 0
    out = capsys.readouterr().out
    assert "records carry an input (prompt)" in out and "[territory_records]" in out


# --- walks -----------------------------------------------------------------------------------


def test_gitignore_and_exclude_in_walks(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --exclude globs are relative to the current directory (no configuration)
    fixture = json.dumps({"skill": "s", "cases": [{"prompt": "p", "ideal": "i"}]})
    for name in ("kept.json", "build/out.json", "logs/a.json", "vendor/b.json"):
        name = f"evals/{name}"
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(fixture)
    (tmp_path / ".gitignore").write_text("build/\n*.json\n!kept.json\n!evals/vendor/\n!evals/vendor/*.json\n")
    common = ["detect", "--repo-root", str(tmp_path)]
    assert main([*common, str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "kept.json" in out and "vendor/b.json" in out
    assert "build/out.json" not in out and "logs/a.json" not in out
    assert main([*common, "--extend-exclude", "vendor", str(tmp_path)]) == 0
    assert "vendor/b.json" not in capsys.readouterr().out
    assert main([*common, str(tmp_path / "evals" / "build" / "out.json")]) == 0  # named: always processed
    assert "build/out.json: generic" in capsys.readouterr().out


def test_unreadable_file_in_a_skills_evals_folder_is_an_error(tmp_path, capsys):
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "broken.json").write_text('{"cases": [')
    (tmp_path / "broken.json").write_text('{"cases": [')
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "skills/demo/evals/broken.json" in err and "1 skipped as unreadable" in err


def test_unreadable_file_under_include_is_an_error(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "broken.json").write_text("{")
    (tmp_path / "pyproject.toml").write_text('[tool.fixture-migrate]\ninclude = ["data/*.json"]\n')
    config = ["--config", str(tmp_path / "pyproject.toml"), "--repo-root", str(tmp_path)]
    assert main(["migrate", *config, str(tmp_path)]) == 2
    assert "[invalid_json]" in capsys.readouterr().err


# --- the vocabulary ---------------------------------------------------------------------------


def _case(record: dict, key: str = "cases") -> dict:
    result = plan(json.dumps({key: [record]}), "skills/demo/evals/x.json")
    assert result.status == "changed", result.error and result.error.message
    return json.loads(result.new_bytes)["cases"][0]


@pytest.mark.parametrize("name", v.INPUT)
def test_every_input_name_fills_input(name):
    case = _case({name: "the question", "expected_behavior": "ok"})
    assert case["input"] == "the question"


@pytest.mark.parametrize("name", v.EXPECTED)
def test_every_expected_name_fills_the_outcome(name):
    case = _case({"prompt": "p", name: "the answer"})
    assert case["expected_outcome"] == "the answer"


@pytest.mark.parametrize("name", v.FORBIDDEN)
def test_every_forbidden_name_fills_forbidden_signals(name):
    case = _case({"prompt": "p", name: ["leak"]})
    assert case["forbidden_signals"] == ["leak"]


@pytest.mark.parametrize("name", v.BOUNDARY_NOTE)
def test_every_boundary_name_fills_the_note(name):
    case = _case({"prompt": "p", "ideal": "i", name: "only on request"})
    assert case["boundary_note"] == "only on request"


@pytest.mark.parametrize("name", v.POLARITY)
@pytest.mark.parametrize("polarity", [True, False])
def test_every_polarity_field_gives_tags_and_outcome(name, polarity):
    case = _case({"prompt": "p", name: polarity})
    outcome, tags = v.polarity_words(polarity)
    assert case["expected_outcome"] == outcome and case["coverage_tags"] == list(tags)
    assert case["extensions"][name] is polarity


def test_polarity_adds_to_existing_tags_and_keeps_an_outcome():
    case = _case({"prompt": "p", "should_trigger": False, "coverage_tags": ["routing"], "ideal": "declines"})
    assert case["coverage_tags"] == ["routing", "boundary", "should-not-trigger"]
    assert case["expected_outcome"] == "declines"


@pytest.mark.parametrize(("key", "polarity"), sorted(v.TRIGGER_LISTS.items()))
def test_every_trigger_list(key, polarity):
    result = plan(json.dumps({"skill_name": "s", key: ["a query", {"prompt": "another"}]}), "skills/demo/evals/t.json")
    assert result.status == "changed"
    cases = json.loads(result.new_bytes)["cases"]
    prefix = key.replace("_", "-")
    assert [c["id"] for c in cases] == [f"{prefix}-1", f"{prefix}-2"]
    assert [c["input"] for c in cases] == ["a query", "another"]
    outcome, tags = v.polarity_words(polarity)
    assert all(c["expected_outcome"] == outcome and c["coverage_tags"] == list(tags) for c in cases)


def test_skill_name_fills_the_skill_outside_skills_folders():
    result = plan(json.dumps({"skill_name": "tasks", "should_trigger": ["go"]}), "evals/t.json")
    data = json.loads(result.new_bytes)
    assert data["skill"] == "tasks" and data["extensions"]["skill_name"] == "tasks"


def test_the_reference_mapping_comes_first():
    case = _case({"user_intent": "reference input", "prompt": "local", "expected": "ref", "ideal": "local"})
    assert case["input"] == "reference input" and case["expected_outcome"] == "ref"
    assert case["extensions"] == {"prompt": "local", "ideal": "local"}


def test_a_migrated_local_family_migrates_to_itself():
    first = plan(json.dumps({"positive": [{"prompt": "p", "reason": "r"}]}), "skills/demo/evals/t.json")
    again = plan(first.new_bytes, "skills/demo/evals/t.json")
    assert again.status == "unchanged"


def test_a_gitignore_pattern_git_cannot_read_is_passed_over(tmp_path, capsys):
    (tmp_path / ".gitignore").write_text("!\n*.log.json\n")
    (tmp_path / "evals.json").write_text(json.dumps({"skill": "s", "cases": [{"prompt": "p", "ideal": "i"}]}))
    (tmp_path / "b.log.json").write_text("{}")
    assert main(["detect", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "evals.json: generic" in out and "b.log.json" not in out


def test_evidence_is_computed_once_per_unit_and_again_for_new_data():
    from fixture_migrate.adapting import evidence as ev

    unit = Unit({"cases": [{"id": "a", "prompt": "p", "expected_behavior": "e"}]})
    first = ev.evidence(unit)
    assert ev.evidence(unit) is first
    unit.data = {"cases": [{"id": "a", "prompt": "p"}]}
    assert ev.evidence(unit)[0] is None


# --- one test per named rule --------------------------------------------------------------------


def _decided(data, path, *, syntax="json", included=False, root=None):
    from fixture_migrate.formats import Unit

    unit = Unit(data, "case_list" if isinstance(data, list) else "payload")
    return decide(migration_registry(), unit, syntax=syntax, path=Path(path), root=root, included=included)


@pytest.mark.parametrize(
    ("data", "path", "rule", "status"),
    [
        pytest.param(
            {"schema_version": "prompt-examples/v1", "examples": [{"name": "a", "user_intent": "u"}]},
            "anywhere/x.json",
            "known_family",
            Verdict.CLAIMED,
            id="known_family",
        ),
        pytest.param(
            {"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "expected_output": "o"}]},
            "skills/s/evals/evals.json",
            "other_tool",
            Verdict.OTHER_TOOL,
            id="other_tool",
        ),
        pytest.param(
            {"name": "x", "examples": [{"input": "a", "expected": "b"}]},
            "evals/package.json",
            "ruled_out",
            Verdict.NOT_FIXTURE,
            id="ruled_out",
        ),
        pytest.param(
            {"cases": [{"prompt": "the user asks for a thing to be done now"}]},
            "skills/s/evals/workspace/case-1/out.json",
            "sandbox",
            Verdict.NOT_FIXTURE,
            id="sandbox",
        ),
        pytest.param(
            {"tests": [{"query": "q", "must_include": ["x"]}]},
            "tests/evals/routing.json",
            "territory_records",
            Verdict.CLAIMED,
            id="territory_records",
        ),
        pytest.param(
            {"should_fire": [], "positive": ["deploy it"], "negative": ["what is a deploy"]},
            "references/evals.json",
            "territory_trigger_lists",
            Verdict.CLAIMED,
            id="territory_trigger_lists",
        ),
        pytest.param(
            {"positive": [{"prompt": "p", "expected_behavior": "b"}], "negative": [{"prompt": "n"}]},
            "submission/plugin-test-cases.json",
            "case_file_evidence",
            Verdict.CLAIMED,
            id="case_file_evidence",
        ),
        pytest.param(
            [{"input": "1+1", "expected": "2"}],
            "tests/fixtures/parser-cases.json",
            "outside_territory",
            Verdict.UNCLAIMED,
            id="a-case-file-of-code-test-data-is-not-migrated",
        ),
        pytest.param(
            {"cases": [{"prompt": "p", "ideal": "i"}]},
            "data/qa.json",
            "outside_territory",
            Verdict.UNCLAIMED,
            id="outside_territory",
        ),
        pytest.param(
            {"schema": 1, "cases": [{"id": "a", "base": "b", "operations": []}]},
            "scripts/mutations.json",
            "looks_like_fixture",
            Verdict.UNCLAIMED,
            id="looks_like_fixture",
        ),
        pytest.param(
            {"suite": {"runs": [{"case_id": "a", "verdict": "ok"}]}},
            "evals/summary.json",
            "territory_unplaced",
            Verdict.UNCLAIMED,
            id="territory_unplaced",
        ),
        pytest.param({"name": "x", "version": 1}, "evals/config.json", "not_a_fixture", Verdict.NOT_FIXTURE, id="not_a_fixture"),
    ],
)
def test_each_named_rule_decides_its_case(data, path, rule, status):
    found = _decided(data, path)
    assert (found.rule, found.status) == (rule, status), found.reason


def test_the_rules_are_one_ordered_list_named_in_the_docstring():
    from fixture_migrate.claiming import rules

    names = [name for name, _ in rules.RULES]
    assert names[0] == "known_family" and names[-1] == "not_a_fixture"
    assert len(set(names)) == len(names)
    for name in names:
        assert f"| `{name}` |" in rules.__doc__, name


def test_a_declared_family_is_decided_by_its_rule(tmp_path):
    from fixture_migrate.adapting.families import declared_families
    from fixture_migrate.config import compile_glob
    from fixture_migrate.formats import Unit

    families = declared_families([("local", {"files": ["data/*.json"], "input": "ask", "records": "items"}, (compile_glob("data/*.json"),))], tmp_path, None)
    unit = Unit({"items": [{"ask": "a", "want": "b"}]})
    found = decide(migration_registry(), unit, syntax="json", path=tmp_path / "data/x.json", declared=families, root=tmp_path)
    assert (found.rule, found.status) == ("declared_family", Verdict.CLAIMED)


def test_a_local_adapter_s_own_claim_in_territory_is_its_rule():
    lines = [{"id": "a", "prompt": ""}]  # blank prompt: no input, yet output_cases_jsonl's shape
    found = _decided(lines, "skills/demo/evals/output.jsonl", syntax="jsonl")
    assert found.status == Verdict.CLAIMED and found.rule == "territory_local_family"


def test_a_skill_key_is_never_evidence():
    data = {"skill": "ci", "triggers": ["pull_request", "push"]}
    found = _decided(data, "skills/ci/scripts/fixtures/valid.json")
    assert found.status != Verdict.CLAIMED


def test_a_bare_list_of_prompt_records_is_not_skill_creator_s():
    found = _decided([{"id": "r1", "prompt": "route this request", "expected_skill": "s"}], "evals/routing.json")
    assert found.status == Verdict.CLAIMED and found.rule == "territory_records"
    tool = _decided([{"id": 1, "prompt": "p", "expected_output": "o", "files": []}], "evals/bare.json")
    assert tool.status == Verdict.OTHER_TOOL and tool.import_from == "skill-creator"


def test_records_a_claim_carries_a_family_label():
    found = _decided({"tests": [{"query": "q", "must_include": ["x"]}]}, "evals/r.json")
    assert found.family == "{query, must_include}"
    assert _decided({"schema_version": "prompt-examples/v1", "examples": []}, "x.json").family is None


def test_detect_families_prints_each_family_once(tmp_path, capsys):
    for skill in ("a", "b"):
        folder = tmp_path / "skills" / skill / "evals"
        folder.mkdir(parents=True)
        (folder / "cases.json").write_text(json.dumps({"cases": [{"id": "x", "query": "q", "veto": ["leak"]}]}))
    assert main(["detect", "--families", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("family {id, query, veto}: 2 files, 2 records (territory_records 2)") == 1
    assert "query -> input (exact name)" in out and "veto -> forbidden_signals (exact name)" in out
    assert main(["detect", "--families", "--output-format", "json", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    (family,) = json.loads(capsys.readouterr().out)["families"]
    assert family["records"] == 2 and len(family["files"]) == 2
    assert {"member": "veto", "to": "forbidden_signals", "why": "exact name"} in family["mapping"]


def test_an_evals_envelope_of_foreign_members_is_a_local_family_not_skill_creator_s():
    data = {"skill": "ros2", "evals": [{"name": "n", "prompt": "p.md", "expected": "e.md", "criteria": [], "tags": []}]}
    found = _decided(data, "evals/eval.yaml", syntax="yaml")
    assert found.status == Verdict.CLAIMED and found.rule == "territory_records"
    own = {"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "notes": "n", "expected_output": "o"}]}
    assert _decided(own, "evals/evals.json").status == Verdict.OTHER_TOOL
