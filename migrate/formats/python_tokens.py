"""A lean reader of a Python module's fixture literals, on the token stream: no syntax tree.

(Some 820 lines, over the ~500 the project aims for: the reader reproduces, refusal for
refusal, what `python_format._Reader` reads from libcst's tree, and those rules read
best in one place.)

libcst's tree of a module costs about 360 MiB of memory per MiB of text, and Python's
own `ast` about 70; a large fixture module is read here instead, in little beyond its
span tree. One streaming pass of `tokenize` finds the module-level assignments (`NAME =
...`, `NAME: T = ...`, `A = B = ...`), and a small recursive-descent parser over the
tokens of each value builds the same `PNode` span tree and data as
`python_format._Reader.build`, with the same refusals (code, message, line, column)
for anything that is not a literal. The rest of the module is only skipped (its
comments counted); `placeholder_text` then gives the module with each literal read
replaced by white space in parentheses, on the same lines and columns, whose parse
checks the syntax of the code around the fixtures without a tree of the fixtures.

A module this reader cannot follow (one `tokenize` refuses, a construct the parser does
not know, which is a syntax error most often) raises `Unreadable`; `python_format`
then reads it with libcst, as any other module.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
import sys
import tokenize
from collections import Counter
from collections.abc import Iterator
from typing import Any

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import LONE_SURROGATE, MAX_INT_DIGITS, integer_too_long
from fixture_migrate.formats.python_text import DICT, LIST, SCALAR, PNode

NAME, NUMBER, STRING, OP = tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP
NEWLINE, ENDMARKER = tokenize.NEWLINE, tokenize.ENDMARKER
# Python 3.12 tokenizes an f-string as its parts (PEP 701); older ones as one STRING.
FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
FSTRING_END = getattr(tokenize, "FSTRING_END", -1)

KINDS = {
    "Call": "a call",
    "Name": "a name",
    "Attribute": "an attribute",
    "Subscript": "a subscript",
    "BinaryOperation": "an operator expression",
    "UnaryOperation": "an operator expression",
    "BooleanOperation": "a boolean expression",
    "Comparison": "a comparison",
    "IfExp": "a conditional expression",
    "Lambda": "a lambda",
    "ListComp": "a list comprehension",
    "SetComp": "a set comprehension",
    "DictComp": "a dict comprehension",
    "GeneratorExp": "a generator expression",
    "FormattedString": "an f-string",
    "Set": "a set",
    "Imaginary": "a complex number",
    "Ellipsis": "an ellipsis",
    "NamedExpr": "an assignment expression",
    "Await": "an await expression",
    "Yield": "a yield expression",
    "StarredElement": "a `*` spread",
    "StarredDictElement": "a `**` spread",
}
"""How a refusal names each kind of expression, by the name of libcst's node class."""

MAX_BRACKETS = 200
"""CPython's own limit on nested brackets: deeper text is left to `python_format`."""

_STRINGS = ("SimpleString", "ConcatenatedString")
_DISPLAYS = ("Dict", "List", "Tuple")
_OPENERS = frozenset("([{")
_CLOSERS = frozenset(")]}")
_ENDS = frozenset([",", ";", "=", ":", ")", "]", "}"])
_BINARY = frozenset(["+", "-", "*", "/", "//", "%", "@", "**", "<<", ">>", "&", "|", "^"])
_COMPARE = frozenset(["<", ">", "==", ">=", "<=", "!=", "<>", "in", "is", "not"])
_KEYWORDS = frozenset(keyword.kwlist) - {"True", "False", "None"}
_CONSTANTS = {"True": True, "False": False, "None": None}
_COMPOUND = frozenset(["if", "elif", "else", "for", "while", "with", "def", "class", "try", "except", "finally", "async"])
_RADIX = ("x", "X", "o", "O", "b", "B")
_NOT_NEWLINE = re.compile("[^\n]")


def kind_name(cls: str) -> str:
    """How a refusal names an expression of libcst class `cls` ("a call", "a Integer expression")."""
    return KINDS.get(cls, f"a {cls} expression")


def not_a_literal(what: str, line: int, column: int) -> FixtureError:
    """The `not_a_literal` refusal of `what` at 1-based `line` and 0-based `column`."""
    return FixtureError(
        f"{what} is not a literal; a fixture literal holds only strings, numbers, True/False/None, "
        "lists and dicts (the module is never run)",
        code="not_a_literal",
        line=line,
        column=column + 1,
    )


