"""YAML text: the span tree of a YAML document, its scalar rules, and a writer that edits it.

`yaml_format` builds the span tree from ruamel.yaml's parser events; this module
holds what needs no parser. Like `json_text` for JSON, the writer turns a target
tree (`fixture_migrate.formats.target`) into edits of the original text instead of dumping the
document again, because a round-trip dump does not keep a file's bytes (it
rewrites `~` and indentation, and comments cling to the member before them):

- a member that stays keeps its bytes, and the text between two members that
  stay neighbours is kept as it was;
- a member that moves takes its text along, re-indented by whole columns, with
  its comments: the comment lines just above it (its *lead*), the comment at the
  end of its last line and the deeper-indented comment lines under it (its
  *tail*);
- new members copy the file's style: indentation of mappings and sequences,
  quote character, plain or quoted keys, flow or block lists.

Scalars are never re-written: a moved scalar keeps its exact text (quotes,
`yes`, `0755`, `~`, dates, block scalars), and a new string is written plain only
where every YAML reader (1.1 and 1.2) reads it back as that same string.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.formats import MAX_INT_DIGITS, integer_too_long
from fixture_migrate.formats.bracket_text import (
    CommentOwners,
    Layout,
    Piece,
    comment_lines,
    parse_layout,
    render_layout,
)
from fixture_migrate.formats.target import Arr, Node, Obj, Path, Src, Val, node_origin

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

_CORE_TAG = "tag:yaml.org,2002:"

# Words YAML 1.1 readers take for booleans or null; a new plain string must not be one.
_RESERVED = frozenset(
    "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~ = <<".split()
)
_PRINTABLE = re.compile("[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]")


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
    if tag.startswith(_CORE_TAG):
        kind = tag[len(_CORE_TAG) :]
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
    if "\n" in value or "\r" in value or "\t" in value or _PRINTABLE.search(value):
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
    return _PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}" if ord(m.group()) < 0x10000 else m.group(), text)


def single_quoted(value: str) -> str:
    """A YAML single-quoted scalar for a one-line printable `value`."""
    return "'" + value.replace("'", "''") + "'"


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
    """

    __slots__ = (
        "kind",
        "start",
        "cstart",
        "end",
        "raw_end",
        "flow",
        "style",
        "anchor",
        "tag",
        "col",
        "owner",
        "value",
        "keys",
        "knodes",
        "children",
        "index",
        "merges",
        "merged",
        "dashes",
        "elem_ends",
        "target",
        "data",
        "size",
        "layout",
    )

    def __init__(self, kind: int, start: int) -> None:
        self.kind = kind
        self.start = start
        self.cstart = start
        self.end = start
        self.raw_end = start
        self.flow = False
        self.style: str | None = None
        self.anchor: str | None = None
        self.tag: str | None = None
        self.col = 0
        self.owner = 0
        self.value: str | None = None
        self.keys: list[str] = []
        self.knodes: list[YNode] = []
        self.children: list[YNode] = []
        self.index: dict[str, int] = {}
        self.merges: list[int] = []
        self.merged: dict[str, YNode] = {}
        self.dashes: list[int] = []
        self.elem_ends: list[int] = []
        self.target: YNode | None = None
        self.data: Any = None
        self.size = 1
        self.layout: Layout | None = None

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
    return end


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


@dataclass(frozen=True)
class YamlStyle:
    """How a file writes what the writer adds: `map_indent` (columns from a key to the
    keys of a mapping under it), `seq_indent` (from a key to the dashes of a sequence
    under it), `dash_gap` (from a dash to the content after it), `quote` (the quote
    character for strings that need one), `key_quote` (set when the file quotes its
    keys), `quote_values` (set when the file quotes most of its strings), `flow_seqs` with
    `flow_keys`/`block_keys` (lists of scalars as `[a, b]`)."""

    map_indent: int = 2
    seq_indent: int = 2
    dash_gap: int = 2
    quote: str = '"'
    key_quote: str | None = None
    quote_values: bool = False
    flow_seqs: bool = False
    flow_keys: frozenset[str] = frozenset()
    block_keys: frozenset[str] = frozenset()

    def flow_seq(self, key: str | None) -> bool:
        """Whether a new list of scalars under member `key` is written `[a, b]`."""
        if key in self.flow_keys:
            return True
        return False if key in self.block_keys else self.flow_seqs


