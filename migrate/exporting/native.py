"""Writers of the native files an export gives: JSON Lines, JSON, CSV and YAML.

Each writes the layout the tools' own writers (and most hand-written files) use, so a
file written that way comes back byte for byte: JSON Lines as Python's `json.dumps`
with its default separators, one record a line; JSON indented by two spaces; CSV with
minimal quoting and `\\n` line ends; YAML in block style. Non-ASCII text is written as is.
A file in another layout comes back data-equal (and an export onto it leaves it as it
is when its data is unchanged: see `exporting.pipeline`).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

__all__ = ["csv_bytes", "json_bytes", "jsonl_bytes", "render", "yaml_bytes"]


def jsonl_bytes(records: list[Any]) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode("utf-8")


def json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def cell_text(value: Any) -> str:
    """A CSV cell: a string as is, null as an empty cell, anything else as compact JSON text."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def csv_bytes(rows: list[dict[str, Any]]) -> bytes:
    """A CSV file of `rows`: the header is every column in order of first appearance."""
    header: dict[str, None] = {}
    for row in rows:
        header.update(dict.fromkeys(row))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(list(header))
    for row in rows:
        writer.writerow([cell_text(row.get(column, "")) if column in row else "" for column in header])
    return buffer.getvalue().encode("utf-8")


def yaml_bytes(value: Any) -> bytes:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[attr-defined]
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.allow_unicode = True
    buffer = io.StringIO()
    yaml.dump(value, buffer)
    return buffer.getvalue().encode("utf-8")


def render(syntax: str, value: Any) -> bytes:
    """The bytes of `value` in `syntax` (`jsonl` and `csv` take a list of records)."""
    if syntax == "jsonl":
        return jsonl_bytes(value)
    if syntax == "csv":
        return csv_bytes(value)
    if syntax == "yaml":
        return yaml_bytes(value)
    return json_bytes(value)
