"""Python literal text: the span tree of a fixture literal, and a writer that edits it in place.

(Some 570 lines, over the ~500 the project aims for: the span tree is slotted to the
bone, a scalar's node apart from a container's, as a large module holds hundreds of
thousands of them, and the writer is one walk over it.)

`python_format` finds the fixture literals of a module with libcst (a large one:
`python_tokens`, on its tokens) and builds their span trees; this module needs no
parser. The writer turns a target tree
(`fixture_migrate.formats.target`) into a new text for the literal alone, so the rest of the
module stays byte-identical, and within the literal it follows the same rules
as the JSON and YAML writers (`fixture_migrate.formats.bracket_text`): members that stay
keep their text (string prefixes and quotes, implicit concatenation, trailing
commas, line layout), a member that moves takes its text and its comments
along, new members copy their neighbours' layout. A moved value is re-indented
line by line, except inside a multi-line string, whose text is its value.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats.bracket_text import (
    CommentOwners,
    Layout,
    Piece,
    comment_lines,
    parse_layout,
    render_layout,
)
from fixture_migrate.formats.target import Arr, Node, Obj, Path, Src, Val, node_origin

SCALAR, DICT, LIST = 0, 1, 2


_NO_INDEX: Mapping[str, int] = MappingProxyType({})
_NO_LAYOUTS: Mapping[int, Layout] = MappingProxyType({})


class PNode:
    """A literal's span: `start`/`end` (parentheses included); containers also have
    `lb`/`rb`, the offsets of their brackets, and `open`/`close`, the bracket
    characters (`(`/`)` for a tuple). Dicts keep `keys`, their `knodes` and an
    `index`; `children` are the values in order. `data` is the literal's value.

    `PNode(SCALAR, start, end)` is a scalar of four slots, whose `lb`/`rb` are its
    `start`/`end - 1` and whose `keys`, `knodes`, `children` and `index` are shared
    empty ones; `PNode(DICT or LIST, ...)` a container (`PContainer`) with its own. A
    large module holds hundreds of thousands of scalars: the empty containers each
    would hold, and slots they never use, would double the tree's memory."""

    __slots__ = ("kind", "start", "end", "data")

    keys: list[str] | tuple[()] = ()
    knodes: list[PNode] | tuple[()] = ()
    children: list[PNode] | tuple[()] = ()
    index: Mapping[str, int] = _NO_INDEX
    open = "["
    close = "]"

    def __new__(cls, kind: int, start: int, end: int) -> PNode:
        return object.__new__(PContainer if kind != SCALAR and cls is PNode else cls)

    def __init__(self, kind: int, start: int, end: int) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.data: Any = None

    @property
    def lb(self) -> int:
        return self.start

    @property
    def rb(self) -> int:
        return self.end - 1

    def elem_start(self, i: int) -> int:
        return self.knodes[i].start if self.kind == DICT else self.children[i].start


class PContainer(PNode):
    """A dict, list or tuple display's `PNode` (made by `PNode(DICT or LIST, start, end)`)."""

    __slots__ = ("lb", "rb", "open", "close", "keys", "knodes", "children", "index")

    def __init__(self, kind: int, start: int, end: int) -> None:
        super().__init__(kind, start, end)
        self.lb = start
        self.rb = end - 1
        self.open = "{" if kind == DICT else "["
        self.close = "}" if kind == DICT else "]"
        self.keys: list[str] = []
        self.knodes: list[PNode] = []
        self.children: list[PNode] = []
        self.index: dict[str, int] = {}


