"""YAML text: the span tree of a YAML document and the rules of its scalars.

`yaml_format` builds the span tree (`YNode`) from ruamel.yaml's parser events; this
module holds what needs no parser: where each node is in the text, how to find the
node at a payload path (`locate`) and the layout of a flow collection
(`flow_layout`), how text moves by whole columns, and which scalars every YAML
reader reads the same way. The writer that edits the text is
`fixture_migrate.formats.yaml_writer`; the style new text copies,
`fixture_migrate.formats.yaml_style`; the comments a moved member takes along,
`fixture_migrate.formats.yaml_comments`.

Scalars are never re-written: a moved scalar keeps its exact text (quotes, `yes`,
`0755`, `~`, dates, block scalars), and a new string is written plain only where
every YAML reader (1.1 and 1.2) reads it back as that same string (`plain_ok`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from fixture_migrate.formats import MAX_INT_DIGITS, integer_too_long
from fixture_migrate.formats.bracket_text import Layout, parse_layout
from fixture_migrate.formats.target import Path

SCALAR, MAP, SEQ, ALIAS = 0, 1, 2, 3

MERGE_KEY = "<<"

# Plain scalars every YAML reader (1.1 and 1.2 core) reads as the same non-string value;
# every other plain scalar is read as the string it is written as (`yes`, `0755`, `1e3`,
# dates, `.inf`), so migrating never turns one type into another.
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+][0-9]+)?")

CORE_TAG = "tag:yaml.org,2002:"
"""The prefix of the YAML core schema's tags (`!!str` is `tag:yaml.org,2002:str`)."""

# Words YAML 1.1 readers take for booleans or null; a new plain string must not be one.
_RESERVED = frozenset(
    "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~ = <<".split()
)
UNPRINTABLE = re.compile("[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]")
"""A character YAML does not print as it is, or reads as a line break: written escaped."""


def plain_value(text: str) -> Any:
    """The value of an untagged plain scalar written as `text`, as every YAML reader agrees:
    null, true/false, decimal integers and dotted floats; anything else as the string."""
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.fullmatch(text):
        if len(text.lstrip("+-")) > MAX_INT_DIGITS:
            raise integer_too_long()
        return int(text)
    if _FLOAT.fullmatch(text):
        number = float(text)
        if number == number and abs(number) != float("inf"):
            return number
    return text


def tagged_value(tag: str, text: str) -> Any:
    """The value of a scalar with an explicit tag: core scalar tags are honoured where the
    text is a value every reader agrees on; any other tag (local `!x`, `!!binary`, ...)
    is never constructed: the scalar reads as its text."""
    if tag.startswith(CORE_TAG):
        kind = tag[len(CORE_TAG) :]
        value = plain_value(text)
        if kind == "null" and value is None:
            return None
        if kind == "bool" and isinstance(value, bool):
            return value
        if kind == "int" and type(value) is int:
            return value
        if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return text


def plain_ok(value: str, *, flow: bool = False) -> bool:
    """Whether `value` may be written as a plain scalar and read back as this string by
    every YAML reader (conservative: anything that looks like a number, date, boolean or
    null, or holds an indicator, is quoted)."""
    if not value or value != value.strip() or value in _RESERVED:
        return False
    if value[0] in "-?:,[]{}#&*!|>'\"%@`" or value[0].isdigit():
        return False
    if value[0] in "+." and len(value) > 1 and (value[1].isdigit() or value[1] == "."):
        return False
    if value.lower() in (".inf", "-.inf", "+.inf", ".nan"):
        return False
    if "\n" in value or "\r" in value or "\t" in value or UNPRINTABLE.search(value):
        return False
    if ": " in value or " #" in value or value.endswith(":"):
        return False
    if flow and any(char in value for char in ",[]{}"):
        return False
    return True


def double_quoted(value: str) -> str:
    """A YAML double-quoted scalar for `value` (JSON escapes, plus the characters YAML
    treats as line breaks or does not print)."""
    text = json.dumps(value, ensure_ascii=False)
    return UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) < 0x10000 else m.group(), text)


