"""The conservation check: a migrated file holds every leaf value of the original.

DESIGN.md, "Conservation": the multiset of leaf values (strings, numbers,
booleans, nulls, empty containers) of the migrated file contains that of the
legacy file. Leaves are compared with their type, so `1`, `1.0` and `true` are
three different leaves, and counted, so a value that appeared twice must still
appear twice.

One refinement keeps the check from refusing what migration is for: a case
(an object that is an item of an array) and an `extensions` object are the
objects a migration writes into, so each counts as one object leaf whether it
is empty or not. An empty `extensions: {}` that receives a moved member, or an
empty case `{}` that receives its explicit id, is kept, not lost; any other
empty object or array still counts as a leaf of its own.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

Leaf = tuple[str, Any]

_FILLABLE = ("object", "fillable")


def leaves(data: Any) -> Counter[Leaf]:
    """The multiset of typed leaves of a parsed value (iterative: depth is not bounded by recursion)."""
    found: Counter[Leaf] = Counter()
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        value, fillable = stack.pop()
        if isinstance(value, dict):
            if fillable:
                found[_FILLABLE] += 1
            elif not value:
                found[("object", "{}")] += 1
            stack.extend((item, key == "extensions") for key, item in value.items())
        elif isinstance(value, list):
            if value:
                stack.extend((item, True) for item in value)
            else:
                found[("array", "[]")] += 1
        elif isinstance(value, bool) or value is None:
            found[("literal", value)] += 1
        elif isinstance(value, float):
            found[("float", repr(value))] += 1
        else:
            found[(type(value).__name__, value)] += 1
    return found


def missing_leaves(before: list[Any], after: list[Any]) -> Counter[Leaf]:
    """The leaves of the `before` values that the `after` values lack (empty when conserved)."""
    old = Counter[Leaf]()
    new = Counter[Leaf]()
    for value in before:
        old.update(leaves(value))
    for value in after:
        new.update(leaves(value))
    return old - new
