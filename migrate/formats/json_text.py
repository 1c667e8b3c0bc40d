"""JSON text: a span tree of a JSON document, and a writer that edits it in place.

Parsing for data is orjson's job; this module only needs to know where each
value, member and key sits in the original text, so that a target tree
(`fixture_migrate.formats.target`) can be written back as edits of that text: a member that stays
keeps its bytes, a member that moves keeps its text re-indented, separators
between members that stay neighbours are kept as they were, and new members
copy the file's own style (indent unit, `": "` spacing, inline or multi-line
scalar arrays, `\\uXXXX` escapes, line endings).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.formats.target import Arr, Node, Obj, Path, Src, Val
from fixture_migrate.patterns import LazyRegex
from fixture_migrate.slots import Record

SCALAR, OBJECT, ARRAY = 0, 1, 2

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_OTHER = r'[^\s{}\[\],:"]+'
_ITEM = rf"(?:{_STRING}|{_OTHER})"
_SCALARS = rf"\[[ \t\r\n]*+(?:{_ITEM}(?:[ \t\r\n]*+,[ \t\r\n]*+{_ITEM})*+[ \t\r\n]*+)?\]"
"""An array of scalars (or an empty one), whole: most arrays of a fixture are such lists. The
loop over its items is possessive: giving an item back could never let the `]` match, and the
engine keeps no state per item (a loop it may backtrack into holds some 300 bytes an item)."""
_SPANS = LazyRegex(
    rf'[\s,]*+(?:({_STRING})(?:[ \t\r\n]*+(:)(?:[ \t\r\n]*+(?:({_STRING})|({_OTHER})|({_SCALARS})))?)?'
    rf'|({_OTHER})|([{{\[])|[}}\]])'
)
"""One token and the whitespace and commas before it: a string (group 1; with group 2, the
colon that makes it a key, and then the key's value when it is a scalar: a string, 3, or
another scalar, 4; or an array of scalars, 5), another scalar (6), an opening bracket (7) or
a closing one. A member with a scalar value is one token: most members of a fixture are; so
is a member whose value is a list of scalars, whose items are found when first asked for
(`_ScalarArray`)."""
_STRING_VALUE, _KEY, _SCALAR, _OPEN = 1, 2, 6, 7
_MEMBER_SCALAR, _MEMBER_ARRAY = 4, 5
_NO_CHILDREN: tuple[JNode, ...] = ()
"""The children of every scalar (shared; a tuple, so nothing can append to it)."""
_ITEMS = LazyRegex(rf"[\s,]*({_STRING}|{_OTHER})")
"""One item of an array of scalars, with the whitespace and comma before it."""
_UNICODE_ESCAPE = LazyRegex(r"\\u([0-9a-fA-F]{4})")


class JNode:
    """A value's span in the text: `start`/`end` offsets; for objects, `keys`, their
    `key_spans` and an `index` of key -> position; `children` the values in order."""

    __slots__ = ("kind", "start", "end", "keys", "key_spans", "children", "index")

    def __init__(self, kind: int, start: int) -> None:
        self.kind = kind
        self.start = start
        self.end = start
        self.children: list[JNode] = []
        if kind == OBJECT:
            self.keys: list[str] = []
            self.key_spans: list[tuple[int, int]] = []
            self.index: dict[str, int] = {}

    def child(self, key: str | int) -> JNode:
        """The value at `key` (an object key or an array index)."""
        if self.kind == OBJECT:
            return self.children[self.index[key]]  # type: ignore[index]
        return self.children[key]  # type: ignore[index]

    def member_start(self, i: int) -> int:
        """Where member (or item) `i` starts: its key for objects, its value for arrays."""
        return self.key_spans[i][0] if self.kind == OBJECT else self.children[i].start


class _Scalar(JNode):
    """A scalar's span: its kind and (no) children are the class's, so that a parse sets
    only `start` and `end` for the most common node."""

    __slots__ = ()
    kind = SCALAR  # type: ignore[assignment]
    children = _NO_CHILDREN  # type: ignore[assignment]


_WS = LazyRegex(r"[ \t\r\n]*")


class _ScalarArray(JNode):
    """The span of an array of scalars that is a member's value, parsed whole (one token of
    `parse_spans`): its items' spans are found the first time `children` is read, in the text
    `text` it lies in. Most such arrays are copied or moved whole, their items never asked for."""

    __slots__ = ("text", "_items")
    kind = ARRAY  # type: ignore[assignment]

    @property  # type: ignore[override]
    def children(self) -> list[JNode]:
        items = self._items
        if items is None:
            items = self._items = []
            new = JNode.__new__
            for match in _ITEMS.finditer(self.text, self.start + 1, self.end - 1):
                node = new(_Scalar)
                node.start, node.end = match.span(1)
                items.append(node)
        return items

    def first(self) -> int:
        """Where its first item starts (at the closing bracket when it has none)."""
        after = self.start + 1
        if self.text[after] not in " \t\r\n":
            return after
        return _WS.match(self.text, after).end()


def parse_spans(text: str, offset: int = 0, end: int | None = None) -> JNode:
    """The span tree of the JSON value in `text[offset:end]`, which must be valid JSON.

    Raises `FixtureError` (code `duplicate_key`) naming the line and column of the
    second occurrence of a key within one object.
    """
    # One regex match per token, with the whitespace and commas before it (skipping them
    # inside the match is cheaper than letting the search step over them); a string
    # followed by `:` is a key (in valid JSON nothing else is), so colons are no tokens.
    stack: list[JNode] = []
    top: JNode | None = None
    root: JNode | None = None
    new = JNode.__new__
    for match in _SPANS.finditer(text, offset, len(text) if end is None else end):
        kind = match.lastindex
        if kind is not None and _KEY <= kind <= _MEMBER_ARRAY:  # a key, perhaps with its scalar (array) value
            key = match.group(1)
            key = json.loads(key) if "\\" in key else key[1:-1]
            index = top.index  # type: ignore[union-attr]
            if key in index:
                line, column = line_col(text, match.start(1))
                raise FixtureError(
                    f"duplicate key {key!r} in one object", code="duplicate_key", line=line, column=column
                )
            index[key] = len(index)
            top.keys.append(key)  # type: ignore[union-attr]
            top.key_spans.append(match.span(1))  # type: ignore[union-attr]
            if kind == _KEY:
                continue
            if kind == _MEMBER_ARRAY:
                node = new(_ScalarArray)
                node.start, node.end = match.span(kind)
                node.text, node._items = text, None
                top.children.append(node)  # type: ignore[union-attr]
                continue
        elif kind == _OPEN:
            node = JNode(OBJECT if match.group(_OPEN) == "{" else ARRAY, match.end() - 1)
            if top is None:
                root = node
            else:
                top.children.append(node)
            stack.append(node)
            top = node
            continue
        elif kind is None:  # a closing bracket
            stack.pop().end = match.end()
            top = stack[-1] if stack else None
            continue
        node = new(_Scalar)  # a member's value (kinds 3 and 4), or not (1 and 6)
        node.start, node.end = match.span(kind)
        if top is None:
            root = node
        else:
            top.children.append(node)
    if root is None:
        raise FixtureError("no JSON value", code="invalid_json", line=1, column=1)
    return root


class JsonStyle(Record):
    """How a file writes what the writer adds: `unit` indent, `newline`, `colon` (`": "`),
    `compact` (one line, no indentation), `inline_arrays` (scalar arrays on one line),
    with `inline_keys`/`block_keys` the member names whose scalar arrays the file writes
    inline/multi-line (they win over the file-wide vote), `ascii` (non-ASCII as `\\uXXXX`),
    `item_sep` between the items of an inline array."""

    __slots__ = (
        "unit",
        "newline",
        "colon",
        "compact",
        "inline_arrays",
        "ascii",
        "item_sep",
        "inline_keys",
        "block_keys",
    )
    __hash__ = Record.value_hash

    def __init__(
        self,
        unit: str = "  ",
        newline: str = "\n",
        colon: str = ": ",
        compact: bool = False,
        inline_arrays: bool = False,
        ascii: bool = False,
        item_sep: str = ", ",
        inline_keys: frozenset[str] = frozenset(),
        block_keys: frozenset[str] = frozenset(),
    ) -> None:
        self.unit = unit
        self.newline = newline
        self.colon = colon
        self.compact = compact
        self.inline_arrays = inline_arrays
        self.ascii = ascii
        self.item_sep = item_sep
        self.inline_keys = inline_keys
        self.block_keys = block_keys

    def inline_array(self, key: str | None) -> bool:
        """Whether a new scalar array under member `key` is written on one line."""
        if self.compact or key in self.inline_keys:
            return True
        return False if key in self.block_keys else self.inline_arrays


_ARRAY_FIELDS = frozenset({"inline_arrays", "item_sep", "inline_keys", "block_keys"})
"""The facts of a `JsonStyle` that say how the file writes its arrays of scalars."""


class _DetectedStyle(JsonStyle):
    """A `JsonStyle` read off a document (`detect_style`): its array facts (`_ARRAY_FIELDS`)
    are voted over the document's arrays of scalars the first time one of them is read.
    Most migrations write no new array, and never pay for the vote. Equal to any
    `JsonStyle` with the same facts."""

    __slots__ = ("_source",)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return JsonStyle.field_names()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonStyle) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash((JsonStyle.__name__, *self._values()))  # as an equal `JsonStyle` hashes

    def __getattr__(self, name: str) -> Any:
        # Called only for a field not set yet: an array fact before the vote.
        if name not in _ARRAY_FIELDS:
            raise AttributeError(name)
        text, root = self._source
        inline, multiline, item_sep = 0, 0, None
        inline_keys: set[str] = set()
        block_keys: set[str] = set()
        for key, node in _scalar_arrays(root):
            first = node.first() if node.__class__ is _ScalarArray else node.children[0].start  # type: ignore[attr-defined]
            if text.find("\n", node.start + 1, first) >= 0:
                multiline += 1
                if key is not None:
                    block_keys.add(key)
            else:
                inline += 1
                if key is not None:
                    inline_keys.add(key)
                if item_sep is None and len(node.children) > 1:
                    item_sep = text[node.children[0].end : node.children[1].start]
        self.inline_arrays = self.compact or inline > multiline
        self.item_sep = item_sep or (", " if self.colon.endswith(" ") else ",")
        self.inline_keys = frozenset(inline_keys - block_keys)
        self.block_keys = frozenset(block_keys - inline_keys)
        return getattr(self, name)


def writes_ascii(text: str) -> bool:
    """Whether a JSON text writes text beyond ASCII as `\\uXXXX` escapes (`JsonStyle.ascii`):
    it is all ASCII and holds at least one such escape of a character past U+007F. (The
    test reads an escaped backslash followed by `u` and four hex digits as one too.)"""
    return text.isascii() and any(int(h, 16) >= 0x80 for h in _UNICODE_ESCAPE.findall(text))


def detect_style(text: str, root: JNode) -> JsonStyle:
    """The `JsonStyle` of a document from its text and span tree (its array facts are read
    off the text when first asked for: `_DetectedStyle`)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    ascii_only = writes_ascii(text)
    colon = ": "
    if root.kind == OBJECT and root.keys:
        colon = text[root.key_spans[0][1] : root.children[0].start]
    compact = text.find("\n", root.start, root.end) < 0
    unit = "  "
    if not compact and root.kind != SCALAR and root.children:
        gap = text[root.start + 1 : root.member_start(0)]
        if "\n" in gap:
            member_indent = gap[gap.rfind("\n") + 1 :]
            base = _line_indent(text, root.start)
            unit = member_indent[len(base) :] if member_indent.startswith(base) else member_indent
            unit = unit or "  "
    style = _DetectedStyle.__new__(_DetectedStyle)
    style.unit, style.newline, style.colon, style.compact, style.ascii = unit, newline, colon, compact, ascii_only
    style._source = (text, root)
    return style


