"""`fixture-migrate consumers`: each access pattern's report line, its fix (or none), the fixed
code run on a legacy and on a migrated fixture, idempotence, what it leaves alone, pinned
files, and a property: `--fix` changes no byte outside the rewritten reads."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixture_migrate.cli.app import main
from fixture_migrate.consumers.findings import References
from fixture_migrate.consumers.run import find_in_text, fixed_text, fixture_moves
from fixture_migrate.migration.engine import Engine, Options

LEGACY = {
    "schema_version": "prompt-examples/v1",
    "skill": "a",
    "examples": [
        {
            "name": "First",
            "user_intent": "do it",
            "expected_posture": "ok",
            "negative_signal": ["bad"],
            "dispatch_authorization": "yes",
            "fallback_reason": None,
        }
    ],
}
FIXTURE = "skills/a/evals/examples.json"


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "skills/a/evals").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / FIXTURE).write_text(json.dumps(LEGACY, indent=2) + "\n")
    return root


def _refs(root: Path) -> References:
    model, errors = fixture_moves(Engine(Options(repo_root=root)), [root / FIXTURE])
    assert errors == []
    return References(model)


def _migrated(root: Path) -> Path:
    other = root.parent / "migrated"
    shutil.copytree(root, other)
    assert main(["migrate", "--repo-root", str(other), str(other), "-q"]) == 0
    return other


PY_HEAD = 'import json\nfrom pathlib import Path\nFIXTURE = Path(ROOT) / "skills/a/evals/examples.json"\n\n\ndef load():\n    return json.loads(FIXTURE.read_text())\n\n\n'

PYTHON_CASES = [
    # (body of `def run():`, pattern, legacy, home, expected value)
    ('    data = load()\n    return data["examples"][0]["name"]\n', "subscript", "examples", "cases", "First"),
    ('    data = load()\n    case = data["examples"][0]\n    return case.get("user_intent", "")\n', "get", "user_intent", "input", "do it"),
    (
        '    data = load()\n    for case in data["examples"]:\n        return case["dispatch_authorization"]\n',
        "subscript",
        "dispatch_authorization",
        "extensions.dispatch_authorization",
        "yes",
    ),
    (
        "    data = load()\n    return data['schema_version'] == 'prompt-examples/v1'\n",
        "schema_version",
        "schema_version",
        "extensions.migrated_from",
        True,
    ),
]


def _run_python(code: str, root: Path) -> object:
    namespace: dict[str, object] = {"ROOT": str(root)}
    exec(compile(code, "consumer.py", "exec"), namespace)
    return namespace["run"]()  # type: ignore[operator]


@pytest.mark.parametrize(("body", "pattern", "legacy", "home", "value"), PYTHON_CASES)
def test_python_reads_are_reported_fixed_and_work_on_both_shapes(tmp_path, body, pattern, legacy, home, value):
    root = _repo(tmp_path)
    refs = _refs(root)
    code = PY_HEAD + "def run():\n" + body
    path = root / "consumer.py"
    findings = [f for f in find_in_text(path, code, refs, root) if f.legacy == legacy]
    assert [(f.pattern, f.home, f.who) for f in findings] == [(pattern, home, "fix")]
    assert findings[0].text().startswith(f"consumer.py:{findings[0].line}:{findings[0].column}: {pattern}: `{legacy}`")
    fixed, _ = fixed_text(path, code, refs, root)
    assert fixed != code
    assert _run_python(code, root) == value  # the legacy file, as written
    assert _run_python(fixed, root) == value  # the legacy file, fixed code
    migrated = _migrated(root)
    assert _run_python(fixed, migrated) == value  # the migrated file, fixed code
    again, findings_again = fixed_text(path, fixed, refs, root)
    assert again == fixed  # idempotent
    assert [f for f in findings_again if f.who == "fix"] == []


def test_python_keeps_the_quote_style(tmp_path):
    root = _repo(tmp_path)
    code = PY_HEAD + "def run():\n    return load()['examples']\n"
    fixed, _ = fixed_text(root / "c.py", code, _refs(root), root)
    assert "(load()['cases'] if" not in fixed  # a call is not read twice
    code = PY_HEAD + "def run():\n    d = load()\n    return d['examples']\n"
    fixed, _ = fixed_text(root / "c.py", code, _refs(root), root)
    assert "(d['cases'] if 'cases' in d else d['examples'])" in fixed


@pytest.mark.parametrize(
    "body",
    [
        '    other = {"type": "x", "examples": 1}\n    return other.get("examples"), other.get("type")\n',
        '    item = {"name": "n"}\n    return item["name"]\n',
    ],
)
def test_python_leaves_unrelated_objects_alone(tmp_path, body):
    root = _repo(tmp_path)
    code = PY_HEAD + "def run():\n    load()\n" + body
    fixed, findings = fixed_text(root / "c.py", code, _refs(root), root)
    assert fixed == code
    assert [f for f in findings if f.who == "fix"] == []


def test_python_code_that_names_no_fixture_is_no_consumer(tmp_path):
    root = _repo(tmp_path)
    code = 'def run(case):\n    return case["examples"], case.get("user_intent")\n'
    assert find_in_text(root / "c.py", code, _refs(root), root) == []


def test_python_person_patterns(tmp_path):
    root = _repo(tmp_path)
    code = PY_HEAD + (
        "def run():\n    case = load()\n"
        '    assert "examples" in case\n'
        '    for field in ("user_intent", "expected_posture"):\n        print(case[field])\n'
        '    json.dump({"schema_version": "prompt-examples/v1", "examples": []}, open("x", "w"))\n'
    )
    findings = find_in_text(root / "c.py", code, _refs(root), root)
    assert {(f.pattern, f.who) for f in findings} == {("in_test", "person"), ("field_list", "person"), ("writer", "person")}
    assert all(f.advice for f in findings)


JS = (
    "const fs = require('fs');\nconst path = require('path');\n"
    "const FIXTURE = path.join(ROOT, 'skills/a/evals/examples.json');\n"
    "function load() { return JSON.parse(fs.readFileSync(FIXTURE, 'utf8')); }\n"
    "const fixture = load();\n"
)
JS_CASES = [
    ("fixture.examples[0].name", "member", "examples", "First"),
    ("fixture.examples.map((e) => e.user_intent)[0]", "member", "user_intent", "do it"),
    ("fixture['examples'][0].dispatch_authorization", "subscript", "examples", "yes"),
    ("fixture.schema_version === 'prompt-examples/v1'", "schema_version", "schema_version", True),
    # A moved member holding null: `??` would pass over it to the legacy name, gone after migration.
    ("fixture.examples.map((e) => e.fallback_reason)[0]", "member", "fallback_reason", None),
    # A receiver with a call in it is evaluated once, as an arrow function's argument.
    ("fixture.examples.find((e) => e.name).dispatch_authorization", "member", "dispatch_authorization", "yes"),
    # A part of the legacy version that the canonical one lacks: the check would fail on migrated data.
    ("fixture.schema_version.includes('prompt-examples')", "schema_version", "schema_version", True),
]


def _node(code: str, root: Path) -> object:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the fixed JavaScript is not run")
    script = f"const ROOT = {json.dumps(str(root))};\n" + code
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("expression", "pattern", "legacy", "value"), JS_CASES)
def test_script_reads_are_reported_fixed_and_work_on_both_shapes(tmp_path, expression, pattern, legacy, value):
    root = _repo(tmp_path)
    refs = _refs(root)
    code = JS + f"console.log(JSON.stringify({expression}));\n"
    path = root / "c.test.js"
    findings = find_in_text(path, code, refs, root)
    assert (pattern, "fix") in {(f.pattern, f.who) for f in findings if f.legacy == legacy}
    fixed, _ = fixed_text(path, code, refs, root)
    assert " in Object(" in fixed  # `in`, not `??`: a moved member may hold null
    assert _node(fixed, root) == value
    assert _node(fixed, _migrated(root)) == value
    assert fixed_text(path, fixed, refs, root)[0] == fixed


def test_script_typescript_and_person_patterns(tmp_path):
    root = _repo(tmp_path)
    code = JS.replace("const fs = require('fs');", "import fs from 'fs';") + (
        "const { examples } = fixture;\n"
        "expect(fixture).toMatchObject({ examples: [] });\n"
        "const Schema = z.object({ schema_version: z.literal('prompt-examples/v1'), examples: z.array(z.any()) });\n"
        "const other: { examples: number } = { examples: 1 };\nconsole.log(other.examples);\n"
    )
    findings = find_in_text(root / "c.test.ts", code, _refs(root), root)
    patterns = {(f.pattern, f.who) for f in findings}
    assert {("destructuring", "person"), ("object_literal", "person"), ("schema", "person")} <= patterns
    assert not any(f.line == code.count("\n") for f in findings)  # `other.examples` is left alone


def test_cli_reports_fixes_and_exits(tmp_path, capsys):
    root = _repo(tmp_path)
    (root / "run.py").write_text(PY_HEAD + 'def run():\n    return load()["examples"]\n\n\ndef main():\n    d = load()\n    return d.get("examples")\n')
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    assert "run.py:16:12: get: `examples` -> `cases` (--fix rewrites it)" in out
    assert main(["consumers", "--repo-root", str(root), "--output-format", "json", str(root)]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["summary"]["sites"] == 2 and document["summary"]["for_a_person"] == 0
    before = (root / "run.py").read_bytes()
    assert main(["consumers", "--repo-root", str(root), "--fix", "--diff", str(root)]) == 1
    patch = capsys.readouterr().out
    assert patch.startswith("--- a/run.py\n+++ b/run.py\n") and (root / "run.py").read_bytes() == before
    done = subprocess.run(["git", "apply", "--check", "-"], input=patch, text=True, cwd=root, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert main(["consumers", "--repo-root", str(root), "--fix", str(root)]) == 0  # all rewritten
    fixed = (root / "run.py").read_text()
    assert 'd.get("cases", d.get("examples"))' in fixed
    # A receiver with a call in it is evaluated once, as a lambda's argument.
    assert '(lambda o: (o["cases"] if "cases" in o else o["examples"]))(load())' in fixed
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 0  # a second run finds nothing
    assert [len(_run_python(fixed, r)) for r in (root, _migrated(root))] == [1, 1]  # type: ignore[arg-type]


def test_migrate_leaves_a_pinned_file_and_names_the_pin(tmp_path, capsys):
    import hashlib

    root = _repo(tmp_path)
    before = (root / FIXTURE).read_bytes()
    (root / "tests").mkdir()
    (root / "tests/pins.txt").write_text(f"x\n{FIXTURE} {hashlib.sha256(before).hexdigest()}\n")
    assert main(["migrate", "--repo-root", str(root), str(root)]) == 0
    assert (root / FIXTURE).read_bytes() == before
    assert "pinned by `tests/pins.txt:2`" in capsys.readouterr().err
    (root / "tests/pins.txt").write_text(f"examples.json is {len(before)} bytes\n")
    assert main(["migrate", "--repo-root", str(root), "--check", str(root)]) == 0
    assert main(["migrate", "--repo-root", str(root), "--include-pinned", str(root)]) == 0
    assert (root / FIXTURE).read_bytes() != before


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                '    x = d["examples"]\n',
                '    y = d.get("schema_version")\n',
                "    # a comment 'examples'\n",
                '    z = {"type": 1}.get("type")\n',
                "    w = [d, 'é', \"\"\"doc\"\"\"]\n",
                '    v = d.get("examples", [])\n',
            ]
        ),
        min_size=1,
        max_size=8,
    )
)
def test_fix_changes_no_byte_outside_the_rewritten_reads(tmp_path_factory, lines):
    root = _repo(tmp_path_factory.mktemp("p"))
    code = PY_HEAD + "def run():\n    d = load()\n" + "".join(lines)
    fixed, findings = fixed_text(root / "c.py", code, _refs(root), root)
    edits = sorted((f.edit for f in findings if f.edit is not None), key=lambda e: e.start)
    # Outside the spans of the first pass's edits, every character is the same, in order.
    at = 0
    rest = fixed
    for edit in edits:
        prefix = code[at : edit.start]
        assert rest.startswith(prefix)
        rest = rest[len(prefix) :]
        index = rest.find("\n")
        rest = rest[index:] if index != -1 else ""
        at = code.find("\n", edit.end)
        at = len(code) if at == -1 else at
    assert rest == code[at:]


def test_consumers_never_reads_or_writes_code_outside_the_root(tmp_path, capsys):
    root = _repo(tmp_path)
    outside = tmp_path / "outside.py"
    outside.write_text(PY_HEAD.replace("Path(ROOT)", "Path('.')") + 'print(load()["examples"])\n')
    before = outside.read_bytes()
    for named in (str(outside), str(root / ".." / "outside.py")):
        code = main(["consumers", "--fix", "--repo-root", str(root), str(root / "skills"), named])
        assert code == 2 and "[path_outside_repo]" in capsys.readouterr().err
        assert outside.read_bytes() == before
    assert main(["consumers", "--repo-root", str(root), str(root / "missing.py")]) == 2


def test_a_rewrite_that_starts_a_line_of_semicolon_free_code_is_led_by_a_semicolon(tmp_path):
    root = _repo(tmp_path)
    code = JS.replace(";\n", "\n") + "let n = 0\nfixture.examples.length\nconsole.log(JSON.stringify(fixture.examples[0].name))\n"
    path = root / "c.test.js"
    fixed, _ = fixed_text(path, code, _refs(root), root)
    assert "\n;(" in fixed
    assert _node(fixed, root) == "First"
    assert _node(fixed, _migrated(root)) == "First"


def _fixed_runs_on_both(root: Path, code: str, name: str = "c.test.js") -> str:
    refs = _refs(root)
    path = root / name
    fixed, _ = fixed_text(path, code, refs, root)
    assert fixed != code
    assert fixed_text(path, fixed, refs, root)[0] == fixed  # idempotent
    legacy, migrated = _node(fixed, root), _node(fixed, _migrated(root))
    assert legacy == migrated
    return legacy


def test_script_follows_fixture_data_into_the_files_own_functions(tmp_path):
    root = _repo(tmp_path)
    code = JS + (
        "function pick(data, n) { return data.examples[n].user_intent; }\n"
        "const other = (thing) => thing.examples;\n"
        "console.log(JSON.stringify([pick(fixture, 0), other({ examples: 7 })]));\n"
    )
    findings = find_in_text(root / "c.test.js", code, _refs(root), root)
    lines = {(f.line, f.legacy) for f in findings}
    assert (6, "examples") in lines and (6, "user_intent") in lines  # inside `pick`
    assert not any(f.line == 7 for f in findings)  # `other` is only ever passed a literal
    assert _fixed_runs_on_both(root, code) == ["do it", 7]


def test_script_schema_version_compared_with_a_constant(tmp_path):
    root = _repo(tmp_path)
    code = JS + "const LEGACY = 'prompt-examples/v1';\nconsole.log(JSON.stringify(fixture.schema_version === LEGACY));\n"
    findings = find_in_text(root / "c.test.js", code, _refs(root), root)
    assert [(f.pattern, f.who) for f in findings if f.legacy == "schema_version"] == [("schema_version", "fix")]
    assert _fixed_runs_on_both(root, code) is True


def test_members_gathered_into_an_outcome_object_are_read_there(tmp_path):
    from fixture_migrate.consumers.moves import migrated_moves

    data = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "extensions": {"migrated_from": "local.v1"},
        "cases": [{"id": "a", "expected_outcome": {"expected_decision": "compile", "expected_next_action": "go"}}],
    }
    versions, moves = migrated_moves([data])
    assert versions == ("local.v1",)
    assert moves["expected_next_action"].home == "expected_outcome.expected_next_action"
    assert moves["expected_decision"].inferred


@pytest.mark.parametrize(
    ("glob", "particular"),
    [("*", False), ("**/*", False), ("*.json", False), ("*-*", False), ("*/*.*", False),
     ("evals/*.json", True), ("*_cases.json", True), ("skills/*/evals/*.json", True)],
)
def test_a_glob_names_fixtures_only_with_a_particular_part(glob, particular):
    from fixture_migrate.consumers.findings import _names_path, _particular

    assert _particular(glob) is particular
    assert _names_path(glob, "skills/a/evals/x_cases.json") is particular


def test_a_template_string_with_holes_only_names_no_fixture(tmp_path):
    root = _repo(tmp_path)
    code = "const stamp = `${a}-${b}`;\nfunction walk(entry) { return entry.examples; }\nwalk(stamp);\n"
    assert find_in_text(root / "walk.js", code, _refs(root), root) == []


def test_a_projected_copy_of_the_tree_names_the_fixture():
    from fixture_migrate.consumers.findings import _names_path

    assert _names_path(".agents/skills/a/evals/examples.json", "skills/a/evals/examples.json")
    assert _names_path(".claude/workflows/a/evals/examples.json", "skills/a/evals/examples.json")
    assert not _names_path(".claude/workflows/b/evals/examples.json", "skills/a/evals/examples.json")


def test_field_lists_are_lists_looped_over_not_values(tmp_path):
    root = _repo(tmp_path)
    refs = _refs(root)
    js = JS + (
        "for (const f of ['user_intent', 'expected_posture']) console.log(fixture.examples[0][f]);\n"
        "expect(tags).toEqual(expect.arrayContaining(['user_intent', 'expected_posture']));\n"
    )
    found = [(f.line, f.pattern) for f in find_in_text(root / "c.test.js", js, refs, root) if f.pattern == "field_list"]
    assert found == [(6, "field_list")]
    py = PY_HEAD + (
        "def run():\n    d = load()\n    for f in ['user_intent', 'expected_posture']:\n        print(d[f])\n"
        "    assert d['tags'] == ['user_intent', 'expected_posture']\n"
    )
    found = [(f.line, f.pattern) for f in find_in_text(root / "c.py", py, refs, root) if f.pattern == "field_list"]
    assert found == [(12, "field_list")]


JSONL = "skills/w/evals/output/cases.jsonl"


def _jsonl_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "skills/w/evals/output").mkdir(parents=True)
    (root / ".git").mkdir()
    lines = [{"id": f"c{i}", "prompt": "do it", "baseline_output": "b", "with_skill_output": "w"} for i in range(2)]
    (root / JSONL).write_text("".join(json.dumps(line) + "\n" for line in lines))
    (root / "read.test.js").write_text(
        "const fs = require('fs');\nconst path = require('path');\n"
        "const CASES = path.join(__dirname, 'skills', 'w', 'evals', 'output', 'cases.jsonl');\n"
        "const lines = fs.readFileSync(CASES, 'utf8').trim().split('\\n').map((l) => JSON.parse(l));\n"
    )
    return root


@pytest.mark.parametrize("after_migrate", [False, True])
def test_a_file_moved_from_json_lines_is_named_before_and_after_migrate(tmp_path, capsys, after_migrate):
    root = _jsonl_repo(tmp_path)
    if after_migrate:
        assert main(["migrate", "--repo-root", str(root), str(root), "-q"]) == 0
        assert not (root / JSONL).exists()
        capsys.readouterr()
    before = (root / "read.test.js").read_bytes()
    assert main(["consumers", "--fix", "--repo-root", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    new = "skills/w/evals/output/cases.json"
    # The reader splits lines: a new path alone would trade a missing file for a parse error.
    assert f"read.test.js:3:70: path: `cases.jsonl` -> `{new}` (for a person:" in out
    assert (root / "read.test.js").read_bytes() == before
    # The new file joins its folder and does not validate: named, so a walk over evals/ is explained.
    assert f"{new}:1:1: new_file: `{JSONL}` -> `{new}` (for a person:" in out
    assert "missing_coverage_tags" in out


def test_a_canonical_file_nobody_names_as_json_lines_is_no_moved_file(tmp_path, capsys):
    root = _jsonl_repo(tmp_path)
    assert main(["migrate", "--repo-root", str(root), str(root), "-q"]) == 0
    (root / "read.test.js").write_text("const x = require('./skills/w/evals/output/cases.json');\n")
    capsys.readouterr()
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 0
    assert "new_file" not in capsys.readouterr().out


def test_script_reads_over_a_literal_list_of_names_go_through_a_table_of_homes(tmp_path):
    root = _repo(tmp_path)
    code = JS + (
        "const out = [];\n"
        "for (const f of ['user_intent', 'dispatch_authorization']) out.push(fixture.examples[0][f]);\n"
        "['expected_posture', 'negative_signal'].forEach((name) => { out.push(fixture.examples[0][name]); });\n"
        "console.log(JSON.stringify(out));\n"
    )
    findings = [f for f in find_in_text(root / "c.test.js", code, _refs(root), root) if f.pattern == "field_list"]
    assert {(f.line, f.who) for f in findings} == {(7, "fix"), (8, "fix")}
    assert _fixed_runs_on_both(root, code) == ["do it", "yes", "ok", ["bad"]]


def test_script_a_copy_of_fixture_data_with_a_legacy_member_is_for_a_person(tmp_path):
    root = _repo(tmp_path)
    code = JS + "const copy = { ...fixture.examples[0], user_intent: 'changed' };\n"
    findings = find_in_text(root / "c.test.js", code, _refs(root), root)
    assert [(f.line, f.pattern, f.legacy, f.home, f.who) for f in findings if f.pattern == "write"] == [
        (6, "write", "user_intent", "input", "person")
    ]


def test_a_shared_reader_helper_makes_only_its_fixture_callers_consumers(tmp_path):
    root = _repo(tmp_path)
    code = (
        "const fs = require('fs');\nconst path = require('path');\n"
        "function readJson(p) { return JSON.parse(fs.readFileSync(p, 'utf8')); }\n"
        "const criteria = readJson(path.join(ROOT, 'shared', 'criteria.json'));\n"
        "const fixture = readJson(path.join(ROOT, 'skills/a/evals/examples.json'));\n"
        "console.log(criteria.examples, fixture.examples.length);\n"
    )
    findings = find_in_text(root / "c.js", code, _refs(root), root)
    # `criteria` is read through the same helper, from a file that is no fixture: left alone.
    assert [(f.line, f.column, f.legacy) for f in findings] == [(6, 32, "examples")]


def test_a_lookup_keyed_by_fixture_values_holds_what_the_map_holds(tmp_path):
    root = _repo(tmp_path)
    code = JS + (
        "const byTitle = new Map([['First', { title: 'T', examples: 1 }]]);\n"
        "const looked = fixture.examples.map((e) => byTitle.get(e.name));\n"
        "console.log(looked[0].examples);\n"
        "const byId = new Map();\n"
        "for (const e of fixture.examples) byId.set(e.name, e);\n"
        "console.log(JSON.stringify(byId.get('First').user_intent));\n"
    )
    findings = find_in_text(root / "c.js", code, _refs(root), root)
    lines = {(f.line, f.legacy) for f in findings}
    assert (8, "examples") not in lines  # the map's own objects, keyed by fixture values
    assert (11, "user_intent") in lines  # a map filled with fixture cases holds fixture data


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(root), "PATH": "/usr/bin:/bin"})


def test_after_migrate_a_family_without_a_schema_version_still_names_its_moves(tmp_path, capsys):
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the committed version is what tells the moves here")
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    _git(root, "init", "-q")
    (root / "evals/trigger-cases.json").write_text(json.dumps({
        "skill": "demo", "version": "1.0",
        "cases": [{"id": "a", "expected": "select", "prompt": "use it"}, {"id": "b", "expected": "skip", "prompt": "draw"}],
    }))
    (root / "check.py").write_text(
        "import json\nfrom pathlib import Path\n\n\ndef run():\n"
        "    data = json.loads(Path('evals/trigger-cases.json').read_text())\n"
        "    return data['version'], sorted(case['expected'] for case in data['cases'])\n"
    )
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "legacy")
    assert main(["migrate", "--repo-root", str(root), str(root), "-q"]) == 0
    assert "migrated_from" not in (root / "evals/trigger-cases.json").read_text()
    capsys.readouterr()
    # Not committed yet: the committed legacy file says what moved, `version` under extensions too.
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    assert "check.py:7:12: subscript: `version` -> `extensions.version` (--fix rewrites it)" in out
    assert "check.py:7:36: subscript: `expected` -> `expected_outcome` (--fix rewrites it)" in out
    # Committed: the version before the commit that made the file canonical says the same.
    _git(root, "commit", "-qam", "migrated")
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    assert capsys.readouterr().out == out
    # Without git, the data alone cannot tell `version` from a member written under extensions;
    # the shared rules' renames are still known.
    shutil.rmtree(root / ".git")
    (root / ".git").mkdir()
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    assert "`version`" not in out and "check.py:7:36: subscript: `expected` -> `expected_outcome`" in out


def test_a_canonical_file_written_so_lends_no_extension_members(tmp_path):
    from fixture_migrate.consumers.moves import migrated_moves

    data = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "cases": [{"id": "a", "input": "x", "expected_outcome": {"reason_code": "r"}, "extensions": {"reason_code": "r"}}],
    }
    versions, moves = migrated_moves([data])
    assert versions == () and "reason_code" not in moves  # its own members, not moved ones
    assert moves["prompt"].home == "input" and moves["prompt"].inferred


BARE = "evals/trigger-cases.json"


def test_script_a_bare_list_read_whole_reads_the_cases_of_the_migrated_file(tmp_path, capsys):
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / BARE).write_text(json.dumps([
        {"id": "a", "expected": "trigger", "prompt": "use it"}, {"id": "b", "expected": "skip", "prompt": "draw"}
    ]))
    code = (
        "const fs = require('fs');\nconst path = require('path');\n"
        "const value = JSON.parse(fs.readFileSync(path.join(ROOT, 'evals/trigger-cases.json'), 'utf8'));\n"
        "if (!Array.isArray(value)) throw new Error('not a list');\n"
        "const files = ['evals/trigger-cases.json'].map((f) => f.length);\n"
        "function check(obj, key) { return obj[key]; }\n"
        "const out = [];\nfor (const t of value) out.push(check(t, 'id'));\n"
        "console.log(JSON.stringify([out, value.length, check(value[0], 'expected'), files.length]));\n"
    )
    model, errors = fixture_moves(Engine(Options(repo_root=root)), [root / BARE])
    refs = References(model)
    findings = find_in_text(root / "c.js", code, refs, root)
    found = sorted((f.line, f.pattern, f.who) for f in findings)
    assert found == [(4, "list_root", "fix"), (8, "list_root", "fix"), (9, "list_root", "fix"),
                     (9, "list_root", "fix"), (9, "name_argument", "person")]
    fixed, _ = fixed_text(root / "c.js", code, refs, root)
    assert fixed_text(root / "c.js", fixed, refs, root)[0] == fixed
    assert _node(fixed, root) == [["a", "b"], 2, "trigger", 1]
    migrated = _migrated(root)
    assert json.loads((migrated / BARE).read_text())["cases"][0]["id"] == "a"
    assert _node(fixed, migrated)[:2] == [["a", "b"], 2]  # `expected` is a person's (the name passed on)


def test_script_a_legacy_name_handed_to_a_local_helper_becomes_the_name_the_data_has(tmp_path):
    root = _repo(tmp_path)
    code = JS + (
        "function field(obj, key, label) { return obj?.[key] ?? label; }\n"
        "const e = fixture.examples[0];\n"
        "console.log(JSON.stringify([field(e, 'user_intent', e.name || 'x'), field(e, 'dispatch_authorization')]));\n"
    )
    findings = [f for f in find_in_text(root / "c.js", code, _refs(root), root) if f.pattern == "name_argument"]
    # A top-level home is passed by the name the data has; one under extensions is a person's.
    assert [(f.legacy, f.who) for f in findings] == [("user_intent", "fix"), ("dispatch_authorization", "person")]
    fixed, _ = fixed_text(root / "c.js", code, _refs(root), root)
    assert "('input' in Object(e) ? 'input' : 'user_intent')" in fixed
    assert _node(fixed, root)[0] == _node(fixed, _migrated(root))[0] == "do it"
