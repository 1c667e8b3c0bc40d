"""The JSON span parser and writer: what stays byte-identical, what changes, in which style.

Each case migrates a tiny generic fixture (no schema_version; its case carries an input
and an expected outcome, the evidence a local family needs) and compares the whole
output, so every byte the writer adds or keeps is asserted.
"""

import json

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats.json_format import parse_json
from fixture_migrate.formats.json_text import ARRAY, OBJECT, SCALAR, JsonStyle, detect_style, parse_spans
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import plan

V1 = '"schema_version": "spec-first.workflow-eval-fixtures.v1"'


def migrated(source: str) -> str:
    result = plan(source, "evals/x.json")
    assert result.status == "changed", result.error and result.error.message
    return result.new_bytes.decode("utf-8")


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param(
            '{\n  "cases": [\n    {\n      "id": "a",\n      "expected_outcome": "o",\n      "user_intent": "Go."\n    }\n  ]\n}\n',
            "{\n  "
            + V1
            + ',\n  "cases": [\n    {\n      "id": "a",\n      "expected_outcome": "o",\n      "input": "Go."\n    }\n  ]\n}\n',
            id="rename-in-place",
        ),
        pytest.param(
            '{\n  "cases": [\n    {\n      "id": "a",\n      "expected_outcome": "o",\n      "input": "Go.",\n      "note": "x"\n    }\n  ]\n}\n',
            "{\n  "
            + V1
            + ',\n  "cases": [\n    {\n      "id": "a",\n      "expected_outcome": "o",\n      "input": "Go.",\n'
            '      "extensions": {\n        "note": "x"\n      }\n    }\n  ]\n}\n',
            id="last-member-moves-its-comma-line-stays",
        ),
        pytest.param(
            '{"cases": [{"id": "a", "input": "i", "expected_outcome": "o", "note": [1, 2]}]}',
            "{"
            + V1
            + ', "cases": [{"id": "a", "input": "i", "expected_outcome": "o", "extensions": {"note": [1, 2]}}]}',
            id="one-line-file-stays-one-line",
        ),
        pytest.param(
            '{\n\t"cases": [\n\t\t{"id": "a", "input": "i", "expected_outcome": "o", "note": "x"}\n\t]\n}',
            "{\n\t"
            + V1
            + ',\n\t"cases": [\n\t\t{"id": "a", "input": "i", "expected_outcome": "o", "extensions": {"note": "x"}}\n\t]\n}',
            id="inline-case-in-tab-file",
        ),
        pytest.param(
            '{\n    "cases": [\n        {\n            "id": "a",\n            "input": "i",\n            "expected_outcome": "o",\n            "deep": {\n                "k": [\n'
            "                    1\n                ]\n            }\n        }\n    ]\n}\n",
            "{\n    "
            + V1
            + ',\n    "cases": [\n        {\n            "id": "a",\n            "input": "i",\n            "expected_outcome": "o",\n            "extensions": {\n'
            '                "deep": {\n                    "k": [\n                        1\n                    ]\n'
            "                }\n            }\n        }\n    ]\n}\n",
            id="moved-value-re-indented-four-spaces",
        ),
        pytest.param(
            '{"cases": [{"id": "a", "input": "i", "expected_outcome": "o", "n": [-0, 1.50, 1E2, 123456789012345678901234567890], "s": "caf\\u00e9 \\/"}]}',
            "{"
            + V1
            + ', "cases": [{"id": "a", "input": "i", "expected_outcome": "o", "extensions": {"n": [-0, 1.50, 1E2, 123456789012345678901234567890], '
            '"s": "caf\\u00e9 \\/"}}]}',
            id="tokens-keep-their-text",
        ),
        pytest.param(
            '{\r\n  "cases": [\r\n    {\r\n      "id": "a",\r\n      "input": "i",\r\n      "expected_outcome": "o",\r\n      "note": 1\r\n    }\r\n  ]\r\n}',
            "{\r\n  "
            + V1
            + ',\r\n  "cases": [\r\n    {\r\n      "id": "a",\r\n      "input": "i",\r\n      "expected_outcome": "o",\r\n      "extensions": {\r\n'
            '        "note": 1\r\n      }\r\n    }\r\n  ]\r\n}',
            id="crlf-no-final-newline",
        ),
        pytest.param(
            '{"cases" : [{"id" : "a", "input" : "i", "expected_outcome" : "o", "extensions" : {}, "note" : true}]}',
            "{"
            + V1.replace(":", " :")
            + ', "cases" : [{"id" : "a", "input" : "i", "expected_outcome" : "o", "extensions" : {"note" : true}}]}',
            id="spaced-colons-and-empty-extensions-filled",
        ),
    ],
)
def test_writer(source, expected):
    assert migrated(source) == expected


