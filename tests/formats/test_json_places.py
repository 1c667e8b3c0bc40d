"""`fixture_migrate.formats.json_places`: the offsets of chosen values of a JSON text, found
without a span tree, are those the span tree gives, and the places `JsonDocument.locate`
gives, on texts of every layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.formats.json_format import JsonDocument
from fixture_migrate.formats.json_places import Unusual, item_member_places, line_columns, places, value_offsets
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
        spans = [span_start(text, path) for path in paths]
        assert value_offsets(text, paths) == spans
        assert places(text.encode("utf-8"), paths) == line_columns(text, spans)


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


@pytest.mark.parametrize(
    ("step", "text"),
    [
        (-1, '[{"cases": [{"id": "a"}, {"id": "b"}]}]'),
        (False, '[{"cases": [{"id": "a"}]}]'),
        (True, '[{}, {"cases": [{"id": "a"}]}]'),
    ],
)
def test_a_prefix_of_another_shape_is_left_to_the_span_tree_for_item_members_too(step, text):
    # One member of items of one list, reached through an index the walk does not take:
    # refused as the walk refuses it, not placed by Python's own indexing of the data.
    paths = [(step, "cases", 0, "id")]
    with pytest.raises(Unusual):
        value_offsets(text, paths)
    with pytest.raises(Unusual):
        value_offsets(text, paths, json.loads(text))


def test_line_columns_count_lines_at_newlines_only():
    text = 'ab\r\n\u2028c\nd'
    assert line_columns(text, [0, 3, 5, None, 7, 4]) == [(1, 1), (1, 4), (2, 2), None, (3, 1), (2, 1)]


# The members of many items of one list (`("cases", i, "id")`: the places of duplicate ids),
# found by matching the key in the text where that is proven: payloads built to tempt the
# match (nested members of the same name, the name inside strings, written with an escape,
# a top-level member of the name, items without it), in every layout.
_TEXTS = st.sampled_from(['"id": 1', '{"id": "x"}', ', "id":', "id", '\\"id\\":', "{", ",", ""])
# Other members, two of them with `id` at their end.
_ITEM_KEYS = st.sampled_from(["input", "note", "id_", "x", 'x"id', "x\\id"])
_ITEM_VALUES = st.one_of(_TEXTS, st.integers(0, 3), st.lists(_TEXTS, max_size=2))


@st.composite
def _item_lists(draw):
    items = []
    for number in range(draw(st.integers(0, 5))):
        item = {"id": f"case-{number % 2}"} if draw(st.integers(0, 6)) else {}
        for key in draw(st.lists(_ITEM_KEYS, max_size=3, unique=True)):
            item[key] = draw(_ITEM_VALUES)
        if not draw(st.integers(0, 8)):
            item["extensions"] = {"id": draw(_TEXTS)}
        if draw(st.booleans()) and "id" in item:
            item = {"input": item.pop("input", ""), **item}  # the id not first
        items.append(item)
    return items


@settings(max_examples=300, deadline=None)
@given(items=_item_lists(), shape=st.sampled_from(["payload", "bare", "nested", "top_id"]), escape=st.booleans())
def test_item_members_are_the_span_trees(items, shape, escape):
    value = {
        "payload": {"schema_version": "v", "cases": items},
        "bare": items,
        "nested": {"suite": {"cases": items}},
        "top_id": {"id": "case-0", "cases": items},
    }[shape]
    prefix = {"payload": ("cases",), "bare": (), "nested": ("suite", "cases"), "top_id": ("cases",)}[shape]
    paths = [(*prefix, index, "id") for index in range(len(items) + 1)]
    proven = 0
    for text in layouts(value):
        if escape and '"id"' in text:
            at = text.rindex('"id"')
            text = text[:at] + '"\\u0069d"' + text[at + 4 :]
        spans = [span_start(text, path) for path in paths]
        assert value_offsets(text, paths) == spans
        assert value_offsets(text, paths, json.loads(text)) == spans
        # From the bytes: lines and columns (in characters) as the decoded text has them.
        assert places(text.encode("utf-8"), paths) == line_columns(text, spans)
        assert places(text.encode("utf-8"), paths, json.loads(text)) == line_columns(text, spans)
        # Every item's member at once, without the paths: the same places wherever it
        # proves them (None sends the caller to `places`).
        every = item_member_places(text.encode("utf-8"), prefix, "id", json.loads(text))
        if every is not None:
            assert every == line_columns(text, spans[: len(items)])
            proven += 1
    plain = json.dumps(items, ensure_ascii=False)
    if items and all("id" in item for item in items) and shape in ("payload", "bare") and not escape:
        if plain.count("id") == len(items) and "\\" not in plain:
            assert proven == len(layouts(value))  # `id` nowhere else, no escape: proven in every layout


def test_item_members_are_matched_where_proven_and_walked_elsewhere(monkeypatch):
    from fixture_migrate.formats import json_places

    walks = []
    real = json_places._Walk.value
    monkeypatch.setattr(json_places._Walk, "value", lambda self, *args: walks.append(1) or real(self, *args))
    plain = '{"cases": [{"id": "a", "input": "say \\"id\\": b"}, {"input": "{", "id": "a"}]}'
    paths = [("cases", 0, "id"), ("cases", 1, "id")]
    assert value_offsets(plain, paths) == [plain.index('"a"'), plain.rindex('"a"')]
    assert walks == []  # proven: every match is an item's own member
    nested = '{"cases": [{"id": "a", "extensions": {"id": 1}}, {"id": "b"}]}'
    assert value_offsets(nested, paths) == [span_start(nested, path) for path in paths]
    assert walks  # an `id` elsewhere: walked


def test_places_from_bytes_count_characters_on_long_lines():
    # One line holding every case, with characters of two, three and four bytes before and
    # between the ids: columns count characters, each byte read once.
    cases = [{"input": "é工😀" * n, "id": f"c{n}"} for n in range(40)]
    text = json.dumps({"note": "\u2028 ü", "cases": cases}, ensure_ascii=False)
    paths = [("cases", n, "id") for n in range(40)]
    expected = line_columns(text, [span_start(text, path) for path in paths])
    assert expected[-1][0] == 1 and expected[-1][1] < len(text.encode("utf-8"))  # one line, counted in characters
    assert places(text.encode("utf-8"), paths) == expected


def test_every_items_member_is_placed_in_order_on_ascii_and_other_lines():
    # The ids of every case on lines of ASCII alone and on lines with characters of two to
    # four bytes, and CRLF line ends: each column counts characters, as the decoded text's.
    for note in ("plain", "é工😀"):
        cases = [{"input": note * n, "id": f"c{n}"} for n in range(12)]
        text = json.dumps({"cases": cases}, indent=2, ensure_ascii=False).replace("\n", "\r\n")
        paths = [("cases", n, "id") for n in range(12)]
        expected = line_columns(text, [span_start(text, path) for path in paths])
        assert item_member_places(text.encode("utf-8"), ("cases",), "id", json.loads(text)) == expected
    # Not a name the match can take, no such list, an item without the member: not proven.
    text = '{"cases": [{"id": 1}, {"x": 2}]}'
    assert item_member_places(text.encode(), ("cases",), "id", json.loads(text)) is None
    assert item_member_places(text.encode(), ("suite",), "id", json.loads(text)) is None
    assert item_member_places(b'{"cases": [{"a b": 1}]}', ("cases",), "a b", {"cases": [{"a b": 1}]}) is None
