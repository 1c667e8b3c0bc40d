"""The conservation check: a migrated file holds every leaf value of the original.

DESIGN.md, "Conservation": the multiset of leaf values (strings, numbers,
booleans, nulls, empty containers) of the migrated file contains that of the
legacy file. Leaves are compared with their type, so `1`, `1.0` and `true` are
three different leaves, and counted, so a value that appeared twice must still
appear twice.

One refinement: an empty container the migration fills in place (an empty
`extensions` that receives moved members, say) is still there, holding more; it
is no longer an empty-container leaf, yet nothing was lost. `filled_in_place`
finds such containers from the target tree, checking that the migrated data
really holds a non-empty container of the same kind where the tree puts it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from migrate.plan import Arr, Node, Obj, Path, value_at

Leaf = tuple[str, Any]


def leaves(data: Any) -> Counter[Leaf]:
    """The multiset of typed leaves of a parsed value (iterative: depth is not bounded by recursion)."""
    found: Counter[Leaf] = Counter()
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value:
                stack.extend(value.values())
            else:
                found[("object", "{}")] += 1
        elif isinstance(value, list):
            if value:
                stack.extend(value)
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


def filled_in_place(target: Node, source: Any, migrated: Any) -> Counter[Leaf]:
    """The empty-container leaves of `source` that the target tree `target` edits in place
    (an `Obj`/`Arr` whose origin is an empty object/array of `source`) and that `migrated`,
    the data written, holds as a container of the same kind at the tree's place."""
    found: Counter[Leaf] = Counter()
    stack: list[tuple[Node, Path]] = [(target, ())]
    while stack:
        node, place = stack.pop()
        if isinstance(node, Obj):
            stack.extend((child, place + (key,)) for key, child in node.members)
        elif isinstance(node, Arr):
            stack.extend((child, place + (i,)) for i, child in enumerate(node.items))
        else:
            continue
        if node.origin is None:
            continue
        try:
            before, after = value_at(source, node.origin), value_at(migrated, place)
        except (KeyError, IndexError, TypeError):
            continue
        kind = dict if isinstance(node, Obj) else list
        if type(before) is kind and not before and isinstance(after, kind):
            found[("object", "{}") if kind is dict else ("array", "[]")] += 1
    return found
