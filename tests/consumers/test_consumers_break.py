"""`consumers --fix` on inputs that broke it: each test runs the fixed code on the legacy and
on the migrated fixture (it must read the same on both, and what the original read on the
legacy one) or checks that code it cannot fix right is left for a person."""

from __future__ import annotations

import pytest

from fixture_migrate.consumers.run import find_in_text, fixed_text
from tests.consumers.test_consumers import JS, PY_HEAD, _migrated, _node, _refs, _repo, _run_python


def _same_everywhere(tmp_path, code: str, name: str = "c.test.js") -> object:
    """The fixed `code` reads on the legacy and on the migrated fixture what `code` reads on
    the legacy one, and a second `--fix` changes nothing; returns that value."""
    root = _repo(tmp_path)
    refs = _refs(root)
    path = root / name
    fixed, _ = fixed_text(path, code, refs, root)
    assert fixed_text(path, fixed, refs, root)[0] == fixed  # idempotent
    run = _run_python if name.endswith(".py") else _node
    want = run(code, root)
    assert run(fixed, root) == want
    assert run(fixed, _migrated(root)) == want
    return want


SEMICOLON_FREE = JS.replace(";\n", "\n")


@pytest.mark.parametrize(
    "lines",
    [
        "const opts = { a: 1 }\nfixture.examples.length\n",  # an object literal's `}` ends the statement
        "let n = 0\n// a comment\nfixture.examples.length\n",  # a comment between
        "let n = 0\n/* a\n comment */\nfixture.examples.length\n",
        "const g = function () { return 1 }\nfixture.examples.length\n",  # a function expression's `}`
        "const f = () =>\n  fixture.examples.length\nf()\n",  # inside a statement: no `;` (it would not parse)
        "const n = 1 +\n  fixture.examples.length\n",
        "for (const e of\n  fixture.examples) e\n",
        "if (fixture)\n  fixture.examples.length\n",  # the body of an `if`: a `;` would empty it
        "function h() { return 1 }\nfixture.examples.length\n",
    ],
)
def test_a_read_starting_a_line_of_semicolon_free_code_gets_a_semicolon_only_where_it_needs_one(tmp_path, lines):
    code = SEMICOLON_FREE + lines + "console.log(JSON.stringify(fixture.examples[0].name))\n"
    assert _same_everywhere(tmp_path, code) == "First"


@pytest.mark.parametrize(
    "lines",
    [
        "if (Array.isArray(fixture)) throw new Error('expected an object');\n",  # a validation of the object
        "const cases = Array.isArray(fixture) ? fixture : fixture.examples;\n",  # both shapes read already
        "if (fixture.length !== undefined) throw new Error('a list');\n",
    ],
)
def test_an_object_document_is_never_read_as_a_bare_list(tmp_path, lines):
    code = JS + lines + "console.log(JSON.stringify(fixture.examples[0].name));\n"
    root = _repo(tmp_path)
    assert [f for f in find_in_text(root / "c.test.js", code, _refs(root), root) if f.pattern == "list_root"] == []
    assert _same_everywhere(tmp_path / "x", code) == "First"



def test_python_a_receiver_indexed_by_a_call_is_evaluated_once(tmp_path):
    # `next(it)` in the index: read twice, the fix took a second item from the iterator.
    body = "    d = load()\n    it = iter([0, 0])\n    return d['examples'][next(it)]['user_intent'], len(list(it))\n"
    assert _same_everywhere(tmp_path, PY_HEAD + "def run():\n" + body, "c.py") == ("do it", 1)


@pytest.mark.parametrize(
    "expression",
    [
        "fixture.examples.find((e) => e.name === 'nope')?.user_intent.trim()",
        "fixture.examples[0].missing?.user_intent.length",
        "fixture.nothing?.examples.length",
    ],
)
def test_script_a_read_inside_an_optional_chain_that_goes_on_keeps_its_short_circuit(tmp_path, expression):
    # In parentheses, the chain after the read ran on undefined: a TypeError on legacy data.
    code = JS + f"console.log(JSON.stringify({expression} ?? null));\n"
    assert _same_everywhere(tmp_path, code) is None