def _vote(counter: Counter[Any], default: Any) -> Any:
    return counter.most_common(1)[0][0] if counter else default


def detect_style(text: str, roots: list[YNode]) -> YamlStyle:
    """The `YamlStyle` of a stream from its text and document roots."""
    map_indent: Counter[int] = Counter()
    seq_indent: Counter[int] = Counter()
    dash_gap: Counter[int] = Counter()
    quotes: Counter[str] = Counter()
    strings: Counter[bool] = Counter()
    keys: Counter[str | None] = Counter()
    flow: Counter[bool] = Counter()
    flow_keys: set[str] = set()
    block_keys: set[str] = set()
    for root in roots:
        for node in walk(root):
            if node.kind == MAP:
                for key, knode, child in zip(node.keys, node.knodes, node.children, strict=True):
                    keys[knode.style] += 1
                    if child.kind == SCALAR and isinstance(child.data, str) and child.style in (None, "'", '"'):
                        strings[child.style is not None] += 1
                    if child.kind == MAP and child.block and not node.flow:
                        map_indent[child.col - node.col] += 1
                    elif child.kind == SEQ and not node.flow:
                        if child.block:
                            seq_indent[child.col - node.col] += 1
                        if child.children and all(item.kind == SCALAR for item in child.children):
                            flow[child.flow] += 1
                            (flow_keys if child.flow else block_keys).add(key)
            elif node.kind == SEQ and node.block:
                for dash, child in zip(node.dashes, node.children, strict=True):
                    if child.block:
                        dash_gap[child.col - column(text, dash)] += 1
            elif node.kind == SCALAR and node.style in ("'", '"'):
                quotes[node.style] += 1
    key_style = _vote(keys, None)
    sequences = max(0, _vote(seq_indent, 2))
    return YamlStyle(
        map_indent=max(1, _vote(map_indent, sequences or 2)),
        seq_indent=sequences,
        dash_gap=max(2, _vote(dash_gap, 2)),
        quote=_vote(quotes, '"'),
        key_quote=key_style if key_style in ("'", '"') else None,
        quote_values=strings[True] > strings[False],
        flow_seqs=flow[True] > flow[False],
        flow_keys=frozenset(flow_keys - block_keys),
        block_keys=frozenset(block_keys - flow_keys),
    )


def member_of(node: YNode, key: str) -> tuple[YNode, int]:
    """`(mapping, index)` of the member that gives `node` its `key`, following `<<` merges."""
    if key in node.index:
        return node, node.index[key]
    provider = node.merged[key]
    return member_of(provider, key)


@dataclass
class _Value:
    """A value's text for a new place: `block` when it is a block collection, laid out
    with its keys or dashes at `col` and `props` (anchor, tag) for the line above."""

    text: str
    block: bool = False
    col: int = 0
    props: str = ""


@dataclass
class _Piece:
    """A member or item of a block collection: `body` from its key or dash to the end
    of its tail, `lead` the lines above it, `source` its index when it stays."""

    body: str
    source: int | None = None
    lead: str = ""