class Unreadable(Exception):
    """The tokens hold something this reader does not follow (a syntax error, most often):
    the module is for another reader to judge."""


@functools.cache
def _decimal_limit() -> int:
    """10 ** MAX_INT_DIGITS, the smallest integer with more decimal digits than allowed
    (computed once, when first needed)."""
    return 10**MAX_INT_DIGITS


def integer_value(token: str, line: int, column: int) -> int:
    """The value of an integer token (`0x_1`, `1_000`, ...). Raises `integer_too_long` at
    `line`/`column` (1-based) past `MAX_INT_DIGITS` decimal digits, counted as the value is
    written in decimal, whatever the token's base or `_` separators; `ValueError` for a
    token that is no integer. Both readers (tokens and libcst) read integers with it."""
    digits = token.replace("_", "")
    too_long = len(digits) > MAX_INT_DIGITS if digits[1:2] not in _RADIX else False
    if not too_long:
        value = int(digits, 0)
        too_long = abs(value) >= _decimal_limit()
    if too_long:
        raise integer_too_long(line, column)
    return value


def string_value(token: str, line: int, column: int) -> Any:
    """The value of a string (or float) token as CPython reads it. Raises `FixtureError`
    (`invalid_python`, at `line`/`column`, 1-based) for one CPython refuses (a bad escape
    such as `\\x4`, an unknown `\\N{...}` name) or a string holding a lone surrogate. Both
    readers read string tokens with it."""
    try:
        value = ast.literal_eval(token)
    except (SyntaxError, ValueError) as error:
        message = str(error.msg if isinstance(error, SyntaxError) else error)
        raise FixtureError(f"invalid Python: {message}", code="invalid_python", line=line, column=column) from None
    if type(value) is str and LONE_SURROGATE.search(value):
        raise FixtureError(
            "invalid Python: a \\u escape stands for a lone surrogate, which no UTF-8 file can hold",
            code="invalid_python",
            line=line,
            column=column,
        )
    return value


def _lines(text: str) -> Iterator[str]:
    """The lines of `text` (`\\n` ends), one at a time: no copy of the text is held."""
    start = 0
    while True:
        end = text.find("\n", start) + 1
        if not end:
            if start < len(text):
                yield text[start:]
            return
        yield text[start:end]
        start = end


class _Bare(PNode):
    """A container's node when only data is read: no lists of children."""

    __slots__ = ("lb", "rb", "open", "close")


class Statement:
    """One module-level assignment: the plain `names` it binds, its value's span tree `node`
    (None for a value that is no literal display), the value's libcst class `cls` ("Dict",
    "List", "Tuple"), the 1-based `line` where the value itself starts (inside any
    parentheses), its `span` in the text, and what reading it found: `error` (the first
    refusal, in the order libcst's reader meets them), `strings` (spans of its multi-line
    strings read before that refusal), `payload` (a dict display with a fixture key) and
    `case_list` (a list or tuple display holding a dict display)."""

    __slots__ = ("names", "node", "cls", "line", "span", "error", "strings", "payload", "case_list")

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.node: PNode | None = None
        self.cls = ""
        self.line = 0
        self.span = (0, 0)
        self.error: FixtureError | None = None
        self.strings: list[tuple[int, int]] = []
        self.payload = False
        self.case_list = False


Read = tuple[PNode | None, str, int, int, str | None]
"""What reading one expression gives: `(node, libcst class, own line, own column, name)`;
the own place is inside any parentheses (where libcst's positions put it), `name` is the
identifier of a bare name."""


