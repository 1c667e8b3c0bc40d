"""The token reader of large Python modules (`python_tokens`) against the libcst reader.

Both read the same modules: the lean one must give the same document (data, span trees,
multi-line strings, comments, refused payloads), the same error (code, line, column,
message) and, after a migration, the same bytes. The switch between them is by size
(`python_format.LEAN_ABOVE`); here it is forced either way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import python_format, python_tokens
from fixture_migrate.formats.python_text import PNode
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.helpers import plan, property_examples

PATH = "skills/demo-skill/evals/test_cases.py"


@contextlib.contextmanager
def reader(lean: bool) -> Iterator[None]:
    """Every module read by the token reader (`lean`), else every one by libcst."""
    saved = python_format.LEAN_ABOVE
    python_format.LEAN_ABOVE = -1 if lean else 1 << 60
    try:
        yield
    finally:
        python_format.LEAN_ABOVE = saved


def spans(node: PNode) -> list[Any]:
    """A span tree as plain values, keys and children in order."""
    found = [(node.kind, node.start, node.end, node.lb, node.rb, node.open, node.close, list(node.keys))]
    for key in node.knodes:
        found += spans(key)
    for child in node.children:
        found += spans(child)
    return found


def error_of(error: FixtureError) -> tuple[Any, ...]:
    return ("error", error.code, error.line, error.column, error.message)


def reading(raw: bytes, lean: bool) -> tuple[Any, ...]:
    """What reading `raw` gives, as plain values."""
    with reader(lean):
        try:
            document = python_format.read(Path(PATH), raw)
        except FixtureError as error:
            return error_of(error)
    return (
        [(f.name, f.shape, f.root.data, spans(f.root)) for f in document.fixtures],
        document.strings,
        [(label, error_of(error), data) for label, error, data in document.refused],
        dict(document.comments),
        [(unit.label, unit.shape, unit.binding) for unit in document.units],
    )


def migration(raw: bytes, lean: bool) -> tuple[Any, ...]:
    """What planning a migration of `raw` gives: status, error, new bytes."""
    with reader(lean):
        result = plan(raw, PATH)
    error = result.error and (result.error.code, result.error.line, result.error.column, result.error.message)
    return result.status, error, result.new_bytes


def assert_same(raw: bytes) -> None:
    assert reading(raw, lean=True) == reading(raw, lean=False)
    assert migration(raw, lean=True) == migration(raw, lean=False)


# -- modules -------------------------------------------------------------------------

PIECES = ["a", "Hello", " ", "é", "#", "(", "]", "{", "\\n", "\\t", "\\x41", "\\u00e9", "\\\\"]
BAD_ESCAPES = ["\\x4", "\\ud800", "\\N{NO SUCH NAME}"]


@st.composite
def strings(draw: st.DrawFn, bytes_ok: bool = True) -> str:
    # (libcst's parser raises on a str and a bytes literal side by side: not generated)
    rare = draw(st.integers(0, 39))
    prefix = "f" if rare == 0 else "b" if rare == 1 and bytes_ok else draw(st.sampled_from(["", "", "r", "u", "R"]))
    quote = draw(st.sampled_from(['"', "'", '"""', "'''"]))
    pieces = PIECES + (["\n"] if len(quote) == 3 else [])
    if "f" in prefix:
        pieces = [piece for piece in pieces if piece != "{"]
    parts = draw(st.lists(st.sampled_from(pieces), max_size=4))
    if "r" not in prefix.lower() and draw(st.integers(0, 30)) == 0:
        parts.append(draw(st.sampled_from(BAD_ESCAPES)))
    body = "".join(parts)
    return prefix + quote + body + quote


