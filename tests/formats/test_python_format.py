"""Python fixture literals: reading (`python_format`), writing (`python_text`) and the codemod."""

from __future__ import annotations

import ast
import json
import pprint
from pathlib import Path

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.formats import load_document
from fixture_migrate.migration.codemod import MigrateFixtureLiterals
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libcst.codemod import CodemodContext, CodemodTest

from tests.formats.syntax_checks import (
    check_syntax_migration,
    corpus_entries,
    json_migration,
    legacy_payloads,
    migrated_units,
    outcome,
    units,
    without_source_file,
)
from tests.helpers import CORPUS_ABSENT, migrate_sample, property_examples

PATH = "skills/demo-skill/evals/test_cases.py"

PROMPT_EXAMPLES = '''\
"""Review examples for the demo skill."""

import pytest

FIXTURE = {
    "schema_version": "prompt-examples/v1",  # legacy family
    'skill': 'demo-skill',
    "source_refs": ["skills/demo-skill/SKILL.md"],
    "examples": [
        # the happy path
        {
            "name": "Asks for a Review",
            "user_intent": ("Please review "
                            "the attached plan."),
            # what must not happen
            "negative_signal": "Rewrites the plan.",  # too eager
            "context_snippets": [r"Review\\Scope", u'Findings First'],
        },
        {"name": "Off topic", "user_intent": 'Order me a coffee.', "coverage_tags": ["boundary"]},
    ],
}


@pytest.mark.parametrize("case", FIXTURE["examples"])
def test_case(case):
    assert case["name"]
'''

SPEC_PRD = """\
FIXTURE = {
    "schema_version": "spec-prd-evals.v1",
    "skill": "spec-prd",
    "source_refs": ["skills/spec-prd/SKILL.md"],
    "case_contract": {"required": ["id", "intent", "expected"]},
    "cases": [
        {
            "id": "prd-1",
            "intent": "Write a PRD for the export feature.",
            "input_shape": "feature request with two constraints",
            "expected": "a PRD with goals, non-goals and open questions",
            "coverage_tags": ["trigger", "expected"],
            "must_not": [
                "invents metrics",
                "skips non-goals",
            ],
            "case_type": "happy-path",
        },
    ],
}
"""

TASKS_BOUNDARY = """\
BOUNDARY = {'schema_version': 'spec-first.spec-write-tasks-boundary-cases.v1',
            'skill': 'demo-skill',
            'source_refs': ['skills/demo-skill/SKILL.md'],
            'cases': [{'id': 'no-plan',
                       'input': 'Write tasks with no plan.',
                       'context': {'repo': 'empty'},
                       'expected_decision': 'stop',  # hard stop
                       'expected_next_action': 'ask for the plan',
                       'coverage_tags': ['boundary']}]}
"""

YAO_TRIGGERS = """\
TRIGGERS = {
    "schema_version": "yao.semantic-trigger-cases.v1",
    "coverage_tags": ["trigger"],
    "source_refs": ["skills/demo-skill/SKILL.md"],
    "should_trigger": [
        {"text": "write the tasks for this plan", "family": "direct"},  # the plain ask
        "break this spec into tasks",
    ],
    "should_not_trigger": [{"text": "what is a task?", "family": "question"}],
    "recommended_threshold": 0.72,
}
"""

TEAM_OUTPUT = """\
FIXTURE: dict = {
    "schema_version": "team-standards-output-evals/v1",
    "coverage_tags": ["expected"],
    "source_refs": ["skills/demo-skill/SKILL.md"],
    "cases": [
        {
            "case_id": "O-01",
            "input": "Review this diff against the standards.",
            "expected_outcome": {"verdict": "changes requested"},
            "must_not": ["approves blindly"],
            "threshold_result": None,
        },
    ],
}
"""

CANONICAL_STRAY = """\
FIXTURE = {
    "schema_version": "spec-first.workflow-eval-fixtures.v1",
    "skill": "demo-skill",
    "source_refs": ["skills/demo-skill/SKILL.md"],
    "coverage_tags": ["trigger"],
    "cases": [
        {
            "id": "one",
            "input": "Do the thing.",
            "expected_outcome": "done",
            "must_find": "the thing",  # checked by hand
        },
        {"id": "two", "input": "Do nothing.", "expected_outcome": "nothing"},
    ],
}
"""

