"""JSON Lines fixture files: one case object a line, migrated into a new `.json` file.

A JSONL file cannot hold the canonical envelope (`schema_version`, `skill`,
`cases`), so its migration is written as `<stem>.json` beside it and reported
as a rename. Each line is parsed as JSON of its own; errors name the file line.
The new file is laid out afresh (two-space indent, arrays of scalars on one line,
as canonical files write them), each string and number keeping the text it had
on its line.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import BOM, Document, Unit, decode_text
from fixture_migrate.formats.json_format import parse_json
from fixture_migrate.formats.json_text import ARRAY, JNode, JsonStyle, JsonWriter, parse_spans, writes_ascii
from fixture_migrate.formats.target import Node
from fixture_migrate.formats.target import Path as NodePath

CHECKS_DEPTH = True  # parse_json refuses deep nesting line by line


class JsonlDocument(Document):
    """A `.jsonl` file: a bare list of case objects, one per non-blank line."""

    syntax = "jsonl"

    def __init__(self, path: Path, raw: bytes, *, duplicates: str = "refuse") -> None:
        super().__init__(path, raw)
        self.text, self.bom = decode_text(raw)
        self.lines: list[tuple[int, int, int]] = []  # (file line, start offset, end offset)
        cases: list[Any] = []
        offset = 0
        for number, line in enumerate(self.text.split("\n"), start=1):
            start, offset = offset, offset + len(line) + 1
            if not line.strip():
                continue
            try:
                value = parse_json(line.encode("utf-8"), line, duplicates=duplicates)
            except FixtureError as exc:
                raise FixtureError(exc.message, code=exc.code, line=number, column=exc.column) from None
            if not isinstance(value, dict):
                raise FixtureError(
                    "line is not a JSON object; each JSONL line must be one case",
                    code="case_not_object",
                    line=number,
                    column=1,
                )
            cases.append(value)
            self.lines.append((number, start, start + len(line)))
        if not cases:
            raise FixtureError("empty file: no JSON lines", code="empty", line=1, column=1)
        self.units = [Unit(cases, shape="case_list")]

    @property
    def output_path(self) -> Path:
        return self.path.with_suffix(".json")

    @cached_property
    def spans(self) -> JNode:
        root = JNode(ARRAY, 0)
        root.children = [parse_spans(self.text, start, end) for _, start, end in self.lines]
        return root

    def render(self, targets: list[Node]) -> bytes:
        (target,) = targets
        style = JsonStyle(
            newline="\r\n" if "\r\n" in self.text else "\n",
            inline_arrays=True,
            ascii=writes_ascii(self.text),
        )
        writer = JsonWriter(self.text, self.spans, style, expand=True)
        return (BOM if self.bom else b"") + (writer.render(target, "") + style.newline).encode("utf-8")

    def reparse(self, raw: bytes) -> list[Any]:
        return [parse_json(raw[3:] if raw.startswith(BOM) else raw)]

    def locate(self, unit: int, path: NodePath) -> tuple[int, int] | None:
        if path and isinstance(path[0], int) and 0 <= path[0] < len(self.lines):
            return self.lines[path[0]][0], 1
        return None


def read(path: Path, raw: bytes, *, duplicates: str = "refuse") -> JsonlDocument:
    """Read a `.jsonl` file; raises `FixtureError` naming the line of a bad one."""
    return JsonlDocument(path, raw, duplicates=duplicates)
