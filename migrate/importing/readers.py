"""Source files of an import: read once, never written.

`fixture-migrate import` reads files written for other eval tools (JSON, JSON
Lines, YAML, CSV) into a `Source`: the parsed data, the repo-relative path the
imported cases cite (`ref`), and the means to name a record's place
(`SourceRecord.locator`: `L12` for a JSONL or CSV record, the first physical line of
the record; a JSON pointer such as `/evals/3` for an element of a JSON or YAML
document) and to point an error at a line and column.

The parsed `data` is what the conservation check compares the canonical file
with (`fixture_migrate.contract.conservation`), so it is kept exactly as read: a CSV file is a
list of `{column: cell}` objects whose cells are strings; a YAML file is read by
the same composer as a YAML fixture (`fixture_migrate.formats.yaml_format`), so
`import` and `migrate` read every scalar alike: null, true/false, decimal integers
and dotted floats are values, and every other plain scalar (`1e3`, `0755`, `0x1F`,
`yes`, `.inf`, dates) is the string it is written as; a tag is never constructed
(a tagged value reads as its text or contents); a key repeated in one mapping is
refused; aliases are bounded (`MAX_NODES`). ruamel.yaml is imported only when a
YAML source is read, and the csv module only for CSV.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.formats import BOM, decode_text, syntax_of
from fixture_migrate.formats.limits import MAX_FILE_BYTES, limit_for

IMPORT_ONLY_SUFFIXES = {".ndjson": "jsonl", ".csv": "csv"}
"""File suffix -> syntax of what an import reads beyond fixture files. An import source
is any file of `fixture_migrate.formats.SYNTAX_BY_SUFFIX` but a Python module (no eval
tool keeps its cases in one), or one of these; `.txt` and other text is read only as a
referenced value (`Source.text`)."""

LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
"""How a Git LFS pointer file starts: the data is not in the file."""

PointerPath = tuple[str | int, ...]


class SourceError(FixtureError):
    """A `FixtureError` that names the file it is about (`path`, as the user wrote it)."""

    def __init__(self, path: Path | str, error: FixtureError) -> None:
        super().__init__(error.message, code=error.code, line=error.line, column=error.column)
        self.path = path


def json_pointer(path: PointerPath) -> str:
    """The JSON pointer (RFC 6901) of a path of keys and indices: `("evals", 3)` -> `/evals/3`."""
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in path)


@dataclass
class SourceRecord:
    """One record of a source: `data` (as read, with any `--field` renames applied),
    its 0-based `index` in its list, its `locator` (`L12` or a JSON pointer), the 1-based
    `line` it starts on where known, its `path` inside the source data, and the `source`."""

    data: Any
    index: int
    locator: str
    line: int | None
    path: PointerPath
    source: Source

    @property
    def ref(self) -> str:
        """The source ref of the record: `<source ref>#<locator>`."""
        return f"{self.source.ref}#{self.locator}"

    def error(self, message: str, code: str, key: str | int | None = None) -> SourceError:
        """A `SourceError` about this record (or its member `key`), placed where known."""
        path = self.path if key is None else self.path + (key,)
        return self.source.error(message, code, path)


@dataclass
class Source:
    """A file read for an import.

    `path` is the file as the user (or a reference) named it; `ref` the repo-relative
    POSIX path cases cite; `syntax` a value of `syntax_for` or "text";
    `data` the parsed content (see the module docstring); `raw` its bytes. `fields`
    renames record members before adapters see them (`--field input=question` is
    `{"question": "input"}`) and `renamed` collects the members it renamed; `role` is set
    by detection ("cases" or "aux").
    """

    path: Path
    ref: str
    syntax: str
    data: Any
    raw: bytes
    record_lines: list[int] = field(default_factory=list)
    positions: dict[PointerPath, tuple[int, int]] = field(default_factory=dict)
    header: list[str] | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    renamed: set[str] = field(default_factory=set)
    role: str = "cases"

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def line_oriented(self) -> bool:
        """True for JSONL and CSV, whose records are located by line."""
        return self.syntax in ("jsonl", "csv")

    def records(self, at: PointerPath = ()) -> list[SourceRecord]:
        """The records of the list at `at` (the whole data of JSONL, CSV and array files).

        Raises `SourceError` (code `not_a_list`) when there is no list there.
        """
        value = self.data
        for key in at:
            value = value[key]
        if not isinstance(value, list):
            raise self.error(f"expected a list at {json_pointer(at) or 'the top level'}", "not_a_list", at)
        found = []
        for index, item in enumerate(value):
            path = at + (index,)
            if self.line_oriented and not at:
                line: int | None = self.record_lines[index]
                locator = f"L{line}"
            else:
                line = self.positions.get(path, (None, None))[0]
                locator = json_pointer(path)
            found.append(SourceRecord(self._renamed(item, path), index, locator, line, path, self))
        return found

    def _renamed(self, item: Any, path: PointerPath) -> Any:
        if not self.fields or not isinstance(item, dict):
            return item
        renamed: dict[str, Any] = {}
        for key, value in item.items():
            target = self.fields.get(key, key)
            if target != key and target in item:
                raise self.error(
                    f"--field {target}={key}: the record also has a `{target}` member", "field_clash", path
                )
            if target != key:
                self.renamed.add(key)
            renamed[target] = value
        return renamed

    def locate(self, path: PointerPath) -> tuple[int, int] | None:
        """1-based `(line, column)` of the value at `path`, where known."""
        if not path:
            return None
        if self.line_oriented:
            index = path[0]
            if isinstance(index, int) and 0 <= index < len(self.record_lines):
                return self.record_lines[index], 1
            return None
        if self.syntax == "yaml":
            while path and path not in self.positions:
                path = path[:-1]
            return self.positions.get(path)
        if self.syntax == "json":
            return self._json_place(path)
        return None

    def _json_place(self, path: PointerPath) -> tuple[int, int] | None:
        from fixture_migrate.formats.json_text import parse_spans

        text = decode_text(self.raw)[0]
        try:
            node = parse_spans(text)
            for key in path:
                node = node.child(key)
        except (FixtureError, KeyError, IndexError, AttributeError, TypeError):
            return None
        return line_col(text, node.start)

    def error(self, message: str, code: str, path: PointerPath = ()) -> SourceError:
        """A `SourceError` about the value at `path`, with its line and column where known."""
        where = self.locate(path)
        line, column = where if where else (None, None)
        return SourceError(self.path, FixtureError(message, code=code, line=line, column=column))

    def ref_for(self, path: Path) -> str:
        """The ref of a file named relative to this one: this ref's folder joined with the
        relative path from this file's folder (so `--source-ref` mappings carry over)."""
        relative = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(self.path.parent))).as_posix()
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.ref), relative))

    @cached_property
    def text(self) -> str:
        """The decoded text of the file (UTF-8, byte order mark removed)."""
        try:
            return decode_text(self.raw)[0]
        except FixtureError as error:
            raise SourceError(self.path, error) from None


