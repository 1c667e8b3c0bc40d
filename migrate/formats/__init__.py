"""Per-syntax readers and writers: a file's bytes in, its payloads and a writer out.

Each syntax module reads a file into a `Document`: the parsed payloads it holds
(`Unit`s; one for a JSON file, one per fixture for YAML streams and Python
modules) and what it needs to write a target tree back as edits of the
original text. `load_document` picks the module by file suffix and imports it
only then, so a JSON-only run never imports ruamel.yaml or libcst.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats.target import Node
from fixture_migrate.formats.target import Path as NodePath
from fixture_migrate.patterns import LazyRegex
from fixture_migrate.slots import Record

BOM = b"\xef\xbb\xbf"

SYNTAX_BY_SUFFIX = {".json": "json", ".jsonl": "jsonl", ".yaml": "yaml", ".yml": "yaml", ".py": "python"}
"""File suffix -> syntax name of a fixture file; a directory walk visits these suffixes.
`import` reads the same suffixes (a Python module excepted) with the same readers, plus
the few of `fixture_migrate.importing.readers.IMPORT_ONLY_SUFFIXES` (CSV, `.ndjson`)."""

DEFAULT_PY_NAMES = ("CASES", "FIXTURE")
"""Names a bare list of case dicts in a Python module is a fixture under, unless `--py-name` says others."""

_MODULES = {
    "json": "fixture_migrate.formats.json_format",
    "jsonl": "fixture_migrate.formats.jsonl_format",
    "yaml": "fixture_migrate.formats.yaml_format",
    "python": "fixture_migrate.formats.python_format",
}

LONE_SURROGATE = LazyRegex("[\ud800-\udfff]")
"""A surrogate code point on its own, which a `\\u` escape can spell in JSON, YAML and
Python strings but no UTF-8 file (or JSON output) can hold."""

MAX_DEPTH = 128

SYNTAX_NAMES = {"json": "JSON", "jsonl": "JSON Lines", "yaml": "YAML", "python": "Python"}

MAX_NODES = 1_000_000
"""The most values the aliases of a YAML stream (all its documents) may add to those it
writes out (a "billion laughs" guard; the values written are bounded by the file's size
limit)."""

MAX_EXPANDED_CHARS = 16 * 1024 * 1024
"""The most characters of scalar text (keys and values) the aliases of a YAML stream (all its
documents) may add to the text it writes out: one long anchored string aliased a few thousand times stays far under
`MAX_NODES` and would still take gigabytes once copied out (16 Mi, the largest file read)."""

MAX_INT_DIGITS = 4300
"""The longest integer, in decimal digits, a fixture may hold: Python's own limit on turning
an integer into text (`sys.get_int_max_str_digits`), which guards against slow conversions."""


def integer_too_long(line: int | None = None, column: int | None = None) -> FixtureError:
    """The error for an integer longer than `MAX_INT_DIGITS` digits, in any syntax."""
    message = f"an integer of more than {MAX_INT_DIGITS} digits is not supported"
    return FixtureError(message, code="integer_too_long", line=line, column=column)


"""The deepest nesting of arrays and objects read, the top-level value counting as 1.

Real fixtures nest fewer than 10 levels. Deeper input is refused with a clear error
(`too_deep`) instead of exhausting the interpreter's recursion further on (in the
writers, the checks, the reference's recursive rules); 128 is serde_json's default."""


class Unit(Record):
    """One payload of a file: `data` is the parsed top-level object (`shape` "payload"),
    or a bare list of cases with no envelope (`shape` "case_list", as in JSONL);
    `label` says where it sits when a file holds several (None for a whole file).
    `binding` is set for a bare case list bound to a name in code (a Python module's
    `CASES = [...]`): code may use it as a list, so it stays one when migrated."""

    __slots__ = ("data", "shape", "label", "binding")

    def __init__(self, data: Any, shape: str = "payload", label: str | None = None, binding: str | None = None) -> None:
        self.data = data
        self.shape = shape
        self.label = label
        self.binding = binding


class Document(ABC):
    """A parsed fixture file: its `units` and the means to write them back.

    `path` is the file as given, `raw` its bytes. Subclasses set `syntax`.
    """

    syntax: ClassVar[str]

    def __init__(self, path: Path, raw: bytes) -> None:
        self.path = path
        self.raw = raw
        self.units: list[Unit] = []

    @property
    def output_path(self) -> Path:
        """Where the migrated file is written: the file itself unless the syntax must change."""
        return self.path

    @abstractmethod
    def render(self, targets: list[Node]) -> bytes:
        """The migrated file's bytes, one target tree per unit (`Src(())` leaves a unit as is)."""

    @abstractmethod
    def reparse(self, raw: bytes) -> list[Any]:
        """The unit data of `raw`, the bytes `render` gave, read as the output syntax."""

    def locate(self, unit: int, path: NodePath) -> tuple[int, int] | None:
        """1-based `(line, column)` of the value at `path` in unit `unit`, where known."""
        return None

    def locate_all(self, unit: int, paths: Sequence[NodePath]) -> list[tuple[int, int] | None]:
        """`locate` of each of `paths` in unit `unit`; None where `locate` refuses to place
        (a `FixtureError`: a file read despite a repeated key has no spans to place by).
        A syntax may place them all at once, at less cost than one by one."""
        places: list[tuple[int, int] | None] = []
        for path in paths:
            try:
                places.append(self.locate(unit, path))
            except FixtureError:
                places.append(None)
        return places


