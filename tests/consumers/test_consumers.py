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
    assert document["summary"]["sites"] == 2 and document["summary"]["for_a_person"] == 1
    before = (root / "run.py").read_bytes()
    assert main(["consumers", "--repo-root", str(root), "--fix", "--diff", str(root)]) == 1
    patch = capsys.readouterr().out
    assert patch.startswith("--- a/run.py\n+++ b/run.py\n") and (root / "run.py").read_bytes() == before
    done = subprocess.run(["git", "apply", "--check", "-"], input=patch, text=True, cwd=root, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert main(["consumers", "--repo-root", str(root), "--fix", str(root)]) == 1  # the call receiver is left
    assert 'd.get("cases", d.get("examples"))' in (root / "run.py").read_text()


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