@pytest.mark.parametrize(
    "test",
    ["f in fixture.examples[0]", "fixture.examples[0].hasOwnProperty(f)", "Object.hasOwn(fixture.examples[0], f)"],
)
def test_script_a_loop_over_names_that_tests_the_names_is_for_a_person(tmp_path, test):
    # Only `x[f]` went through the table: the test of the legacy name failed on migrated data.
    code = JS + (
        "const out = [];\n"
        f"for (const f of ['user_intent', 'name']) {{ if ({test}) out.push(fixture.examples[0][f]); }}\n"
        "console.log(JSON.stringify(out));\n"
    )
    root = _repo(tmp_path)
    findings = [f for f in find_in_text(root / "c.test.js", code, _refs(root), root) if f.pattern == "field_list"]
    assert [(f.line, f.who) for f in findings] == [(7, "person")]


def test_script_a_loop_over_names_reading_inside_an_optional_chain_is_for_a_person(tmp_path):
    code = JS + (
        "const out = [];\n"
        "for (const f of ['user_intent', 'name']) out.push(fixture.examples[0]?.[f].length);\n"
        "console.log(JSON.stringify(out));\n"
    )
    root = _repo(tmp_path)
    findings = [f for f in find_in_text(root / "c.test.js", code, _refs(root), root) if f.pattern == "field_list"]
    assert [(f.line, f.who) for f in findings] == [(7, "person")]


@pytest.mark.parametrize(
    ("lines", "value"),
    [
        # A report built from fixture values is no fixture data: its `examples` is its own.
        ("const stats = { cases: 0, examples: fixture.examples.length };\nconst value = stats.examples;\n", 1),
        ("const rows = fixture.examples.map((e) => ({ input: e.user_intent.toUpperCase(), user_intent: e.user_intent }));\n"
         "const value = rows[0].user_intent;\n", "do it"),
        # A member holding fixture data, and a copy of it, still are.
        ("const ctx = { data: fixture, fixture };\nconst value = [ctx.data.examples[0].user_intent, ctx.fixture.examples.length];\n",
         ["do it", 1]),
        ("const copy = { ...fixture.examples[0] };\nconst value = copy.user_intent;\n", "do it"),
    ],
)
def test_script_a_new_object_built_from_fixture_values_is_not_fixture_data(tmp_path, lines, value):
    code = JS + lines + "console.log(JSON.stringify(value));\n"
    assert _same_everywhere(tmp_path, code) == value


def test_python_a_new_dict_built_from_fixture_values_is_not_fixture_data(tmp_path):
    body = (
        "    d = load()\n    stats = {'cases': 0, 'examples': len(d['examples'])}\n"
        "    copy = {**d['examples'][0]}\n    return stats['examples'], copy['user_intent']\n"
    )
    assert _same_everywhere(tmp_path, PY_HEAD + "def run():\n" + body, "c.py") == (1, "do it")


def test_an_optional_chain_that_goes_on_with_an_optional_link_is_still_rewritten(tmp_path):
    root = _repo(tmp_path)
    code = JS + (
        "const e = fixture.examples[0];\nconst none = undefined;\n"
        "console.log(JSON.stringify([e?.dispatch_authorization?.length, none?.user_intent?.length]));\n"
    )
    findings = [f for f in find_in_text(root / "c.js", code, _refs(root), root) if f.line == 8]
    assert [(f.legacy, f.who) for f in findings] == [("dispatch_authorization", "fix")]
    fixed, _ = fixed_text(root / "c.js", code, _refs(root), root)
    assert _node(fixed, root) == _node(code, root) == _node(fixed, _migrated(root)) == [3, None]
