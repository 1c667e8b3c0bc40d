"""`fixture_migrate.formats.json_format`: the nesting limit is exact however a file nests, and
the quick test in front of the walk that counts it never clears a file too deep."""

from __future__ import annotations

import json

import pytest

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import MAX_DEPTH
from fixture_migrate.formats.json_format import _depth, _shallow, parse_json


def nested(depth: int, innermost: object, wrap: str) -> object:
    """A value `depth` containers deep whose innermost container holds `innermost`."""
    value: object = innermost
    for level in range(depth):
        if wrap == "list":
            value = [value]
        elif wrap == "object":
            value = {"k": value}
        else:  # alternating, with siblings at every level
            value = [1, {"a": value, "b": "x"}] if level % 2 else {"a": [value, "y"], "b": []}
    return value


@pytest.mark.parametrize("wrap", ["list", "object", "mixed"])
@pytest.mark.parametrize("innermost", [[], {}, [1], {"x": "y"}])
@pytest.mark.parametrize("depth", [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
def test_the_limit_is_exact_and_the_quick_test_never_clears_a_deep_file(depth, innermost, wrap):
    data = nested(depth, innermost, wrap)
    levels = _depth(data)
    if _shallow(data):
        assert levels <= MAX_DEPTH
    body = json.dumps(data).encode()
    if levels > MAX_DEPTH:
        with pytest.raises(FixtureError) as caught:
            parse_json(body)
        assert caught.value.code == "too_deep"
    else:
        assert parse_json(body) == data


def test_the_quick_test_clears_a_large_shallow_file_and_leaves_big_integers_to_the_walk():
    cases = [{"id": f"c{i}", "input": "x", "coverage_tags": ["a", "b"], "extensions": {"k": [1, {"v": []}]}} for i in range(300)]
    assert _shallow({"cases": cases}) and _depth({"cases": cases}) == 7
    assert not _shallow({"n": 2**70})  # orjson cannot write it: the walk decides
    assert parse_json(b'{"n": [' + b"1" * 30 + b"]}") == {"n": [int("1" * 30)]}
