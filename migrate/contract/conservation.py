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
"""A non-string leaf as `(kind, value)`; a string leaf is the string itself (no tuple
can equal a string, and counting bare strings runs in C)."""

_FILLABLE = ("object", "fillable")


def leaves(data: Any) -> Counter[Leaf | str]:
    """The multiset of typed leaves of a parsed value (iterative: depth is not bounded by recursion)."""
    strings: list[str] = []
    others: list[Leaf] = []
    fillable = 0
    stack: list[tuple[Any, bool]] = [(data, False)]
    pop = stack.pop
    while stack:
        value, in_place = pop()
        kind = type(value)
        if kind is str:
            strings.append(value)
        elif kind is dict:
            if in_place:
                fillable += 1
            elif not value:
                others.append(("object", "{}"))
            stack.extend([(item, key == "extensions") for key, item in value.items()])
        elif kind is list:
            if value:
                stack.extend([(item, True) for item in value])
            else:
                others.append(("array", "[]"))
        elif value is None or kind is bool:
            others.append(("literal", value))
        elif kind is float:
            others.append(("float", repr(value)))
        else:
            others.append((kind.__name__, value))
    found: Counter[Leaf | str] = Counter(strings)
    found.update(others)
    if fillable:
        found[_FILLABLE] += fillable
    return found


def missing_leaves(before: list[Any], after: list[Any]) -> Counter[Leaf | str]:
    """The leaves of the `before` values that the `after` values lack (empty when conserved)."""
    old: Counter[Leaf | str] = Counter()
    new: Counter[Leaf | str] = Counter()
    for value in before:
        old.update(leaves(value))
    for value in after:
        new.update(leaves(value))
    return old - new