class YamlWriter:
    """Writes a target tree as edits of one YAML document.

    `text` is the whole stream (LF line ends), `root` the document's root node (the
    paths of the target start there) and `style` what new members look like. Raises
    `FixtureError` where a change cannot be written without breaking the document: a
    member provided by a `<<` merge that must move, a change inside an alias.
    """

    def __init__(self, text: str, root: YNode, style: YamlStyle) -> None:
        self.text = text
        self.root = root
        self.style = style
        self.pending: list[tuple[str, bool]] = []  # comments waiting for a line: (text, is a line-end comment)
        self._flow_indent: tuple[str, str] | None = None  # (line indent, unit) inside a multi-line flow collection
        self.owners = CommentOwners(Src(()))
        self._aliased: set[str] | None = None

    # -- where things are -------------------------------------------------------------

    def locate(self, path: Path) -> tuple[YNode, YNode | None, int | None, bool]:
        """`(node, parent, index, direct)` for a payload path: the node as written there
        (an alias stays an alias), the collection holding it and its position there, and
        whether the path reaches it without passing through an alias or a merge."""
        node, parent, index, direct = self.root, None, None, True
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

    def _check_anchor(self, node: YNode) -> None:
        """Refuse to edit a collection whose anchor an alias repeats: the alias would
        repeat the edited collection, and a `<<` merge of it would take in new members."""
        if node.anchor is None:
            return
        if self._aliased is None:
            self._aliased = {found.anchor for found in walk(self.root) if found.kind == ALIAS and found.anchor}
        if node.anchor in self._aliased:
            kind = "mapping" if node.kind == MAP else "sequence"
            raise self._error(
                f"the migration would change the {kind} anchored as &{node.anchor}, which *{node.anchor} "
                "repeats elsewhere; write the alias out in full first",
                node.start,
                code="yaml_alias",
            )

    def _error(self, message: str, offset: int, code: str = "yaml_unsupported") -> FixtureError:
        line, col = line_col(self.text, offset)
        return FixtureError(message, code=code, line=line, column=col)

    # -- entry point ---------------------------------------------------------------------

    def render_root(self, target: Node) -> str:
        """The new text of the root node's content (`root.cstart` to `root.end`)."""
        root = self.root
        if not isinstance(target, Obj) or target.origin not in ((), None):
            raise FixtureError("internal error: a YAML document is a mapping", code="internal")
        self.owners = CommentOwners(target)
        if target.origin is None:
            # A bare case list becomes a mapping document (its items move under `cases`);
            # the owner column is set so that the new top-level keys land in column 0.
            value = self._fresh(target, -self.style.map_indent, "key", False, None)
            text = value.text
        elif root.flow:
            text = self._edit_flow(target, root)
        else:
            text = self._edit_block(target, root, 0)
        if self.pending:
            raise self._error(
                f"cannot keep the comment {self.pending[0][0].strip()!r} of a member moved into a flow collection",
                root.cstart,
                code="yaml_comment",
            )
        return text

    # -- text of keys and new scalars ---------------------------------------------------

    def key_text(self, key: str, *, flow: bool = False) -> str:
        quote = self.style.key_quote
        if quote is None and plain_ok(key, flow=flow):
            return key
        return self.scalar_text(key, flow=flow, quote=quote)

    def scalar_text(self, value: Any, *, flow: bool = False, quote: str | None = None) -> str:
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            text = repr(value)
            if "e" in text and "." not in text.split("e")[0]:
                mantissa, exponent = text.split("e")
                text = f"{mantissa}.0e{exponent}"
            return text
        if quote is None and not self.style.quote_values and plain_ok(value, flow=flow):
            return value
        quote = quote or self.style.quote
        if quote == "'" and not _PRINTABLE.search(value) and "\n" not in value and "\t" not in value:
            return single_quoted(value)
        return double_quoted(value)

    # -- values at a new place ----------------------------------------------------------

    def _child_col(self, node: YNode, owner: int, place: str) -> int:
        """The column of a block collection's keys or dashes when it is the value at a key
        or dash at column `owner`: after a dash it sits beside it; under a key it keeps the
        offset it had from its old key."""
        if place == "item":
            return owner + self.style.dash_gap
        offset = node.col - node.owner
        return owner + max(offset, 1 if node.kind == MAP else 0)

    def value(self, child: Node, owner: int, place: str, flow: bool, key: str | None) -> _Value:
        """`child` written as the value of a key (`place` "key") or dash ("item") at column
        `owner`, or inside a flow collection (`flow`)."""
        if isinstance(child, Src):
            node = self.locate(child.path)[0]
            return self._copy(node, owner, place, flow)
        if isinstance(child, Val):
            value = child.value
            if isinstance(value, dict):
                return self._fresh(Obj([(k, Val(v)) for k, v in value.items()]), owner, place, flow, key)
            if isinstance(value, list):
                return self._fresh(Arr([Val(v) for v in value]), owner, place, flow, key)
            return _Value(self.scalar_text(value, flow=flow))
        if child.origin is not None:
            node, _, _, direct = self.locate(child.origin)
            if node.kind == ALIAS or not direct:
                raise self._error(
                    "the migration would change a value written as an alias; write it out in full first",
                    node.start,
                    code="yaml_alias",
                )
            props = self.text[node.start : node.cstart].rstrip()
            if node.flow:
                text = shift_text(self._edit_flow(child, node), owner - node.owner)
                return _Value(props + " " + text if props else text)
            if flow:
                return self._fresh(_detached(child), owner, place, flow, key)
            col = self._child_col(node, owner, place)
            return _Value(self._edit_block(child, node, col - node.col), True, col, props)
        return self._fresh(child, owner, place, flow, key)

    def _copy(self, node: YNode, owner: int, place: str, flow: bool) -> _Value:
        """A source node's own text at a new place."""
        if flow and (node.block or (node.kind == SCALAR and not _flow_safe(self.text, node))):
            return _Value(self._flow_copy(node))
        if not node.block:
            return _Value(shift_text(self.text[node.start : node.end], owner - node.owner))
        col = self._child_col(node, owner, place)
        props = self.text[node.start : node.cstart].rstrip()
        return _Value(shift_text(self.text[node.cstart : node.end], col - node.col), True, col, props)

    def _flow_copy(self, node: YNode) -> str:
        """A node written in flow style: scalars keep their text where flow allows it."""
        props = self.text[node.start : node.cstart].strip()
        prefix = props + " " if props and node.kind != SCALAR else ""
        if node.kind == ALIAS:
            return self.text[node.start : node.end]
        if node.kind == SCALAR:
            if _flow_safe(self.text, node):
                return self.text[node.start : node.end]
            tag = f"!<{node.tag}> " if node.tag and node.tag != "!" and not node.tag.startswith(_CORE_TAG) else ""
            anchor = f"&{node.anchor} " if node.anchor else ""
            return anchor + tag + double_quoted(node.value or "")
        if node.kind == MAP:
            parts = [
                self.text[k.start : k.end] + ": " + self._flow_copy(v)
                for k, v in zip(node.knodes, node.children, strict=True)
            ]
            return prefix + "{" + ", ".join(parts) + "}"
        return prefix + "[" + ", ".join(self._flow_copy(item) for item in node.children) + "]"

    def _fresh(self, target: Obj | Arr, owner: int, place: str, flow: bool, key: str | None) -> _Value:
        """A new collection."""
        style = self.style
        if isinstance(target, Obj):
            if not target.members:
                return _Value("{}")
            if flow:
                if self._flow_indent is not None:
                    outer, unit = self._flow_indent
                    self._flow_indent = (outer + unit, unit)
                    parts = [
                        outer + unit + self.key_text(k, flow=True) + ": " + self._flow_value(child, owner, k)
                        for k, child in target.members
                    ]
                    self._flow_indent = (outer, unit)
                    return _Value("{\n" + ",\n".join(parts) + "\n" + outer + "}")
                parts = [
                    self.key_text(k, flow=True) + ": " + self._flow_value(child, owner, k)
                    for k, child in target.members
                ]
                return _Value("{" + ", ".join(parts) + "}")
            col = owner + (style.dash_gap if place == "item" else style.map_indent)
            pieces = [self._new_member(k, child, col) for k, child in target.members]
            return _Value(self._join(None, pieces, col, 0), True, col)
        if not target.items:
            return _Value("[]")
        scalars = all(self._is_scalar(item) for item in target.items)
        if flow or (scalars and style.flow_seq(key)):
            return _Value("[" + ", ".join(self._flow_value(item, owner, None) for item in target.items) + "]")
        col = owner + (style.dash_gap if place == "item" else style.seq_indent)
        pieces = [self._new_item(child, col) for child in target.items]
        return _Value(self._join(None, pieces, col, 0), True, col)

    def _flow_value(self, child: Node, owner: int, key: str | None) -> str:
        """`child` inside a new flow collection; a moved member's comments wait in `pending`
        for the nearest block member to write them above itself."""
        if isinstance(child, Src):
            self._park(*self._carry(child.path, owner))
        return self.value(child, owner, "key" if key is not None else "item", True, key).text

    def _is_scalar(self, node: Node) -> bool:
        if isinstance(node, Val):
            return not isinstance(node.value, (dict, list))
        if isinstance(node, Src):
            try:
                found = self.locate(node.path)[0]
            except KeyError:
                return False
            return found.kind in (SCALAR, ALIAS)
        return False

    # -- members and items --------------------------------------------------------------

    def _carry(self, path: Path, col: int) -> tuple[str, str]:
        """`(lead, tail)`: the comments of the source element at `path`, re-indented for a
        place at column `col`, when this place is the one that keeps them (and those of
        the unplaced members it stands in for)."""
        owns = self.owners.owns(path)
        adopted = self._adopted(col)
        if not owns:
            return adopted, ""
        node, parent, index, direct = self.locate(path)
        if parent is None or index is None or not direct:
            return adopted, ""
        if parent.block:
            delta = col - parent.col
            lead = shift_lines(lead_of(self.text, parent, index), delta)
            return adopted + lead, shift_text(self.text[node.end : parent.elem_ends[index]], delta)
        layout = self._layout(parent)
        if not layout.multiline:
            return adopted, ""
        return adopted + _reindent(layout.leads[index], " " * col), layout.tails[index]

    def _adopted(self, col: int) -> str:
        """Comment lines, at column `col`, of the unplaced source members the place just
        counted by `owners.owns` stands in for."""
        lines = []
        for path in self.owners.adopted:
            lines.extend(comment_lines(self._own_comments(path)))
        return "".join(" " * col + line + "\n" for line in lines)

    def _own_comments(self, path: Path) -> str:
        """The text holding a source element's own comments: the lines above it, those
        between its key or dash and its value, its tail, and a flow collection's comments
        outside its elements (its elements' comments are theirs)."""
        try:
            node, parent, index, direct = self.locate(path)
        except KeyError:
            return ""
        if parent is None or index is None or not direct:
            return ""
        text = self.text
        inner = ""
        if node.flow:
            layout = self._layout(node)
            inner = "\n" + (layout.head + "\n" + layout.closing if layout.multiline else "")
        value_start = node.cstart if node.kind in (MAP, SEQ) else node.start
        if parent.block:
            start = parent.knodes[index].end if parent.kind == MAP else parent.dashes[index] + 1
            tail = text[node.end : parent.elem_ends[index]]
            return lead_of(text, parent, index) + text[start:value_start] + "\n" + tail + inner
        layout = self._layout(parent)
        if not layout.multiline:
            return inner
        return layout.leads[index] + "\n" + layout.tails[index] + inner

    def _after_key(self, value: _Value) -> str:
        if value.block:
            props = " " + value.props if value.props else ""
            return ":" + props + "\n" + " " * value.col + value.text
        return ":" + (" " + value.text if value.text else "")

    def _after_dash(self, value: _Value, col: int) -> str:
        if value.block:
            if value.props:
                return " " + value.props + "\n" + " " * value.col + value.text
            return " " * (value.col - col - 1) + value.text
        return " " + value.text if value.text else ""

    def _park(self, lead: str, tail: str) -> None:
        """Keep the comments of a member moved where no comment can go (inside a flow
        collection) for the nearest block member to write."""
        self.pending.extend((comment, False) for comment in comment_lines(lead))
        if "\n" in tail:
            self.pending.extend((comment, False) for comment in comment_lines(tail))
        elif tail.strip():
            self.pending.append((tail, True))

    def _with_orphans(self, piece: _Piece, mark: int, col: int) -> _Piece:
        """`piece` with the comments its value could not hold (moved into flow): a single
        line-end comment stays at the end of a one-line piece, others go above it."""
        waiting = self.pending[mark:]
        if not waiting:
            return piece
        del self.pending[mark:]
        tails = [text for text, is_tail in waiting if is_tail]
        if len(tails) == 1 and "\n" not in piece.body and "#" not in piece.body:
            piece.body += tails[0]
            waiting = [(text, is_tail) for text, is_tail in waiting if not is_tail]
        piece.lead += "".join(" " * col + text.strip() + "\n" for text, _ in waiting)
        return piece

    def _movable(self, path: Path, kind: int) -> tuple[YNode, YNode | None, int | None]:
        """`(node, parent, index)` for the element at payload `path`; `parent` and `index`
        are None unless the element can move as its own text: written directly (not
        through an alias or a merge) in a block collection of `kind`, and not yet moved
        (it is then claimed, so its text appears once)."""
        node, parent, index, direct = self.locate(path)
        if not (direct and parent is not None and index is not None and parent.kind == kind and parent.block):
            return node, None, None
        if not self.owners.peek(path):
            return node, None, None
        self.owners.owns(path)
        return node, parent, index

    def _new_member(self, key: str, child: Node, col: int) -> _Piece:
        """A member that is new at this place (added, or moved in from elsewhere)."""
        mark = len(self.pending)
        key_text = self.key_text(key)
        if isinstance(child, Src):
            node, parent, index = self._movable(child.path, MAP)
            if parent is not None and index is not None:
                delta = col - parent.col
                knode = parent.knodes[index]
                if key == parent.keys[index]:
                    key_text = self.text[knode.start : knode.end]
                body = key_text + shift_text(self.text[knode.end : parent.elem_ends[index]], delta)
                lead = self._adopted(col) + shift_lines(lead_of(self.text, parent, index), delta)
                return self._with_orphans(_Piece(body, None, lead), mark, col)
            lead, tail = self._carry(child.path, col)
            body = key_text + self._after_key(self._copy(node, col, "key", False)) + tail
            return self._with_orphans(_Piece(body, None, lead), mark, col)
        body = key_text + self._after_key(self.value(child, col, "key", False, key))
        return self._with_orphans(_Piece(body), mark, col)

    def _new_item(self, child: Node, col: int) -> _Piece:
        """An item that is new at this place (added, or moved in from elsewhere)."""
        mark = len(self.pending)
        if isinstance(child, Src):
            node, parent, index = self._movable(child.path, SEQ)
            if parent is not None and index is not None:
                delta = col - parent.col
                body = shift_text(self.text[parent.dashes[index] : parent.elem_ends[index]], delta)
                lead = self._adopted(col) + shift_lines(lead_of(self.text, parent, index), delta)
                return self._with_orphans(_Piece(body, None, lead), mark, col)
            lead, tail = self._carry(child.path, col)
            body = "-" + self._after_dash(self._copy(node, col, "item", False), col) + tail
            return self._with_orphans(_Piece(body, None, lead), mark, col)
        body = "-" + self._after_dash(self.value(child, col, "item", False, None), col)
        return self._with_orphans(_Piece(body), mark, col)

    def _kept(self, node: YNode, index: int, key: str | None, child: Node, shift: int) -> _Piece:
        """Element `index` of `node`, staying: renamed when `key` differs, its value edited
        when `child` is a container edit."""
        text = self.text
        value = node.children[index]
        start = node.elem_start(index)
        end = node.elem_ends[index]
        path = node_origin(child)
        assert path is not None
        self.owners.owns(path)
        head = ""
        body_start = start
        if node.kind == MAP:
            knode = node.knodes[index]
            head = text[knode.start : knode.end] if key == node.keys[index] else self.key_text(key or "")
            body_start = knode.end
        if isinstance(child, Src):
            body = head + shift_text(text[body_start:end], shift)
        else:
            if value.kind == ALIAS:
                raise self._error(
                    f"the migration would change the value written as the alias *{value.anchor}; "
                    "write it out in full first",
                    value.start,
                    code="yaml_alias",
                )
            if value.flow and not value.children and (isinstance(child, Obj) and child.members):
                # An empty `{}` that receives members becomes a block mapping, so moved
                # members keep their layout and comments.
                fresh = self.value(
                    _detached(child), node.col + shift, "key" if node.kind == MAP else "item", False, key
                )
                joint = self._after_key(fresh) if node.kind == MAP else "-" + self._after_dash(fresh, node.col + shift)
                body = head + joint + shift_text(text[value.end : end], shift)
            else:
                inner = self._edit_flow(child, value) if value.flow else self._edit_block(child, value, shift)
                if value.flow:
                    inner = shift_text(inner, shift)
                body = (
                    head
                    + shift_text(text[body_start : value.cstart], shift)
                    + inner
                    + shift_text(text[value.end : end], shift)
                )
        lead = shift_lines(lead_of(text, node, index), shift)
        return _Piece(body, index, lead)

    def _join(self, node: YNode | None, pieces: list[_Piece], col: int, shift: int) -> str:
        """Block elements joined one per line at column `col`; kept neighbours keep the
        text between them."""
        out: list[str] = []
        for j, piece in enumerate(pieces):
            if j == 0:
                if node is not None and piece.source == 0:
                    out.append(piece.body)
                else:
                    out.append(_inline_lead(piece.lead, col) + piece.body)
                continue
            before = pieces[j - 1].source
            if node is not None and before is not None and piece.source == before + 1:
                out.append(shift_text(self.text[node.elem_ends[before] : node.elem_start(piece.source)], shift))
            else:
                out.append("\n" + piece.lead + " " * col)
            out.append(piece.body)
        return "".join(out)

    def _edit_block(self, target: Obj | Arr, node: YNode, shift: int) -> str:
        """A block collection rewritten (its text from `cstart` to `end`), moved `shift` columns."""
        self._check_anchor(node)
        col = node.col + shift
        origin = target.origin or ()
        pieces: list[_Piece] = []
        if isinstance(target, Obj):
            if node.kind != MAP:
                raise FixtureError("internal error: a mapping edit of a sequence", code="internal")
            kept_merged: set[str] = set()
            for key, child in target.members:
                source = _source_key(origin, child)
                if source is not None and source in node.index:
                    pieces.append(self._kept(node, node.index[source], key, child, shift))
                elif source is not None and source in node.merged and isinstance(child, Src) and key == source:
                    kept_merged.add(source)
                    self.owners.owns(child.path)
                else:
                    pieces.append(self._new_member(key, child, col))
            lost = [key for key in node.merged if key not in kept_merged]
            if lost:
                where = node.knodes[node.merges[0]].start
                raise self._error(
                    f"member {lost[0]!r} comes from the merge key '<<' and would have to move or be renamed; "
                    "write it in this mapping by hand first",
                    where,
                    code="yaml_merge",
                )
            for merge in node.merges:
                _insert_pinned(pieces, self._kept(node, merge, MERGE_KEY, Src(()), shift), merge)
        else:
            if node.kind != SEQ:
                raise FixtureError("internal error: a sequence edit of a mapping", code="internal")
            for child in target.items:
                index = _source_index(origin, child, len(node.children))
                if index is not None:
                    pieces.append(self._kept(node, index, None, child, shift))
                else:
                    pieces.append(self._new_item(child, col))
        if not pieces:
            return "{}" if node.kind == MAP else "[]"
        return self._join(node, pieces, col, shift)

    # -- flow collections ------------------------------------------------------------------

    def _layout(self, node: YNode) -> Layout:
        if node.layout is None:
            starts = [node.elem_start(i) for i in range(len(node.children))]
            ends = [child.end for child in node.children]
            if node.kind == MAP:
                ends = [max(child.end, key.end) for key, child in zip(node.knodes, node.children, strict=True)]
            node.layout = parse_layout(self.text, node.cstart, node.end - 1, starts, ends)
        return node.layout

    def _edit_flow(self, target: Obj | Arr, node: YNode) -> str:
        """A flow collection rewritten, brackets included, in the columns it had."""
        self._check_anchor(node)
        text = self.text
        layout = self._layout(node)
        origin = target.origin or ()
        owner = node.owner
        pieces: list[Piece] = []
        entries: list[tuple[str | None, Node]]
        entries = list(target.members) if isinstance(target, Obj) else [(None, item) for item in target.items]
        for key, child in entries:
            if isinstance(target, Obj):
                source = _source_key(origin, child)
                index = node.index.get(source) if source is not None else None
            else:
                index = _source_index(origin, child, len(node.children))
            if index is not None:
                value = node.children[index]
                self.owners.owns(node_origin(child) or ())
                head = ""
                body_start = node.elem_start(index)
                if node.kind == MAP:
                    knode = node.knodes[index]
                    head = (
                        text[knode.start : knode.end]
                        if key == node.keys[index]
                        else self.key_text(key or "", flow=True)
                    )
                    body_start = knode.end
                if isinstance(child, Src):
                    body = head + text[body_start : layout.ends[index]]
                else:
                    if value.kind == ALIAS:
                        raise self._error(
                            f"the migration would change the value written as the alias *{value.anchor}; "
                            "write it out in full first",
                            value.start,
                            code="yaml_alias",
                        )
                    if value.flow:
                        inner = self._edit_flow(child, value)
                    else:
                        inner = self._fresh(_detached(child), owner, "key", True, key).text
                    body = head + text[body_start : value.cstart] + inner + text[value.end : layout.ends[index]]
                pieces.append(Piece(body, index, layout.leads[index] if layout.leads else "", _tail(layout, index)))
                continue
            lead, tail = ("", "")
            if isinstance(child, Src):
                lead, tail = self._carry(child.path, column(text, layout.starts[0]) if layout.starts else owner)
            saved = self._flow_indent
            if layout.multiline:
                base = text[line_start(text, node.cstart) : node.cstart]
                base = base[: len(base) - len(base.lstrip(" "))]
                unit = (
                    layout.indent[len(base) :]
                    if layout.indent.startswith(base) and len(layout.indent) > len(base)
                    else "  "
                )
                self._flow_indent = (layout.indent or base + unit, unit)
            else:
                self._flow_indent = None
            rendered = self.value(child, owner, "key" if key is not None else "item", True, key).text
            self._flow_indent = saved
            body = (self.key_text(key, flow=True) + ": " if key is not None else "") + rendered
            if not layout.multiline and (lead or tail):
                self._park(lead, tail)
                lead, tail = "", ""
            pieces.append(Piece(body, None, lead, tail))
        open_, close = ("{", "}") if node.kind == MAP else ("[", "]")
        indent = layout.indent or " " * (column(text, node.cstart) + self.style.map_indent)
        return render_layout(
            layout, pieces, open_=open_, close=close, newline="\n", indent=indent, trailing_comma=False
        )