def _scalar_arrays(root: JNode, limit: int = 200) -> list[tuple[str | None, JNode]]:
    """Up to `limit` non-empty arrays of scalars, each with the member name it is the value of."""
    found: list[tuple[str | None, JNode]] = []
    stack: list[tuple[str | None, JNode]] = [(None, root)]
    while stack and len(found) < limit:
        key, node = stack.pop()
        if node.__class__ is _ScalarArray:  # its items are not parsed to say so
            if node.first() < node.end - 1:  # type: ignore[attr-defined]
                found.append((key, node))
            continue
        children = node.children
        if node.kind == OBJECT:
            stack.extend([(name, child) for name, child in zip(node.keys, children) if child.kind != SCALAR])
        elif children:
            nested = [(None, child) for child in children if child.kind != SCALAR]
            if nested:
                stack.extend(nested)
            else:
                found.append((key, node))
    return found


_INDENT = LazyRegex(r"[ \t]*")


def _line_indent(text: str, offset: int) -> str:
    """The whitespace that starts the line holding `offset`."""
    return _INDENT.match(text, text.rfind("\n", 0, offset) + 1).group()


class JsonWriter:
    """Writes a target tree as edits of one JSON value's text.

    `text` is the whole document, `root` the span tree of the value the target's
    paths start from (a file's payload, or a virtual array of JSONL lines), and
    `style` what new members look like. With `expand`, source containers are laid
    out afresh in `style` (keeping each scalar's text) instead of copied: that is
    how a JSONL line becomes part of a pretty-printed file.
    """

    def __init__(self, text: str, root: JNode, style: JsonStyle, *, expand: bool = False) -> None:
        self.text = text
        self.root = root
        self.style = style
        self.expand = expand
        self._strings: dict[str, str] = {}  # member names recur in every case: encode each once

    def node_at(self, path: Path) -> JNode:
        node = self.root
        for key in path:  # `JNode.child`, inlined: every source value is found this way
            node = node.children[node.index[key] if node.kind == OBJECT else key]  # type: ignore[index]
        return node

    def render(self, target: Node, indent: str, key: str | None = None, *, inline: bool = False) -> str:
        """The text of `target` written at a place whose line starts with `indent`, as the
        value of member `key` (None for an array item or the root); `inline` keeps new
        containers on one line (inside an object the file writes on one line)."""
        kind = target.__class__  # no subclasses: an identity test is the cheapest dispatch
        if kind is Src:
            node = self.node_at(target.path)  # type: ignore[union-attr]
            if self.expand and node.kind != SCALAR:
                return self.render(_as_new(node, target.path), indent, key, inline=inline)  # type: ignore[union-attr]
            return self._moved_text(node, indent)
        if kind is Val:
            return self._value_text(target.value, indent, key, inline)  # type: ignore[union-attr]
        if target.origin is not None and not self.expand:  # type: ignore[union-attr]
            return self._edited(target, self.node_at(target.origin), indent)  # type: ignore[arg-type, union-attr]
        if kind is Obj:
            parts = [f"{self._string(name)}{self.style.colon}" for name, _ in target.members]
            children = [child for _, child in target.members]
            return self._fresh("{", "}", parts, children, indent, [name for name, _ in target.members], inline=inline)
        inline = inline or (self.style.inline_array(key) and all(self._is_scalar(item) for item in target.items))
        return self._fresh("[", "]", [""] * len(target.items), target.items, indent, None, inline=inline)

    def _moved_text(self, node: JNode, indent: str) -> str:
        """A source value's text, its continuation lines shifted to a new indent."""
        text = self.text[node.start : node.end]
        if "\n" not in text:
            return text
        old = _line_indent(self.text, node.start)
        if old == indent:
            return text
        lines = text.split("\n")
        return "\n".join(
            [lines[0]] + [indent + line[len(old) :] if line.startswith(old) else line for line in lines[1:]]
        )

    def _fresh(
        self,
        open_: str,
        close: str,
        prefixes: list[str],
        children: list[Node],
        indent: str,
        keys: list[str] | None,
        *,
        inline: bool = False,
    ) -> str:
        """A new container laid out in the file's style (`inline`: on one line)."""
        if not children:
            return open_ + close
        style = self.style
        names = keys or [None] * len(children)
        if style.compact or inline:
            rendered = [
                p + self.render(ch, indent, k, inline=True) for p, ch, k in zip(prefixes, children, names, strict=True)
            ]
            return open_ + style.item_sep.join(rendered) + close
        inner = indent + style.unit
        lines = [inner + p + self.render(ch, inner, k) for p, ch, k in zip(prefixes, children, names, strict=True)]
        return open_ + style.newline + ("," + style.newline).join(lines) + style.newline + indent + close

    def _is_scalar(self, node: Node) -> bool:
        if isinstance(node, Val):
            return not isinstance(node.value, (dict, list))
        if isinstance(node, Src):
            return self.node_at(node.path).kind == SCALAR
        return False

    def _edited(self, target: Obj | Arr, node: JNode, indent: str) -> str:
        """An original container rewritten: kept members keep their text and the
        separators between members that stay neighbours; the rest follow the style."""
        text = self.text
        origin = target.origin or ()
        is_obj = target.__class__ is Obj
        entries: list[tuple[str | None, Node]]
        if is_obj:
            entries = target.members  # type: ignore[union-attr]
        else:
            entries = [(None, child) for child in target.items]  # type: ignore[union-attr]
        children = node.children
        count = len(children)
        if count:
            lead = text[node.start + 1 : node.member_start(0)]
            trail = text[children[-1].end : node.end - 1]
            multiline = "\n" in lead
            member_indent = lead[lead.rfind("\n") + 1 :] if multiline else indent
            if count > 1:
                generic_sep = text[children[0].end : node.member_start(1)]
            elif multiline:
                generic_sep = "," + self.style.newline + member_indent
            else:
                generic_sep = self.style.item_sep if not is_obj else ", "
        else:
            own_indent = _line_indent(text, node.start)
            multiline = not self.style.compact
            member_indent = own_indent + self.style.unit if multiline else indent
            lead = self.style.newline + member_indent if multiline else ""
            trail = self.style.newline + own_indent if multiline else ""
            generic_sep = ("," + self.style.newline + member_indent) if multiline else self.style.item_sep
        if not entries:
            return "{}" if is_obj else "[]"

        # Where each entry comes from: the index of the member of `node` it stands for
        # (`_position_in`, inlined: this loop runs for every member the writer edits).
        depth = len(origin)
        index = node.index if is_obj else None
        keys = node.keys if is_obj else None
        key_spans = node.key_spans if is_obj else None
        pieces: list[str] = []
        append = pieces.append
        previous: int | None = None
        for i, (key, child) in enumerate(entries):
            kind = child.__class__
            if kind is Src:
                child_origin = child.path  # type: ignore[union-attr]
            elif kind is Val:
                child_origin = None
            else:
                child_origin = child.origin  # type: ignore[union-attr]
            source: int | None = None
            if child_origin is not None and len(child_origin) == depth + 1 and child_origin[:depth] == origin:
                last = child_origin[depth]
                if is_obj:
                    source = index.get(last) if last.__class__ is str else None  # type: ignore[union-attr]
                elif last.__class__ is int and 0 <= last < count:  # type: ignore[operator]
                    source = last  # type: ignore[assignment]
            if source is None:
                if i:
                    append(generic_sep)
                prefix = f"{self._string(key)}{self.style.colon}" if is_obj else ""  # type: ignore[arg-type]
                append(prefix + self.render(child, member_indent, key, inline=not multiline))
                previous = None
                continue
            value = children[source]
            neighbour = i and previous is not None and source == previous + 1
            if kind is Src and neighbour and (not is_obj or key == keys[source]):  # type: ignore[index]
                # A kept member after its kept neighbour: the separator, key and value, all as they were.
                append(text[children[previous].end : value.end])  # type: ignore[index]
                previous = source
                continue
            if i:
                append(text[children[previous].end : node.member_start(source)] if neighbour else generic_sep)  # type: ignore[index]
            if kind is Src:
                value_text = text[value.start : value.end]
            else:
                value_text = self.render(child, _line_indent(text, node.member_start(source)), key)
            if is_obj:
                key_start, key_end = key_spans[source]  # type: ignore[index]
                key_text = text[key_start:key_end] if key == keys[source] else self._string(key)  # type: ignore[index, arg-type]
                append(key_text + text[key_end : value.start] + value_text)
            else:
                append(value_text)
            previous = source
        open_, close = ("{", "}") if is_obj else ("[", "]")
        return open_ + lead + "".join(pieces) + trail + close

    def _value_text(self, value: Any, indent: str, key: str | None, inline: bool) -> str:
        if isinstance(value, dict):
            return self.render(Obj([(k, Val(v)) for k, v in value.items()]), indent, key, inline=inline)
        if isinstance(value, list):
            return self.render(Arr([Val(v) for v in value]), indent, key, inline=inline)
        if isinstance(value, str):
            return self._string(value)
        return json.dumps(value)

    def _string(self, value: str) -> str:
        encoded = self._strings.get(value)
        if encoded is None:
            # What `json.dumps(value, ensure_ascii=...)` gives for a string, without its wrapper.
            encode = encode_basestring_ascii if self.style.ascii else encode_basestring
            encoded = self._strings[value] = encode(value)
        return encoded


def _position_in(origin: Path, node: JNode, child_origin: Path | None) -> int | None:
    """The index of the member of `node` (at `origin`) that `child_origin` stands for, if any."""
    if child_origin is None or len(child_origin) != len(origin) + 1 or child_origin[: len(origin)] != origin:
        return None
    key = child_origin[-1]
    if node.kind == OBJECT:
        return node.index.get(key) if isinstance(key, str) else None  # type: ignore[return-value]
    return key if isinstance(key, int) and 0 <= key < len(node.children) else None


def _as_new(node: JNode, path: Path) -> Obj | Arr:
    """A source container as a new one whose leaves are still its own source values."""
    if node.kind == OBJECT:
        return Obj([(key, Src(path + (key,))) for key in node.keys])
    return Arr([Src(path + (i,)) for i in range(len(node.children))])