def single_quoted(value: str) -> str:
    """A YAML single-quoted scalar for a one-line printable `value`."""
    return "'" + value.replace("'", "''") + "'"


_NO_MEMBERS: Mapping[str, Any] = MappingProxyType({})


class YNode:
    """A node's place in the text.

    `start` is where the node begins (its anchor or tag included), `cstart` where its
    content begins (the first key or dash of a block collection, the bracket of a
    flow one) and `end` where it ends (a block collection ends with the tail of its
    last element). `col` is the column of a block collection's keys or dashes (for
    others, of `cstart`); `owner` the column of the key or dash the node is the value
    of. Mappings keep `keys`, their `knodes`, `children` (values) and `index`;
    `merges` are the positions of `<<` members and `merged` maps each key they
    provide to the mapping that holds it. Sequences keep `children` and, in block
    style, the `dashes`. Block collections keep `elem_ends`: where each element's
    tail ends. `data` is the node's value as fixture-migrate reads it.

    A `YNode` itself is a scalar (`kind` SCALAR): its members are empty and shared
    (tuples, a read-only mapping), so a document of many small values costs one small
    object per value. Collections and aliases are `YBranch`es, which hold their own.
    """

    __slots__ = ("kind", "start", "cstart", "end", "style", "anchor", "tag", "col", "owner", "value", "data")

    # What a scalar has none of (a `YBranch` keeps its own in slots of these names).
    flow = False
    keys: Sequence[str] = ()
    knodes: Sequence[YNode] = ()
    children: Sequence[YNode] = ()
    index: Mapping[str, int] = _NO_MEMBERS
    merges: Sequence[int] = ()
    merged: Mapping[str, YNode] = _NO_MEMBERS
    dashes: Sequence[int] = ()
    elem_ends: Sequence[int] = ()
    target: YNode | None = None
    layout: Layout | None = None
    size = 1

    def __init__(self, kind: int, start: int) -> None:
        self.kind = kind
        self.start = start
        self.cstart = start
        self.end = start
        self.style: str | None = None
        self.anchor: str | None = None
        self.tag: str | None = None
        self.col = 0
        self.owner = 0
        self.value: str | None = None
        self.data: Any = None

    @property
    def weight(self) -> int:
        """The characters of scalar text the node expands to (aliases copied out)."""
        return len(self.value or "")

    @property
    def block(self) -> bool:
        """A block mapping or sequence (laid out by indentation)."""
        return self.kind in (MAP, SEQ) and not self.flow

    def elem_start(self, i: int) -> int:
        """Where element `i` of a collection starts: its key, its dash, or its value."""
        if self.kind == MAP:
            return self.knodes[i].start
        if not self.flow:
            return self.dashes[i]
        return self.children[i].start


class YBranch(YNode):
    """A mapping, a sequence or an alias (`kind` MAP, SEQ or ALIAS): a `YNode` with its own
    members, `size` (values it expands to) and `weight`. A mapping's `merges` and `merged`
    stay empty and shared until it has a `<<` member; only a block sequence gets `dashes`.
    With `members=False` (a composer that keeps only the data) all members start empty
    and shared."""

    __slots__ = (
        "flow",
        "keys",
        "knodes",
        "children",
        "index",
        "merges",
        "merged",
        "dashes",
        "elem_ends",
        "target",
        "layout",
        "size",
        "weight",
    )

    def __init__(self, kind: int, start: int, *, members: bool = True) -> None:
        super().__init__(kind, start)
        self.flow = False
        mapping = members and kind == MAP
        self.keys: list[str] = [] if mapping else ()  # type: ignore[assignment]
        self.knodes: list[YNode] = [] if mapping else ()  # type: ignore[assignment]
        self.children: list[YNode] = [] if members and kind != ALIAS else ()  # type: ignore[assignment]
        self.index: dict[str, int] = {} if mapping else _NO_MEMBERS  # type: ignore[assignment]
        self.merges: list[int] = ()  # type: ignore[assignment]
        self.merged: dict[str, YNode] = _NO_MEMBERS  # type: ignore[assignment]
        self.dashes: list[int] = ()  # type: ignore[assignment]
        self.elem_ends: list[int] = ()  # type: ignore[assignment]
        self.target: YNode | None = None
        self.layout: Layout | None = None
        self.size = 1
        self.weight = 0  # type: ignore[misc]


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def column(text: str, offset: int) -> int:
    return offset - line_start(text, offset)


