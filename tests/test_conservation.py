"""migrate.conservation: every leaf of the original is in the migration; an empty container
filled in place counts as kept, one that disappears does not."""

from __future__ import annotations

import json

import pytest

from migrate.conservation import filled_in_place, leaves, missing_leaves
from migrate.plan import Obj, Src, Val
from tests.helpers import migrate_sample, plan


def test_leaves_are_typed_and_counted():
    found = leaves({"a": [1, 1.0, True, None, "1", {}, []], "b": 1})
    assert found[("int", 1)] == 2 and found[("float", "1.0")] == 1 and found[("literal", True)] == 1
    assert found[("object", "{}")] == 1 and found[("array", "[]")] == 1 and found[("str", "1")] == 1


def test_a_lost_leaf_is_reported_with_its_count():
    assert missing_leaves([{"a": ["x", "x"]}], [{"a": ["x"]}]) == {("str", "x"): 1}


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            {
                "schema_version": "spec-first.workflow-eval-fixtures.v1",
                "cases": [{"id": "a", "input": "x", "extensions": {}, "must_find": "y"}],
            },
            id="canonical-case-with-empty-extensions-and-a-stray",
        ),
        pytest.param(
            {"extensions": {}, "schema_version": "prompt-examples/v1", "examples": [], "cases": []},
            id="legacy-file-with-empty-extensions",
        ),
    ],
)
def test_an_empty_extensions_filled_in_place_is_not_a_loss(source):
    # Regression: these were refused ("would lose 1 value(s): '{}'") and could never be migrated.
    migrated = migrate_sample(json.dumps(source))
    assert migrated.result.status == "changed"
    assert plan(migrated.after).status == "unchanged"


def test_an_empty_container_that_disappears_is_still_a_loss():
    source = {"extensions": {}, "keep": 1}
    target = Obj([("extensions", Obj([("moved", Src(("keep",)))], origin=("extensions",)))], origin=())
    assert filled_in_place(target, source, {"extensions": {"moved": 1}}) == {("object", "{}"): 1}
    assert filled_in_place(target, source, {"extensions": "gone", "x": 1}) == {}
    assert filled_in_place(target, source, {}) == {}
    not_empty = Obj([("extensions", Obj([("new", Val(1))], origin=("extensions",)))], origin=())
    assert filled_in_place(not_empty, {"extensions": {"a": 2}}, {"extensions": {"a": 2, "new": 1}}) == {}