def _tail(layout: Layout, index: int) -> str:
    return layout.tails[index] if layout.tails else ""


def _reindent(lead: str, indent: str) -> str:
    if not lead:
        return lead
    return "".join(indent + line.lstrip(" ") if line.strip() else line for line in lead.splitlines(keepends=True))


def _inline_lead(lead: str, col: int) -> str:
    """Lead lines for an element that starts where the collection starts (after the
    parent's indentation or dash): leading blank lines dropped, the first line not
    indented again, the element's line indented to `col`."""
    lines = lead.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    return lines[0].lstrip(" ") + "".join(lines[1:]) + " " * col


def _source_key(origin: Path, child: Node) -> str | None:
    path = node_origin(child)
    if path is None or len(path) != len(origin) + 1 or path[: len(origin)] != origin:
        return None
    key = path[-1]
    return key if isinstance(key, str) else None


def _source_index(origin: Path, child: Node, count: int) -> int | None:
    path = node_origin(child)
    if path is None or len(path) != len(origin) + 1 or path[: len(origin)] != origin:
        return None
    key = path[-1]
    return key if isinstance(key, int) and 0 <= key < count else None


def _insert_pinned(pieces: list[_Piece], pinned: _Piece, index: int) -> None:
    """Put a `<<` member back among the pieces: before the first kept member that came
    after it, and first when no kept member came before it."""
    kept_before = any(piece.source is not None and piece.source < index for piece in pieces)
    if not kept_before:
        pieces.insert(0, pinned)
        return
    for j, piece in enumerate(pieces):
        if piece.source is not None and piece.source > index:
            pieces.insert(j, pinned)
            return
    pieces.append(pinned)


def _detached(target: Obj | Arr) -> Obj | Arr:
    """A container edit written as a new container (its kept members become moved ones)."""
    if isinstance(target, Obj):
        return Obj(list(target.members))
    return Arr(list(target.items))


def _flow_safe(text: str, node: YNode) -> bool:
    """Whether a scalar's text can stand inside a flow collection as it is."""
    if node.style in ("|", ">"):
        return False
    if node.style is None:
        value = text[node.cstart : node.end]
        return not any(char in value for char in ",[]{}") and "\n" not in value
    return True