def tail_end(text: str, pos: int, col: int) -> int:
    """Where the tail of an element whose value ends at `pos` ends (before a newline): the
    rest of its line when blank or a comment, then the comment-only lines right under it
    indented deeper than `col`, the column of the collection it belongs to."""
    size = len(text)
    eol = text.find("\n", pos)
    eol = size if eol == -1 else eol
    rest = text[pos:eol].strip(" \t\r")
    if rest and not rest.startswith("#"):
        return pos
    end = eol
    while end < size:
        following = text.find("\n", end + 1)
        following = size if following == -1 else following
        line = text[end + 1 : following]
        body = line.lstrip(" ")
        if body.startswith("#") and len(line) - len(body) > col:
            end = following
        else:
            break
    return pos if end == pos else end  # the same int object: one less per element


def lead_of(text: str, node: YNode, i: int) -> str:
    """The whole lines (blank or comment) just above element `i` of a block collection,
    each with its newline; nothing for the first element (its lines belong to the parent)."""
    if i == 0:
        return ""
    return text[node.elem_ends[i - 1] + 1 : line_start(text, node.elem_start(i))]


def shift_text(text: str, delta: int) -> str:
    """`text` with every line after the first moved `delta` columns (a negative `delta`
    removes up to that many leading spaces). Empty lines stay empty."""
    if not delta or "\n" not in text:
        return text
    lines = text.split("\n")
    return "\n".join([lines[0]] + [_shift_line(line, delta) for line in lines[1:]])


def shift_lines(text: str, delta: int) -> str:
    """`text`, whole lines, with every line moved `delta` columns."""
    if not delta or not text:
        return text
    return shift_text("\n" + text, delta)[1:]


def _shift_line(line: str, delta: int) -> str:
    if not line or line == "\r":
        return line
    if delta > 0:
        return " " * delta + line
    strip = min(-delta, len(line) - len(line.lstrip(" ")))
    return line[strip:]


def walk(root: YNode) -> list[YNode]:
    """Every node under `root` (keys included, aliases not followed), parents first."""
    found: list[YNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(node.children))
        stack.extend(reversed(node.knodes))
    return found


def member_of(node: YNode, key: str) -> tuple[YNode, int]:
    """`(mapping, index)` of the member that gives `node` its `key`, following `<<` merges."""
    if key in node.index:
        return node, node.index[key]
    provider = node.merged[key]
    return member_of(provider, key)


def locate(root: YNode, path: Path) -> tuple[YNode, YNode | None, int | None, bool]:
    """`(node, parent, index, direct)` for a payload path from the document's `root`: the
    node as written there (an alias stays an alias), the collection holding it and its
    position there, and whether the path reaches it without passing through an alias or
    a merge. Raises `KeyError` for a path the document does not have."""
    node, parent, index, direct = root, None, None, True
    for key in path:
        if node.kind == ALIAS:
            assert node.target is not None
            node, direct = node.target, False
        if node.kind == MAP and isinstance(key, str):
            holder, i = member_of(node, key)
            direct = direct and holder is node
            parent, index, node = holder, i, holder.children[i]
        elif node.kind == SEQ and isinstance(key, int) and 0 <= key < len(node.children):
            parent, index, node = node, key, node.children[key]
        else:
            raise KeyError(key)
    return node, parent, index, direct


def flow_layout(text: str, node: YNode) -> Layout:
    """The layout of the flow collection `node` in `text` (`bracket_text.parse_layout`), kept
    on the node once read."""
    if node.layout is None:
        starts = [node.elem_start(i) for i in range(len(node.children))]
        ends = [child.end for child in node.children]
        if node.kind == MAP:
            ends = [max(child.end, key.end) for key, child in zip(node.knodes, node.children, strict=True)]
        node.layout = parse_layout(text, node.cstart, node.end - 1, starts, ends)
    return node.layout
