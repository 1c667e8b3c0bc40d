"""Fixture context: a local family is migrated only with evidence *and* a fixture's home
(`fixture_migrate.claiming.territory`); what is ruled out, what is named, what is left for
`import`; and the walk, suggest and declared-family rules that go with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.claiming.suggest import escape_glob
from fixture_migrate.cli.app import main
from fixture_migrate.config import compile_glob

from tests.helpers import plan

CASES = json.dumps({"cases": [{"id": "a", "input": "1+1", "expected": "2"}]})
TRIGGERS = json.dumps({"positive": ["great", "love it"], "negative": ["awful"]})


# --- evidence without context is named, never rewritten --------------------------------------


@pytest.mark.parametrize(
    "path",
    ["lexicon/sentiment.json", "bot/wake.yaml", "tokenizer/tests/vectors/basic.json", "data/qa.json", "src/x.json"],
)
def test_evidence_outside_a_fixture_home_is_unclaimed(path):
    for text in (CASES, TRIGGERS):
        result = plan(text, path)
        assert result.status == "unclaimed", (path, result.status)
        assert result.new_bytes is None
        assert "outside fixture territory" in result.reason and "include" in result.reason


@pytest.mark.parametrize("path", ["evals/x.json", "skills/s/evals/x.json", "eval/x.json", "tests/evals/sub/x.json"])
def test_an_evals_folder_gives_context(path):
    assert plan(CASES, path).status == "changed"
    assert plan(TRIGGERS, path).status == "changed"


def test_a_named_skill_is_never_context():
    # A script's test inputs name skills too (`{"skill": ..., "triggers": ["pull_request"]}`).
    data = {"skill_name": "s", "cases": [{"id": "a", "prompt": "p", "expected_behavior": "e"}]}
    assert plan(json.dumps(data), "data/x.json").status == "unclaimed"
    records = [{"skill": "s", "question": "q", "answer": "a"}]
    assert plan(json.dumps(records), "data/x.json").status == "unclaimed"
    events = {"skill": "ci-review", "triggers": ["pull_request", "push"]}
    result = plan(json.dumps(events), "skills/ci-review/scripts/fixtures/valid.json")
    assert result.status == "unclaimed" and result.new_bytes is None


def test_a_configured_include_gives_context(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.fixture-migrate]\ninclude = ["fixtures/**"]\n')
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "x.json").write_text(CASES)
    assert main(["detect", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    assert "fixtures/x.json: generic" in capsys.readouterr().out


# --- ruled out whatever the context ----------------------------------------------------------


@pytest.mark.parametrize(
    "path, data, words",
    [
        ("evals/package.json", {"name": "x", "examples": [{"input": "a", "expected": "b"}]}, "well-known"),
        ("evals/tsconfig.base.json", {"examples": [{"input": "a", "expected": "b"}]}, "well-known"),
        ("evals/labeler.yml", {"positive": ["a b"], "negative": ["c d"]}, "well-known"),
        (
            "evals/case.json",
            {"type": "object", "properties": {}, "examples": [{"input": "a", "expected": "b"}]},
            "Schema",
        ),
        ("evals/case.json", {"$defs": {}, "examples": [{"input": "a", "expected": "b"}]}, "Schema"),
        (
            "docs/validation/evals/run.json",
            {"cases": [{"id": "c", "prompt": "p", "expected_behavior": "e"}]},
            "docs/validation/",
        ),
        ("docs/plans/evals/p.json", {"cases": [{"prompt": "p", "ideal": "e"}]}, "docs/plans/"),
        (
            "evals/run.json",
            {
                "schema_version": "r.v3",
                "generated_at": "t",
                "command": "make",
                "cases": [{"prompt": "p", "ideal": "i"}],
            },
            "generated report",
        ),
        ("evals/latest.json", [{"question": "q", "answer": "a", "output": "o", "score": 1}], "results"),
        ("evals/graded.json", {"cases": [{"prompt": "p", "ideal": "i", "actual": "a", "passed": True}]}, "results"),
    ],
)
def test_configs_schemas_reports_and_docs_are_never_claimed(path, data, words):
    result = plan(json.dumps(data), path)
    assert result.status == "not_fixture", result.status
    assert words in result.reason and result.new_bytes is None


# --- Python case lists -----------------------------------------------------------------------


def test_a_parametrize_table_without_evidence_is_not_claimed():
    table = 'CASES = [{"a": 1, "b": 2, "sum": 3}]\n'
    assert plan(table, "evals/test_sum.py").status in ("not_fixture", "unclaimed")
    specs = 'CASES = [{"id": "m1", "base": "x", "operations": []}]\n'
    result = plan(specs, "evals/test_mut.py")
    assert result.status in ("not_fixture", "unclaimed") and result.new_bytes is None


def test_records_under_another_name_in_an_evals_folder_are_named():
    module = 'TEST_CASES = [\n    {"id": "c1", "prompt": "deploy", "expected_behavior": "deploys"},\n]\n'
    result = plan(module, "skills/c/evals/eval_cases.py")
    assert result.status == "unclaimed" and "`TEST_CASES`" in result.reason and "--py-name" in result.reason
    evals = 'EVALS = {"evals": [{"id": "c3", "prompt": "deploy", "expected_behavior": "deploys"}]}\n'
    assert plan(evals, "skills/c/evals/more.py").status == "unclaimed"
    assert plan(module, "src/eval_cases.py").status == "not_fixture"


# --- JSON Lines with an id and a prompt ------------------------------------------------------


def test_id_and_prompt_lines_outside_an_evals_folder_are_not_migrated():
    log = '{"id": "c1", "prompt": "hi", "completion": "hello"}\n{"id": "c2", "prompt": "yo", "completion": "hey"}\n'
    result = plan(log, "logs/completions.jsonl")
    assert result.status == "unclaimed" and result.new_bytes is None and result.new_path is None


def test_lines_with_results_are_not_migrated_even_in_an_evals_folder():
    lines = '{"id": "a", "prompt": "p", "expected_output": "e", "output": "o", "score": 1}\n'
    assert plan(lines, "evals/results.jsonl").status == "not_fixture"


# --- in an evals folder, anything holding records is at least named --------------------------


@pytest.mark.parametrize(
    "data, where",
    [
        ({"skill_name": "a", "should_fire": ["deploy my app"], "should_not_fire": ["what is a deploy"]}, "should_fire"),
        ({"trigger_queries": ["deploy"], "non_trigger_queries": ["hello"]}, "trigger_queries"),
        ({"suite": {"name": "s", "cases": [{"id": "n1", "ask": "deploy"}]}}, "suite.cases"),
        ({"scenarios": [{"id": "s1", "ask": "deploy", "want": "deploys"}]}, "scenarios"),
        ({"tests": [{"ask": "deploy"}]}, "tests"),
        ({"skill": "b", "cases": []}, "empty `cases`"),
    ],
)
def test_records_in_an_evals_folder_are_named(data, where):
    result = plan(json.dumps(data), "skills/a/evals/x.json")
    assert result.status == "unclaimed", result.status
    assert where in result.reason


def test_a_configuration_in_an_evals_folder_is_not_a_fixture():
    config = {
        "positive_concepts": {"a": {"phrases": ["x"], "weight": 1}},
        "fallback_positive_concepts": ["source_plan", "task_pack"],
    }
    assert plan(json.dumps(config), "skills/a/evals/semantic_config.json").status == "not_fixture"


# --- other tools' files in less common shapes ------------------------------------------------


@pytest.mark.parametrize(
    "data, tool",
    [
        (
            {"description": "d", "tests": [{"vars": {"q": "x"}, "assert": [{"type": "contains", "value": "y"}]}]},
            "promptfoo",
        ),
        ([{"input": [{"role": "user", "content": "2+2?"}], "ideal": "4"}], "openai-evals"),
        ({"examples": [{"inputs": {"q": "x"}, "outputs": {"a": "y"}}]}, "langsmith"),
    ],
)
def test_other_tools_files_are_left_for_import(data, tool):
    result = plan(json.dumps(data), "skills/a/evals/x.json")
    assert result.status == "other_tool" and result.import_from == tool


# --- the vocabulary ---------------------------------------------------------------------------


def test_free_text_is_the_input_before_a_task_kind():
    assert v.INPUT.index("text") < v.INPUT.index("task")
    result = plan(json.dumps([{"task": "summarize", "text": "A long text.", "target": "short"}]), "evals/s.json")
    case = json.loads(result.new_bytes)["cases"][0]
    assert case["input"] == "A long text." and case["expected_outcome"] == "short"


@pytest.mark.parametrize(
    "record, field, value",
    [
        ({"query": "q", "expected_behavior": "b"}, "expected_outcome", "b"),
        ({"prompt": "p", "must_not_include": ["x"]}, "forbidden_signals", ["x"]),
        ({"query": "q", "should_trigger": True}, "coverage_tags", ["trigger", "should-trigger"]),
    ],
)
def test_case_lists_and_jsonl_use_the_vocabulary(record, field, value):
    module = f"CASES = [{json.dumps(record)}]\n".replace("true", "True")
    case = _first_case(plan(module, "evals/test_cases.py").new_bytes.decode(), python=True)
    assert case[field] == value and case["input"]
    line = json.dumps({"id": "a", **record}) + "\n"
    result = plan(line, "evals/cases.jsonl")
    case = json.loads(result.new_bytes)["cases"][0]
    assert case[field] == value and case["input"]


def _first_case(text: str, python: bool = False):
    import ast

    return ast.literal_eval(text.split("=", 1)[1].strip())[0] if python else json.loads(text)["cases"][0]


# --- suggest -----------------------------------------------------------------------------------


def test_suggest_escapes_glob_characters_in_file_names():
    for name in ("cases[1].json", "a*b?.json", "skills/x/evals/c[ab].json"):
        glob = compile_glob(escape_glob(name))
        assert glob.matches(name)
    assert not compile_glob(escape_glob("cases[1].json")).matches("cases1.json")


def _suggest_paste_migrate(tmp_path, capsys, files: dict[str, object], fill: dict[str, str] | None = None):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(data))
    assert main(["suggest", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    table = capsys.readouterr().out
    for key, field in (fill or {}).items():
        table = "\n".join(
            f'{key} = "{field}"' if line.startswith(f'# {key} = "FIELD"') else line for line in table.splitlines()
        )
    with (tmp_path / "pyproject.toml").open("a") as handle:
        handle.write("\n" + table + "\n")
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["validate", "--no-ref-check", "--repo-root", str(tmp_path), str(tmp_path)]) in (0, 1)
    return table


def test_suggest_round_trip_unusual_trigger_list_names(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = {"skill_name": "m", "should_fire": ["deploy my app", "ship it"], "should_not_fire": ["what is a deploy"]}
    table = _suggest_paste_migrate(tmp_path, capsys, {"skills/m/evals/trig.json": data})
    assert 'should_trigger = ["should_fire"]' in table and 'should_not_trigger = ["should_not_fire"]' in table
    cases = json.loads((tmp_path / "skills/m/evals/trig.json").read_text())["cases"]
    assert [case["expected_outcome"] for case in cases] == ["should-trigger", "should-trigger", "should-not-trigger"]


def test_suggest_round_trip_nested_case_list(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = {"suite": {"name": "s", "cases": [{"id": "n1", "ask": "deploy", "want": "runs deploy"}]}}
    table = _suggest_paste_migrate(
        tmp_path, capsys, {"skills/n/evals/nested.json": data}, {"input": "ask", "expected_outcome": "want"}
    )
    assert 'records = "suite.cases"' in table
    migrated = json.loads((tmp_path / "skills/n/evals/nested.json").read_text())
    assert migrated["cases"] == [{"id": "n1", "input": "deploy", "expected_outcome": "runs deploy"}]
    assert migrated["extensions"] == {"suite": {"name": "s"}}


def test_a_records_path_deeper_than_one_object_is_a_configuration_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixture-migrate.adapters.deep]\nfiles = ["x.json"]\nrecords = "a.b.c"\ninput = "ask"\n'
    )
    (tmp_path / "x.json").write_text("{}")
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path / "x.json")]) == 2
    assert "`records`" in capsys.readouterr().err


def test_a_declared_id_is_said_to_be_unused_in_place(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixture-migrate.adapters.odd]\nfiles = ["skills/k/evals/odd.json"]\n'
        'id = "key"\ninput = "ask"\nexpected_outcome = "want"\n'
    )
    target = tmp_path / "skills/k/evals/odd.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"cases": [{"key": "k1", "ask": "deploy", "want": "deploys"}]}))
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "`id = 'key'` is not used in place" in err
    case = json.loads(target.read_text())["cases"][0]
    assert case["id"] == "case-1" and case["extensions"] == {"key": "k1"}


# --- -v notes say what detect decides --------------------------------------------------------


def test_verbose_notes_match_detect(tmp_path, capsys):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "partial.json").write_text(json.dumps({"cases": [{"id": "a", "base": "b"}]}))
    (tmp_path / "evals" / "ok.json").write_text(CASES)
    main(["detect", "--repo-root", str(tmp_path), str(tmp_path)])
    said = capsys.readouterr().out
    assert "partial.json: unclaimed local family, not migrated" in said
    main(["validate", "-v", "--repo-root", str(tmp_path), str(tmp_path)])
    notes = capsys.readouterr().err
    for line in said.splitlines():
        assert line in notes, (line, notes)


# --- walks through symlinks --------------------------------------------------------------------


def test_a_link_to_an_excluded_file_is_not_rewritten_and_one_target_counts_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --exclude globs are relative to the current directory
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "a.json").write_text(json.dumps({"skill": "s", "cases": [{"prompt": "p", "ideal": "i"}]}))
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "link.json").symlink_to("../golden/a.json")
    (tmp_path / "evals" / "again.json").symlink_to("../golden/a.json")
    before = (tmp_path / "golden" / "a.json").read_bytes()
    assert main(["migrate", "--exclude", "golden", "--repo-root", str(tmp_path), str(tmp_path / "evals")]) == 0
    assert (tmp_path / "golden" / "a.json").read_bytes() == before
    capsys.readouterr()
    assert main(["migrate", "--check", "--repo-root", str(tmp_path), str(tmp_path)]) == 1
    assert "Would migrate 1 file (1 case)" in capsys.readouterr().err


def test_labeled_paths_keep_context(tmp_path: Path):
    """The wild repositories' generic fixtures lie in evals folders (root or a skill's)."""
    for path in ("evals/routing-dataset.json", "skills/tasks/evals/trigger-queries.json"):
        assert plan(json.dumps({"positive": [{"prompt": "p"}], "near_miss": [{"prompt": "n"}]}), path).status == (
            "changed"
        )


# --- territory and sandboxes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "evals/x.json",
        "skills/s/evals/x.json",
        "tests/evals/x.json",
        "a/b/eval/x.yaml",
        "evaluation_data/x.yaml",
        "eval-sets/x.json",
        "goldens/x.json",
        "references/evals.yaml",
        "tests/routing_eval_cases.json",
        "data/trigger-cases.json",
        "data/golden_set.jsonl",
        "prompts/router.eval.yaml",
    ],
)
def test_fixture_territory(path):
    from fixture_migrate.claiming.territory import territory

    assert territory(Path(path), Path("/nowhere")) is not None


@pytest.mark.parametrize("path", ["data/x.json", "tests/fixtures/x.json", "src/evaluate.json", "medieval/x.json"])
def test_not_fixture_territory(path):
    from fixture_migrate.claiming.territory import territory

    assert territory(Path(path), Path("/nowhere")) is None


def test_an_include_is_territory():
    from fixture_migrate.claiming.territory import territory

    assert territory(Path("data/x.json"), Path("/nowhere"), included=True) == "under a configured include"


@pytest.mark.parametrize(
    "path",
    [
        "skills/s/evals/workspace/a.json",
        "skills/s/evals/iteration-3/a.json",
        "evals/seeds/linear.json",
        "evals/case-1/templates/deploy.yaml",
    ],
)
def test_sandboxes_by_name(path):
    from fixture_migrate.claiming.territory import Places

    assert "sandbox" in Places().sandbox(Path(path), Path("/nowhere"))


def test_sandboxes_by_project_marker_and_the_territory_folder_s_own_marker(tmp_path):
    from fixture_migrate.claiming.territory import Places

    (tmp_path / "evals" / "app").mkdir(parents=True)
    (tmp_path / "evals" / "package.json").write_text("{}")
    (tmp_path / "evals" / "app" / "package.json").write_text("{}")
    places = Places()
    assert places.sandbox(tmp_path / "evals" / "cases.json", tmp_path) is None  # the harness's own
    assert "package.json" in places.sandbox(tmp_path / "evals" / "app" / "data.json", tmp_path)


def test_a_territory_folder_that_is_a_python_package_gives_no_territory(tmp_path):
    from fixture_migrate.claiming.territory import Places

    (tmp_path / "evals" / "suite" / "tasks").mkdir(parents=True)
    (tmp_path / "evals" / "__init__.py").write_text("")
    places = Places()
    assert places.territory(tmp_path / "evals" / "cases.json", tmp_path) is None
    assert places.territory(tmp_path / "evals" / "suite" / "tasks" / "all.json", tmp_path) is None


@pytest.mark.parametrize(
    "path",
    [
        "config/retrieval_settings.json",
        "src/app/medieval_showcases.yaml",
        "src/app/golden_ratio.json",
        "golden_gate_bridge/tours.json",
    ],
)
def test_territory_names_go_by_whole_words(path):
    from fixture_migrate.claiming.territory import territory

    assert territory(Path(path), Path("/nowhere")) is None


@pytest.mark.parametrize(
    "path",
    [
        "evals/fixtures/http.json",
        "evals/locales/en.json",
        "evals/transcripts/chat1.json",
        "evals/reports/2024/run.json",
        "skills/foo-workspace/iteration-1/eval-0/with_skill/app/data/tickets.json",
    ],
)
def test_data_beside_fixtures_is_a_sandbox(path):
    from fixture_migrate.claiming.territory import Places

    assert "sandbox" in (Places().sandbox(Path(path), Path("/nowhere")) or "")


@pytest.mark.parametrize(
    "records",
    [
        [{"key": "greeting", "text": "Hello there"}],
        [{"username": "alice", "message": "hi there"}],
        [{"slug": "a", "body": "This is a long article body with many words in it"}],
    ],
)
def test_weak_inputs_alone_do_not_make_cases(records):
    assert plan(json.dumps(records), "evals/data.json").status != "changed"
    with_expectation = [dict(r, expected="x") for r in records]
    assert plan(json.dumps(with_expectation), "evals/data.json").status == "changed"


@pytest.mark.parametrize("name", ["expected_by", "never_expires", "reference_url", "input_files", "checks_count"])
def test_metadata_names_take_no_role_by_pattern(name):
    found = v.role_of(name)
    assert found is None or found[1] == "exact name"


def test_an_unreadable_file_in_a_sandbox_is_skipped_not_an_error(tmp_path, capsys):
    chart = tmp_path / "skills" / "k8s" / "evals" / "workspace" / "case-1" / "deploy" / "templates"
    chart.mkdir(parents=True)
    (chart / "deployment.yaml").write_text("a: {{ .Values.x }}\n  b: [\n")
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    assert "1 skipped as unreadable" in capsys.readouterr().err


def test_a_local_family_outside_territory_is_named_with_the_suggest_that_brings_it_in(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    for name in ("a.json", "b.json"):
        (tmp_path / "data" / name).write_text(json.dumps({"cases": [{"prompt": "p", "ideal": "i"}]}))
    assert main(["migrate", "--repo-root", str(tmp_path), str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "not migrated: 2 files of a local family {prompt, ideal}" in err
    assert "fixture-migrate suggest" in err and "data/a.json" in err and "include = [" not in err
    assert "1 family not migrated (2 files)" in err


def test_comments_between_the_items_of_a_bare_yaml_list_survive_its_migration():
    text = "# head\n- id: a\n  prompt: do the thing now\n\n# -- group B --\n\n- id: b\n  prompt: another\n"
    result = plan(text, "evals/cases.yaml")
    assert result.status == "changed", result.error and result.error.message
    new = result.new_bytes.decode()
    assert "# head\n" in new and "\n# -- group B --\n" in new and "cases:\n" in new
    assert plan(result.new_bytes, "evals/cases.yaml").status == "unchanged"


def test_a_symlink_in_an_evals_folder_is_judged_by_its_target(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "evals").mkdir()
    target = tmp_path / "data" / "mock.json"
    target.write_text(json.dumps([{"id": "m1", "prompt": "The server returned an error page", "expected": "x"}]))
    (tmp_path / "evals" / "mock.json").symlink_to("../data/mock.json")
    before = target.read_bytes()
    main(["migrate", "--repo-root", str(tmp_path), str(tmp_path / "evals" / "mock.json")])
    assert target.read_bytes() == before


def test_a_list_under_another_key_keeps_its_name_in_extensions():
    result = plan(json.dumps({"tests": [{"query": "q", "must_include": ["x"]}]}), "evals/r.json")
    data = json.loads(result.new_bytes)
    assert data["extensions"]["migrated_cases_from"] == "tests" and data["cases"][0]["input"] == "q"
    assert plan(result.new_bytes, "evals/r.json").status == "unchanged"


def test_a_new_run_sees_a_folder_that_became_a_package(tmp_path):
    from fixture_migrate.migration.engine import Engine, Options

    (tmp_path / "evals").mkdir()
    case = tmp_path / "evals" / "cases.json"
    case.write_text(json.dumps({"tests": [{"query": "q", "must_include": ["x"]}]}))
    assert Engine(Options(repo_root=tmp_path)).plan(case).status == "changed"
    (tmp_path / "evals" / "__init__.py").write_text("")
    assert Engine(Options(repo_root=tmp_path)).plan(case).status != "changed"