class TokenReader:
    """Reads the module-level assignments of a module's `text` (universal newlines), one
    at a time, as `statements()` yields them.

    `comments` counts every comment of the module, stripped of trailing white space (as
    `python_format._comments` counts libcst's), once the statements are all read.
    `duplicates` is "refuse" (a repeated key is `duplicate_key`) or "last" (the last one
    wins). Raises `Unreadable` where the tokens do not make sense to it (`tokenize`
    errors, brackets nested over `MAX_BRACKETS`)."""

    def __init__(self, text: str, duplicates: str = "refuse", spans: bool = True) -> None:
        self.text = text
        self.duplicates = duplicates
        self.spans = spans
        self._scratch = PNode(SCALAR, 0, 0)
        self.comments: Counter[str] = Counter()
        self._tokens = tokenize.generate_tokens(functools.partial(next, _lines(text), ""))
        self._line = 1
        self._line_start = 0
        self.indent = 0
        self.depth = 0  # the bracket level the current token sits at (a bracket: its outer one)
        self._opened = False
        self.type = ENDMARKER
        self.string = ""
        self.line = self.col = self.start = self.end = self.prev_end = 0
        self.error: FixtureError | None = None
        self.strings: list[tuple[int, int]] = []
        self._payload = False
        self._has_dict = False
        self._string_entry: tuple[PNode | None, int] = (None, 0)
        self.advance()

    # -- tokens ------------------------------------------------------------------

    def _offset(self, line: int, column: int) -> int:
        while self._line < line:
            found = self.text.find("\n", self._line_start)
            self._line_start = found + 1 if found >= 0 else len(self.text)  # the end marker's line
            self._line += 1
        offset = self._line_start + column
        return offset if offset <= len(self.text) else len(self.text)

    def advance(self) -> None:
        """Move to the next significant token: comments are counted, NL, INDENT and DEDENT
        only tracked."""
        self.prev_end = self.end
        if self._opened:
            self.depth += 1
            if self.depth > MAX_BRACKETS:
                raise Unreadable("brackets nested too deep")
        try:
            for token in self._tokens:
                kind = token.type
                if kind == tokenize.COMMENT:
                    self.comments[token.string.rstrip()] += 1
                elif kind == tokenize.INDENT:
                    self.indent += 1
                elif kind == tokenize.DEDENT:
                    self.indent -= 1
                elif kind == tokenize.NL or (kind == tokenize.ERRORTOKEN and token.string.isspace()):
                    continue
                elif kind == tokenize.ERRORTOKEN:
                    raise Unreadable(f"unexpected {token.string!r}")
                else:
                    string = token.string
                    self.type, self.string = kind, string
                    self.line, self.col = token.start
                    self.start = self._offset(*token.start)
                    # A token's text is the source's (3.12 gives the end of a multi-line string
                    # with non-ASCII text in bytes, not characters).
                    self.end = self.start + len(string)
                    self._opened = kind == OP and string in _OPENERS
                    if kind == OP and string in _CLOSERS:
                        self.depth -= 1
                        if self.depth < 0:
                            raise Unreadable("unmatched bracket")
                    return
        except (tokenize.TokenError, SyntaxError) as error:  # IndentationError is a SyntaxError
            raise Unreadable(str(error)) from None
        raise Unreadable("no end marker")

    def _is(self, string: str) -> bool:
        return self.string == string and self.type in (OP, NAME)

    def _ends(self) -> bool:
        """Whether the current token ends the expression before it."""
        if self.type == OP:
            return self.string in _ENDS
        return self.type in (NEWLINE, ENDMARKER) or (self.type == NAME and self.string in ("for", "async"))

    def _skip_group(self, level: int) -> None:
        """Skip to the closing bracket at `level` (its opener's), and past it."""
        while not (self.depth == level and self.type == OP and self.string in _CLOSERS):
            if self.type == ENDMARKER:
                raise Unreadable("unclosed bracket")
            self.advance()
        self.advance()

    # -- refusals --------------------------------------------------------------------

    def _fail(self, error: FixtureError) -> None:
        if self.error is None:
            self.error = error

    def _mark(self) -> tuple[bool, int]:
        return self.error is None, len(self.strings)

    def _override(self, mark: tuple[bool, int], error: FixtureError) -> None:
        """Refuse a whole expression, as libcst's reader does before it looks inside: its
        refusal replaces any found inside it (when none came before it), and the
        multi-line strings found inside are forgotten."""
        clean, strings = mark
        if clean:
            self.error = error
            del self.strings[strings:]

    # -- statements ------------------------------------------------------------------

    def statements(self) -> Iterator[Statement]:
        """The module-level assignments whose value reads as a literal display, in order."""
        while self.type != ENDMARKER:
            if self.type == NEWLINE or self._is(";"):
                self.advance()
                continue
            if self.indent > 0 or self._is("@") or (self.type == NAME and self.string in _COMPOUND):
                self._skip_line()
                continue
            found = self._statement()
            if found is not None:
                yield found
            if not (self.type in (NEWLINE, ENDMARKER) or self._is(";")):
                self._skip_line()

    def _skip_line(self) -> None:
        while self.type != ENDMARKER and not (self.type == NEWLINE and self.depth == 0):
            self.advance()

    def _statement(self) -> Statement | None:
        """One small statement when it is an assignment; left at its end, or where it
        stopped being one."""
        target: list[tuple[int, str]] = []  # its first tokens: enough to tell a plain name
        while not (self.depth == 0 and (self.type in (NEWLINE, ENDMARKER) or self.string in ("=", ":", ";"))):
            if len(target) <= 2 * MAX_BRACKETS + 1:
                target.append((self.type, self.string))
            self.advance()
        name = _bare_name(target)
        names = [name] if name is not None else []
        if self._is(":"):
            self.advance()
            while not (self.depth == 0 and (self.type in (NEWLINE, ENDMARKER) or self._is("=") or self._is(";"))):
                self.advance()
        if not self._is("="):
            return None
        self.advance()
        while True:
            self.error, self.strings = None, []
            start = self.start
            node, cls, line, col, name = self.value()
            if self._is(","):  # a tuple without parentheses: `A = 1, {...}` or `a, b = ...`
                dicts = cls == "Dict"
                while self._is(","):
                    self.advance()
                    if self.type in (NEWLINE, ENDMARKER) or self._is("=") or self._is(";"):
                        break
                    if self._is("*"):
                        self.advance()
                    dicts = self.value()[1] == "Dict" or dicts
                node, cls, name = None, "Tuple" if dicts else "", None
                self._override((True, 0), not_a_literal("a tuple without parentheses", line, col))
            if self._is("="):
                if cls == "Name" and name is not None:
                    names.append(name)
                self.advance()
                continue
            if not names or cls not in _DISPLAYS or not (self.type in (NEWLINE, ENDMARKER) or self._is(";")):
                return None
            if node is not None and node is self._scratch:
                node = PNode(SCALAR, 0, 0)  # the data of a whole value, read without spans
                node.data = self._scratch.data
            found = Statement(names)
            found.node, found.cls, found.line, found.span = node, cls, line, (start, self.prev_end)
            found.error, found.strings = self.error, self.strings
            found.payload = cls == "Dict" and self._payload
            found.case_list = cls != "Dict" and (node is None or self._has_dict)
            return found

    # -- expressions -------------------------------------------------------------------

    def value(self) -> Read:
        """Read one expression, its first refusal recorded in `error` (in libcst's reading
        order). `node` is the literal's span tree and data, None for an expression that is
        no literal; a display that holds one still has its node, its data read leniently
        (the non-literal read as None, a member with a bad key left out)."""
        mark = self._mark()
        start, line, col, level = self.start, self.line, self.col, self.depth
        name: str | None = None
        first_line, first_col = line, col
        kind, string = self.type, self.string
        if kind == OP and string in _OPENERS:
            node, cls, line, col, name = self._group()
            items = [("atom", "")]
        elif kind in (STRING, FSTRING_START):
            node, cls = self._strings()
            items = [("atom", "")]
        elif kind == NUMBER:
            node, cls = self._number()
            items = [("atom", "")]
        elif kind == NAME and string in _CONSTANTS:
            node, cls = self._scalar(_CONSTANTS[string]), "Name"
            self.advance()
            items = [("name", string)]
        elif kind == OP and string in ("-", "+"):
            self.advance()
            operand, inner, _, _, _ = self.value()
            if inner in ("Integer", "Float"):
                if operand is not None:
                    operand.data = -operand.data if string == "-" else operand.data
                    operand.start = start
                return operand, "UnaryOperation", line, col, None
            cls = inner if inner in ("Comparison", "BooleanOperation", "IfExp") else "UnaryOperation"
            self._override(mark, not_a_literal(kind_name(cls), line, col))
            return None, cls, line, col, None
        elif kind == NAME and string not in _KEYWORDS:
            self.advance()
            if self._ends():
                self._fail(not_a_literal(f"a name `{string}`", line, col))
                return None, "Name", line, col, string
            node, cls, items = None, "", [("name", string)]
        else:
            node, cls, items = None, "", []
        if cls and self._ends():
            return node, cls, line, col, name  # a name in parentheses may be a target (`A = (B) = ...`)
        if self.depth < level or (not items and self._ends()):
            raise Unreadable(f"unexpected {self.string!r} at line {self.line}")
        cls, callee = self._rest(items, level)
        if cls == "Expression" and level > 0:
            # Tokens that make no expression inside a display: a syntax error, or syntax of
            # a newer Python than this one's tokenizer (PEP 701 f-strings).
            raise Unreadable(f"no expression at line {line}")
        what = f"a call to `{callee}`" if cls == "Call" else kind_name(cls)
        line, col = first_line, first_col  # an expression around a group starts at its parentheses
        self._override(mark, not_a_literal(what, line, col))
        return None, cls, line, col, None

    def _rest(self, items: list[tuple[str, str]], level: int) -> tuple[str, str]:
        """Skip the rest of an expression that is no literal: its libcst class, and for a
        call the callee as `python_format._callee` names it."""
        lambdas = 0
        while True:
            if self.depth < level:
                break
            if self.depth == level:
                if self.type in (NEWLINE, ENDMARKER):
                    break
                string = self.string
                if self.type == OP and string in _CLOSERS:
                    self.advance()  # the end of a group opened at this level
                    continue
                if self._ends():
                    if string == ":" and lambdas:
                        lambdas -= 1
                    elif not (string == "=" and lambdas):
                        break
                if self.type == OP and string in _OPENERS:
                    items.append(("group", string))
                elif self.type == NAME:
                    lambdas += string == "lambda"
                    items.append(("kw" if string in _KEYWORDS else "name", string))
                elif self.type == OP:
                    items.append(("op", string))
                else:
                    items.append(("atom", ""))
            elif self.type == ENDMARKER:
                raise Unreadable("unclosed bracket")
            self.advance()
        if not items:
            raise Unreadable(f"unexpected {self.string!r} at line {self.line}")
        return _classify(items), _callee(items)

    def _scalar(self, data: Any) -> PNode:
        """The current token's node, holding `data`; without `spans`, one node is used
        again and again (its reader takes its data at once)."""
        if self.spans:
            node = PNode(SCALAR, self.start, self.end)
        else:
            node = self._scratch
        node.data = data
        return node

    def _number(self) -> tuple[PNode | None, str]:
        text, line, col = self.string, self.line, self.col
        node = self._scalar(None)
        self.advance()
        if text[-1] in "jJ":
            self._fail(not_a_literal(kind_name("Imaginary"), line, col))
            return None, "Imaginary"
        digits = text.replace("_", "")
        if digits[1:2] in _RADIX or not any(c in digits for c in ".eE"):
            try:
                node.data = integer_value(text, line, col + 1)
            except ValueError:
                raise Unreadable(text) from None
            except FixtureError as error:
                self._fail(error)
                return None, "Integer"
            return node, "Integer"
        value = float(digits)  # what CPython reads for any float token
        if value != value or value in (float("inf"), float("-inf")):
            self._fail(not_a_literal("a float that is not finite", line, col))
            return None, "Float"
        node.data = value
        return node, "Float"

    def _literal(self, text: str, line: int, col: int) -> Any:
        """The value of a string token with escapes as CPython reads it; None when refused."""
        try:
            return string_value(text, line, col + 1)
        except FixtureError as error:
            self._fail(error)
            return None

    def _strings(self) -> tuple[PNode | None, str]:
        """A string literal or an implicit concatenation of them."""
        start = self.start
        parts: list[str] = []
        ok = True
        count = 0
        formatted = False
        entry = -1
        while self.type in (STRING, FSTRING_START):
            count += 1
            text, line, col = self.string, self.line, self.col
            if self.type == FSTRING_START:
                formatted = True
                self._fail(not_a_literal(kind_name("FormattedString"), line, col))
                ok = False
                self._skip_fstring()
                continue
            body = text.lstrip("rRbBuUfF")
            prefix = text[: len(text) - len(body)].lower()
            if "f" in prefix:
                formatted = True
                self._fail(not_a_literal(kind_name("FormattedString"), line, col))
                ok = False
            elif "b" in prefix:
                self._fail(not_a_literal("a bytes literal", line, col))
                ok = False
            else:
                if "\n" in text and self.error is None:
                    entry = len(self.strings)
                    self.strings.append((self.start, self.end))
                if "r" in prefix or "\\" not in body:  # no escape: the value is the text between the quotes
                    quote = 3 if body[:3] in ('"""', "'''") else 1
                    value = body[quote:-quote]
                else:
                    value = self._literal(text, line, col)
                if value is None:
                    ok = False
                elif ok:
                    parts.append(value)
            self.advance()
        cls = "ConcatenatedString" if count > 1 else "FormattedString" if formatted else "SimpleString"
        if not ok:
            return None, cls
        node = PNode(SCALAR, start, self.prev_end) if self.spans else self._scratch
        node.data = parts[0] if count == 1 else "".join(parts)
        if count == 1 and entry >= 0 and self.spans:
            self._string_entry = (node, entry)
        return node, cls

    def _skip_fstring(self) -> None:
        """Skip an f-string tokenized as its parts, from its FSTRING_START."""
        nested = 0
        while True:
            if self.type == FSTRING_START:
                nested += 1
            elif self.type == FSTRING_END:
                nested -= 1
                if not nested:
                    self.advance()
                    return
            elif self.type == ENDMARKER:
                raise Unreadable("unclosed f-string")
            self.advance()

    def _group(self) -> tuple[PNode | None, str, int, int, str | None]:
        """A bracketed expression, from its opening bracket: `(node, class, own line, own
        column, name)`, `name` the identifier of a bare name in parentheses."""
        opener, lb, line, col, level = self.string, self.start, self.line, self.col, self.depth
        mark = self._mark()
        self.advance()
        if opener == "[":
            found = self._sequence(lb, level, "]", "ListComp", mark, (line, col))
            return found, "List" if found is not None else "ListComp", line, col, None
        if opener == "{":
            return *self._braces(lb, level, mark, line, col), None
        own = (self.line, self.col)
        if self._is(")"):
            return self._sequence(lb, level, ")", "", mark, own), "Tuple", *own, None
        if self._is("*"):
            return self._sequence(lb, level, ")", "", mark, own), "Tuple", *own, None
        node, cls, inner_line, inner_col, name = self.value()
        if self._is(")"):  # parentheses around one expression
            if node is not None:
                node.start = lb
                node.end = self.end
                if self._string_entry[0] is node and self._string_entry[1] < len(self.strings):
                    self.strings[self._string_entry[1]] = (lb, self.end)
            self.advance()
            return node, cls, inner_line, inner_col, name
        if self.type == NAME and self.string in ("for", "async"):
            self._override(mark, not_a_literal(kind_name("GeneratorExp"), *own))
            self._skip_group(level)
            return None, "GeneratorExp", *own, None
        if not self._is(","):
            raise Unreadable(f"unexpected {self.string!r} at line {self.line}")
        return self._sequence(lb, level, ")", "", mark, own, (node, cls)), "Tuple", *own, None

    def _sequence(
        self,
        lb: int,
        level: int,
        closer: str,
        comprehension: str,
        mark: tuple[bool, int],
        own: tuple[int, int],
        first: tuple[PNode | None, str] | None = None,
    ) -> PNode | None:
        """The rest of a list or tuple display after its opening bracket (and its `first`
        element and comma, for a tuple); None for a comprehension (refused)."""
        children: list[PNode] = []
        data: list[Any] = []
        dicts = False
        count = 0
        if first is not None:
            count = 1
            dicts = first[1] == "Dict"
            if first[0] is not None and self.spans:
                children.append(first[0])
            data.append(first[0].data if first[0] is not None else None)
            self.advance()  # its comma
        while not (self.type == OP and self.string == closer):
            if self._is("*"):
                self._fail(not_a_literal(kind_name("StarredElement"), self.line, self.col))
                self.advance()
                self.value()
                count += 1
            else:
                item, cls, _, _, _ = self.value()
                if count == 0 and comprehension and self.type == NAME and self.string in ("for", "async"):
                    self._override(mark, not_a_literal(kind_name(comprehension), *own))
                    self._skip_group(level)
                    return None
                count += 1
                dicts = dicts or cls == "Dict"
                if item is not None and self.spans:
                    children.append(item)
                data.append(item.data if item is not None else None)
            if self._is(","):
                self.advance()
            elif not (self.type == OP and self.string == closer):
                raise Unreadable(f"unexpected {self.string!r} at line {self.line}")
        node = PNode(LIST, lb, self.end) if self.spans else _Bare(LIST, lb, self.end)
        node.lb, node.rb = lb, self.start
        if closer == ")":
            node.open, node.close = "(", ")"
        if self.spans:
            node.children = children
        node.data = data
        self._has_dict = dicts
        self.advance()
        return node

    def _braces(
        self, lb: int, level: int, mark: tuple[bool, int], line: int, col: int
    ) -> tuple[PNode | None, str, int, int]:
        """A dict or set display or comprehension, after its `{`."""
        node = PNode(DICT, lb, 0) if self.spans else _Bare(DICT, lb, 0)
        data: dict[str, Any] = {}
        payload = False
        count = 0
        while not self._is("}"):
            if self._is("**"):
                self._fail(not_a_literal(kind_name("StarredDictElement"), self.line, self.col))
                self.advance()
                self.value()
            else:
                kmark = self._mark()
                key, kcls, kline, kcol, _ = self.value()
                if count == 0 and not self._is(":"):
                    cls = "SetComp" if self.type == NAME and self.string in ("for", "async") else "Set"
                    self._override(mark, not_a_literal(kind_name(cls), line, col))
                    self._skip_group(level)
                    return None, cls, line, col
                if kcls not in _STRINGS:
                    self._override(kmark, not_a_literal(f"a computed key ({kind_name(kcls)})", kline, kcol))
                    key = None
                name = None if key is None else sys.intern(key.data)
                self._expect(":")
                if name is not None and name in data and self.duplicates == "refuse":
                    self._fail(
                        FixtureError(f"duplicate key {name!r} in one dict", code="duplicate_key", line=kline, column=kcol + 1)
                    )
                fresh = name is not None and name not in data
                if fresh and self.spans:
                    key.data = name
                    node.index[name] = len(node.keys)
                    node.keys.append(name)
                    node.knodes.append(key)
                child, cls, _, _, _ = self.value()
                if name is not None:
                    data[name] = child.data if child is not None else None
                    if fresh and self.spans and child is not None:
                        node.children.append(child)
                if count == 0 and self.type == NAME and self.string in ("for", "async"):
                    self._override(mark, not_a_literal(kind_name("DictComp"), line, col))
                    self._skip_group(level)
                    return None, "DictComp", line, col
                if name is not None and kcls == "SimpleString":
                    payload = payload or name == "schema_version"
                    payload = payload or (name in ("cases", "examples") and cls in ("List", "Tuple"))
            count += 1
            if self._is(","):
                self.advance()
            elif not self._is("}"):
                raise Unreadable(f"unexpected {self.string!r} at line {self.line}")
        node.data = data
        node.end, node.rb = self.end, self.start
        self._payload = payload
        self.advance()
        return node, "Dict", line, col

    def _expect(self, string: str) -> None:
        if not self._is(string):
            raise Unreadable(f"expected {string!r}, found {self.string!r} at line {self.line}")
        self.advance()


