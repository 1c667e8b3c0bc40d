"""The target tree: what a migrated payload holds, and where each piece comes from.

Adapters describe the canonical payload they want as a tree of four node kinds;
the syntax writers in `fixture_migrate.formats` turn that tree into text by editing the
original file, so every piece that comes from the source keeps its exact text:

- `Src(path)`: the original value at `path` (a tuple of keys and indices from the
  top of the payload), unchanged. Placed where it was, it keeps its bytes; placed
  elsewhere (a member moved under `extensions`), it keeps its text re-indented.
- `Val(value)`: a new value (a string, number, bool, None, or lists and dicts of
  them), written in the file's own style.
- `Obj(members, origin)`: an object. With `origin`, it is the original object at
  that path edited: members whose node comes from `origin + (key,)` are that
  original member (renamed when the key differs), others are new or moved in.
- `Arr(items, origin)`: an array, with `origin` as for `Obj`.

A subtree equal to the source is always written as `Src` of its own path, so a
payload that needs no change is exactly `Src(())`.
"""

from __future__ import annotations

from typing import Any, Union

from fixture_migrate.slots import Record

PathKey = Union[str, int]
Path = tuple[PathKey, ...]


class _Node(Record):
    """Value semantics for the four node kinds: equal when of one kind with equal fields
    (plain slotted classes, see `fixture_migrate.slots`: these are built for every member of
    every file). `Src` and `Val` hash by value; `Obj` and `Arr` are mutable, like lists."""

    __slots__ = ()
    __hash__ = Record.value_hash


class Src(_Node):
    """The source value at `path`, unchanged."""

    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path


class Val(_Node):
    """A new value, written in the file's style."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Obj(_Node):
    """An object: `members` in order, as `(key, node)` pairs; `origin` the source object it edits."""

    __slots__ = ("members", "origin")
    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __init__(self, members: list[tuple[str, Node]] | None = None, origin: Path | None = None) -> None:
        self.members = [] if members is None else members
        self.origin = origin


class Arr(_Node):
    """An array: `items` in order; `origin` the source array it edits."""

    __slots__ = ("items", "origin")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, items: list[Node] | None = None, origin: Path | None = None) -> None:
        self.items = [] if items is None else items
        self.origin = origin


Node = Union[Src, Val, Obj, Arr]


def node_origin(node: Node) -> Path | None:
    """The source path a node stands for (`Src.path` or a container's `origin`), else None."""
    if isinstance(node, Src):
        return node.path
    if isinstance(node, (Obj, Arr)):
        return node.origin
    return None


def is_unchanged(node: Node, path: Path = ()) -> bool:
    """True when `node` is the source value at `path` itself, untouched."""
    return isinstance(node, Src) and node.path == path


def value_at(data: Any, path: Path) -> Any:
    """The value at `path` inside parsed `data`; raises KeyError or IndexError when absent."""
    for key in path:
        data = data[key]
    return data


def materialize(node: Node, data: Any) -> Any:
    """The plain data a target tree stands for, reading `Src` values from the source `data`."""
    if isinstance(node, Src):
        return value_at(data, node.path)
    if isinstance(node, Val):
        return node.value
    if isinstance(node, Obj):
        return {key: materialize(child, data) for key, child in node.members}
    return [materialize(child, data) for child in node.items]


def count_moves(node: Node, path: Path = ()) -> int:
    """How many source values the target places away from where they were (moved or renamed)."""
    if isinstance(node, Src):
        return 0 if node.path == path else 1
    if isinstance(node, Val):
        return 0
    if isinstance(node, Obj):
        own = node.origin
        return sum(count_moves(child, own + (key,) if own is not None else ("\0",)) for key, child in node.members)
    own = node.origin
    return sum(count_moves(child, own + (i,) if own is not None else ("\0",)) for i, child in enumerate(node.items))


_NO_KEY = object()
"""Stands for a key a short target path does not have."""


def count_extension_moves(node: Node, at: Path = ()) -> int:
    """How many source values the target moves under an `extensions` object from elsewhere
    (the "fields moved to extensions" of a migration summary); `at` is `node`'s target path."""
    # Iterative: a value is moved in when the container holding it is the value of a member
    # named `extensions` (and it was not under one already), so only containers go on the
    # stack, each with its own key; the values they hold are judged where they are met.
    if node.__class__ is Src:
        source = node.path  # type: ignore[union-attr]
        moved = len(at) >= 2 and at[-2] == "extensions" and not (len(source) >= 2 and source[-2] == "extensions")
        return 1 if moved else 0
    count = 0
    stack = [(node, at[-1] if at else _NO_KEY)]
    push, pop = stack.append, stack.pop
    while stack:
        current, last = pop()
        kind = current.__class__
        if kind is Obj:
            pairs: Any = current.members  # type: ignore[union-attr]
        elif kind is Arr:
            pairs = enumerate(current.items)  # type: ignore[union-attr]
        else:
            continue
        into = last == "extensions"
        for key, child in pairs:
            child_kind = child.__class__
            if child_kind is Src:
                if into:
                    source = child.path
                    if not (len(source) >= 2 and source[-2] == "extensions"):
                        count += 1
            elif child_kind is Obj or child_kind is Arr:
                push((child, key))
    return count



def moved_paths(node: Node, at: Path = ()) -> list[tuple[Path, Path]]:
    """Each `(source path, target path)` of a source value or container the target places
    away from where it was (renamed, moved under `extensions`, or in a renamed container),
    outermost first; `at` is `node`'s target path. A value whose container moved is listed
    only when its own key changes too (`examples[0].user_intent` -> `cases[0].input`), so the
    list says what a reader of the file must read under another name."""
    found: list[tuple[Path, Path]] = []
    stack: list[tuple[Node, Path, Path | None]] = [(node, at, None)]
    while stack:
        current, where, parent_origin = stack.pop()
        origin = node_origin(current)
        if origin is not None and origin != where:
            expected = None if parent_origin is None else parent_origin + where[-1:]
            if origin != expected or not where:
                found.append((origin, where))
        if isinstance(current, Obj):
            children: list[tuple[Any, Node]] = list(current.members)
        elif isinstance(current, Arr):
            children = list(enumerate(current.items))
        else:
            continue
        for key, child in reversed(children):
            stack.append((child, where + (key,), origin))
    return found