@st.composite
def scalars(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 99))
    if kind < 45:
        if draw(st.integers(0, 4)) == 0:
            joiner = draw(st.sampled_from([" ", "\n    ", "  # split\n    "]))
            return "(" + draw(strings(bytes_ok=False)) + joiner + draw(strings(bytes_ok=False)) + ")"
        return draw(strings())
    if kind < 70:
        return draw(st.sampled_from(["0", "1", "-3", "+5", "- 2", "1_000", "0x1F", "0o17", "0b101", "-(4)", "2" * 30]))
    if kind < 83:
        return draw(st.sampled_from(["1.5", "-0.0", "1e3", "2.5E-3", ".5", "(1.25)"]))
    if kind < 96:
        return draw(st.sampled_from(["True", "False", "None", "(None)"]))
    return draw(st.sampled_from(NON_LITERALS + ["1e999", "-1e999", "1j", "-True"]))


NON_LITERALS = [
    "x",
    "f(1)",
    "a.b",
    "a.b.c(2)",
    "f()()",
    "[i for i in x]",
    "{k: v for k, v in d}",
    "{i for i in x}",
    "{1, 2}",
    "(i for i in x)",
    "x + 1",
    "-x",
    "~1",
    "not x",
    "x if y else z",
    "lambda: 0",
    "lambda a=1: a",
    "x[0]",
    "...",
    "(yield)",
    "x or y",
    "x < y",
    "x not in y",
    "(a := 1)",
    "'%s' % x",
    "'a'.upper()",
    "[1] * 2",
    "{'a': 1}['a']",
    "(1) + 2",
    "-1 < 2",
    "9" * 4301,
]

KEYS = {
    "name": ['"name"', '("name")', "'na' 'me'"],
    "id": ["'id'"],
    "prompt": ['"prompt"', "r'prompt'"],
    "a": ['"a"', "u'a'", "'''a'''"],
    "tags": ['"tags"'],
}
"""Spellings of a few keys: one dict holds each key once, but for a rare duplicate."""
BAD_KEYS = ["1", "(1, 2)", "x", 'f"k"', "b'k'", "None", "-1", "()", "'a' f'b'"]


def layout(draw: st.DrawFn, items: list[str], opener: str, closer: str, depth: int) -> str:
    if not items:
        return opener + closer
    if draw(st.booleans()):
        body = ", ".join(items) + draw(st.sampled_from(["", ","]))
        return opener + body + closer
    indent = "    " * (depth + 1)
    lines = []
    for item in items:
        comment = draw(st.sampled_from(["", "", "  # note", "  # 'q'"]))
        lines.append(indent + item + "," + comment)
    if draw(st.booleans()):
        lines.insert(0, indent + "# lead")
    return opener + "\n" + "\n".join(lines) + "\n" + "    " * depth + closer


@st.composite
def values(draw: st.DrawFn, depth: int = 0) -> str:
    if depth >= 3:
        return draw(scalars())
    kind = draw(st.integers(0, 5))
    if kind <= 2:
        found = draw(scalars())
    elif kind == 3:
        found = draw(dicts(depth + 1))
    elif kind == 4:
        items = draw(st.lists(values(depth + 1), max_size=3))
        if draw(st.integers(0, 40)) == 0:
            items.append("*rest")
        found = layout(draw, items, "[", "]", depth)
    else:
        items = draw(st.lists(values(depth + 1), min_size=1, max_size=3))
        found = "(" + ", ".join(items) + ",)" if len(items) == 1 else layout(draw, items, "(", ")", depth)
    if draw(st.integers(0, 8)) == 0:
        found = "(" + found + ")"
    return found


@st.composite
def dicts(draw: st.DrawFn, depth: int = 0) -> str:
    members = []
    names = draw(st.lists(st.sampled_from(sorted(KEYS)), unique=True, max_size=4))
    if names and draw(st.integers(0, 30)) == 0:
        names.append(names[0])
    for name in names:
        chance = draw(st.integers(0, 40))
        if chance == 0:
            members.append("**extra")
            continue
        key = draw(st.sampled_from(BAD_KEYS)) if chance == 1 else draw(st.sampled_from(KEYS[name]))
        members.append(f"{key}: {draw(values(depth))}")
    return layout(draw, members, "{", "}", depth)