def _bare_name(tokens: list[tuple[int, str]]) -> str | None:
    """The identifier of an assignment target that is a plain name, in any number of
    parentheses (`CASES`, `(CASES)`: libcst's `Name`, its parentheses aside); else None."""
    opened = 0
    while opened < len(tokens) and tokens[opened] == (OP, "("):
        opened += 1
    if len(tokens) != 2 * opened + 1:
        return None
    kind, string = tokens[opened]
    if kind != NAME or string in _KEYWORDS or any(token != (OP, ")") for token in tokens[opened + 1 :]):
        return None
    return string


def _classify(items: list[tuple[str, str]]) -> str:
    """The libcst class of an expression from its tokens at its own bracket level (a
    bracketed group stands as one item)."""
    first = items[0]
    words = {text for kind, text in items if kind in ("op", "kw")}
    if first == ("kw", "lambda"):
        return "Lambda"
    if first == ("kw", "yield"):
        return "Yield"
    if ":=" in words:
        return "NamedExpr"
    if "if" in words:
        return "IfExp"
    if "or" in words or "and" in words:
        return "BooleanOperation"
    if first == ("kw", "not"):
        return "UnaryOperation"
    if words & _COMPARE:
        return "Comparison"
    for i in range(1, len(items)):
        if items[i][0] == "op" and items[i][1] in _BINARY and items[i - 1][0] != "op":
            return "BinaryOperation"
    if first[0] == "op" and first[1] in ("-", "+", "~"):
        return "UnaryOperation"
    if first == ("kw", "await"):
        return "Await"
    last = items[-1]
    if last == ("group", "("):
        return "Call"
    if last == ("group", "["):
        return "Subscript"
    if len(items) > 1 and items[-2] == ("op", "."):
        return "Attribute"
    if first == ("op", "..."):
        return "Ellipsis"
    if len(items) == 1 and first[0] == "name":
        return "Name"
    return "Expression"