CASE_LIST = """\
import pytest

# Cases the parametrized test below runs.
CASES = [
    {"id": "a", "prompt": "Write tasks.", "must_not": ["skip steps"]},  # first
    # the second one
    {
        "name": "B case",
        "user_intent": "Plan it.",
        "expected": "a plan",
        "coverage_tags": ["trigger"],
        "source_refs": ["skills/demo-skill/SKILL.md"],
    },
]


@pytest.mark.parametrize("case", CASES)
def test_case(case):
    assert case
"""

OUTPUT_CASES = """\
CASES = [
    {"id": "case-1", "prompt": "Write the tasks.", "with_skill_output": "t", "assertions": ["has-ids"]},
    {"id": "case-2", "prompt": "Then stop.", "baseline_output": "", "metadata": {"run": 3}},
]
"""


@pytest.mark.parametrize(
    ("source", "adapter"),
    [
        pytest.param(PROMPT_EXAMPLES, "prompt_examples_v1", id="prompt-examples"),
        pytest.param(SPEC_PRD, "spec_prd_evals_v1", id="spec-prd"),
        pytest.param(TASKS_BOUNDARY, "spec_write_tasks_boundary_cases_v1", id="tasks-boundary-hanging"),
        pytest.param(YAO_TRIGGERS, "yao_semantic_trigger_cases_v1", id="yao-triggers"),
        pytest.param(TEAM_OUTPUT, "team_standards_output_evals_v1", id="team-output-annotated"),
        pytest.param(CANONICAL_STRAY, "canonical", id="canonical-stray-member"),
        pytest.param(CASE_LIST, "case_list", id="case-list"),
        pytest.param(OUTPUT_CASES, "output_cases_jsonl", id="output-cases-list"),
    ],
)
def test_migrates(source, adapter, snapshot_py, snapshot_diff):
    check_syntax_migration(source, [adapter], snapshot_py, snapshot_diff, PATH)


def _literal_span(text: str, name: str) -> tuple[int, int]:
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                lines = text.splitlines(keepends=True)
                start = sum(len(line) for line in lines[: node.value.lineno - 1]) + node.value.col_offset
                end = sum(len(line) for line in lines[: node.value.end_lineno - 1]) + node.value.end_col_offset
                return start, end
    raise AssertionError(name)


@pytest.mark.parametrize(("source", "name"), [(PROMPT_EXAMPLES, "FIXTURE"), (CASE_LIST, "CASES")])
def test_only_the_literal_changes(source, name):
    after = migrate_sample(source, PATH).after
    old_start, old_end = _literal_span(source, name)
    new_start, new_end = _literal_span(after, name)
    assert after[:new_start] == source[:old_start]
    assert after[new_end:] == source[old_end:]


def test_comments_stay_with_their_elements():
    after = migrate_sample(PROMPT_EXAMPLES, PATH).after
    assert '        "migrated_from": "prompt-examples/v1",  # legacy family\n' in after
    assert "        # the happy path\n        {\n" in after
    assert (
        '            # what must not happen\n            "forbidden_signals": ["Rewrites the plan."],  # too eager\n'
        in after
    )
    after = migrate_sample(CANONICAL_STRAY, PATH).after
    assert '                "must_find": "the thing",  # checked by hand\n' in after
    after = migrate_sample(CASE_LIST, PATH).after
    assert "    # the second one\n    {\n" in after and "]},  # first\n" in after


def test_prefixes_quotes_concatenation_and_trailing_commas_are_kept():
    after = migrate_sample(PROMPT_EXAMPLES, PATH).after
    assert '            "input": ("Please review "\n                            "the attached plan."),\n' in after
    assert "[r\"Review\\Scope\", u'Findings First']" in after
    assert "    'skill': 'demo-skill',\n" in after
    # New members are laid out like their neighbours: one a line, trailing comma.
    assert '    "extensions": {\n        "migrated_from"' in after and '    },\n    "cases": [\n' in after
    # A one-line case stays on one line; the hanging layout keeps its hanging indent.
    assert '{"id": "off-topic", "input": \'Order me a coffee.\', "coverage_tags": ["boundary"], "extensions"' in after
    after = migrate_sample(TASKS_BOUNDARY, PATH).after
    assert (
        "            'cases': [{'id': 'no-plan',\n                       'input': 'Write tasks with no plan.',\n"
        in after
    )


