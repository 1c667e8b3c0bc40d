"""Files laid out as a pretty printer lays them out: migrated by orjson, byte for byte as
the writer migrates them.

`render_regular` must write exactly what `JsonWriter` writes, or answer None. Every test
here compares the two: on random data and random targets (hypothesis), on targets the
guards exist for (where the writer's bytes differ from the layout's), and through the
engine on every legacy family's samples.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from fixture_migrate.formats import json_regular
from fixture_migrate.formats.json_regular import Layout, inline_arrays, regular_layout, render_regular
from fixture_migrate.formats.json_text import JsonWriter, detect_style, parse_spans, writes_ascii
from fixture_migrate.formats.target import Arr, Node, Obj, Src, Val
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.helpers import plan

DATA = {"name": "x", "tags": ["a", "b"], "cases": [{"id": "c", "n": 1.5, "empty": [], "o": {}}]}
BLOCK = orjson.dumps(DATA, option=orjson.OPT_INDENT_2)
INLINE = BLOCK.replace(b'[\n    "a",\n    "b"\n  ]', b'["a", "b"]')


def test_inline_arrays_puts_arrays_of_scalars_on_one_line_only():
    value = {"a": [1, "x,\\n ]", None], "b": [[1, 2], {"k": [True]}], "c": [], "d": [{}]}
    text = inline_arrays(orjson.dumps(value, option=orjson.OPT_INDENT_2)).decode()
    assert '"a": [1, "x,\\\\n ]", null]' in text
    assert '"b": [\n    [1, 2],\n    {\n      "k": [true]\n    }\n  ]' in text
    assert '"c": [],\n  "d": [\n    {}\n  ]' in text
    assert json.loads(text) == value


@pytest.mark.parametrize(
    "body, layout",
    [
        pytest.param(BLOCK, Layout(False, b""), id="block"),
        pytest.param(BLOCK + b"\n", Layout(False, b"\n"), id="block-final-newline"),
        pytest.param(json.dumps(DATA, indent=2, ensure_ascii=False).encode(), Layout(False, b""), id="python-indent-2"),
        pytest.param(INLINE + b"\n", Layout(True, b"\n"), id="inline"),
        pytest.param(BLOCK + b"\n\n", None, id="two-final-newlines"),
        pytest.param(BLOCK.replace(b"\n", b"\r\n"), None, id="crlf"),
        pytest.param(json.dumps(DATA, indent=4).encode(), None, id="four-spaces"),
        pytest.param(json.dumps(DATA, indent="\t").encode(), None, id="tabs"),
        pytest.param(json.dumps(DATA).encode(), None, id="one-line"),
        pytest.param(INLINE.replace(b'["a", "b"]', b'["a","b"]'), None, id="inline-without-spaces"),
        pytest.param(b" " + BLOCK, None, id="leading-space"),
        pytest.param(BLOCK.replace(b'"x"', b'"\\u0078"'), None, id="escaped-letter"),
    ],
)
def test_regular_layout(body, layout):
    assert regular_layout(body, orjson.loads(body)) == layout


def test_a_file_the_writer_adds_escapes_to_is_not_regular():
    # All ASCII, with the text of an escape past U+007F (here an escaped backslash and
    # `u00e9`, which the writer's style test reads as one): the writer writes new text
    # beyond ASCII as escapes, orjson as itself.
    body = orjson.dumps({"a": "\\u00e9", "b": [1]}, option=orjson.OPT_INDENT_2)
    assert regular_layout(body, orjson.loads(body)) is None
    assert regular_layout(body.replace(b"00e9", b"007e"), orjson.loads(body.replace(b"00e9", b"007e"))) is not None
    target = Obj([("a", Src(("a",))), ("new", Val("é\x7f"))], origin=())
    assert _writer(body, target) == b'{\n  "a": "\\\\u00e9",\n  "new": "\\u00e9\\u007f"\n}'


def test_a_path_through_a_string_is_left_to_the_writer():
    with pytest.raises(IndexError):
        _writer(BLOCK, Obj([("c", Src(("name", 0)))]))
    assert render_regular(Obj([("c", Src(("name", 0)))]), DATA, Layout(False, b"")) is None


def test_mixed_array_layouts_and_one_line_values_are_not_regular():
    mixed = INLINE.replace(b'"empty": []', b'"empty": [\n        1\n      ]')
    assert regular_layout(mixed, orjson.loads(mixed)) is None
    assert regular_layout(b"{}", {}) is None and regular_layout(b"[]\n", []) is None
    assert regular_layout(b'"x"', "x") is None
    big = b'{\n  "n": 123456789012345678901234567890\n}'
    assert regular_layout(big, json.loads(big)) is None  # beyond orjson's integers


def _writer(body: bytes, target: Node) -> bytes:
    """What `JsonWriter` writes for `target` over the JSON text `body` (no BOM)."""
    text = body.decode("utf-8")
    root = parse_spans(text)
    new = JsonWriter(text, root, detect_style(text, root)).render(target, "")
    return (text[: root.start] + new + text[root.end :]).encode("utf-8")


def _both(body: bytes, target: Node) -> tuple[bytes | None, bytes]:
    layout = regular_layout(body, orjson.loads(body))
    assert layout is not None
    fast = render_regular(target, orjson.loads(body), layout)
    return (None if fast is None else fast + layout.end), _writer(body, target)


def _layout_text(value: Any, inline: bool) -> bytes:
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return inline_arrays(text) if inline else text


@pytest.mark.parametrize("inline", [False, True], ids=["block", "inline"])
def test_a_migration_like_target_is_written_here_as_the_writer_writes_it(inline):
    body = _layout_text(DATA, inline) + b"\n"
    target = Obj(
        [
            ("schema_version", Val("spec-first.workflow-eval-fixtures.v1")),
            ("name", Src(("name",))),
            ("coverage_tags", Arr([Src(("tags", 0)), Src(("tags", 1)), Val("new")], origin=("tags",))),
            (
                "cases",
                Arr(
                    [
                        Obj(
                            [
                                ("id", Src(("cases", 0, "id"))),
                                ("input", Val('é \n"')),
                                ("refs", Arr([Val("r1"), Val("r2")])),
                                ("extensions", Obj([("n", Src(("cases", 0, "n"))), ("o", Src(("cases", 0, "o")))])),
                            ],
                            origin=("cases", 0),
                        )
                    ],
                    origin=("cases",),
                ),
            ),
            ("extensions", Obj([("tags", Src(("tags",))), ("all", Src(()))])),
        ],
        origin=(),
    )
    fast, slow = _both(body, target)
    assert fast == slow
    assert b'"refs": ["r1", "r2"]' in slow if inline else b'"refs": [\n' in slow


# Each target the writer lays out otherwise than the layout: the writer's bytes differ from
# the layout's text of the target's data, and `render_regular` leaves them to the writer.
_GUARDED = [
    pytest.param(
        False,
        Obj([("wrapped", Obj([("id", Src(("cases", 0, "id")))], origin=("cases", 0)))]),
        id="edited-object-at-another-depth",
    ),
    pytest.param(False, Obj([("n", Val(1e-07))]), id="new-float"),  # orjson: 1e-7
    pytest.param(False, Obj([("t", Val((1, 2)))]), id="new-tuple"),
    pytest.param(False, Obj([("a", Val(1)), ("a", Val(2))]), id="repeated-key"),
    pytest.param(
        True,
        Obj(
            [
                (
                    "cases",
                    Arr(
                        [Obj([("empty", Arr([Val("x")], origin=("cases", 0, "empty")))], origin=("cases", 0))],
                        origin=("cases",),
                    ),
                )
            ],
            origin=(),
        ),
        id="inline-empty-array-edited",
    ),
    pytest.param(
        True,
        Obj([("tags", Arr([Src(("tags", 0)), Val({"k": 1})], origin=("tags",)))], origin=()),
        id="inline-array-receives-an-object",
    ),
    pytest.param(
        True,
        Obj([("cases", Arr([Val("x")], origin=("cases",)))], origin=()),
        id="inline-array-of-objects-becomes-scalars",
    ),
    pytest.param(
        True,
        Obj([("cases", Arr([Arr([Val("z")], origin=("cases", 0))], origin=("cases",)))], origin=()),
        id="array-edited-from-an-object",  # the writer keeps the object's lines
    ),
    pytest.param(
        False, Obj([("tags", Obj([("x", Val(1))], origin=("tags",)))], origin=()), id="object-edited-from-an-array"
    ),
    pytest.param(False, Obj([("x", Src(("nope",)))]), id="a-path-not-in-the-data"),
]


@pytest.mark.parametrize("inline, target", _GUARDED)
def test_guarded_targets_are_left_to_the_writer(inline, target):
    body = _layout_text(DATA, inline)
    layout = regular_layout(body, DATA)
    assert layout is not None and layout.inline is inline
    assert render_regular(target, orjson.loads(body), layout) is None
    try:
        written = _writer(body, target)
    except Exception:  # noqa: BLE001 - a target the writer refuses is left to it too
        return
    plain = json.loads(written)
    assert written != _layout_text(plain, inline)


# Random data in a regular layout, and random targets over it: kept, renamed, dropped,
# moved and new members, edited containers (at their own depth or another), new values.
_KEYS = st.sampled_from(["a", "b", "id", "é", 'q"', "extensions", "x\n", "\\u00e9", "\x7f"])
_FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e-07, 2.5e-05, 1e16, -0.0])
_SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63) | _FLOATS | st.text(max_size=5) | _KEYS
_DATA = st.recursive(
    _SCALARS | st.lists(_SCALARS, min_size=1, max_size=3),  # most arrays of a fixture hold scalars
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)
_NEW = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.text(max_size=4) | _FLOATS | _KEYS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found.extend(_paths(item, (*path, key)))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def _target(draw: Any, data: Any, path: tuple[Any, ...], budget: int) -> Node:
    value = _at(data, path)
    choices = ["keep", "new", "moved", "fresh"] + (["edit", "edit", "edit"] if isinstance(value, (dict, list)) else [])
    choice = draw(st.sampled_from(choices)) if budget > 0 else "keep"
    if choice == "keep":
        return Src(path)
    if choice == "new":
        return Val(draw(_NEW))
    if choice == "moved":
        return Src(draw(st.sampled_from(_paths(data))))
    if choice == "fresh":
        children = [
            draw(_target(data, draw(st.sampled_from(_paths(data))), budget - 1)) for _ in range(draw(st.integers(0, 3)))
        ]
        if draw(st.booleans()):
            return Arr(children)
        return Obj([(draw(_KEYS), child) for child in children])
    # Edited: members kept, renamed or dropped, new ones inserted, perhaps placed deeper.
    entries: list[tuple[Any, Node]] = []
    keys = list(value) if isinstance(value, dict) else list(range(len(value)))
    for key in keys:
        fate = draw(st.sampled_from(["keep", "keep", "rename", "drop", "recurse"]))
        if fate == "drop":
            continue
        child = draw(_target(data, (*path, key), budget - 1)) if fate == "recurse" else Src((*path, key))
        entries.append((draw(_KEYS) if fate == "rename" else key, child))
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), (draw(_KEYS), draw(_target(data, path, budget - 1))))
    node: Node = (
        Obj(entries, origin=path) if isinstance(value, dict) else Arr([child for _, child in entries], origin=path)
    )
    if draw(st.integers(0, 4)) == 0:
        node = Obj([(draw(_KEYS), node)])  # an edited container one level deeper than its source
    return node


_PAYLOADS = st.dictionaries(_KEYS, _DATA, min_size=1, max_size=4)


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), value=_PAYLOADS | st.lists(_PAYLOADS, min_size=1, max_size=3), inline=st.booleans())
def test_random_targets_are_written_as_the_writer_writes_them_or_left_to_it(data, value, inline):
    body = _layout_text(value, inline) + data.draw(st.sampled_from([b"", b"\n"]))
    layout = regular_layout(body, orjson.loads(body))
    if layout is None:  # only a file the writer adds `\\uXXXX` escapes to is not regular
        assert writes_ascii(body.decode("utf-8"))
        return
    target = data.draw(_target(orjson.loads(body), (), 4))
    fast = render_regular(target, orjson.loads(body), layout)
    event("written here" if fast is not None else "left to the writer")
    try:
        slow = _writer(body, target)
    except Exception:  # noqa: BLE001 - the writer refuses it: it must not be written here either
        assert fast is None
        return
    if fast is not None:
        assert fast + layout.end == slow


def _legacy_samples() -> list[tuple[str, Any]]:
    """A payload of every legacy family the benchmark generates, with the family's name."""
    import random
    import sys

    bench = Path(__file__).resolve().parents[2] / "bench"
    sys.path.insert(0, str(bench))
    try:
        from generate import FAMILIES, payload  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(bench))
    rng = random.Random(7)
    return [(name, payload(rng, name, "s")) for name in [*sorted(FAMILIES), "yao"]]


