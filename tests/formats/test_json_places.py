"""`fixture_migrate.formats.json_places`: the offsets of chosen values of a JSON text, found
without a span tree, are those the span tree gives, and the places `JsonDocument.locate`
gives, on texts of every layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.formats.json_format import JsonDocument
from fixture_migrate.formats.json_places import Unusual, line_columns, value_offsets
from fixture_migrate.formats.json_text import parse_spans
from hypothesis import given, settings
from hypothesis import strategies as st

KEYS = st.sampled_from(["id", "name", "cases", "x", "", "é", "i\"d", "a\\b", "{", "[1]", "\u2028"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from('ab"\\{}[],: \n\té\u00fc\U0001f600'), max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)


def paths_of(value: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths_of(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths_of(item, (*prefix, index))
    return found


def span_start(text: str, path: tuple) -> int | None:
    node = parse_spans(text)
    try:
        for key in path:
            node = node.child(key)
    except (KeyError, IndexError, AttributeError):
        return None
    return node.start


def layouts(value: object) -> list[str]:
    """The same value written compactly, indented, with `\\u` escapes, with CRLF line ends
    and with blank space around it."""
    indented = json.dumps(value, indent=2, ensure_ascii=False)
    return [
        json.dumps(value, separators=(",", ":"), ensure_ascii=False),
        indented,
        json.dumps(value, indent="\t", ensure_ascii=True, separators=(" ,", " : ")),
        indented.replace("\n", "\r\n"),
        "\n \t" + json.dumps(value, ensure_ascii=False) + "\r\n",
    ]


@settings(max_examples=300, deadline=None)
@given(value=VALUES, data=st.data())
def test_offsets_are_the_span_trees(value, data):
    every = paths_of(value)
    chosen = data.draw(st.lists(st.sampled_from(every), max_size=12))
    # And paths that are not there: a key missing, an index past the end, an index into an
    # object or a scalar (a key into an array or a scalar is refused: see below).
    missing = []
    for path in every[:4]:
        below = _at(value, path)
        missing += [(*path, 99)] + ([(*path, "missing")] if isinstance(below, dict) else [])
    paths = chosen + missing
    for text in layouts(value):
        assert value_offsets(text, paths) == [span_start(text, path) for path in paths]


def _at(value: object, path: tuple) -> object:
    for key in path:
        value = value[key]  # type: ignore[index]
    return value


@settings(max_examples=100, deadline=None)
@given(value=VALUES, data=st.data())
def test_places_are_what_locate_gives(value, data, tmp_path_factory):
    every = paths_of(value)
    paths = data.draw(st.lists(st.sampled_from(every), min_size=1, max_size=12))
    for number, text in enumerate(layouts({"cases": [value, {"id": value}]})):
        raw = ("\ufeff" if number % 2 else "").encode("utf-8") + text.encode("utf-8")
        placed = [("cases", 0, *path) for path in paths] + [("cases", 1, "id", *path) for path in paths]
        document = JsonDocument(Path("x.json"), raw)
        fast = document.locate_all(0, placed)
        assert "spans" not in document.__dict__  # placed without the span tree
        assert fast == [document.locate(0, path) for path in placed]


def test_a_walk_passes_empty_containers_and_escaped_keys():
    text = '{"a": {}, "b": [], "c": [{}, [], {"\\u0069d": 1, "x": {"id": 0}}], "id": [{"id" :\n 2}]}'
    paths = [("c", 2, "id"), ("c", 2, "x", "id"), ("id", 0, "id"), ("a",), ("b",), ("c", 0), ("c", 1, 0), ("a", "k")]
    assert value_offsets(text, paths) == [span_start(text, path) for path in paths]
    assert value_offsets(text, paths)[:3] == [text.index("1,"), text.index("0}"), text.index("2}")]


@pytest.mark.parametrize("path", [("b", "k"), ("a", -1), ("a", True), ("a", 1.0)])
def test_a_path_of_another_shape_is_left_to_the_span_tree(path):
    with pytest.raises(Unusual):
        value_offsets('{"a": [1], "b": [2]}', [path])


def test_line_columns_count_lines_at_newlines_only():
    text = 'ab\r\n\u2028c\nd'
    assert line_columns(text, [0, 3, 5, None, 7, 4]) == [(1, 1), (1, 4), (2, 2), None, (3, 1), (2, 1)]
