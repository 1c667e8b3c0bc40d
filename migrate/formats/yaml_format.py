"""YAML fixture files (`.yaml`, `.yml`): read with ruamel.yaml's parser, written back as edits of the text.

(Some 645 lines, over the ~500 the project aims for: composing the span tree, or the
data alone, from the parser's events, reading each scalar as every YAML reader reads it
and placing each error in the text are one pass over one event stream.)

Reading uses ruamel.yaml's pure-Python parser for its events, which carry the
exact place of every node; the nodes are composed here, not by ruamel's
constructors, so that:

- no object is ever built from a tag (`!something`, `!!python/...`): a tagged
  scalar reads as its text, a tagged mapping or sequence as its contents;
- every scalar reads as the value all YAML readers agree on (null, true/false,
  decimal integers, dotted floats), and every other plain scalar as the string
  it is written as: `yes`, `no`, `on`, `off`, `0755`, `1e3` and dates are
  strings, so a migration neither changes nor depends on how a YAML 1.1 or 1.2
  reader would take them (their text is never re-written anyway);
- keys are strings, a key repeated in one mapping is refused (`duplicate_key`),
  `<<` merge keys are applied as YAML readers apply them, and aliases share
  their anchor's value (a recursive alias, or aliases that would add more than
  `MAX_NODES` values or `MAX_EXPANDED_CHARS` characters to what the stream
  writes out, in all its documents, are refused).

Each document of a stream whose root is a mapping is a `Unit` (labelled
"document N" in a stream of several); a document that is a list of mappings is a
bare case list (`Unit` shape "case_list"), which only adapters of such lists
claim (JSON Lines output cases, with `id` and `prompt`): migrated, it becomes a
canonical mapping document, as a JSON Lines file becomes a JSON file. Other
documents are left alone. Writing
is `yaml_writer.YamlWriter`'s span edits, document by document; the result is
checked before it is returned: it must parse, define every alias after its
anchor, and keep every comment of the original. Memory: the span trees are let go
once the edits are made (`docs` composes them again if anything asks), and the
result is read back without one (`compose(tree=False)`), so planning a large file
holds one tree at a time, and none during the checks that follow. CRLF line ends, a byte order
mark, `---`/`...` markers, directives and the final newline are kept as they
were. ruamel.yaml is imported here only, when a YAML file is read.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.formats import BOM, LONE_SURROGATE, MAX_EXPANDED_CHARS, MAX_NODES, Document, Unit, decode_text
from fixture_migrate.formats.target import Node, is_unchanged, materialize
from fixture_migrate.formats.target import Path as NodePath
from fixture_migrate.formats.yaml_style import YamlStyle, detect_style
from fixture_migrate.formats.yaml_text import (
    ALIAS,
    MAP,
    MERGE_KEY,
    SCALAR,
    SEQ,
    YBranch,
    YNode,
    column,
    line_start,
    plain_value,
    tagged_value,
    tail_end,
    walk,
)
from fixture_migrate.formats.yaml_writer import YamlWriter
from ruamel.yaml import YAML
from ruamel.yaml import events as ev
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError

_MERGE_TAG = "tag:yaml.org,2002:merge"
_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#[^\n]*", re.MULTILINE)


@dataclass
class YamlDoc:
    """One document of a stream: its `root` node (None for an empty document), its
    1-based `number`, and the spans of its scalars (where `#` is not a comment)."""

    number: int
    root: YNode | None


class _Composer:
    """Builds `YNode` trees and their data from parser events. With `tree=False` it keeps
    the data only: a collection's value goes straight into its `data` and no member node is
    kept (a mapping's `merges` then hold the positions in `data` where each `<<` member
    stood, and its `children` those members' values)."""

    def __init__(self, text: str, duplicates: str, tree: bool = True) -> None:
        self.text = text
        self.duplicates = duplicates
        self.tree = tree
        self.docs: list[YamlDoc] = []
        self.scalar_spans: list[tuple[int, int]] = []  # only those holding a `#`
        self.names: dict[str, str] = {}  # one string per distinct mapping key
        # The values and scalar characters the current document writes out (not through an
        # alias): the alias guards bound what aliases add to these.
        self.written = 0
        self.written_chars = 0
        # What aliases added in the documents before the current one: the guards bound the
        # whole stream (a file of many small documents each adding nearly the limit would
        # otherwise take hours to read).
        self.added = 0
        self.added_chars = 0

    def error(self, message: str, offset: int, code: str) -> FixtureError:
        line, col = line_col(self.text, offset)
        return FixtureError(message, code=code, line=line, column=col)

    def run(self) -> list[YamlDoc]:
        parser = YAML(typ="safe", pure=True)
        stack: list[YNode] = []
        keys: list[YNode | None] = []  # per open mapping: the key waiting for its value
        anchors: dict[str, YNode] = {}
        root: YNode | None = None
        for event in parser.parse(self.text):
            kind = type(event)
            if kind is ev.DocumentStartEvent:
                anchors = {}
                root = None
                self.written = self.written_chars = 0
                continue
            if kind is ev.DocumentEndEvent:
                if root is not None:
                    self.added += max(0, root.size - self.written)
                    self.added_chars += max(0, root.weight - self.written_chars)
                self.docs.append(YamlDoc(len(self.docs) + 1, root))
                continue
            if kind in (ev.MappingEndEvent, ev.SequenceEndEvent):
                node = stack.pop()
                keys.pop()
                self.finish(node, event)
                if node.anchor is not None:
                    anchors[node.anchor] = node
                node = self.attach(node, stack, keys)
                if node is not None:
                    root = node
                continue
            if kind is ev.ScalarEvent:
                node = self.scalar(event, stack, keys)
            elif kind is ev.AliasEvent:
                node = YBranch(ALIAS, event.start_mark.index)
                node.end = node.cstart = event.end_mark.index
                node.anchor = event.anchor
                target = anchors.get(event.anchor)
                if target is None:
                    if any(open_.anchor == event.anchor for open_ in stack):
                        raise self.error(f"recursive alias *{event.anchor}", node.start, "yaml_alias")
                    raise self.error(f"alias *{event.anchor} has no anchor before it", node.start, "yaml_alias")
                node.target = target
                node.data = target.data
                node.size = target.size
                node.weight = target.weight
            elif kind in (ev.MappingStartEvent, ev.SequenceStartEvent):
                node = YBranch(MAP if kind is ev.MappingStartEvent else SEQ, event.start_mark.index, members=self.tree)
                self.written += 1
                node.anchor, node.tag, node.flow = event.anchor, event.tag, bool(event.flow_style)
                if node.flow:
                    node.cstart = event.end_mark.index - 1
                elif node.kind == MAP:
                    node.cstart = event.end_mark.index
                else:
                    node.cstart = self.first_dash(node.start)
                    if self.tree:
                        node.dashes = []
                node.col = column(self.text, node.cstart)
                node.data = {} if node.kind == MAP else []
                self.place(node, stack, keys)
                stack.append(node)
                keys.append(None)
                continue
            else:
                continue
            if node.kind == SCALAR and node.anchor is not None:
                anchors[node.anchor] = node
            node = self.attach(node, stack, keys)
            if node is not None:
                root = node
        return self.docs

    def place(self, node: YNode, stack: list[YNode], keys: list[YNode | None]) -> None:
        """Set the columns of a node that starts inside the open collection `stack[-1]`."""
        if not stack:
            node.owner = 0
        else:
            parent = stack[-1]
            node.owner = parent.owner if parent.flow else parent.col
        if node.kind in (SCALAR, ALIAS):
            node.col = column(self.text, node.cstart)

    def scalar(self, event: Any, stack: list[YNode], keys: list[YNode | None]) -> YNode:
        node = YNode(SCALAR, event.start_mark.index)
        node.anchor, node.tag, node.style, node.value = event.anchor, event.tag, event.style, event.value
        self.written += 1
        self.written_chars += len(event.value or "")
        end = event.end_mark.index
        start = node.start
        if node.style in ("|", ">"):  # a comment may end the header line (`key: | # note`)
            header_end = self.text.find("\n", start, end)
            start = end if header_end == -1 else header_end + 1
        if self.text.find("#", start, end) != -1:  # only there can a `#` not start a comment
            self.scalar_spans.append((start, end))
        if node.style in ("|", ">"):
            end = self.block_scalar_end(node.start, end)
        node.end = end
        props = self.text[node.start : end]
        if node.anchor is not None or node.tag is not None:
            match = re.match(r"(?:[&!][^\s]*[ \t]*)+", props)
            node.cstart = node.start + (match.end() if match else 0)
            node.cstart = min(node.cstart, end)
        if event.value == "" and node.style is None and node.start == end and stack:
            # An empty value's marks point at the next token; it sits right after its indicator.
            parent = stack[-1]
            key = keys[-1]
            if parent.kind == MAP and key is not None:
                colon = self.text.find(":", key.end)
                node.start = node.cstart = node.end = colon + 1 if colon != -1 else key.end
        try:
            if node.tag is not None and node.tag != "!":
                node.data = tagged_value(node.tag, node.value or "")
            elif node.style is None and node.tag is None:
                node.data = plain_value(node.value or "")
            else:
                node.data = node.value or ""
        except FixtureError as error:
            if error.line is None:
                error.line, error.column = line_col(self.text, node.start)
            raise
        if type(node.data) is str and LONE_SURROGATE.search(node.data):
            line, column = line_col(self.text, node.start)
            raise FixtureError(
                "invalid YAML: a \\u escape stands for a lone surrogate, which no UTF-8 file can hold",
                code="invalid_yaml",
                line=line,
                column=column,
            )
        self.place(node, stack, keys)
        return node

    def block_scalar_end(self, start: int, end: int) -> int:
        """The end of a block scalar's text: its last content line (or, with `+`, its last
        kept line break), not the blank lines the parser's mark runs past."""
        text = self.text
        header_end = text.find("\n", start)
        header = text[start : header_end if header_end != -1 else end]
        if "+" in header.split("#")[0]:
            return end - 1 if end > start and text[end - 1] == "\n" else end
        cut = end
        while cut > start and text[cut - 1] in " \n\r":
            cut -= 1
        line_end = text.find("\n", cut)
        return min(end, line_end if line_end != -1 else len(text))

    def attach(self, node: YNode, stack: list[YNode], keys: list[YNode | None]) -> YNode | None:
        """Add a finished node to its parent; returns it when it is a document's root."""
        if not stack:
            return node
        parent = stack[-1]
        parent.size += node.size
        parent.weight += node.weight
        # What aliases add is bounded, not what the document writes out (the file's size
        # limit bounds that): a subtree holds at most the values written so far plus
        # what aliases added, less what they added in the documents before.
        if parent.size > MAX_NODES - self.added + self.written:
            raise self.error(
                f"the document expands to more than {MAX_NODES:,} values through its aliases{self._before()}",
                node.start,
                "too_large",
            )
        if parent.weight > MAX_EXPANDED_CHARS - self.added_chars + self.written_chars:
            raise self.error(
                f"the document expands to more than {MAX_EXPANDED_CHARS:,} characters of text through its aliases"
                f"{self._before()} ({len(self.text):,} in the file); a fixed limit: alias long text less often",
                node.start,
                "too_large",
            )
        if parent.kind == SEQ:
            if not self.tree:
                parent.data.append(node.data)
                return None
            if not parent.flow:
                dash = self.dash_before(node.start)
                if node.kind == SCALAR and node.value == "" and node.style is None and node.start == node.end:
                    node.start = node.cstart = node.end = dash + 1
                parent.dashes.append(dash)
            node.owner = parent.owner if parent.flow else parent.col
            parent.children.append(node)
            parent.data.append(node.data)
            return None
        key = keys[-1]
        if key is None:
            if node.kind != SCALAR:
                raise self.error("a mapping key must be a plain or quoted scalar", node.start, "yaml_unsupported")
            if not parent.flow and "?" in self.text[self.text.rfind("\n", 0, node.start) + 1 : node.start]:
                raise self.error("explicit '?' keys are not supported", node.start, "yaml_unsupported")
            keys[-1] = node
            return None
        keys[-1] = None
        name = key.value or ""
        name = key.value = self.names.setdefault(name, name)
        if type(key.data) is str:  # the same text as its value
            key.data = name
        node.owner = parent.owner if parent.flow else parent.col
        is_merge = name == MERGE_KEY and key.style is None and (key.tag is None or key.tag == _MERGE_TAG)
        if not is_merge and name in (parent.index if self.tree else parent.data):
            if self.duplicates == "refuse":
                raise self.error(f"duplicate key {name!r} in one mapping", key.start, "duplicate_key")
        if is_merge and parent.merges and self.duplicates == "refuse":
            raise self.error("duplicate key '<<' in one mapping", key.start, "duplicate_key")
        if not self.tree:
            if not is_merge:
                parent.data[name] = node.data  # a repeated key: first place, last value, as `finish` does
                return None
            if not parent.merges:
                parent.merges, parent.children = [], []
            parent.merges.append(len(parent.data))
            parent.children.append(node)
            return None
        position = len(parent.keys)
        parent.keys.append(name)
        parent.knodes.append(key)
        parent.children.append(node)
        if is_merge:
            if not parent.merges:
                parent.merges = []
            parent.merges.append(position)
        else:
            parent.index[name] = position
        return None

    def _before(self) -> str:
        """What a guard's refusal adds when the documents before counted against it."""
        return " (with the documents before it)" if self.added or self.added_chars else ""

    def first_dash(self, offset: int) -> int:
        """The `-` of the first item of a block sequence whose event starts at `offset`
        (after the sequence's anchor or tag, blank space and comments)."""
        text = self.text
        match = re.match(r"(?:[&!][^\s]*[ \t]*)*", text[offset:])
        pos = offset + (match.end() if match else 0)
        while pos < len(text):
            char = text[pos]
            if char == "#":
                pos = text.find("\n", pos)
                if pos == -1:
                    break
            elif char == "-":
                return pos
            pos += 1
        return offset

    def dash_before(self, offset: int) -> int:
        """The `-` of the block sequence item whose node starts at `offset`."""
        text = self.text
        pos = offset
        while True:
            start = text.rfind("\n", 0, pos) + 1
            before = text[start:pos]
            cut = before.find(" #")
            if before.lstrip().startswith("#"):
                before = ""
            elif cut != -1:
                before = before[:cut]
            stripped = before.rstrip()
            if stripped.endswith("-"):
                return start + len(stripped) - 1
            if start == 0:
                return offset
            pos = start - 1

    def finish(self, node: YNode, event: Any) -> None:
        """Close a collection: its end, its elements' tails, and the merged view of a mapping."""
        text = self.text
        if not self.tree:
            if node.merges:
                self.merge_data(node)
            return
        if node.flow:
            node.end = event.end_mark.index
        elif node.children:
            node.elem_ends = [tail_end(text, child.end, node.col) for child in node.children]
            node.end = node.elem_ends[-1]
        else:
            node.end = node.cstart
        if node.kind != MAP:
            return
        pairs: list[tuple[str, Any]] = []
        explicit = set(node.index)
        for position, (name, child) in enumerate(zip(node.keys, node.children, strict=True)):
            if position not in node.merges:
                pairs.append((name, child.data))
                continue
            for provider in self.merge_sources(child):
                for key, value in provider.data.items():
                    if key in explicit or key in node.merged:
                        continue
                    if not node.merged:
                        node.merged = {}
                    node.merged[key] = provider
                    pairs.append((key, value))
        node.data.update(pairs)

    def merge_data(self, node: YNode) -> None:
        """`finish` for a mapping composed without its members: its explicit pairs, with the
        pairs its `<<` members merge in placed where those members stood."""
        explicit = dict(node.data)
        items = list(explicit.items())
        merged: set[str] = set()
        pairs: list[tuple[str, Any]] = []
        done = 0
        for position, child in zip(node.merges, node.children, strict=True):
            pairs.extend(items[done:position])
            done = position
            data = child.data
            sources = [data] if type(data) is dict else data if type(data) is list else None
            if sources is None or any(type(source) is not dict for source in sources):
                raise self.error("a '<<' merge key needs a mapping or a list of mappings", child.start, "yaml_merge")
            for source in sources:
                for key, value in source.items():
                    if key not in explicit and key not in merged:
                        merged.add(key)
                        pairs.append((key, value))
        pairs.extend(items[done:])
        node.data.clear()
        node.data.update(pairs)

    def merge_sources(self, child: YNode) -> list[YNode]:
        """The mappings a `<<` value merges in, in order of precedence."""
        node = child.target if child.kind == ALIAS else child
        assert node is not None
        if node.kind == MAP:
            return [node]
        if node.kind == SEQ:
            found = []
            for item in node.children:
                target = item.target if item.kind == ALIAS else item
                if target is None or target.kind != MAP:
                    break
                found.append(target)
            else:
                return found
        raise self.error("a '<<' merge key needs a mapping or a list of mappings", child.start, "yaml_merge")


def compose(
    text: str, *, duplicates: str = "refuse", tree: bool = True
) -> tuple[list[YamlDoc], list[tuple[int, int]]]:
    """The documents of a YAML stream and the `(start, end)` spans of its scalars whose text
    holds a `#` (the only places where a `#` after a space does not start a comment).
    With `tree=False` each root keeps its `kind` and `data` but no member nodes: what a
    check of the values needs, at a fraction of the memory, with the same errors.

    Raises `FixtureError`: `invalid_yaml` with the parser's line and column,
    `duplicate_key`, `yaml_alias`, `yaml_merge`, `yaml_unsupported` (a complex key),
    `too_large`.
    """
    composer = _Composer(text, duplicates, tree)
    try:
        docs = composer.run()
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        raise FixtureError(f"invalid YAML: {problem}", code="invalid_yaml", line=line, column=col) from None
    except ReaderError as exc:  # a character YAML does not allow; `position` is its index in the text
        line, col = line_col(text, exc.position) if isinstance(exc.position, int) else (None, None)
        raise FixtureError(
            f"invalid YAML: unacceptable character #x{exc.character:04x}: {exc.reason}"
            if isinstance(exc.character, int)
            else f"invalid YAML: {exc.reason}",
            code="invalid_yaml",
            line=line,
            column=col,
        ) from None
    except YAMLError as exc:
        raise FixtureError(f"invalid YAML: {str(exc).splitlines()[0]}", code="invalid_yaml") from None
    return docs, composer.scalar_spans


_ALIAS_NAME = re.compile(r"alias \*(\S+) ")


def _anchor_place(text: str, docs: list[YamlDoc], message: str) -> tuple[int | None, int | None]:
    """The 1-based line and column, in `text` (composed as `docs`), of the anchor that the
    alias named in a `yaml_alias` `message` repeats; `(None, None)` when it cannot be found."""
    found = _ALIAS_NAME.search(message)
    if found is None:
        return None, None
    for doc in docs:
        for node in walk(doc.root) if doc.root is not None else ():
            if node.anchor == found.group(1) and node.kind != ALIAS:
                return line_col(text, node.start)
    return None, None


def comments(text: str, spans: list[tuple[int, int]]) -> Counter[str]:
    """The comments of a YAML text (outside the scalar `spans`, sorted by start, as `compose`
    gives them), counted by their text."""
    found: Counter[str] = Counter()
    starts = [start for start, _ in spans]
    pos = 0
    while (match := _COMMENT.search(text, pos)) is not None:
        at = match.start()
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and spans[i][0] <= at < spans[i][1]:
            # A ` #` inside a scalar: a real comment may still follow the scalar on this line.
            pos = spans[i][1]
            continue
        found[match.group().rstrip("\r").rstrip()] += 1
        pos = match.end()
    return found


class YamlDocument(Document):
    """A `.yaml`/`.yml` stream: one unit per document whose root is a mapping."""

    syntax = "yaml"

    def __init__(self, path: Path, raw: bytes, *, duplicates: str = "refuse") -> None:
        super().__init__(path, raw)
        text, self.bom = decode_text(raw)
        self.crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
        if self.crlf:
            text = text.replace("\r\n", "\n")
        lone = text.replace("\r\n", "").find("\r")
        if lone != -1:
            raise FixtureError(
                "a lone carriage return (old Mac line end) is not supported; use LF or CRLF",
                code="encoding",
                line=text.count("\n", 0, text.find("\r")) + 1,
            )
        self.text = text
        self.duplicates = duplicates
        self._tree: tuple[list[YamlDoc], list[tuple[int, int]]] | None = compose(text, duplicates=duplicates)
        several = len(self.docs) > 1
        self.units = [
            Unit(
                doc.root.data,  # type: ignore[union-attr]
                shape="payload" if doc.root.kind == MAP else "case_list",  # type: ignore[union-attr]
                label=f"document {doc.number}" if several else None,
            )
            for doc in self.fixture_docs
        ]
        self._rendered: tuple[bytes, list[Any]] | None = None

    @property
    def docs(self) -> list[YamlDoc]:
        """The documents of the stream, with their span trees (`compose`); composed again
        from the text when `render` has let them go."""
        if self._tree is None:
            self._tree = compose(self.text, duplicates=self.duplicates)
        return self._tree[0]

    @property
    def spans(self) -> list[tuple[int, int]]:
        """The spans of the scalars that hold a `#` (`compose`)."""
        self.docs  # noqa: B018 - composed again if need be
        assert self._tree is not None
        return self._tree[1]

    @property
    def fixture_docs(self) -> list[YamlDoc]:
        """The documents that are units, in order (a mapping, or a list of mappings)."""
        return [doc for doc in self.docs if _holds_fixture(doc.root)]

    @cached_property
    def style(self) -> YamlStyle:
        return detect_style(self.text, [doc.root for doc in self.docs if doc.root is not None])

    def render(self, targets: list[Node]) -> bytes:
        """The file's bytes with each unit rewritten to its `target` (`Document.render`).

        Once the edits are made the span trees are let go before the result is read back
        (they are most of this document's memory, and the checks need only the data):
        whatever asks for them later (`docs`, `locate`, another `render`) composes them
        again from the text. Raises `FixtureError`: `yaml_alias`, `yaml_comment`,
        `yaml_merge` and the writer's refusals, `internal` when the result does not read.
        """
        edits = self._edits(targets)
        if not edits:
            return self.raw
        text = self.text
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        old_comments = comments(self.text, self.spans)
        del edits, new
        self._tree = None
        data = self._check(text, old_comments)
        for unit, target, new in zip(self.units, targets, data, strict=True):
            if not is_unchanged(target) and new != materialize(target, unit.data):
                raise FixtureError(
                    "refused: the migrated YAML would read differently from the planned migration "
                    "(an alias or a merge key would repeat a changed value)",
                    code="yaml_alias",
                )
        if self.crlf:
            text = text.replace("\n", "\r\n")
        raw = (BOM if self.bom else b"") + text.encode("utf-8")
        self._rendered = (raw, data)
        return raw

    def _edits(self, targets: list[Node]) -> list[tuple[int, int, str]]:
        """`(start, end, new text)` of each unit whose target changes it."""
        edits = []
        for doc, target in zip(self.fixture_docs, targets, strict=True):
            if is_unchanged(target):
                continue
            root = doc.root
            assert root is not None
            writer = YamlWriter(self.text, root, self.style)
            start = root.cstart
            if root.kind == SEQ and not self.text[line_start(self.text, start) : start].strip():
                start = line_start(self.text, start)  # a list becoming a mapping starts its line anew
            edits.append((start, root.end, writer.render_root(target)))
        return edits

    def _check(self, text: str, old_comments: Counter[str]) -> list[Any]:
        """The unit data of a rendered text, after refusing one that does not parse as YAML
        (an alias moved before its anchor) or has lost one of the `old_comments`."""
        try:
            docs, spans = compose(text, tree=False)
        except FixtureError as error:
            if error.code == "yaml_alias":
                line, column = _anchor_place(self.text, self.docs, error.message)
                raise FixtureError(
                    f"refused: in the migrated file the {error.message}: a member holding the anchor "
                    "would move after a member that uses it; move the anchor by hand first",
                    code="yaml_alias",
                    line=line,
                    column=column,
                ) from None
            raise FixtureError(
                f"internal error: the migrated YAML would not read back ({error.message})", code="internal"
            ) from None
        lost = old_comments - comments(text, spans)
        if lost:
            comment = next(iter(lost))
            raise FixtureError(f"refused: the migration would drop the comment {comment!r}", code="yaml_comment")
        return [doc.root.data for doc in docs if _holds_fixture(doc.root)]  # type: ignore[union-attr]

    def reparse(self, raw: bytes) -> list[Any]:
        if self._rendered is not None and self._rendered[0] == raw:
            return self._rendered[1]
        return [unit.data for unit in YamlDocument(self.path, raw).units]

    def locate(self, unit: int, path: NodePath) -> tuple[int, int] | None:
        root = self.fixture_docs[unit].root
        assert root is not None
        try:
            node = YamlWriter(self.text, root, YamlStyle()).locate(path)[0]
        except (KeyError, IndexError):
            return None
        return line_col(self.text, node.start)


def _holds_fixture(root: YNode | None) -> bool:
    """A document that may be a fixture: a mapping (a payload), or a non-empty sequence of
    mappings (a bare case list, as in JSON Lines; only adapters of such lists claim it)."""
    if root is None:
        return False
    if root.kind == MAP:
        return True
    return root.kind == SEQ and bool(root.data) and all(isinstance(item, dict) for item in root.data)


def read(path: Path, raw: bytes, *, duplicates: str = "refuse") -> YamlDocument:
    """Read a YAML stream; raises `FixtureError` as `compose` does, or `encoding`."""
    return YamlDocument(path, raw, duplicates=duplicates)