@st.composite
def cases(draw: st.DrawFn) -> str:
    """A case dict that the migration has something to do with."""
    members = [f'"name": {draw(st.sampled_from(["1", repr("Case"), "True"]))}', '"user_intent": "Say hi."']
    for name in draw(st.lists(st.sampled_from(["id", "prompt", "a", "tags"]), unique=True, max_size=2)):
        members.append(f"{draw(st.sampled_from(KEYS[name]))}: {draw(values(1))}")
    return layout(draw, members, "{", "}", 1)


OTHER = [
    "import pytest\n",
    "x = 1; y = [1, 2]\n",
    "A = B = {'a': 1}\n",
    "T: int = 5\n",
    "D = {'a': [1, 2], 'b': f(x)}\n",
    "def f():\n    CASES = [{'a': x}]\n    return CASES\n",
    "if True:\n    X = {'schema_version': y}\nelse:\n    pass\n",
    "class K:\n    CASES = [{'a': 1}]\n",
    "# a comment with 'quotes' and CASES = [\n",
    "print('CASES = [')\n",
    "s = '''\nCASES = [1]\n'''\n",
    "obj.attr = 3\n",
    "a, b = 1, 2\n",
    "n += 1\n",
    "@decorator\ndef g():\n    pass\n",
    "NOT = {'schema_version': 1, 'runner': RUNNER_ID}\n",
    "FIXTURE = {'schema_version': 'x', 'cases': [f(1)]}\n",
    "W = [{'a': 1}] + more\n",
    "CASES = {'a': 1}, {'b': 2}\n",
    "lambda: 0\n",
    "x = (\n    1,\n    2,\n)  # closing\n",
]
BROKEN = ["x = = 1\n", "def f(:\n", "CASES = [{'a': 1}\n", "y = 'unclosed\n", "  indented = 1\n", "z = [1 2]\n"]


@st.composite
def modules(draw: st.DrawFn) -> bytes:
    """A Python module with fixture literals, other code, comments and, sometimes, a
    syntax error; in one of the line endings, UTF-8 or latin-1 with its coding cookie."""
    latin = draw(st.integers(0, 4)) == 0
    lines = ["# -*- coding: latin-1 -*-\n"] if latin else []
    if draw(st.booleans()):
        lines.append('"""Cases for the demo skill."""\n')
    lines += draw(st.lists(st.sampled_from(OTHER), max_size=3))
    shape = draw(st.integers(0, 2))
    items = draw(st.lists(cases(), min_size=1, max_size=3))
    if draw(st.integers(0, 9)) == 0:
        items.append(draw(values(1)))
    if shape == 0:
        lines.append("CASES = " + layout(draw, items, "[", "]", 0) + "\n")
    elif shape == 1:
        examples = layout(draw, items, "[", "]", 1)
        lines.append(
            'FIXTURE = {\n    "schema_version": "prompt-examples/v1",  # legacy\n'
            f'    "skill": "demo-skill",\n    "examples": {examples},\n}}\n'
        )
    else:
        lines.append("CASES: list = (" + ", ".join(items) + ",)  # a tuple\n")
    lines += draw(st.lists(st.sampled_from(OTHER), max_size=2))
    if draw(st.integers(0, 12)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(BROKEN)))
    text = "".join(lines)
    text = text.replace("\n", draw(st.sampled_from(["\n", "\n", "\r\n", "\r"])))
    return text.encode("latin-1" if latin else "utf-8")


