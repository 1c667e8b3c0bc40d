"""Python modules (`.py`) holding fixture literals: found and rewritten with libcst, never imported.

(Some 920 lines, over the ~500 the project aims for: finding the fixture literals in a
libcst tree, reading them as data with the places of their nodes and refusing what is not
a plain literal are one walk over one tree; the module's text, its encoding and its
check after writing are the same for both readers.)

A fixture literal is the value of a module-level assignment (`NAME = ...` or
`NAME: T = ...`) that is either

- a dict display with a `"schema_version"` key, or a `"cases"`/`"examples"` key
  whose value is a list: a payload (`Unit` shape "payload"); or
- a list (or tuple) display holding dict displays, bound to one of the fixture
  names (`--py-name`, default `CASES` and `FIXTURE`): a bare case list (shape
  "case_list", `Unit.binding` the name).

Each is one `Unit`, labelled with its name. The module is parsed by libcst
(its newest grammar: `match`, PEP 695 `type`, nested f-strings) and never
imported or run; a module over `LEAN_ABOVE` characters is read on its tokens
instead (`python_tokens`: the same trees, data and refusals, without libcst's
tree of the whole module, which takes about 360 MiB per MiB of text), its syntax
checked by a parse of the code around its fixture literals: inside a fixture literal, anything that is not a literal (a
call, a name, a comprehension, an f-string, a `**` spread, a computed key, a
set, bytes) stops the file with an error naming its line, column and kind.
Modules with no fixture literal are not fixtures, without a warning; a module
whose text names neither a fixture key nor a fixture name is not even parsed.

Writing replaces the text of each changed literal with `python_text.PythonWriter`'s
edit of it, so the rest of the module stays byte-identical; the new module is
read again (by the same reader; the token reader reads only its data) and must
keep every comment. A bare case list stays a list, as
code may use it as one (`@pytest.mark.parametrize("case", CASES)`): only its
cases are migrated, in place, and the envelope an adapter builds around them
(`schema_version`, `skill`) is not written; read back for the checks, it stands
for `{"schema_version": <v1>, "cases": [...]}`. libcst is imported here only,
when a Python file is read.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import dataclasses
import re
import tokenize
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import libcst as cst
from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.formats import (
    BOM,
    DEFAULT_PY_NAMES,
    MAX_DEPTH,
    Document,
    Unit,
    decode_text,
)
from fixture_migrate.formats import python_tokens
from fixture_migrate.formats.bracket_text import Layout
from fixture_migrate.formats.python_text import DICT, LIST, SCALAR, PNode, PyStyle, PythonWriter, detect_style
from fixture_migrate.formats.target import Arr, Node, Obj, Src, Val, is_unchanged, node_origin, value_at
from fixture_migrate.formats.target import Path as NodePath
from libcst.metadata import MetadataWrapper, PositionProvider

_FIXTURE_KEYS = ("schema_version", "cases", "examples")

LEAN_ABOVE = 64 << 10
"""A module longer than this (in characters) is read on its tokens (`python_tokens`), not
with libcst's tree. Below it a run with libcst's tree peaks at about 50 MiB more than
its start-up (as much as the start-up itself), and libcst stays the reader of every
ordinary module; above it that grows at about 800 MiB per MiB of text."""

CST_MAX = 512 << 10
"""The largest module (in characters) read with libcst when the token reader cannot
follow it (about 400 MiB at worst); a larger one is refused (`too_large`)."""



def _kind(node: cst.CSTNode) -> str:
    return python_tokens.KINDS.get(type(node).__name__, f"a {type(node).__name__} expression")


@dataclass
class Fixture:
    """A fixture literal of the module: the name it is bound to, its span tree, its shape."""

    name: str
    root: PNode
    shape: str


class _Reader:
    """Builds the span tree and the data of one literal, refusing anything else."""

    def __init__(self, text: str, positions: Any, line_starts: list[int], duplicates: str = "refuse") -> None:
        self.text = text
        self.duplicates = duplicates
        self.positions = positions
        self.line_starts = line_starts
        self.strings: list[tuple[int, int]] = []
        self.drops: dict[int, list[int]] = {}  # per line, columns of `text` libcst's code lacks

    def offset(self, line: int, col: int) -> int:
        for dropped in self.drops.get(line, ()):
            if dropped <= col:
                col += 1
        return self.line_starts[line - 1] + col

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """`(start, end)` of a node, its parentheses included."""
        where = self.positions[node]
        start = self.offset(where.start.line, where.start.column)
        end = self.offset(where.end.line, where.end.column)
        for _ in getattr(node, "lpar", ()):
            start = self.text.rfind("(", 0, start)
        for _ in getattr(node, "rpar", ()):
            end = self.text.find(")", end) + 1
        return start, end

    def place(self, node: cst.CSTNode) -> tuple[int, int]:
        """The 1-based line and column of a node's start in `text` (libcst's column, less
        the white space it drops on a line that holds a form feed)."""
        where = self.positions[node].start
        return where.line, self.offset(where.line, where.column) - self.line_starts[where.line - 1] + 1

    def refuse(self, node: cst.CSTNode, what: str | None = None) -> FixtureError:
        line, column = self.place(node)
        what = what or _kind(node)
        return FixtureError(
            f"{what} is not a literal; a fixture literal holds only strings, numbers, True/False/None, "
            "lists and dicts (the module is never run)",
            code="not_a_literal",
            line=line,
            column=column,
        )

    def string(self, node: cst.CSTNode) -> str:
        """The value of a string literal or an implicit concatenation of them."""
        if isinstance(node, cst.ConcatenatedString):
            return self.string(node.left) + self.string(node.right)
        if isinstance(node, cst.SimpleString):
            if "b" in node.prefix.lower():
                raise self.refuse(node, "a bytes literal")
            start, end = self.span(node)
            if "\n" in self.text[start:end]:
                self.strings.append((start, end))
            return self.literal(node)
        raise self.refuse(node)

    def integer(self, node: cst.Integer) -> int:
        """The value of an integer token (`python_tokens.integer_value`)."""
        return python_tokens.integer_value(node.value, *self.place(node))

    def literal(self, node: cst.SimpleString | cst.Float) -> Any:
        """The value of a string or float token, as CPython reads it
        (`python_tokens.string_value`, which says what it refuses)."""
        return python_tokens.string_value(node.value, *self.place(node))

    def build(self, node: cst.CSTNode) -> PNode:
        """The span tree of a literal, with its data; raises `FixtureError` on a non-literal."""
        start, end = self.span(node)
        if isinstance(node, cst.Dict):
            found = PNode(DICT, start, end)
            found.lb, found.rb = self._brackets(node, start, end)
            found.data = {}
            for element in node.elements:
                if not isinstance(element, cst.DictElement):
                    raise self.refuse(element)
                key = element.key
                if not isinstance(key, (cst.SimpleString, cst.ConcatenatedString)):
                    raise self.refuse(key, f"a computed key ({_kind(key)})")
                name = self.string(key)
                if name in found.index and self.duplicates != "refuse":
                    # Read as Python reads a dict display: the last value wins (read-only views).
                    found.data[name] = self.build(element.value).data
                    continue
                if name in found.index:
                    line, column = self.place(key)
                    raise FixtureError(
                        f"duplicate key {name!r} in one dict", code="duplicate_key", line=line, column=column
                    )
                knode = PNode(SCALAR, *self.span(key))
                knode.data = name
                child = self.build(element.value)
                found.index[name] = len(found.keys)
                found.keys.append(name)
                found.knodes.append(knode)
                found.children.append(child)
                found.data[name] = child.data
            return found
        if isinstance(node, (cst.List, cst.Tuple)):
            found = PNode(LIST, start, end)
            if isinstance(node, cst.Tuple):
                found.open, found.close = "(", ")"
                if not node.lpar:
                    raise self.refuse(node, "a tuple without parentheses")
            found.lb, found.rb = self._brackets(node, start, end)
            found.data = []
            for element in node.elements:
                if not isinstance(element, cst.Element):
                    raise self.refuse(element)
                child = self.build(element.value)
                found.children.append(child)
                found.data.append(child.data)
            return found
        found = PNode(SCALAR, start, end)
        found.data = self.scalar(node)
        return found

    def _brackets(self, node: cst.CSTNode, start: int, end: int) -> tuple[int, int]:
        """The offsets of a collection's own brackets, inside any parentheses around it."""
        where = self.positions[node]
        inner_start = self.offset(where.start.line, where.start.column)
        inner_end = self.offset(where.end.line, where.end.column)
        if isinstance(node, cst.Tuple):
            # A tuple's parentheses are its `lpar`/`rpar`; the innermost pair holds the elements.
            return self.text.rfind("(", 0, inner_start), self.text.find(")", inner_end)
        return inner_start, inner_end - 1

    def scalar(self, node: cst.CSTNode) -> Any:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            return self.string(node)
        if isinstance(node, (cst.Integer, cst.Float)):
            value = self.integer(node) if isinstance(node, cst.Integer) else self.literal(node)
            if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
                raise self.refuse(node, "a float that is not finite")
            return value
        if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.value]
        if (
            isinstance(node, cst.UnaryOperation)
            and isinstance(node.operator, (cst.Minus, cst.Plus))
            and isinstance(node.expression, (cst.Integer, cst.Float))
        ):
            value = self.scalar(node.expression)
            return -value if isinstance(node.operator, cst.Minus) else value
        if isinstance(node, cst.Name):
            raise self.refuse(node, f"a name `{node.value}`")
        if isinstance(node, cst.Call):
            raise self.refuse(node, f"a call to `{_callee(node)}`")
        raise self.refuse(node)


