"""The comments a YAML member takes along when the writer moves it.

A member keeps the comment lines just above it (its *lead*), the comment at the end
of its last line and the deeper-indented comment lines under it (its *tail*); a
source member a migration rebuilds from its parts hands its comments to the first
part placed (`bracket_text.CommentOwners` decides which place owns which comments).
Where a moved member lands inside a flow collection, which cannot hold a comment,
its comments are *parked* until the nearest block member writes them above itself.
`CommentCarrier` keeps that state for one document while the writer
(`fixture_migrate.formats.yaml_writer`) asks it for each moved member's comments.
"""

from __future__ import annotations

from fixture_migrate.formats.bracket_text import CommentOwners, comment_lines
from fixture_migrate.formats.target import Path, Src
from fixture_migrate.formats.yaml_text import MAP, SEQ, YNode, flow_layout, lead_of, locate, shift_lines, shift_text


class CommentCarrier:
    """The comments of one document's moved members: `owners` says which place keeps a
    source member's comments (set per rendered target), `pending` holds the parked ones
    as `(text, is a line-end comment)`."""

    def __init__(self, text: str, root: YNode) -> None:
        self.text = text
        self.root = root
        self.owners = CommentOwners(Src(()))
        self.pending: list[tuple[str, bool]] = []

    def take(self, mark: int) -> list[tuple[str, bool]]:
        """The comments parked since `len(pending)` was `mark`, no longer parked."""
        waiting = self.pending[mark:]
        del self.pending[mark:]
        return waiting

    def carry(self, path: Path, col: int) -> tuple[str, str]:
        """`(lead, tail)`: the comments of the source element at `path`, re-indented for a
        place at column `col`, when this place is the one that keeps them (and those of
        the unplaced members it stands in for)."""
        owns = self.owners.owns(path)
        adopted = self.adopted(col)
        if not owns:
            return adopted, ""
        node, parent, index, direct = locate(self.root, path)
        if parent is None or index is None or not direct:
            return adopted, ""
        if parent.block:
            delta = col - parent.col
            lead = shift_lines(lead_of(self.text, parent, index), delta)
            return adopted + lead, shift_text(self.text[node.end : parent.elem_ends[index]], delta)
        layout = flow_layout(self.text, parent)
        if not layout.multiline:
            return adopted, ""
        return adopted + _reindent(layout.leads[index], " " * col), layout.tails[index]

    def adopted(self, col: int) -> str:
        """Comment lines, at column `col`, of the unplaced source members the place just
        counted by `owners.owns` stands in for."""
        lines = []
        for path in self.owners.adopted:
            lines.extend(comment_lines(self.own_comments(path)))
        return "".join(" " * col + line + "\n" for line in lines)

    def own_comments(self, path: Path) -> str:
        """The text holding a source element's own comments: the lines above it, those
        between its key or dash and its value, its tail, and a flow collection's comments
        outside its elements (its elements' comments are theirs)."""
        try:
            node, parent, index, direct = locate(self.root, path)
        except KeyError:
            return ""
        if parent is None or index is None or not direct:
            return ""
        text = self.text
        inner = ""
        if node.flow:
            layout = flow_layout(self.text, node)
            inner = "\n" + (layout.head + "\n" + layout.closing if layout.multiline else "")
        value_start = node.cstart if node.kind in (MAP, SEQ) else node.start
        if parent.block:
            start = parent.knodes[index].end if parent.kind == MAP else parent.dashes[index] + 1
            tail = text[node.end : parent.elem_ends[index]]
            return lead_of(text, parent, index) + text[start:value_start] + "\n" + tail + inner
        layout = flow_layout(self.text, parent)
        if not layout.multiline:
            return inner
        return layout.leads[index] + "\n" + layout.tails[index] + inner

    def park(self, lead: str, tail: str) -> None:
        """Keep the comments of a member moved where no comment can go (inside a flow
        collection) for the nearest block member to write."""
        self.pending.extend((comment, False) for comment in comment_lines(lead))
        if "\n" in tail:
            self.pending.extend((comment, False) for comment in comment_lines(tail))
        elif tail.strip():
            self.pending.append((tail, True))


def _reindent(lead: str, indent: str) -> str:
    if not lead:
        return lead
    return "".join(indent + line.lstrip(" ") if line.strip() else line for line in lead.splitlines(keepends=True))
