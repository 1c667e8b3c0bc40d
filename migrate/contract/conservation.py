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


def _scalar(value: Any) -> Leaf:
    if value is None or type(value) is bool:
        return ("literal", value)
    if type(value) is float:
        return ("float", repr(value))
    return (type(value).__name__, value)


def leaves(data: Any) -> Counter[Leaf | str]:
    """The multiset of typed leaves of a parsed value (iterative: depth is not bounded by recursion)."""
    strings: list[str] = []
    others: list[Leaf] = []
    fillable = 0
    add_string, add_other = strings.append, others.append
    # Only containers go on the stack, with whether they sit where a migration writes
    # (a case, an `extensions` object); strings, the most common leaves, are taken where
    # they are met.
    stack: list[tuple[Any, bool]] = [(data, False)]
    push, pop = stack.append, stack.pop
    while stack:
        value, in_place = pop()
        kind = type(value)
        if kind is dict:
            if in_place:
                fillable += 1
            elif not value:
                add_other(("object", "{}"))
            for key, item in value.items():
                item_kind = type(item)
                if item_kind is str:
                    add_string(item)
                elif item_kind is dict or item_kind is list:
                    push((item, key == "extensions"))
                else:
                    add_other(_scalar(item))
        elif kind is list:
            if not value:
                add_other(("array", "[]"))
            for item in value:
                item_kind = type(item)
                if item_kind is str:
                    add_string(item)
                elif item_kind is dict or item_kind is list:
                    push((item, True))
                else:
                    add_other(_scalar(item))
        elif kind is str:
            add_string(value)
        else:
            add_other(_scalar(value))
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