@settings(
    max_examples=property_examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(modules())
@example(b'CASES = [{"name": "a", "user_intent": ("x"\n    "y")}]\n')
@example(b'CASES = [\n    {"name": "a", "user_intent": """line\nline"""},  # c\n]\n')
@example(b'CASES = [{"name": f(1)}]\nx = = 1\n')
@example(b"FIXTURE = {'schema_version': 'prompt-examples/v1', 'skill': 'demo-skill', 'examples': [{'a': x}]}\n")
def test_the_token_reader_reads_as_the_libcst_reader(raw: bytes) -> None:
    assert_same(raw)


@pytest.mark.parametrize("value", NON_LITERALS + BAD_KEYS)
def test_each_refusal_is_placed_and_named_as_the_libcst_reader_does(value: str) -> None:
    assert_same(f'CASES = [\n    {{"name": "a", "user_intent": {value}}},\n]\n'.encode())
    assert_same(f'CASES = [{{"name": "a", {value}: 1}}]\n'.encode())
    assert_same(f"CASES = [{{'name': 'a'}}, {value}]\n".encode())


@pytest.mark.parametrize("target", ["(CASES) = ", "((CASES)) = ", "A = (CASES) = ", "CASES = (A) = "])
def test_a_name_in_parentheses_is_bound_as_libcst_binds_it(target: str) -> None:
    raw = f'{target}[{{"name": "a", "user_intent": "b", "expected_posture": "c"}}]\nX = {{"cases": 1}}\n'.encode()
    assert_same(raw)
    assert [unit[0] for unit in reading(raw, lean=True)[4]] == ["CASES"]


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("f(1)", "not_a_literal"),
        ("1" * 4301, "integer_too_long"),
        ('"\\x4"', "invalid_python"),
        ('"\\ud800"', "invalid_python"),
    ],
)
def test_a_refusal_on_a_line_indented_with_a_form_feed_is_placed_in_the_text(value: str, code: str) -> None:
    """libcst drops the white space before a statement that holds a form feed; a refusal
    on that line is placed where the text has it, by both readers."""
    raw = f'\f  \fCASES = [{{"name": {value}}}]\n'.encode()
    assert_same(raw)
    assert reading(raw, lean=False)[:4] == ("error", code, 1, 4 + len('CASES = [{"name": ') + 1)
    duplicate = b'\f  \fCASES = [{"name": 1, "name": 2}]\n'
    assert_same(duplicate)
    assert reading(duplicate, lean=False)[:4] == ("error", "duplicate_key", 1, 4 + len('CASES = [{"name": 1, ') + 1)


@pytest.mark.parametrize("target", ["(CASES) = ", "((CASES)) = ", "CASES \\\n    = ", "A = (CASES) = "])
def test_a_binding_the_quick_check_must_not_miss(target: str) -> None:
    """A module is parsed only when its text may hold a fixture; a case list bound in
    parentheses or across a line continuation is one, with no other mention of it."""
    raw = f'{target}[{{"name": "a", "user_intent": "b", "expected_posture": "c"}}]\n'.encode()
    assert_same(raw)
    assert [unit[0] for unit in reading(raw, lean=False)[4]] == ["CASES"]


# -- the switch ------------------------------------------------------------------------


def big_module(cases: int = 2000) -> bytes:
    lines = [
        f'    {{"name": "Case {i}", "user_intent": "Say hello to visitor {i}.", "expected_posture": "Hello."}},  # case {i}'
        for i in range(cases)
    ]
    return ("CASES = [\n" + "\n".join(lines) + "\n]\n").encode()


def spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Which reader reads each module from now on ("lean", "cst")."""
    used: list[str] = []
    lean, cst = python_format.PythonDocument._read_lean, python_format.PythonDocument._read_cst

    def read_lean(self: Any, *args: Any, **kwargs: Any) -> Any:
        used.append("lean")
        return lean(self, *args, **kwargs)

    def read_cst(self: Any, *args: Any, **kwargs: Any) -> Any:
        used.append("cst")
        return cst(self, *args, **kwargs)

    monkeypatch.setattr(python_format.PythonDocument, "_read_lean", read_lean)
    monkeypatch.setattr(python_format.PythonDocument, "_read_cst", read_cst)
    return used


def test_an_ordinary_module_is_read_with_libcst(monkeypatch):
    used = spy(monkeypatch)
    raw = b'CASES = [{"name": "a", "user_intent": "b"}]\n'
    assert len(raw) <= python_format.LEAN_ABOVE
    python_format.read(Path(PATH), raw)
    assert used == ["cst"]


def test_a_module_over_the_threshold_is_read_on_its_tokens(monkeypatch):
    used = spy(monkeypatch)
    raw = big_module()
    assert len(raw) > python_format.LEAN_ABOVE
    document = python_format.read(Path(PATH), raw)
    assert used == ["lean"]
    assert len(document.fixtures[0].root.data) == 2000
    assert document.comments["# case 1999"] == 1


def test_the_threshold_is_on_the_text_length(monkeypatch):
    used = spy(monkeypatch)
    raw = big_module(50)
    monkeypatch.setattr(python_format, "LEAN_ABOVE", len(raw))
    python_format.read(Path(PATH), raw)
    monkeypatch.setattr(python_format, "LEAN_ABOVE", len(raw) - 1)
    python_format.read(Path(PATH), raw)
    assert used == ["cst", "lean"]


def test_the_rendered_module_is_checked_by_the_same_reader(monkeypatch):
    used = spy(monkeypatch)
    result = plan(big_module(), PATH)
    assert result.status == "changed", result.error and result.error.message
    assert set(used) == {"lean"}


def test_a_module_the_token_reader_cannot_follow_is_read_with_libcst(monkeypatch):
    def unreadable(*args: Any, **kwargs: Any) -> Any:
        raise python_tokens.Unreadable("not followed")

    raw = big_module(50)
    expected = reading(raw, lean=False)
    monkeypatch.setattr(python_tokens, "read_fixtures", unreadable)
    used = spy(monkeypatch)
    assert reading(raw, lean=True) == expected
    assert used == ["lean", "cst"]


def test_a_large_module_the_token_reader_cannot_follow_is_refused(monkeypatch):
    def unreadable(*args: Any, **kwargs: Any) -> Any:
        raise python_tokens.Unreadable("not followed")

    monkeypatch.setattr(python_tokens, "read_fixtures", unreadable)
    monkeypatch.setattr(python_format, "CST_MAX", 100 << 10)
    with pytest.raises(FixtureError) as caught:
        python_format.read(Path(PATH), big_module())
    assert caught.value.code == "too_large"
    assert "libcst" in caught.value.message and "up to 100 KiB" in caught.value.message


def test_a_syntax_error_in_a_large_module_is_placed_by_cpython(monkeypatch):
    monkeypatch.setattr(python_format, "CST_MAX", 1000)
    raw = big_module() + b"x = = 1\n"
    with pytest.raises(FixtureError) as caught:
        python_format.read(Path(PATH), raw)
    assert (caught.value.code, caught.value.line, caught.value.column) == ("invalid_python", 2003, 5)


def test_a_syntax_error_outside_the_literals_comes_before_a_refusal_inside():
    raw = b'CASES = [{"name": f(1)}]\n' + big_module() + b"def f(:\n    pass\n"
    with reader(lean=True), pytest.raises(FixtureError) as caught:
        python_format.read(Path(PATH), raw)
    assert caught.value.code == "invalid_python"
    assert caught.value.line == 2004


def test_the_placeholder_text_keeps_lines_and_columns():
    text = 'A = [\n  1, 2]  # x\nB = {"a": (\n 1)}; C = 3\n'
    spans = [(4, text.index("]") + 1), (text.index("{"), text.index("}") + 1)]
    placeholder = python_tokens.placeholder_text(text, spans)
    assert placeholder == "A = (\n      )  # x\nB = (      \n   ); C = 3\n"
    assert len(placeholder) == len(text)


def test_a_large_module_is_migrated_in_memory_proportional_to_it():
    """The traced peak of planning a 100 KiB module's migration stays near 50 times its size
    (libcst's tree alone would take some 360 times; `bench/memory.py` measures the RSS)."""
    import tracemalloc

    raw = big_module(900)
    assert len(raw) > python_format.LEAN_ABOVE
    tracemalloc.start()
    try:
        result = plan(raw, PATH)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.status == "changed", result.error and result.error.message
    assert peak < 80 * len(raw), f"{peak / len(raw):.0f} bytes per byte"
