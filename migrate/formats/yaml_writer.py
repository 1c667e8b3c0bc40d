"""The YAML writer: a target tree written as edits of the original YAML text.

(At some 600 lines this module is over the ~500 the project aims for, on purpose: block
edits, flow edits, new values and moved members are one recursion over one writer's
state, since a value at a new place may be a flow collection holding a moved block
member whose comments wait for the next block line; cut into modules, that recursion
would read as calls between files. The parts that stand alone live beside it:
`yaml_text`, `yaml_style`, `yaml_comments`.)

Like `json_text` for JSON, the writer turns a target tree
(`fixture_migrate.formats.target`) into edits of the original text instead of dumping
the document again, because a round-trip dump does not keep a file's bytes (it
rewrites `~` and indentation, and comments cling to the member before them):

- a member that stays keeps its bytes, and the text between two members that
  stay neighbours is kept as it was;
- a member that moves takes its text along, re-indented by whole columns, with
  its comments (`fixture_migrate.formats.yaml_comments`);
- new members copy the file's style (`fixture_migrate.formats.yaml_style`):
  indentation of mappings and sequences, quote character, plain or quoted keys,
  flow or block lists; new scalars follow `yaml_text`'s rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.formats.bracket_text import CommentOwners, Layout, Piece, render_layout
from fixture_migrate.formats.target import Arr, Node, Obj, Path, Src, Val, node_origin
from fixture_migrate.formats.yaml_comments import CommentCarrier
from fixture_migrate.formats.yaml_style import YamlStyle
from fixture_migrate.formats.yaml_text import (
    ALIAS,
    CORE_TAG,
    MAP,
    MERGE_KEY,
    SCALAR,
    SEQ,
    UNPRINTABLE,
    YNode,
    column,
    double_quoted,
    flow_layout,
    lead_of,
    line_start,
    locate,
    plain_ok,
    shift_lines,
    shift_text,
    single_quoted,
    walk,
)


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
        self.comments = CommentCarrier(text, root)
        self._flow_indent: tuple[str, str] | None = None  # (line indent, unit) inside a multi-line flow collection
        self._aliased: set[str] | None = None

    # -- where things are -------------------------------------------------------------

    def locate(self, path: Path) -> tuple[YNode, YNode | None, int | None, bool]:
        """`yaml_text.locate` from this document's root."""
        return locate(self.root, path)

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
        self.comments.owners = CommentOwners(target)
        if target.origin is None:
            # A bare case list becomes a mapping document (its items move under `cases`);
            # the owner column is set so that the new top-level keys land in column 0.
            value = self._fresh(target, -self.style.map_indent, "key", False, None)
            text = value.text
        elif root.flow:
            text = self._edit_flow(target, root)
        else:
            text = self._edit_block(target, root, 0)
        if self.comments.pending:
            raise self._error(
                f"cannot keep the comment {self.comments.pending[0][0].strip()!r} of a member moved into a flow collection",
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
        if quote == "'" and not UNPRINTABLE.search(value) and "\n" not in value and "\t" not in value:
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
            tag = f"!<{node.tag}> " if node.tag and node.tag != "!" and not node.tag.startswith(CORE_TAG) else ""
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
            self.comments.park(*self.comments.carry(child.path, owner))
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

    def _with_orphans(self, piece: _Piece, mark: int, col: int) -> _Piece:
        """`piece` with the comments its value could not hold (moved into flow): a single
        line-end comment stays at the end of a one-line piece, others go above it."""
        waiting = self.comments.take(mark)
        if not waiting:
            return piece
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
        if not self.comments.owners.peek(path):
            return node, None, None
        self.comments.owners.owns(path)
        return node, parent, index

    def _new_member(self, key: str, child: Node, col: int) -> _Piece:
        """A member that is new at this place (added, or moved in from elsewhere)."""
        mark = len(self.comments.pending)
        key_text = self.key_text(key)
        if isinstance(child, Src):
            node, parent, index = self._movable(child.path, MAP)
            if parent is not None and index is not None:
                delta = col - parent.col
                knode = parent.knodes[index]
                if key == parent.keys[index]:
                    key_text = self.text[knode.start : knode.end]
                body = key_text + shift_text(self.text[knode.end : parent.elem_ends[index]], delta)
                lead = self.comments.adopted(col) + shift_lines(lead_of(self.text, parent, index), delta)
                return self._with_orphans(_Piece(body, None, lead), mark, col)
            lead, tail = self.comments.carry(child.path, col)
            body = key_text + self._after_key(self._copy(node, col, "key", False)) + tail
            return self._with_orphans(_Piece(body, None, lead), mark, col)
        body = key_text + self._after_key(self.value(child, col, "key", False, key))
        return self._with_orphans(_Piece(body), mark, col)

    def _new_item(self, child: Node, col: int) -> _Piece:
        """An item that is new at this place (added, or moved in from elsewhere)."""
        mark = len(self.comments.pending)
        if isinstance(child, Src):
            node, parent, index = self._movable(child.path, SEQ)
            if parent is not None and index is not None:
                delta = col - parent.col
                body = shift_text(self.text[parent.dashes[index] : parent.elem_ends[index]], delta)
                lead = self.comments.adopted(col) + shift_lines(lead_of(self.text, parent, index), delta)
                return self._with_orphans(_Piece(body, None, lead), mark, col)
            lead, tail = self.comments.carry(child.path, col)
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
        self.comments.owners.owns(path)
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
                    self.comments.owners.owns(child.path)
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

    def _edit_flow(self, target: Obj | Arr, node: YNode) -> str:
        """A flow collection rewritten, brackets included, in the columns it had."""
        self._check_anchor(node)
        text = self.text
        layout = flow_layout(self.text, node)
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
                self.comments.owners.owns(node_origin(child) or ())
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
                lead, tail = self.comments.carry(child.path, column(text, layout.starts[0]) if layout.starts else owner)
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
                self.comments.park(lead, tail)
                lead, tail = "", ""
            pieces.append(Piece(body, None, lead, tail))
        open_, close = ("{", "}") if node.kind == MAP else ("[", "]")
        indent = layout.indent or " " * (column(text, node.cstart) + self.style.map_indent)
        return render_layout(
            layout, pieces, open_=open_, close=close, newline="\n", indent=indent, trailing_comma=False
        )


def _tail(layout: Layout, index: int) -> str:
    return layout.tails[index] if layout.tails else ""


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