def is_lfs_pointer(raw: bytes) -> bool:
    """True for a Git LFS pointer file: a text stub standing in for the real data."""
    return raw.removeprefix(BOM).lstrip().startswith(LFS_POINTER)


def syntax_for(path: Path) -> str | None:
    """The syntax of an import source by its suffix, or None."""
    syntax = IMPORT_ONLY_SUFFIXES.get(path.suffix.lower()) or syntax_of(path)
    return None if syntax == "python" else syntax


def read_source(
    path: Path, ref: str, raw: bytes | None = None, *, syntax: str | None = None, root: Path | None = None
) -> Source:
    """Read the import source at `path`, cited as `ref`.

    `raw` is its bytes when already read; `syntax` overrides the suffix ("text" reads any
    file as one string); `root` is the repo root, whose rule the read obeys as `migrate`'s
    reads do (a symlink leading outside it is `symlink_outside_repo`, never read). Raises
    `SourceError` naming the file, line and column: an I/O error (`io`), a Git LFS pointer
    (`lfs_pointer`), an unknown suffix (`unsupported`), bad syntax (`invalid_json`,
    `invalid_yaml`, `csv_syntax`, `csv_row`, ...).
    """
    if raw is None:
        try:
            # Regular files only, within the size limit of every read, under the root rule.
            raw = read_fixture(path, limit=limit_for(path), root=root)
        except FixtureError as error:
            raise SourceError(path, error) from None
    elif len(raw) > MAX_FILE_BYTES:
        raise SourceError(
            path, FixtureError(f"file is {len(raw):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit", code="too_large")
        )
    if is_lfs_pointer(raw):
        raise SourceError(
            path,
            FixtureError(
                "a Git LFS pointer, not the data: run `git lfs pull` (or fetch the real file) and import that",
                code="lfs_pointer",
                line=1,
                column=1,
            ),
        )
    syntax = syntax or syntax_for(path)
    if syntax is None:
        message = f"unsupported file type {path.suffix or '(none)'}: an import reads .json, .jsonl, .yaml, .yml, .csv"
        raise SourceError(path, FixtureError(message, code="unsupported"))
    try:
        return _READERS[syntax](path, ref, raw)
    except SourceError:
        raise
    except FixtureError as error:
        raise SourceError(path, error) from None


def _read_json(path: Path, ref: str, raw: bytes) -> Source:
    from fixture_migrate.formats.json_format import parse_json

    return Source(path, ref, "json", parse_json(raw.removeprefix(BOM)), raw)


def _read_jsonl(path: Path, ref: str, raw: bytes) -> Source:
    from fixture_migrate.formats.jsonl_format import JsonlDocument

    document = JsonlDocument(path, raw)
    return Source(path, ref, "jsonl", document.units[0].data, raw, record_lines=[line for line, _, _ in document.lines])