def syntax_of(path: Path) -> str | None:
    """The syntax name for a file path by its suffix, or None when fixture-migrate does not read it."""
    # The suffix as `Path.suffix` gives it, from the name's text (asked for every file read).
    name = os.fspath(path).rpartition(os.sep)[2]
    dot = name.rfind(".")
    return SYNTAX_BY_SUFFIX.get(name[dot:].lower() if 0 < dot < len(name) - 1 else "")


def load_document(
    path: Path, raw: bytes, *, duplicates: str = "refuse", py_names: Sequence[str] | None = None
) -> Document:
    """Read `raw`, the bytes of `path`, as the syntax its suffix names.

    `duplicates` is "refuse" (a key repeated in one object is an error) or "last"
    (the last one wins, as JavaScript's JSON.parse reads it; for validation only).
    `py_names` are the names a bare case list in a Python module is a fixture under
    (default `DEFAULT_PY_NAMES`).

    Raises `FixtureError` for bad syntax, bad encoding or a top-level value that
    cannot hold a fixture, naming the line and column where known.
    """
    syntax = syntax_of(path)
    if syntax is None:
        raise FixtureError(f"unsupported file type {path.suffix or '(none)'}", code="unsupported")
    module = sys.modules.get(_MODULES[syntax]) or importlib.import_module(_MODULES[syntax])
    if syntax == "python":
        read = functools.partial(module.read, py_names=DEFAULT_PY_NAMES if py_names is None else py_names)
    else:
        read = module.read
    try:
        document = read(path, raw, duplicates=duplicates)
    except RecursionError:
        raise FixtureError(f"nesting deeper than {MAX_DEPTH} levels is not supported", code="too_deep") from None
    if not getattr(module, "CHECKS_DEPTH", False):
        for index, unit in enumerate(document.units):
            if nesting_depth(unit.data) > MAX_DEPTH:
                place = document.locate(index, _too_deep_path(unit.data))
                line, column = place if place is not None else (None, None)
                raise FixtureError(
                    f"nesting deeper than {MAX_DEPTH} levels is not supported",
                    code="too_deep",
                    line=line,
                    column=column,
                )
    return document


def _too_deep_path(data: Any) -> tuple[str | int, ...]:
    """The path of the first container nested `MAX_DEPTH + 1` deep in `data` (or `()`)."""
    level: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    for _ in range(MAX_DEPTH):
        below = []
        for value, path in level:
            items = value.items() if isinstance(value, dict) else enumerate(value)
            below.extend((item, (*path, key)) for key, item in items if isinstance(item, (dict, list, tuple)))
        if not below:
            return ()
        level = below
    return level[0][1]


def nesting_depth(data: Any) -> int:
    """How deeply containers (dicts, lists, tuples) nest in parsed `data`: a scalar is 0,
    `[]` is 1. Iterative, so any depth is measured without recursion; the count stops
    at `MAX_DEPTH + 1`."""
    containers = (dict, list, tuple)
    depth = 0
    level = [data] if isinstance(data, containers) else []
    while level and depth <= MAX_DEPTH:
        depth += 1
        below: list[Any] = []
        push = below.append
        for value in level:
            for item in value.values() if isinstance(value, dict) else value:
                if isinstance(item, containers):
                    push(item)
        level = below
    return depth


def decode_text(raw: bytes) -> tuple[str, bool]:
    """`(text, had_bom)`: UTF-8 `raw` decoded without its byte order mark.

    Raises `FixtureError` (code `encoding`) naming the line and column of the first
    byte that is not UTF-8, or naming a UTF-16/32 byte order mark.
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FixtureError(
            "UTF-16/UTF-32 text is not supported; save the file as UTF-8", code="encoding", line=1, column=1
        )
    bom = raw.startswith(BOM)
    body = raw[3:] if bom else raw
    try:
        return body.decode("utf-8"), bom
    except UnicodeDecodeError as exc:
        good = body[: exc.start].decode("utf-8")
        line = good.count("\n") + 1
        column = len(good) - (good.rfind("\n") + 1) + 1
        raise FixtureError(
            f"not valid UTF-8 (byte 0x{body[exc.start]:02x})", code="encoding", line=line, column=column
        ) from None