def _callee(node: cst.Call) -> str:
    func = node.func
    parts = []
    while isinstance(func, cst.Attribute):
        parts.append(func.attr.value)
        func = func.value
    if isinstance(func, cst.Name):
        parts.append(func.value)
    return ".".join(reversed(parts)) or "..."


def _string_key(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal key, else None (nothing is evaluated)."""
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower() and "f" not in node.prefix.lower():
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return None
        return value if isinstance(value, str) else None
    return None


def _is_payload(value: cst.BaseExpression) -> bool:
    """A dict display with a `schema_version` key, or a `cases`/`examples` key holding a list."""
    if not isinstance(value, cst.Dict):
        return False
    for element in value.elements:
        if not isinstance(element, cst.DictElement):
            continue
        key = _string_key(element.key)
        if key == "schema_version":
            return True
        if key in ("cases", "examples") and isinstance(element.value, (cst.List, cst.Tuple)):
            return True
    return False


def _partial_dict(
    value: cst.BaseExpression, text: str, positions: Any, line_starts: list[int]
) -> dict[str, Any] | None:
    """The data of a dict literal read leniently: each value that is not a literal read as
    None, each member that is not `"key": value` left out; None when `value` is no dict."""
    if not isinstance(value, cst.Dict):
        return None
    reader = _Reader(text, positions, line_starts, "last")

    def lenient(node: cst.BaseExpression) -> Any:
        if isinstance(node, cst.Dict):
            data: dict[str, Any] = {}
            for element in node.elements:
                if isinstance(element, cst.DictElement) and isinstance(
                    element.key, (cst.SimpleString, cst.ConcatenatedString)
                ):
                    try:
                        data[reader.string(element.key)] = lenient(element.value)
                    except FixtureError:
                        continue
            return data
        if isinstance(node, (cst.List, cst.Tuple)):
            return [lenient(e.value) for e in node.elements if isinstance(e, cst.Element)]
        try:
            return reader.build(node).data
        except FixtureError:
            return None

    return lenient(value)


def _is_case_list(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.List, cst.Tuple)) and any(
        isinstance(element, cst.Element) and isinstance(element.value, cst.Dict) for element in value.elements
    )


MAX_BRACKETS = 200
"""CPython's own limit on nested brackets. libcst's native parser overflows its stack on
a few thousand (the process dies, no exception), so deeper text never reaches it."""

_BRACKETS = re.compile(r"[][(){}]")


def _first_bracket_past(text: str, limit: int) -> int | None:
    """The offset of the first bracket that opens level `limit + 1`, else None. Brackets are
    counted over the whole text, strings and comments included, so the count errs high."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth += 1 if match.group() in "([{" else -1
        if depth > limit:
            return match.start()
    return None


def _refuse_deep_brackets(text: str) -> None:
    """Raise `FixtureError` when brackets may nest deeper than `MAX_BRACKETS`.

    The bracket count (`_first_bracket_past`) can only err high; only then does CPython's
    parser decide (it knows strings), and a module it refuses is refused. CPython's parser
    is not the gate for every file: the running Python may be older than the grammar
    libcst reads (PEP 695, say)."""
    if _first_bracket_past(text, MAX_BRACKETS) is None:
        return
    try:
        ast.parse(text)
    except SyntaxError as error:
        raise FixtureError(
            f"invalid Python: {error.msg}", code="invalid_python", line=error.lineno, column=error.offset
        ) from None
    except (ValueError, RecursionError, MemoryError):
        raise _too_deep(text) from None


def _too_deep(text: str) -> FixtureError:
    """`too_deep`, placed at the first bracket that opens level `MAX_DEPTH + 1` (unplaced
    when the count finds none)."""
    offset = _first_bracket_past(text, MAX_DEPTH)
    line, column = line_col(text, offset) if offset is not None else (None, None)
    return FixtureError(
        f"nesting deeper than {MAX_DEPTH} levels is not supported", code="too_deep", line=line, column=column
    )


def _cpython_error(text: str) -> FixtureError | None:
    """CPython's syntax error for `text` as an `invalid_python` error at its place, or None
    when CPython's parser reads it (or cannot judge it: a null byte, too deep)."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        return FixtureError(
            f"invalid Python: {error.msg}", code="invalid_python", line=error.lineno, column=error.offset
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    return None


def _syntax_error(text: str, exc: cst.ParserSyntaxError | cst.CSTValidationError) -> FixtureError:
    """A parse error with the place CPython's own parser gives, which is more precise
    (libcst's validation errors, such as `"a" b"x"`, carry no place of their own)."""
    if (found := _cpython_error(text)) is not None:
        return found
    if isinstance(exc, cst.CSTValidationError):
        return FixtureError(f"libcst cannot parse this module ({exc})", code="invalid_python")
    first = str(exc.message).splitlines()[0] if exc.message else "syntax error"
    return FixtureError(
        f"libcst cannot parse this module ({first})",
        code="invalid_python",
        line=exc.editor_line,
        column=exc.editor_column,
    )


def _unreadable(text: str) -> FixtureError:
    """The error for a module over `CST_MAX` that the token reader cannot follow: CPython's
    syntax error when it has one (most often), else a refusal that names the limit."""
    if (found := _cpython_error(text)) is not None:
        return found
    return FixtureError(
        f"refused: this module ({len(text) // 1024:,} KiB) holds code the token reader does not follow, and "
        f"libcst, whose syntax tree takes about 800 MiB of memory per MiB, reads modules up to "
        f"{CST_MAX // 1024} KiB; split the module, or move the fixture to a JSON file",
        code="too_large",
    )


def _check_syntax(text: str) -> None:
    """Raise `FixtureError` (`invalid_python`) when neither CPython's parser nor libcst's
    reads `text` (a placeholder text: the code around the fixture literals), placed as
    CPython places it. Raises `python_tokens.Unreadable` when CPython's parser cannot
    judge it (a null byte) and libcst refuses it: the whole module is for libcst."""
    try:
        ast.parse(text)
        return
    except SyntaxError as error:
        found = FixtureError(f"invalid Python: {error.msg}", code="invalid_python", line=error.lineno, column=error.offset)
    except (ValueError, RecursionError, MemoryError):
        raise python_tokens.Unreadable("CPython's parser cannot judge it") from None
    try:
        cst.parse_module(text)  # the running Python may be older than the grammar (PEP 695)
    except (cst.ParserSyntaxError, cst.CSTValidationError):
        raise found from None
    except RecursionError:
        raise python_tokens.Unreadable("too deep for libcst") from None


def _comments(module: cst.Module) -> Counter[str]:
    found: Counter[str] = Counter()

    class Collector(cst.CSTVisitor):
        def visit_Comment(self, node: cst.Comment) -> None:
            found[node.value.rstrip()] += 1

    module.visit(Collector())
    return found


def _mentions(text: str, names: Sequence[str]) -> bool:
    """Whether the module text could hold a fixture literal at all (a cheap pre-check)."""
    if re.search(r"""["'](?:schema_version|cases|examples)["']""", text):
        return True
    if names:
        alternatives = "|".join(re.escape(name) for name in names)
        # At the start of a line, after `;` (`import x; CASES = ...`) or in a chain (`A = CASES = ...`),
        # in parentheses or not (`(CASES) = ...`), before a line continuation or not. Python's
        # indentation may hold form feeds (a page break before a binding).
        if re.search(rf"(?m)(?:^|[;=])[ \t\f(]*(?:{alternatives})[\s)\\]*(?::[^=\n]*)?=", text):
            return True
    return False


def _dropped_white_space(text: str, code: str) -> dict[int, list[int]]:
    """Per line (1-based), the columns of `text` that libcst's `code` of it lacks: libcst
    drops the leading white space of a line that holds a form feed (Python allows one in
    indentation, as a page break), so its positions on that line are short by as many
    characters. Raises
    `FixtureError` when the two differ otherwise (never expected)."""
    drops: dict[int, list[int]] = {}
    ours, theirs = text.split("\n"), code.split("\n")
    if len(ours) != len(theirs):
        raise FixtureError("internal error: the parser read another text than the file's", code="internal")
    for number, (line, parsed) in enumerate(zip(ours, theirs, strict=True), start=1):
        if line == parsed:
            continue
        i = j = 0
        columns: list[int] = []
        while i < len(line):
            if j < len(parsed) and line[i] == parsed[j]:
                j += 1
            elif line[i] in " \t\f":
                columns.append(i)
            else:
                break
            i += 1
        if i < len(line) or j != len(parsed):
            raise FixtureError("internal error: the parser read another text than the file's", code="internal")
        drops[number] = columns
    return drops


_LINE_END = re.compile(r"\r\n|\r|\n")
_RAW_LINES = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class PythonSource:
    """A module's text as Python reads it, and the means to write edits of it back as the
    file's own bytes.

    The encoding is found as Python finds it (`tokenize.detect_encoding`: a UTF-8 byte
    order mark, else a PEP 263 coding cookie on line 1 or 2, else UTF-8). `text` is the
    decoded module with universal newlines (every `\\r\\n` and lone `\\r` read as `\\n`, as
    Python's tokenizer reads them), which the parser and the writer work on. `render`
    splices edits of `text` into the original text, so every byte outside them stays,
    line endings included; the edited text takes the file's own line ending (its most
    common one) and is encoded in the file's encoding.

    Raises `FixtureError` (`encoding`): a cookie naming an unknown encoding, bytes the
    encoding cannot decode (placed), a UTF-16/32 byte order mark.
    """

    def __init__(self, raw: bytes) -> None:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            decode_text(raw)  # raises the UTF-16/32 error every syntax gives
        try:
            # Lines as Python's tokenizer sees them: a lone CR ends one too (BytesIO.readline
            # would read a lone-CR module as one line, and miss its coding cookie).
            encoding, _ = tokenize.detect_encoding(iter(_RAW_LINES.findall(raw[:4096]) + [b""]).__next__)
        except SyntaxError as error:
            if "unknown encoding" in str(error.msg) or "encoding problem" in str(error.msg):
                raise FixtureError(f"invalid Python: {error.msg}", code="encoding", line=1, column=1) from None
            encoding = "utf-8"  # no cookie and a first line that is not UTF-8: placed below
        self.bom = encoding == "utf-8-sig"
        self.encoding = "utf-8" if self.bom else codecs.lookup(encoding).name
        body = raw[len(BOM) :] if self.bom else raw
        if self.encoding == "utf-8":
            self.original = decode_text(body)[0]
        else:
            try:
                self.original = body.decode(self.encoding)
            except UnicodeDecodeError as exc:
                good = body[: exc.start].decode(self.encoding, errors="replace")
                line = len(_LINE_END.findall(good)) + 1
                column = len(good) - max(good.rfind("\n"), good.rfind("\r")) if good else 1
                raise FixtureError(
                    f"not valid {self.encoding} (byte 0x{body[exc.start]:02x}), the encoding its coding cookie names",
                    code="encoding",
                    line=line,
                    column=column,
                ) from None
        endings = _LINE_END.findall(self.original)
        counts = {ending: endings.count(ending) for ending in ("\n", "\r\n", "\r")}
        self.newline = max(counts, key=lambda ending: counts[ending]) if endings else "\n"
        # Offsets in `text` of the newlines that stand for a two-character `\r\n`.
        self._pairs: list[int] = []
        self.text = self.original
        if "\r" in self.original:
            for match in re.finditer("\r\n", self.original):
                self._pairs.append(match.start() - len(self._pairs))
            self.text = _LINE_END.sub("\n", self.original)

    def _original_offset(self, offset: int) -> int:
        """The offset in the original text of `offset` in `text`."""
        return offset + bisect.bisect_left(self._pairs, offset)

    def render(self, edits: list[tuple[int, int, str]]) -> bytes:
        """The file's bytes with each `(start, end, new)` edit of `text` made (new text
        with `\\n` line ends); raises `FixtureError` (`encoding`) when an edit holds a
        character the file's encoding cannot hold."""
        text = self.original
        for start, end, new in sorted(edits, reverse=True):
            # What an edit keeps at its start and end is not rewritten: those bytes (a line
            # ending of another kind in a file of mixed endings, say) stay as they are.
            old = self.text[start:end]
            limit = min(len(old), len(new))
            head = 0
            while head < limit and old[head] == new[head]:
                head += 1
            tail = 0
            while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
                tail += 1
            start, end, new = start + head, end - tail, new[head : len(new) - tail]
            if self.newline != "\n":
                new = new.replace("\n", self.newline)
            text = text[: self._original_offset(start)] + new + text[self._original_offset(end) :]
        try:
            body = text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            line, column = line_col(text.replace("\r\n", "\n").replace("\r", "\n"), exc.start)
            char = text[exc.start]
            raise FixtureError(
                f"refused: the migrated module would hold {char!r} (U+{ord(char):04X}), which its encoding, "
                f"{self.encoding}, cannot hold",
                code="encoding",
                line=line,
                column=column,
            ) from None
        return (BOM if self.bom else b"") + body


class PythonDocument(Document):
    """A `.py` module: one unit per module-level fixture literal."""

    syntax = "python"

    def __init__(
        self,
        path: Path,
        raw: bytes,
        *,
        duplicates: str = "refuse",
        py_names: Sequence[str] = DEFAULT_PY_NAMES,
    ) -> None:
        super().__init__(path, raw)
        source = PythonSource(raw)
        self.source = source
        text = source.text
        self.text = text
        self.py_names = tuple(py_names)
        self.fixtures: list[Fixture] = []
        self.refused: list[tuple[str, FixtureError, dict[str, Any]]] = []
        self.strings: list[tuple[int, int]] = []
        self._rendered: tuple[bytes, list[Any]] | None = None
        self.comments: Counter[str] = Counter()  # of the module: a migration must keep every one
        if not _mentions(text, self.py_names):
            return
        try:
            # Only the comments of libcst's tree are kept: the tree itself is the largest
            # thing a run holds, and the check of the rendered module parses another.
            self.comments, self.fixtures, self.strings = self._read(text, duplicates)
        except RecursionError:  # libcst's tree walks recurse per level of nesting
            raise _too_deep(text) from None
        self.units = [
            Unit(
                fixture.root.data,
                shape=fixture.shape,
                label=fixture.name,
                binding=fixture.name if fixture.shape == "case_list" else None,
            )
            for fixture in self.fixtures
        ]

    def _read(
        self, text: str, duplicates: str = "refuse", spans: bool = True
    ) -> tuple[Counter[str], list[Fixture], list[tuple[int, int]]]:
        """Parse `text` and read its fixture literals: `(comments, fixtures, multi-line string
        spans)`, the comments counted as `_comments` counts them; raises `FixtureError`.

        A text over `LEAN_ABOVE` characters is read by `python_tokens` (no syntax tree of
        the fixtures), unless that reader cannot follow it; a smaller one by libcst.
        Without `spans`, the lean reader reads only the data (each fixture's tree is its
        root alone): enough for the check of a rendered module."""
        if len(text) > LEAN_ABOVE:
            try:
                return self._read_lean(text, duplicates, spans)
            except python_tokens.Unreadable:
                if len(text) > CST_MAX:
                    raise _unreadable(text) from None
        return self._read_cst(text, duplicates)

    def _read_lean(
        self, text: str, duplicates: str = "refuse", spans: bool = True
    ) -> tuple[Counter[str], list[Fixture], list[tuple[int, int]]]:
        """`_read` on the token stream (`python_tokens.read_fixtures`); the module's syntax
        is checked on its placeholder text before any refusal inside a literal is raised.
        Raises `python_tokens.Unreadable` when that reader cannot follow the text."""
        try:
            comments, found, strings, refused, placeholder = python_tokens.read_fixtures(
                text, self.py_names, duplicates, spans
            )
        except python_tokens.Refusal as refusal:
            _check_syntax(refusal.placeholder)
            raise refusal.error from None
        _check_syntax(placeholder)
        del placeholder
        self.refused.extend(refused)
        return comments, [Fixture(label, root, shape) for label, root, shape in found], strings

    def _read_cst(self, text: str, duplicates: str = "refuse") -> tuple[Counter[str], list[Fixture], list[tuple[int, int]]]:
        """`_read` on libcst's syntax tree of the module."""
        _refuse_deep_brackets(text)
        try:
            module = cst.parse_module(text)
        except (cst.ParserSyntaxError, cst.CSTValidationError) as exc:
            raise _syntax_error(text, exc) from None
        except RecursionError:
            raise FixtureError("nesting too deep to parse", code="too_deep") from None
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        line_starts = [0]
        for i, char in enumerate(text):
            if char == "\n":
                line_starts.append(i + 1)
        reader = _Reader(text, positions, line_starts, duplicates)
        if module.code != text:
            reader.drops = _dropped_white_space(text, module.code)
        fixtures: list[Fixture] = []
        names: Counter[str] = Counter()
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                    value = small.value
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    targets = [small.target]
                    value = small.value
                else:
                    continue
                bound = [t.value for t in targets if isinstance(t, cst.Name)]
                if not bound:
                    continue
                if _is_payload(value):
                    shape = "payload"
                elif _is_case_list(value) and any(name in self.py_names for name in bound):
                    shape = "case_list"
                else:
                    continue
                name = next((n for n in bound if n in self.py_names), bound[0])
                names[name] += 1
                label = name if names[name] == 1 else f"{name} (line {positions[value].start.line})"
                try:
                    root = reader.build(value)
                except FixtureError as error:
                    partial = _partial_dict(value, text, positions, line_starts) if shape == "payload" else None
                    if error.code != "not_a_literal" or partial is None:
                        raise
                    # A dict holding a name (`{"schema_version": 1, "runner": RUNNER_ID}`) is
                    # code's data, unless a known family claims it (the engine decides).
                    self.refused.append((label, error, partial))
                    continue
                fixtures.append(Fixture(label, root, shape))
        return _comments(module), fixtures, sorted(reader.strings)

    @property
    def encoding(self) -> str:
        """The module's encoding (PEP 263), for showing its text (`render_file_diff`)."""
        return self.source.encoding

    @cached_property
    def style(self) -> PyStyle:
        # Each container's layout is read for the count and dropped: a writer reads again
        # the few it needs, and a large module's layouts are never all held at once.
        found = detect_style(self.text, [fixture.root for fixture in self.fixtures])
        return dataclasses.replace(found, encoding=self.source.encoding)

    def render(self, targets: list[Node]) -> bytes:
        edits, planned = self._edits(targets)
        if not edits:
            return self.raw
        pieces = []
        last = 0
        for start, end, new in sorted(edits):
            pieces += [self.text[last:start], new]
            last = end
        pieces.append(self.text[last:])
        text = "".join(pieces)
        del pieces
        data = self._check(text)
        del text
        # As `materialize(target, source) == data` for each unit, without a copy of the data.
        if len(data) != len(planned) or not all(
            _matches(target, source, found) for (target, source), found in zip(planned, data)
        ):
            raise FixtureError("internal error: the migrated literal reads differently from the plan", code="internal")
        raw = self.source.render(edits)
        self._rendered = (raw, [_view(fixture.shape, found) for fixture, found in zip(self.fixtures, data)])
        return raw

    def _edits(self, targets: list[Node]) -> tuple[list[tuple[int, int, str]], list[tuple[Node, Any]]]:
        """`(edits, planned)`: the `(start, end, new text)` of each changed literal, and each
        unit's `(target, source data)`. The writers' layouts go with them, before the check."""
        edits = []
        planned = []
        layouts: dict[int, Layout] = {}
        for fixture, target in zip(self.fixtures, targets, strict=True):
            if fixture.shape == "case_list":
                target = _case_list_target(target)
            planned.append((target, fixture.root.data))
            if is_unchanged(target):
                continue
            writer = PythonWriter(self.text, fixture.root, self.style, layouts, self.strings)
            edits.append((fixture.root.start, fixture.root.end, writer.render(target)))
        return edits, planned

    def _check(self, text: str) -> list[Any]:
        """The data of each fixture literal of a rendered module (a bare case list's as the
        list), after refusing one that does not parse or has lost a comment."""
        try:
            comments, fixtures, _ = self._read(text, spans=False)
        except FixtureError as error:
            raise FixtureError(
                f"internal error: the migrated module would not read back ({error.message})", code="internal"
            ) from None
        lost = self.comments - comments
        if lost:
            raise FixtureError(f"refused: the migration would drop the comment {next(iter(lost))!r}", code="py_comment")
        if len(fixtures) != len(self.fixtures):
            raise FixtureError("internal error: the migrated module holds other fixture literals", code="internal")
        return [fixture.root.data for fixture in fixtures]

    def reparse(self, raw: bytes) -> list[Any]:
        """The unit data of migrated bytes; a bare case list reads back as the payload it
        stands for, `{"schema_version": <v1>, "cases": [...]}`."""
        if self._rendered is not None and self._rendered[0] == raw:
            return self._rendered[1]
        again = PythonDocument(self.path, raw, py_names=self.py_names)
        return [_view(fixture.shape, fixture.root.data) for fixture in again.fixtures]

    def locate(self, unit: int, path: NodePath) -> tuple[int, int] | None:
        fixture = self.fixtures[unit]
        try:
            node = PythonWriter(self.text, fixture.root, PyStyle(), {}, []).locate(path)[0]
        except (KeyError, IndexError):
            return None
        return line_col(self.text, node.start)


def _view(shape: str, data: Any) -> Any:
    """A unit's data as the checks read it: a bare case list stands for a canonical payload."""
    if shape == "case_list":
        return {"schema_version": c.CANONICAL_SCHEMA_VERSION, "cases": data}
    return data


def _matches(node: Node, source: Any, data: Any) -> bool:
    """Whether `data` equals `materialize(node, source)`, the data a target tree stands
    for; compared as it is walked, so no copy of the data is made (dicts compare without
    order, as dicts do)."""
    if isinstance(node, Src):
        return bool(value_at(source, node.path) == data)
    if isinstance(node, Val):
        return bool(node.value == data)
    if isinstance(node, Obj):
        members = dict(node.members)
        return (
            isinstance(data, dict)
            and len(members) == len(data)
            and all(key in data and _matches(child, source, data[key]) for key, child in members.items())
        )
    return (
        isinstance(data, list)
        and len(node.items) == len(data)
        and all(_matches(child, source, item) for child, item in zip(node.items, data))
    )


def _case_list_target(target: Node) -> Node:
    """The edit of a bare case list inside the payload an adapter built around it: its
    `cases` member, as an edit of the list. The envelope's new values are not written
    (a list cannot hold them); anything else in it would be lost, so it is refused."""
    if isinstance(target, Src) and target.path == ():
        return target
    if isinstance(target, Arr) and target.origin == ():
        return target
    if isinstance(target, Obj) and target.origin is None:
        cases = None
        for key, child in target.members:
            if key == "cases":
                cases = child
            elif not isinstance(child, Val):
                raise FixtureError(
                    f"refused: the migration would put {key!r} beside the cases, which a bare list cannot hold; "
                    "make the list a dict literal with a `cases` key",
                    code="case_list",
                )
        if isinstance(cases, Src) and cases.path == ():
            return cases
        if isinstance(cases, Arr) and (
            cases.origin == ()
            or (cases.origin is None and all(node_origin(item) in (None, (i,)) for i, item in enumerate(cases.items)))
        ):
            return Arr(list(cases.items), origin=())
    raise FixtureError("refused: this migration does not keep the bare case list a list of its cases", code="case_list")


def read(
    path: Path, raw: bytes, *, duplicates: str = "refuse", py_names: Sequence[str] = DEFAULT_PY_NAMES
) -> PythonDocument:
    """Read a Python module's fixture literals; raises `FixtureError` (`invalid_python`,
    `not_a_literal`, `duplicate_key`, `encoding`)."""
    return PythonDocument(path, raw, duplicates=duplicates, py_names=py_names)