@pytest.mark.parametrize("inline", [False, True], ids=["block", "inline"])
def test_every_legacy_family_migrates_here_as_the_writer_migrates_it(inline, monkeypatch):
    samples = _legacy_samples()
    assert len(samples) >= 10
    real = json_regular.render_regular
    written_here: list[bool] = []

    def counted(*args: Any) -> bytes | None:
        out = real(*args)
        written_here.append(out is not None)
        return out

    for name, payload in samples:
        body = b"\xef\xbb\xbf" + _layout_text(payload, inline) + b"\n"  # a byte order mark stays
        path = f"skills/s/evals/{name}.json"
        monkeypatch.setattr(json_regular, "render_regular", counted)
        here = plan(body, path)
        monkeypatch.setattr(json_regular, "render_regular", lambda *args: None)
        by_writer = plan(body, path)
        assert here.status == "changed", (name, here.error and here.error.message)
        assert here.new_bytes == by_writer.new_bytes, name
        assert here.new_bytes.startswith(b"\xef\xbb\xbf{\n")
    assert written_here == [True] * len(samples)


def test_an_escaping_file_keeps_the_writers_escapes_through_the_engine(monkeypatch):
    payload = {"cases": [{"prompt": "what does \\u00e9 mean", "expected": "an e with an acute accent"}]}
    body = orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n"
    here = plan(body, "skills/café/evals/f.json")
    monkeypatch.setattr(json_regular, "render_regular", lambda *args: None)
    assert here.status == "changed" and here.new_bytes == plan(body, "skills/café/evals/f.json").new_bytes
    assert b'"skill": "caf\\u00e9"' in here.new_bytes