def test_multi_line_strings_are_never_reindented():
    source = 'FIXTURE = {\n    "schema_version": "prompt-examples/v1",\n    "examples": [\n        {\n            "name": "A",\n            "user_intent": """first line\n  second line\nthird""",\n            "notes": """keep\n    this""",\n        },\n    ],\n}\n'
    after = migrate_sample(source, PATH).after
    assert '"notes": """keep\n    this""",' in after
    (data,) = units(PATH, after)
    assert data["cases"][0]["extensions"]["notes"] == "keep\n    this"
    assert data["cases"][0]["input"] == "first line\n  second line\nthird"


def test_a_bare_case_list_stays_a_list():
    after = migrate_sample(CASE_LIST, PATH).after
    start, end = _literal_span(after, "CASES")
    cases = ast.literal_eval(after[start:end])
    assert isinstance(cases, list) and [case["id"] for case in cases] == ["a", "b-case"]
    assert cases[0]["input"] == "Write tasks." and cases[1]["extensions"] == {"name": "B case"}
    tuple_source = 'CASES = (\n    {"name": "Only", "user_intent": "hi", "expected": "e"},\n)\n'
    after = migrate_sample(tuple_source, PATH).after
    assert (
        after
        == 'CASES = (\n    {"id": "only", "input": "hi", "expected_outcome": "e", "extensions": {"name": "Only"}},\n)\n'
    )