def _callee(items: list[tuple[str, str]]) -> str:
    """The name `python_format._callee` gives the callee of a call: its trailing
    `.attribute` chain, from the name it starts at when it starts at one."""
    parts = []
    i = len(items) - 2
    while i >= 1 and items[i][0] == "name" and items[i - 1] == ("op", "."):
        parts.append(items[i][1])
        i -= 2
    if i == 0 and items[0][0] == "name":
        parts.append(items[0][1])
    return ".".join(reversed(parts)) or "..."


def placeholder_text(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each `(start, end)` span (literals read, in order, not overlapping)
    replaced by parentheses around white space, its newlines kept: the same code around
    them, on the same lines and columns, for a parser to check."""
    pieces = []
    last = 0
    for start, end in spans:
        pieces.append(text[last:start])
        inner = text[start + 1 : end - 1]
        pieces.append("(" + _NOT_NEWLINE.sub(" ", inner) + ")")
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


Found = tuple[str, PNode, str]
"""A fixture literal read: `(label, span tree, shape)`, shape "payload" or "case_list"."""


def read_fixtures(
    text: str, py_names: tuple[str, ...], duplicates: str = "refuse", spans: bool = True
) -> tuple[Counter[str], list[Found], list[tuple[int, int]], list[tuple[str, FixtureError, dict[str, Any]]], str]:
    """The fixture literals of a module's `text` (universal newlines), as
    `python_format.PythonDocument` reads them with libcst: `(comments, fixtures,
    multi-line string spans, refused payloads, placeholder text)`.

    A fixture is the value of a module-level assignment to a plain name that is a payload
    (a dict display with `schema_version`, or `cases`/`examples` holding a list or tuple
    display) or a case list (a list or tuple display holding a dict display) bound to
    one of `py_names`. A payload that holds a non-literal is refused, `(label, error,
    data read leniently)`, and the reading goes on; any other refusal is raised. The
    placeholder text is `placeholder_text` of the module over every display read
    whole: what the caller parses to check the module's syntax, before it trusts any
    of this. Without `spans`, only the data is read: each fixture's tree is its root
    alone, its `data` (the check of a rendered module needs no more). Raises
    `Refusal` (the first refusal, once the module is read), `Unreadable` (nothing was
    decided).
    """
    reader = TokenReader(text, duplicates, spans)
    fixtures: list[Found] = []
    strings: list[tuple[int, int]] = []
    refused: list[tuple[str, FixtureError, dict[str, Any]]] = []
    spans: list[tuple[int, int]] = []
    names: Counter[str] = Counter()
    first_error: FixtureError | None = None
    for statement in reader.statements():
        if statement.error is None and statement.node is not None:
            spans.append(statement.span)
        if first_error is not None:
            continue  # read on, for the comments and the syntax check; the error stands
        if statement.payload:
            shape = "payload"
        elif statement.case_list and any(name in py_names for name in statement.names):
            shape = "case_list"
        else:
            continue
        name = next((n for n in statement.names if n in py_names), statement.names[0])
        names[name] += 1
        label = name if names[name] == 1 else f"{name} (line {statement.line})"
        strings.extend(statement.strings)
        error = statement.error
        if error is None and statement.node is not None:
            fixtures.append((label, statement.node, shape))
        elif error is not None and error.code == "not_a_literal" and shape == "payload" and statement.node is not None:
            # A dict holding a name (`{"schema_version": 1, "runner": RUNNER_ID}`) is code's
            # data, unless a known family claims it (the engine decides).
            refused.append((label, error, statement.node.data))
        else:
            first_error = error or FixtureError("internal error: a fixture literal without a reading", code="internal")
    if first_error is not None:
        raise Refusal(first_error, placeholder_text(text, spans), reader.comments)
    return reader.comments, fixtures, sorted(strings), refused, placeholder_text(text, spans)


class Refusal(Exception):
    """The first refusal (`error`) found in a module's fixture literals, raised by
    `read_fixtures` with the module's `placeholder` text and `comments`: a syntax error
    anywhere in the module is to be reported before it, as libcst's parse would."""

    def __init__(self, error: FixtureError, placeholder: str, comments: Counter[str]) -> None:
        super().__init__(error.message)
        self.error = error
        self.placeholder = placeholder
        self.comments = comments