def test_bom_is_kept():
    result = plan(
        b'\xef\xbb\xbf{"cases": [{"id": "a", "input": "i", "expected_outcome": "o", "x": 1}]}', "evals/x.json"
    )
    assert result.new_bytes.startswith(b'\xef\xbb\xbf{"schema_version"')


def test_new_arrays_follow_the_layout_of_arrays_of_the_same_name():
    source = (
        '{\n  "schema_version": "yao.semantic-trigger-cases.v1",\n  "skill": "s",\n'
        '  "source_refs": [\n    "a.md"\n  ],\n  "coverage_tags": ["trigger"],\n'
        '  "should_trigger": [{"text": "go"}]\n}\n'
    )
    assert '"coverage_tags": ["trigger", "should-trigger"]' in migrated(source)


def test_spans_of_members_and_keys():
    text = '{"a": [1, {"b": "x\\"y"}], "c\\u0041": null}'
    root = parse_spans(text)
    assert root.kind == OBJECT and root.keys == ["a", "cA"]
    b = root.child("a").child(1).child("b")
    assert text[b.start : b.end] == '"x\\"y"'
    assert text[slice(*root.key_spans[1])] == '"c\\u0041"'


def test_duplicate_key_names_its_place():
    with pytest.raises(FixtureError) as caught:
        parse_spans('{\n  "a": {"k": 1,\n    "k": 2}\n}')
    assert (caught.value.code, caught.value.line, caught.value.column) == ("duplicate_key", 3, 5)


def test_escaped_duplicate_key_is_still_a_duplicate():
    with pytest.raises(FixtureError):
        parse_spans('{"k": 1, "\\u006b": 2}')


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": 1, "a": 2, "b" : 3}',  # another key spaced before its colon
        b'{"a":1,"a":2,"b"\n:3}',
        b'{"x": {"k": 1, "k": 2}, "y"\t:\t{"z" : 0}}',
        b'{"a": 1, "a": 2, "s": "\\u0022:"}',  # a string that reads back as `":`
        b'{"a": "x:y", "b": {"a": 1, "a": "p:q"}}',  # colons in strings, kept and dropped
        b'{"a": 1, "a": 2, "s": "\\u003a"}',  # a colon written as an escape
        b'[{"k": 1}, {"k": 2, "k": 3}]',
        b'{"a": 1, "a": 12345678901234567890123}',  # read by the standard library
    ],
)
def test_parse_json_refuses_a_repeated_key_whatever_the_spacing_of_others(body):
    with pytest.raises(FixtureError) as caught:
        parse_json(body)
    assert caught.value.code == "duplicate_key"


@pytest.mark.parametrize("body", [b'{"a" : 1, "b"\r\n:\r\n[1, 2]}', b'{"s": "\\" :", "t": "\\":"}'])
def test_parse_json_reads_spaced_keys_and_colons_in_strings(body):
    assert set(parse_json(body)) in ({"a", "b"}, {"s", "t"})


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=24,
)


def _assert_spans_hold(text, node, value):
    assert json.loads(text[node.start : node.end]) == value
    if isinstance(value, dict):
        assert node.kind == OBJECT and node.keys == list(value)
        assert [json.loads(text[start:end]) for start, end in node.key_spans] == list(value)
        for child, item in zip(node.children, value.values(), strict=True):
            _assert_spans_hold(text, child, item)
    elif isinstance(value, list):
        assert node.kind == ARRAY and len(node.children) == len(value)
        for child, item in zip(node.children, value, strict=True):
            _assert_spans_hold(text, child, item)
    else:
        assert node.kind == SCALAR and node.children == ()


@given(value=_JSON_VALUES, indent=st.sampled_from([None, 0, 2, "\t", " \r\n "]), ascii=st.booleans())
def test_every_span_holds_its_value_arrays_of_scalars_found_when_asked(value, indent, ascii):
    # Arrays of scalars that are members' values are parsed whole, their items on demand.
    text = json.dumps({"v": value, "w": [value]}, indent=indent, ensure_ascii=ascii)
    _assert_spans_hold(text, parse_spans(text), {"v": value, "w": [value]})


def test_the_style_of_arrays_is_voted_when_first_asked_for():
    text = '{\n  "tags": ["a", "b"],\n  "refs": [\n    "x"\n  ],\n  "more": ["c", "d"]\n}\n'
    style = detect_style(text, parse_spans(text))
    assert style == JsonStyle(
        unit="  ",
        newline="\n",
        colon=": ",
        compact=False,
        inline_arrays=True,
        item_sep=", ",
        inline_keys=frozenset({"tags", "more"}),
        block_keys=frozenset({"refs"}),
    )
    assert style.inline_array("refs") is False and style.inline_array("new") is True
    assert hash(style) == hash(JsonStyle(**{name: getattr(style, name) for name in JsonStyle.field_names()}))