def _read_text(path: Path, ref: str, raw: bytes) -> Source:
    return Source(path, ref, "text", decode_text(raw)[0], raw)


def _read_csv(path: Path, ref: str, raw: bytes) -> Source:
    import csv
    import io
    import sys

    text = decode_text(raw)[0]
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    header: list[str] | None = None
    previous_limit = csv.field_size_limit(sys.maxsize)
    # newline="" hands the csv module each line with its ending, so quoted cells may span lines.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    last = 0
    try:
        for row in reader:
            start, last = last + 1, reader.line_num
            if not row:
                continue
            if header is None:
                duplicates = sorted({name for name in row if row.count(name) > 1})
                if duplicates:
                    raise FixtureError(
                        f"the header repeats column {duplicates[0]!r}", code="csv_header", line=start, column=1
                    )
                header = row
                continue
            if len(row) != len(header):
                raise FixtureError(
                    f"malformed CSV row: {len(row)} cells, the header has {len(header)}",
                    code="csv_row",
                    line=start,
                    column=1,
                )
            rows.append(dict(zip(header, row, strict=True)))
            lines.append(start)
    except csv.Error as exc:
        raise FixtureError(f"malformed CSV: {exc}", code="csv_syntax", line=reader.line_num) from None
    finally:
        csv.field_size_limit(previous_limit)
    if header is None:
        raise FixtureError("empty file: no CSV header", code="empty", line=1, column=1)
    return Source(path, ref, "csv", rows, raw, record_lines=lines, header=header)


def _read_yaml(path: Path, ref: str, raw: bytes) -> Source:
    """One YAML document, read by the composer `migrate` reads YAML with
    (`fixture_migrate.formats.yaml_format`), so both commands read every scalar the same way."""
    from fixture_migrate.formats.yaml_format import YamlDocument

    document = YamlDocument(path, raw)
    text = document.text
    if len(document.docs) > 1:
        first, second = document.docs[0].root, document.docs[1].root
        # Placed at the second document's `---` marker, else at its content.
        end = len(text) if second is None else second.start
        at = text.rfind("---", 0 if first is None else first.end, end)
        at = second.start if at == -1 and second is not None else at
        line, column = line_col(text, at) if at != -1 else (None, None)
        raise FixtureError(
            "invalid YAML: the file holds more than one YAML document; an import reads one",
            code="invalid_yaml",
            line=line,
            column=column,
        )
    root = document.docs[0].root if document.docs else None
    if root is None:
        if not text.strip():
            raise FixtureError("empty file: no YAML document", code="empty", line=1, column=1)
        return Source(path, ref, "yaml", None, raw)
    return Source(path, ref, "yaml", _unshared(root.data), raw, positions=_yaml_positions(text, root))


def _yaml_positions(text: str, root: Any) -> dict[PointerPath, tuple[int, int]]:
    """The 1-based line and column where each member of a composed YAML document starts
    (members inside an alias at their anchor's place; a member merged in with `<<:` has no
    place of its own)."""
    import re
    from bisect import bisect_right

    from fixture_migrate.formats.yaml_text import ALIAS, MAP, SEQ

    line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
    positions: dict[PointerPath, tuple[int, int]] = {}
    pending: list[tuple[Any, PointerPath]] = [(root, ())]
    while pending:
        node, path = pending.pop()
        if node.kind == ALIAS:
            node = node.target
        if node.kind == MAP:
            pairs = enumerate(zip(node.keys, node.children, strict=True))
            members = [(name, child) for at, (name, child) in pairs if at not in node.merges]
        elif node.kind == SEQ:
            members = list(enumerate(node.children))
        else:
            continue
        for key, child in members:
            line = bisect_right(line_starts, child.start)
            positions[path + (key,)] = (line, child.start - line_starts[line - 1] + 1)
            pending.append((child, path + (key,)))
    return positions


def _unshared(data: Any) -> Any:
    """A copy of composed YAML data in which each alias's value is a copy of its own, not
    its anchor's object (the composer has bounded how many values that makes: `MAX_NODES`)."""
    if not isinstance(data, (dict, list)):
        return data
    top = type(data)()
    pending = [(data, top)]
    while pending:
        original, copy = pending.pop()
        items = original.items() if isinstance(original, dict) else enumerate(original)
        for key, value in items:
            if isinstance(value, (dict, list)):
                value_copy = type(value)()
                pending.append((value, value_copy))
                value = value_copy
            if isinstance(copy, dict):
                copy[key] = value
            else:
                copy.append(value)
    return top


_READERS = {
    "json": _read_json,
    "jsonl": _read_jsonl,
    "yaml": _read_yaml,
    "csv": _read_csv,
    "text": _read_text,
}
