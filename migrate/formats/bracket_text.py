"""Bracketed collections in source text: `{...}`, `[...]`, `(...)` with comma-separated elements.

Python literals and YAML flow collections lay out their elements the same way:
an opening bracket, elements separated by commas, optional trailing comma, the
closing bracket, and either everything on one line or one element per line
with comments at line ends and on lines of their own. This module reads that
layout from the text (`parse_layout`) and writes a new element list back in it
(`render_layout`), so the writers of both syntaxes share one rule set:

- elements that stay neighbours keep the exact text between them;
- an element keeps the comment at the end of its line (its *tail*) and the
  comment lines just above it (its *lead*), wherever it goes;
- comment lines before the closing bracket stay there;
- new elements get the container's indentation, separator and trailing comma.

Gap texts never hold strings (those are inside elements), so a `#` in a gap
always starts a comment that runs to the end of its line.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from fixture_migrate.formats.target import Arr, Node, Obj, Path, Src


@dataclass
class Layout:
    """How one bracketed container is written.

    Offsets: `open` and `close` are the positions of the brackets; `starts`/`ends`
    the element spans. Texts: `gaps[i]` is the original text before element `i`
    (after the previous element, or after the opening bracket for `i == 0`) and
    `end_gap` the text after the last element; `head` the rest of the opening
    bracket's line (multi-line layouts); `leads[i]` the whole lines above element
    `i` (each ending in a newline) and `tails[i]` the text after it and its comma
    up to the end of its line; `closing` the text from the end of the last
    element's line to the closing bracket. `indent` is what new elements are
    indented with, `sep` the separator of a one-line layout.
    """

    open: int
    close: int
    starts: list[int]
    ends: list[int]
    multiline: bool
    gaps: list[str]
    end_gap: str
    head: str = ""
    leads: list[str] = field(default_factory=list)
    tails: list[str] = field(default_factory=list)
    closing: str = ""
    trailing_comma: bool = False
    indent: str = ""
    sep: str = ", "


def _find_comma(gap: str) -> int:
    """The index of the comma in a gap between elements, skipping comments; -1 when none."""
    i = 0
    while i < len(gap):
        char = gap[i]
        if char == "#":
            end = gap.find("\n", i)
            if end == -1:
                return -1
            i = end
        elif char == ",":
            return i
        i += 1
    return -1


def _first_line(text: str) -> tuple[str, str]:
    """`(first line without its newline, the rest from that newline on)`."""
    cut = text.find("\n")
    if cut == -1:
        return text, ""
    return text[:cut], text[cut:]


def _split_lines_indent(text: str) -> tuple[str, str]:
    """`text` (starting with a newline) as `(whole lines after that newline, last line's indentation)`."""
    body = text[1:]
    cut = body.rfind("\n") + 1
    return body[:cut], body[cut:]


def parse_layout(text: str, open_: int, close: int, starts: list[int], ends: list[int]) -> Layout:
    """The `Layout` of the container whose brackets sit at `open_` and `close`.

    `starts` and `ends` are the spans of its elements in order (for mappings, from
    the key's start to the value's end). The text between them must hold only
    whitespace, commas, colons-free separators and comments.
    """
    count = len(starts)
    gaps = [text[open_ + 1 : starts[0]]] if count else []
    gaps += [text[ends[i - 1] : starts[i]] for i in range(1, count)]
    end_gap = text[ends[-1] : close] if count else text[open_ + 1 : close]
    multiline = "\n" in end_gap or any("\n" in gap for gap in gaps)
    layout = Layout(open_, close, starts, ends, multiline, gaps, end_gap)
    if not count:
        layout.closing = end_gap
        return layout
    if not multiline:
        if count > 1:
            layout.sep = gaps[1]
        layout.trailing_comma = _find_comma(end_gap) != -1
        return layout

    first = gaps[0]
    leads: list[str] = []
    indents: list[str] = []
    tails: list[str] = []
    if "\n" in first:
        layout.head, rest = _first_line(first)
        lead, indent = _split_lines_indent(rest)
    else:
        layout.head, lead, indent = first, "", ""
    leads.append(lead)
    indents.append(indent)
    for gap in gaps[1:]:
        comma = _find_comma(gap)
        after = gap[comma + 1 :] if comma != -1 else gap
        if "\n" in after:
            tail, rest = _first_line(after)
            lead, indent = _split_lines_indent(rest)
        else:
            tail, lead, indent = "", "", ""
        tails.append(tail)
        leads.append(lead)
        indents.append(indent)
    comma = _find_comma(end_gap)
    layout.trailing_comma = comma != -1
    after = end_gap[comma + 1 :] if comma != -1 else end_gap
    if "\n" in after:
        tail, layout.closing = _first_line(after)
    else:
        tail, layout.closing = "", after
    tails.append(tail)
    layout.leads, layout.tails = leads, tails
    layout.indent = next((indent for indent in indents if indent), "")
    return layout


@dataclass
class Piece:
    """One element of a rewritten container: its `body` text, the index of the original
    element it is (`source`, None for a new or moved-in element), the whole comment
    lines to write above it (`lead`) and the comment after it on its line (`tail`)."""

    body: str
    source: int | None = None
    lead: str = ""
    tail: str = ""


def render_layout(
    layout: Layout,
    pieces: list[Piece],
    *,
    open_: str,
    close: str,
    newline: str,
    indent: str,
    trailing_comma: bool,
    single_tuple: bool = False,
) -> str:
    """The container's new text, brackets included, holding `pieces` in order.

    Kept neighbours keep the exact text between them; other elements are joined in
    the container's layout (one line, or one element per line at `indent` with
    `trailing_comma` after the last when the container had none to keep).
    `single_tuple` forces the comma a one-element Python tuple needs.
    """
    if not pieces:
        return open_ + close
    count = len(layout.starts)
    out = [open_]
    if not layout.multiline:
        out.append(layout.gaps[0] if count else "")
        for j, piece in enumerate(pieces):
            if j:
                before = pieces[j - 1].source
                if before is not None and piece.source == before + 1:
                    out.append(layout.gaps[piece.source])
                else:
                    out.append(layout.sep if count > 1 else ", ")
            out.append(piece.body)
        end = layout.end_gap if count else ""
        if single_tuple and len(pieces) == 1 and _find_comma(end) == -1:
            end = "," + end
        out.append(end)
        out.append(close)
        return "".join(out)

    out.append(layout.head)
    for j, piece in enumerate(pieces):
        if j == 0:
            if piece.source == 0:
                out.append(layout.gaps[0][len(layout.head) :])
            elif count and "\n" not in layout.gaps[0] and not piece.lead:
                out.append(layout.gaps[0])  # a hanging layout: the first element sits by the bracket
            else:
                out.append(newline + piece.lead + indent)
        else:
            previous = pieces[j - 1]
            if previous.source is not None and piece.source == previous.source + 1:
                out.append(layout.gaps[piece.source])
            else:
                out.append("," + previous.tail + newline + piece.lead + indent)
        out.append(piece.body)
    last = pieces[-1]
    if last.source is not None and last.source == count - 1:
        out.append(layout.end_gap)
    else:
        keep_comma = layout.trailing_comma if count else trailing_comma
        comma = "," if keep_comma or (single_tuple and len(pieces) == 1) else ""
        out.append(comma + last.tail + layout.closing)
    out.append(close)
    return "".join(out)


class CommentOwners:
    """Where the comments of source members go in a target tree.

    A source member used twice (the reference's `intent` is both `input` and
    `extensions.intent`, say) keeps its comments at one place: where it stays, else
    a place under its own name, else the first. A source member that is not placed
    at all because the target rebuilds it from its parts (a trigger query that
    becomes a case) hands its own comments to the first of its parts that is placed.
    Writers call `owns(path)` once per placed `Src`, in the target's order, then read
    `adopted`: the source paths whose comments that place also writes, outermost first.
    """

    def __init__(self, target: Node) -> None:
        places: dict[Path, list[tuple[bool, bool]]] = defaultdict(list)
        referenced: set[Path] = set()
        order: list[Path] = []
        stack: list[tuple[Node, Path | None, str | int | None]] = [(target, None, None)]
        while stack:
            node, origin, key = stack.pop()
            if isinstance(node, Src):
                path = node.path
                kept = origin is not None and len(path) == len(origin) + 1 and path[:-1] == origin
                places[path].append((kept, bool(path) and path[-1] == key))
                referenced.add(path)
                order.append(path)
            elif isinstance(node, Obj):
                if node.origin is not None:
                    referenced.add(node.origin)
                stack.extend((child, node.origin, k) for k, child in reversed(node.members))
            elif isinstance(node, Arr):
                if node.origin is not None:
                    referenced.add(node.origin)
                stack.extend((child, node.origin, i) for i, child in reversed(list(enumerate(node.items))))
        self.owner: dict[Path, int] = {}
        for path, found in places.items():
            choice = next((i for i, (kept, _) in enumerate(found) if kept), None)
            if choice is None:
                choice = next((i for i, (_, same) in enumerate(found) if same), 0)
            self.owner[path] = choice
        self._adopts: dict[tuple[Path, int], list[Path]] = {}
        claimed: set[Path] = set()
        counts: Counter[Path] = Counter()
        for path in order:
            heirs = []
            for cut in range(1, len(path)):
                prefix = path[:cut]
                if prefix not in referenced and prefix not in claimed:
                    claimed.add(prefix)
                    heirs.append(prefix)
            if heirs:
                self._adopts[(path, counts[path])] = heirs
            counts[path] += 1
        self.seen: Counter[Path] = Counter()
        self.adopted: list[Path] = []

    def peek(self, path: Path) -> bool:
        """Whether the next place of `path` keeps its comments (without counting it)."""
        return self.owner.get(path, 0) == self.seen[path]

    def owns(self, path: Path) -> bool:
        """Whether this place of `path` keeps its comments; counts the place and sets
        `adopted` to the unplaced source members whose comments it also writes."""
        mine = self.peek(path)
        self.adopted = self._adopts.get((path, self.seen[path]), [])
        self.seen[path] += 1
        return mine


def comment_lines(text: str) -> list[str]:
    """The comments in `text` (whole lines and line ends), each without what precedes its `#`."""
    found = []
    for line in text.split("\n"):
        cut = line.find("#")
        if cut != -1:
            found.append(line[cut:].rstrip("\r"))
    return found