def walk(root: PNode) -> list[PNode]:
    found: list[PNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
        stack.extend(node.knodes)
    return found


def line_indent(text: str, offset: int) -> str:
    """The spaces and tabs that start the line holding `offset`."""
    start = text.rfind("\n", 0, offset) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def python_string(value: str, quote: str, encoding: str = "utf-8") -> str:
    """A Python string literal for `value` with the `quote` character, escaping what a
    reader could not see, what would end the literal, and what the module's `encoding`
    cannot hold (a latin-1 module gets `\\u20ac` for a euro sign: the value Python reads
    is the same)."""
    out = [quote]
    for char in value:
        if char == "\\":
            out.append("\\\\")
        elif char == quote:
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif not char.isprintable() or (char >= "\x80" and not _encodable(char, encoding)):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    out.append(quote)
    return "".join(out)


def _encodable(char: str, encoding: str) -> bool:
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def python_scalar(value: Any, quote: str, encoding: str = "utf-8") -> str:
    """A Python literal for a string, number, boolean or None (strings as `python_string`)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    return python_string(value, quote, encoding)


@dataclass(frozen=True)
class PyStyle:
    """How a literal writes what the writer adds: `quote`, the indent `unit`, whether
    multi-line collections end with a `trailing_comma`, whether new lists of scalars
    are written on one line (`inline_lists`), and whether multi-line collections hang
    from their bracket (`hanging`: the first element beside it, the others aligned
    under it, as `pprint` writes them). `encoding` is the module's (PEP 263): a character
    it cannot hold is written as an escape."""

    quote: str = '"'
    unit: str = "    "
    trailing_comma: bool = True
    inline_lists: bool = True
    hanging: bool = False
    encoding: str = "utf-8"


def node_layout(text: str, node: PNode) -> Layout:
    """The `Layout` of a container's text (`text` the module, LF line ends)."""
    starts = [node.elem_start(i) for i in range(len(node.children))]
    ends = [child.end for child in node.children]
    return parse_layout(text, node.lb, node.rb, starts, ends)


def detect_style(text: str, roots: list[PNode], layouts: Mapping[int, Layout] = _NO_LAYOUTS) -> PyStyle:
    """The `PyStyle` of a module's fixture literals. `layouts` (by container id) are used
    where given; any other container's is read and dropped, so a large module's
    layouts are never all held at once."""
    quotes: Counter[str] = Counter()
    units: Counter[str] = Counter()
    commas: Counter[bool] = Counter()
    inline: Counter[bool] = Counter()
    hanging: Counter[bool] = Counter()
    for root in roots:
        for node in walk(root):
            if node.kind == SCALAR:
                token = text[node.start : node.end].lstrip("(").lstrip()
                stripped = token.lstrip("rRbBuUfF")
                if stripped[:1] in ("'", '"') and isinstance(node.data, str):
                    quotes[stripped[0]] += 1
                continue
            if not node.children:
                continue
            layout = layouts.get(id(node)) or node_layout(text, node)
            scalars = all(child.kind == SCALAR for child in node.children)
            if layout.multiline:
                hangs = "\n" not in layout.gaps[0]
                hanging[hangs] += 1
                base = line_indent(text, node.lb)
                if not hangs and layout.indent.startswith(base) and len(layout.indent) > len(base):
                    units[layout.indent[len(base) :]] += 1
                commas[layout.trailing_comma] += 1
            if scalars and node.kind == LIST:
                inline[not layout.multiline] += 1
    return PyStyle(
        quote=quotes.most_common(1)[0][0] if quotes else '"',
        unit=units.most_common(1)[0][0] if units else "    ",
        trailing_comma=commas[True] >= commas[False],
        inline_lists=inline[True] >= inline[False],
        hanging=hanging[True] > hanging[False],
    )


class PythonWriter:
    """Writes a target tree as a new text of one fixture literal.

    `text` is the module (LF line ends), `root` the literal's span tree, `style` what
    new members look like, `layouts` the containers' layouts (filled as needed) and
    `protected` the spans of multi-line strings, whose lines are never re-indented.
    """

    def __init__(
        self,
        text: str,
        root: PNode,
        style: PyStyle,
        layouts: dict[int, Layout],
        protected: list[tuple[int, int]],
    ) -> None:
        self.text = text
        self.root = root
        self.style = style
        self.layouts = layouts
        self.protected = protected
        self._protected_starts = [start for start, _ in protected]
        self.pending: list[tuple[str, bool]] = []  # comments waiting for a line: (text, is a line-end comment)
        self.owners = CommentOwners(Src(()))

    def layout(self, node: PNode) -> Layout:
        found = self.layouts.get(id(node))
        if found is None:
            found = self.layouts[id(node)] = node_layout(self.text, node)
        return found

    def locate(self, path: Path) -> tuple[PNode, PNode | None, int | None]:
        """`(node, parent, index)` of the literal at a payload path."""
        node, parent, index = self.root, None, None
        for key in path:
            if node.kind == DICT and isinstance(key, str):
                parent, index = node, node.index[key]
            elif node.kind == LIST and isinstance(key, int) and 0 <= key < len(node.children):
                parent, index = node, key
            else:
                raise KeyError(key)
            node = node.children[index]
        return node, parent, index

    def render(self, target: Node) -> str:
        """The literal's new text (`root.start` to `root.end`) for `target`, a container edit."""
        if not isinstance(target, (Obj, Arr)) or target.origin != ():
            raise FixtureError("internal error: a Python literal can only be edited in place", code="internal")
        self.owners = CommentOwners(target)
        text = self.text[self.root.start : self.root.lb] + self._edit(target, self.root)
        text += self.text[self.root.rb + 1 : self.root.end]
        if self.pending:
            raise FixtureError(
                f"refused: the comment {self.pending[0][0].strip()!r} of a moved member has no line to go on",
                code="py_comment",
            )
        return text

    # -- text helpers ------------------------------------------------------------------

    def _reindent(self, start: int, end: int, delta: int) -> str:
        """The source text `start:end`, its lines after the first moved `delta` columns,
        except lines that start inside a multi-line string."""
        text = self.text[start:end]
        if not delta or "\n" not in text:
            return text
        out = []
        last = 0
        for i, char in enumerate(text):
            if char != "\n":
                continue
            out.append(text[last : i + 1])
            last = i + 1
            if self._in_string(start + i + 1):
                continue
            line_end = text.find("\n", last)
            line = text[last : line_end if line_end != -1 else len(text)]
            if not line.strip():
                continue
            if delta > 0:
                out.append(" " * delta)
            else:
                strip = min(-delta, len(line) - len(line.lstrip(" ")))
                last += strip
        out.append(text[last:])
        return "".join(out)

    def _in_string(self, offset: int) -> bool:
        i = bisect.bisect_right(self._protected_starts, offset) - 1
        return i >= 0 and self.protected[i][0] < offset < self.protected[i][1]

    def key_text(self, key: str) -> str:
        return python_string(key, self.style.quote, self.style.encoding)

    # -- values at a new place ---------------------------------------------------------

    def value(self, child: Node, indent: str, inline: bool, key: str | None, column: int | None = None) -> str:
        """`child` written where a line starts with `indent` (`inline`: inside a one-line
        collection), starting at `column` where known."""
        if isinstance(child, Src):
            node = self.locate(child.path)[0]
            return self._reindent(node.start, node.end, len(indent) - len(line_indent(self.text, node.start)))
        if isinstance(child, Val):
            value = child.value
            if isinstance(value, dict):
                return self._fresh(Obj([(k, Val(v)) for k, v in value.items()]), indent, inline, key, column)
            if isinstance(value, list):
                return self._fresh(Arr([Val(v) for v in value]), indent, inline, key, column)
            return python_scalar(value, self.style.quote, self.style.encoding)
        if child.origin is not None:
            node = self.locate(child.origin)[0]
            edited = self.text[node.start : node.lb] + self._edit(child, node) + self.text[node.rb + 1 : node.end]
            delta = len(indent) - len(line_indent(self.text, node.start))
            return _shift(edited, delta) if delta else edited
        return self._fresh(child, indent, inline, key, column)

    def _is_scalar(self, node: Node) -> bool:
        if isinstance(node, Val):
            return not isinstance(node.value, (dict, list))
        if isinstance(node, Src):
            return self.locate(node.path)[0].kind == SCALAR
        return False

    def _fresh(self, target: Obj | Arr, indent: str, inline: bool, key: str | None, column: int | None = None) -> str:
        """A new collection: on one line inside a one-line collection (and for short lists
        of scalars where the literal writes them so), else one element a line."""
        is_obj = isinstance(target, Obj)
        entries: list[tuple[str | None, Node]]
        entries = list(target.members) if isinstance(target, Obj) else [(None, item) for item in target.items]
        open_, close = ("{", "}") if is_obj else ("[", "]")
        if not entries:
            return open_ + close
        one_line = inline or (
            not is_obj and self.style.inline_lists and all(self._is_scalar(child) for _, child in entries)
        )
        if one_line:
            parts = []
            for name, child in entries:
                if isinstance(child, Src):
                    self._park(*self._carry(child.path, indent))
                rendered = self.value(child, indent, True, name)
                parts.append((self.key_text(name) + ": " if name is not None else "") + rendered)
            return open_ + ", ".join(parts) + close
        if self.style.hanging and column is not None:
            return self._hanging(entries, open_, close, column)
        inner = indent + self.style.unit
        lines = []
        for j, (name, child) in enumerate(entries):
            mark = len(self.pending)
            lead, tail = self._carry(child.path, inner) if isinstance(child, Src) else ("", "")
            body = self._member_body(name, child, inner)
            lead, tail = self._settle(mark, lead, tail, body, inner)
            last = j == len(entries) - 1
            comma = "," if not last or self.style.trailing_comma else ""
            lines.append(lead + inner + body + comma + tail)
        return open_ + "\n" + "\n".join(lines) + "\n" + indent + close

    def _hanging(self, entries: list[tuple[str | None, Node]], open_: str, close: str, column: int) -> str:
        """A new collection hanging from its bracket at `column`, as `pprint` lays it out."""
        inner = " " * (column + 1)
        lines = []
        for name, child in entries:
            mark = len(self.pending)
            lead, tail = self._carry(child.path, inner) if isinstance(child, Src) else ("", "")
            body = self._member_body(name, child, inner)
            lead, tail = self._settle(mark, lead, tail, body, inner)
            lines.append((lead, body, tail))
        if lines[-1][2]:  # the bracket closes the last line: its comment goes above it
            lead, body, tail = lines[-1]
            lines[-1] = (lead + inner + tail.strip() + "\n", body, "")
        out = open_
        for j, (lead, body, _) in enumerate(lines):
            if j:
                out += "," + lines[j - 1][2] + "\n" + lead + inner
            elif lead:
                out += "\n" + lead + inner
            out += body
        return out + close

    def _member_body(self, name: str | None, child: Node, indent: str) -> str:
        """A new element's text: `key: value` (a moved member keeps its own key text and
        the text between key and value when the key is the same) or the item."""
        if name is not None and isinstance(child, Src):
            node, parent, index = self.locate(child.path)
            if parent is not None and parent.kind == DICT and index is not None and parent.keys[index] == name:
                knode = parent.knodes[index]
                delta = len(indent) - len(line_indent(self.text, knode.start))
                return self._reindent(knode.start, node.end, delta)
        head = self.key_text(name) + ": " if name is not None else ""
        rendered = self.value(child, indent, False, name, len(indent) + len(head))
        return head + rendered

    def _carry(self, path: Path, indent: str) -> tuple[str, str]:
        """`(lead, tail)`: the comments of the source element at `path`, for a place at
        `indent`, when this place keeps them (and those of the unplaced elements it
        stands in for, as lines above it)."""
        owns = self.owners.owns(path)
        adopted = "".join(
            indent + line + "\n" for heir in self.owners.adopted for line in comment_lines(self._own_comments(heir))
        )
        if not owns:
            return adopted, ""
        _, parent, index = self.locate(path)
        if parent is None or index is None:
            return adopted, ""
        layout = self.layout(parent)
        if not layout.multiline:
            return adopted, ""
        lead = "".join(
            indent + line.lstrip(" \t") if line.strip() else line
            for line in layout.leads[index].splitlines(keepends=True)
        )
        return adopted + lead, layout.tails[index]

    def _park(self, lead: str, tail: str) -> None:
        """Keep the comments of an element moved into a one-line collection for the
        nearest element on a line of its own to write."""
        self.pending.extend((comment, False) for comment in comment_lines(lead))
        if tail.strip():
            self.pending.append((tail, True))

    def _settle(self, mark: int, lead: str, tail: str, body: str, indent: str) -> tuple[str, str]:
        """`(lead, tail)` of an element on a line of its own, with the comments its value
        could not hold: a single line-end comment stays at the end of a one-line element,
        others go above it."""
        waiting = self.pending[mark:]
        if not waiting:
            return lead, tail
        del self.pending[mark:]
        tails = [text for text, is_tail in waiting if is_tail]
        if len(tails) == 1 and not tail and "\n" not in body:
            tail = tails[0]
            waiting = [(text, is_tail) for text, is_tail in waiting if not is_tail]
        return lead + "".join(indent + text.strip() + "\n" for text, _ in waiting), tail

    def _own_comments(self, path: Path) -> str:
        """The gap texts holding a source element's own comments: above it, after it on
        its line, and, for a collection, after its opening bracket and before its closing one."""
        try:
            node, parent, index = self.locate(path)
        except KeyError:
            return ""
        parts = []
        if parent is not None and index is not None:
            layout = self.layout(parent)
            if layout.multiline:
                parts += [layout.leads[index], layout.tails[index]]
        if node.kind != SCALAR:
            inner = self.layout(node)
            parts += [inner.head, inner.closing] if inner.multiline else [inner.end_gap if not node.children else ""]
        return "\n".join(parts)

    # -- editing a collection in place ---------------------------------------------------

    def _edit(self, target: Obj | Arr, node: PNode) -> str:
        """A literal collection rewritten, brackets included."""
        text = self.text
        layout = self.layout(node)
        origin = target.origin or ()
        is_obj = isinstance(target, Obj)
        if is_obj != (node.kind == DICT):
            raise FixtureError("internal error: a target collection of the wrong kind", code="internal")
        if layout.multiline:
            indent = layout.indent or line_indent(text, node.lb) + self.style.unit
        else:
            indent = line_indent(text, node.lb)
        entries: list[tuple[str | None, Node]]
        entries = list(target.members) if isinstance(target, Obj) else [(None, item) for item in target.items]
        pieces: list[Piece] = []
        for name, child in entries:
            mark = len(self.pending)
            index = _source_index(origin, child, node)
            if index is not None:
                self.owners.owns(node_origin(child) or ())
                value = node.children[index]
                head = ""
                body_start = node.elem_start(index)
                if node.kind == DICT:
                    knode = node.knodes[index]
                    head = text[knode.start : knode.end] if name == node.keys[index] else self.key_text(name or "")
                    body_start = knode.end
                if isinstance(child, Src):
                    body = head + text[body_start : value.end]
                else:
                    if value.kind == SCALAR:
                        raise FixtureError("internal error: a container edit of a scalar", code="internal")
                    inner = self._edit(child, value)
                    body = head + text[body_start : value.lb] + inner + text[value.rb + 1 : value.end]
                lead = layout.leads[index] if layout.multiline else ""
                tail = layout.tails[index] if layout.multiline else ""
            else:
                lead, tail = self._carry(child.path, indent) if isinstance(child, Src) else ("", "")
                if not layout.multiline and (lead or tail):
                    self._park(lead, tail)
                    lead, tail = "", ""
                body = (
                    self._member_body(name, child, indent)
                    if layout.multiline
                    else self._inline_body(name, child, indent)
                )
                index = None
            if layout.multiline:
                lead, tail = self._settle(mark, lead, tail, body, indent)
            pieces.append(Piece(body, index, lead, tail))
        return render_layout(
            layout,
            pieces,
            open_=node.open,
            close=node.close,
            newline="\n",
            indent=indent,
            trailing_comma=self.style.trailing_comma,
            single_tuple=node.open == "(",
        )

    def _inline_body(self, name: str | None, child: Node, indent: str) -> str:
        rendered = self.value(child, indent, True, name)
        return (self.key_text(name) + ": " if name is not None else "") + rendered


def _shift(text: str, delta: int) -> str:
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        if not line.strip():
            out.append(line)
        elif delta > 0:
            out.append(" " * delta + line)
        else:
            out.append(line[min(-delta, len(line) - len(line.lstrip(" "))) :])
    return "\n".join(out)


def _source_index(origin: Path, child: Node, node: PNode) -> int | None:
    """The position in `node` (at `origin`) of the element `child` stands for, if any."""
    path = node_origin(child)
    if path is None or len(path) != len(origin) + 1 or path[: len(origin)] != origin:
        return None
    key = path[-1]
    if node.kind == DICT:
        return node.index.get(key) if isinstance(key, str) else None
    return key if isinstance(key, int) and 0 <= key < len(node.children) else None