def test_py_name_chooses_the_names_of_case_lists(tmp_path, capsys):
    target = tmp_path / "skills" / "s" / "evals" / "test_triggers.py"
    target.parent.mkdir(parents=True)
    target.write_text('TRIGGER_CASES = [{"name": "A", "user_intent": "hi", "expected": "e"}]\n', encoding="utf-8")
    assert main(["detect", "-v", str(target), "--repo-root", str(tmp_path)]) == 0
    assert "unclaimed local family, not migrated" in capsys.readouterr().out  # named, with --py-name
    outside = tmp_path / "test_triggers.py"
    outside.write_text(target.read_text(), encoding="utf-8")
    assert main(["detect", str(outside), "--repo-root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith(": not a fixture\n")
    assert main(["detect", str(target), "--repo-root", str(tmp_path), "--py-name", "TRIGGER_CASES"]) == 0
    assert capsys.readouterr().out.endswith(" [TRIGGER_CASES]: case_list (generic)\n")


@pytest.mark.parametrize(
    "source",
    [
        'import os; CASES = [{"name": "A", "user_intent": "hi", "expected": "e"}]\n',
        'ALL = CASES = [{"name": "A", "user_intent": "hi", "expected": "e"}]\n',
        'CASES: list[dict] = [{"name": "A", "user_intent": "hi", "expected": "e"}]; DONE = True\n',
    ],
    ids=["after-semicolon", "chained", "annotated-before-semicolon"],
)
def test_a_case_list_anywhere_on_a_module_level_line_is_found(tmp_path, capsys, source):
    target = tmp_path / "evals" / "test_cases.py"
    target.parent.mkdir()
    target.write_text(source, encoding="utf-8")
    assert main(["detect", str(target), "--repo-root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith(" [CASES]: case_list (generic)\n")


NEW_GRAMMAR = """\
type Pair[T] = tuple[T, T]


def first[T](pair: Pair[T]) -> T:
    match pair:
        case (a, _):
            return a


label = f"{'case' + f"{first(('x', 'y'))!r:>{4}}"}"

FIXTURE = {"schema_version": "prompt-examples/v1", "examples": [{"name": "A", "user_intent": "hi"}]}
"""


def test_newest_grammar_parses():
    migrated = migrate_sample(NEW_GRAMMAR, PATH)
    assert migrated.after.startswith(NEW_GRAMMAR[: NEW_GRAMMAR.index("FIXTURE")])
    assert '"cases": [{"id": "a", "input": "hi", "extensions": {"name": "A"}}]' in migrated.after


def test_crlf_and_bom_are_kept():
    source = '\ufeffFIXTURE = {\r\n    "schema_version": "prompt-examples/v1",\r\n    "examples": [{"name": "A", "user_intent": "hi"}],\r\n}\r\n'
    raw = migrate_sample(source.encode("utf-8"), PATH).result.new_bytes
    assert raw is not None and raw.startswith(b"\xef\xbb\xbfFIXTURE = {\r\n")
    assert b"\n" not in raw.replace(b"\r\n", b"")


def test_a_module_without_fixture_literal_is_not_a_fixture(tmp_path, capsys):
    (tmp_path / "helpers.py").write_text("import os\n\nCONFIG = {'name': 'x'}\n", encoding="utf-8")
    (tmp_path / "broken_unrelated.py").write_text("def f(:\n", encoding="utf-8")
    code = main(["migrate", "--check", str(tmp_path), "--repo-root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 0
    assert err == "Nothing to migrate (2 files scanned, 2 not fixtures)\n"


NOT_LITERALS = [
    pytest.param('"input": make_input(),', "a call to `make_input`", 4, 32, id="call"),
    pytest.param('"input": PROMPT,', "a name `PROMPT`", 4, 32, id="name"),
    pytest.param('"tags": [t for t in TAGS],', "a list comprehension", 4, 31, id="comprehension"),
    pytest.param('"input": f"hi {name}",', "an f-string", 4, 32, id="f-string"),
    pytest.param("**EXTRA,", "a `**` spread", 4, 23, id="dict-spread"),
    pytest.param('"tags": [*TAGS],', "a `*` spread", 4, 32, id="list-spread"),
    pytest.param("KEY: 1,", "a computed key (a name)", 4, 23, id="computed-key"),
    pytest.param('"tags": {"a", "b"},', "a set", 4, 31, id="set"),
    pytest.param('"input": b"raw",', "a bytes literal", 4, 32, id="bytes"),
    pytest.param('"input": "a" + "b",', "an operator expression", 4, 32, id="operator"),
    pytest.param('"input": os.environ,', "an attribute", 4, 32, id="attribute"),
]


@pytest.mark.parametrize(("member", "what", "line", "column"), NOT_LITERALS)
def test_a_non_literal_stops_the_file(tmp_path, capsys, member, what, line, column):
    source = (
        'FIXTURE = {\n    "schema_version": "prompt-examples/v1",\n    "examples": [\n'
        f'        {{"name": "A", {member}}},\n    ],\n}}\n'
    )
    target = tmp_path / "test_cases.py"
    target.write_text(source, encoding="utf-8")
    code = main(["migrate", str(target), "--repo-root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"test_cases.py:{line}:{column}: error: {what} is not a literal" in err
    assert "[not_a_literal]" in err
    assert target.read_text(encoding="utf-8") == source


def test_syntax_error_exits_2_and_writes_nothing(tmp_path, capsys):
    source = 'FIXTURE = {\n    "schema_version": "prompt-examples/v1",\n    "examples": [\n}\n'
    target = tmp_path / "test_cases.py"
    target.write_text(source, encoding="utf-8")
    code = main(["migrate", str(target), "--repo-root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "test_cases.py:4:1: error: invalid Python: closing parenthesis '}' does not match" in err
    assert target.read_text(encoding="utf-8") == source


def test_a_string_concatenated_with_bytes_is_a_placed_syntax_error(tmp_path, capsys):
    # libcst raises a validation error (not a syntax error) for `"a" b"x"`; CPython places it.
    source = 'CASES = [\n    {"name": "a" b"x", "user_intent": "q", "expected_posture": "a"},\n]\n'
    target = tmp_path / "evals" / "cases.py"
    target.parent.mkdir()
    target.write_text(source, encoding="utf-8")
    code = main(["migrate", str(target), "--repo-root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "cases.py:2:22: error: invalid Python: cannot mix bytes and nonbytes literals [invalid_python]" in err
    assert "internal error" not in err
    assert target.read_text(encoding="utf-8") == source


def test_duplicate_keys_are_refused(tmp_path, capsys):
    source = 'FIXTURE = {"schema_version": "x", "cases": [], "cases": [{"id": "a"}]}\n'
    target = tmp_path / "test_cases.py"
    target.write_text(source, encoding="utf-8")
    assert main(["migrate", str(target), "--repo-root", str(tmp_path)]) == 2
    assert "test_cases.py:1:48: error: duplicate key 'cases' in one dict [duplicate_key]" in capsys.readouterr().err


def test_units_are_labelled_by_name():
    source = CASE_LIST + "\n" + PROMPT_EXAMPLES.split("import pytest\n", 1)[1].split("@pytest")[0]
    document = load_document(Path(PATH), source.encode())
    assert [(unit.label, unit.shape) for unit in document.units] == [("CASES", "case_list"), ("FIXTURE", "payload")]


class TestCodemod(CodemodTest):
    """The same migration through libcst's codemod interface."""

    TRANSFORM = MigrateFixtureLiterals

    def test_migrates_a_literal(self) -> None:
        before = (
            'FIXTURE = {"schema_version": "prompt-examples/v1", "examples": [{"name": "A", "user_intent": "hi"}]}\n'
        )
        after = (
            'FIXTURE = {"schema_version": "spec-first.workflow-eval-fixtures.v1", "extensions": '
            '{"migrated_from": "prompt-examples/v1"}, "cases": [{"id": "a", "input": "hi", "extensions": {"name": "A"}}]}\n'
        )
        self.assertCodemod(before, after)

    def test_skips_what_it_cannot_migrate(self) -> None:
        before = 'FIXTURE = {"schema_version": "prompt-examples/v1", "examples": [{"name": make()}]}\n'
        self.assertCodemod(before, before, expected_skip=True)

    def test_skips_a_module_migrate_leaves_unmigrated(self) -> None:
        """Records bound under a name that is no fixture name, in an evals folder: unclaimed,
        skipped with the reason `migrate` names (not an assertion failure)."""
        before = 'TEST_CASES = [{"prompt": "p", "expected": "e"}]\n'
        context = CodemodContext(filename="skills/a/evals/more.py")
        self.assertCodemod(before, before, context_override=context, expected_skip=True)

    def test_leaves_canonical_literals_alone(self) -> None:
        before = 'FIXTURE = {"schema_version": "spec-first.workflow-eval-fixtures.v1", "cases": []}\n'
        self.assertCodemod(before, before)


@settings(max_examples=property_examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legacy_payloads(), st.integers(0, 1))
def test_any_payload_as_python_migrates_as_json_does(data, variant):
    expected = outcome("skills/demo/evals/a.json", json.dumps(data, ensure_ascii=False).encode())
    literal = pprint.pformat(data, width=40, sort_dicts=False) if variant else repr(data)
    got = outcome("skills/demo/evals/test_a.py", f"FIXTURE = {literal}\n".encode())
    assert got == expected or (expected[0] == got[0] == "error")


ENTRIES = corpus_entries()


def _black(value, indent: str = "") -> str:
    inner = indent + "    "
    if isinstance(value, dict) and value:
        members = "".join(
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {_black(v, inner)},\n" for k, v in value.items()
        )
        return "{\n" + members + indent + "}"
    if isinstance(value, list) and value:
        return "[\n" + "".join(f"{inner}{_black(v, inner)},\n" for v in value) + indent + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


@pytest.mark.skipif(not ENTRIES, reason=CORPUS_ABSENT)
@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.name[:3] for entry in ENTRIES])
def test_corpus_converted_to_python_migrates_as_json_does(entry):
    """Each corpus file, converted in memory to a module-level literal (alternately as
    `pprint` writes it, long strings split into implicit concatenations, and one member
    a line with trailing commas), migrates to what the JSON migration gives, read back;
    its reference view is the JSON file's. A JSON Lines file becomes a bare `CASES`
    list, which stays a list holding the JSON migration's cases."""
    root, relative, _, data, (json_status, expected, json_view) = json_migration(entry)
    literal = pprint.pformat(data, width=88, sort_dicts=False) if int(entry.name[:3]) % 2 else _black(data)
    name = "CASES" if relative.suffix == ".jsonl" else "FIXTURE"
    module = f'"""Converted in memory from a corpus file."""\n\n{name} = {literal}\n'.encode()
    status, got, view = migrated_units(root, relative.with_suffix(".py"), module)
    if json_status == "not_fixture":
        assert status == "not_fixture"
        return
    if relative.suffix == ".jsonl":
        assert got == [expected[0]["cases"]]
        return
    assert got == expected
    assert without_source_file(view) == without_source_file(json_view)
