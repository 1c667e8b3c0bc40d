"""Field-mapping import adapters declared in pyproject.toml: simple local formats, no code.

A table `[tool.fixture-migrate.adapters.NAME]` in the repository's pyproject.toml
declares an import adapter for record files (a JSON array, JSON Lines, a YAML
list or CSV) whose records map field by field onto canonical cases:

```toml
[tool.fixture-migrate.adapters.qa-sheet]
summary = "QA spreadsheet exported as CSV"   # optional: one line on the format
records = "items"        # optional: the key of the list in a JSON/YAML object
id = "qid"               # record field -> canonical field
input = "question"       # required
expected_outcome = "answer"
coverage_tags = "tags"   # a list, or a string of comma-separated tags
boundary_note = "note"
forbidden_signals = "must_not"
tag = "qa-sheet"         # optional: the file-level coverage tag (default: the slug of NAME)
defaults = { coverage_tags = ["expected"] }   # values for canonical fields a record lacks
```

It is used with `fixture-migrate import --from NAME`; with `files` (globs of the
files the family lives in) `migrate` also claims those files and migrates them in
place (`fixture_migrate.adapting.families`, where `should_trigger`,
`should_not_trigger` and `polarity` are described too). Without `files` it is never
detected: any record file could fit a field list. Every unmapped field of a record goes under
`extensions.<NAME with non-alphanumerics as _>`, verbatim; a mapped value that is
transformed (a number id or outcome written as text, tags slugified, a lone string
made a list, a comma list split) keeps its source value under
`extensions.<namespace>.original`. Tags are slugified (`Billing` -> `billing`). A
record without a mapped id gets `<tag>-<hash of the record>`. A NAME equal to a
built-in or plugin adapter's is an error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError
from fixture_migrate.importing.base import (
    ABSENT,
    Draft,
    ImportAdapter,
    Job,
    Sniff,
    Source,
    canonical_json,
    content_id,
    outcome_value,
    own_id,
    record_error,
    require_object,
    slug_tag,
)

MAPPABLE = ("id", "input", "expected_outcome", "coverage_tags", "boundary_note", "forbidden_signals")
"""Canonical case fields a table may map a record field onto."""

DEFAULTABLE = ("input", "expected_outcome", "coverage_tags", "boundary_note", "forbidden_signals")
SETTINGS = ("summary", "records", "tag", "defaults")
IN_PLACE = ("files", "should_trigger", "should_not_trigger", "polarity")
"""Keys of a table that `migrate` also uses to migrate the family in place
(`fixture_migrate.adapting.families`)."""


class MappedAdapterError(FixtureError):
    """A `[tool.fixture-migrate.adapters.*]` table that cannot be used; `path` is the pyproject.toml."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message, code="bad_adapter_table")
        self.path = path


class MappedAdapter(ImportAdapter):
    """An import adapter made from one pyproject table (see the module docstring)."""

    def __init__(self, name: str, table: dict[str, Any]) -> None:
        self.name = name
        self.format = name
        self.tag = table.get("tag") or c.slugify(name)
        self.namespace = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "mapped"
        self.summary = table.get("summary") or f"pyproject.toml field mapping {name!r}"
        self.records_key = table.get("records")
        self.mapping = {key: table[key] for key in MAPPABLE if key in table}
        self.defaults = dict(table.get("defaults") or {})
        self.id_rule = (
            f"the `{self.mapping['id']}` field, else {self.tag}-<sha256 of the record>"
            if "id" in self.mapping
            else f"{self.tag}-<sha256 of the record>"
        )

    def sniff(self, source: Source) -> Sniff | None:
        return None

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts = []
        for source in sources:
            at: tuple[str, ...] = ()
            if isinstance(source.data, dict) and self.records_key:
                at = tuple(self.records_key.split("."))
            drafts.extend(self._draft(record) for record in source.records(at))
        return drafts

    def _draft(self, record: Any) -> Draft:
        data = require_object(record)
        consumed = {field for field in self.mapping.values() if field in data}
        extensions = {key: value for key, value in data.items() if key not in consumed}
        original: dict[str, Any] = {}

        def mapped(name: str) -> Any:
            field = self.mapping.get(name)
            if field is not None and field in data:
                return data[field]
            return self.defaults.get(name, ABSENT)

        def keep(name: str, written: Any) -> None:
            # A record value written otherwise than it was read (or not at all) keeps its source form.
            field = self.mapping.get(name)
            if field is None or field not in data:
                return
            if written is ABSENT or canonical_json(data[field]) != canonical_json(written):
                original[name] = data[field]

        raw_id = data.get(self.mapping["id"], ABSENT) if "id" in self.mapping else ABSENT
        case_id = own_id(raw_id) if raw_id is not ABSENT else None
        if case_id is None:
            case_id = content_id(self.tag, data)
        keep("id", case_id)

        value = mapped("input")
        if value is ABSENT or value is None:
            raise record_error(record, f"has no `{self.mapping.get('input', 'input')}` field, mapped to input")
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        keep("input", text)

        expected = mapped("expected_outcome")
        if expected is not ABSENT:
            expected = outcome_value(expected, {}, "expected_outcome")
        keep("expected_outcome", expected)

        raw_tags = mapped("coverage_tags")
        if raw_tags is ABSENT or raw_tags is None:
            items = []
        elif isinstance(raw_tags, str):
            items = raw_tags.split(",")  # a spreadsheet cell lists tags with commas
        else:
            items = raw_tags if isinstance(raw_tags, list) else [raw_tags]
        tags = [t for t in (slug_tag(item) for item in items) if t]
        keep("coverage_tags", tags or ABSENT)

        note = mapped("boundary_note")
        boundary = note if isinstance(note, str) else "" if note is ABSENT or note is None else c.js_string(note)
        keep("boundary_note", boundary or ABSENT)

        raw_forbidden = mapped("forbidden_signals")
        forbidden = [] if raw_forbidden is ABSENT else c.string_array(raw_forbidden)
        keep("forbidden_signals", forbidden or ABSENT)

        if original:
            extensions["original"] = original
        return Draft(record, case_id, text, expected, tags, forbidden, boundary, extensions)


def _check_table(path: Path, name: str, table: Any) -> dict[str, Any]:
    where = f"[tool.fixture-migrate.adapters.{name}]"
    if not isinstance(table, dict):
        raise MappedAdapterError(path, f"{where} must be a table")
    known = MAPPABLE + SETTINGS + IN_PLACE
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise MappedAdapterError(path, f"{where}: unknown key {unknown[0]!r} (known: {', '.join(known)})")
    triggers = [key for key in ("should_trigger", "should_not_trigger") if key in table]
    if "input" not in table and not triggers and "files" not in table:
        raise MappedAdapterError(path, f"{where}: `input` is required (the record field holding the case input)")
    for key in ("files", *triggers):
        value = table.get(key, ["x"])
        if not (isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value)):
            raise MappedAdapterError(path, f"{where}: `{key}` must be a list of non-empty strings")
    if triggers and "files" not in table:
        raise MappedAdapterError(path, f"{where}: trigger lists are migrated in place: set `files` too")
    for key in MAPPABLE + ("summary", "records", "tag", "polarity"):
        if key in table and not (isinstance(table[key], str) and table[key].strip()):
            raise MappedAdapterError(path, f"{where}: `{key}` must be a non-empty string")
    records = table.get("records")
    if isinstance(records, str) and (records.count(".") > 1 or any(not part for part in records.split("."))):
        raise MappedAdapterError(
            path,
            f"{where}: `records` is a key or `outer.inner` (a list one object down); {records!r} is neither",
        )
    if "tag" in table and not c.COVERAGE_TAG_RE.fullmatch(table["tag"]):
        raise MappedAdapterError(path, f"{where}: `tag` must be a coverage tag (lower case, digits, `-`)")
    defaults = table.get("defaults", {})
    if not isinstance(defaults, dict) or set(defaults) - set(DEFAULTABLE):
        raise MappedAdapterError(path, f"{where}: `defaults` is a table of {', '.join(DEFAULTABLE)}")
    if not c.slugify(name) and "tag" not in table:
        raise MappedAdapterError(path, f"{where}: the name gives no coverage tag; set `tag`")
    return table


def mapped_adapters(pyproject: Path) -> list[MappedAdapter]:
    """The adapters of `[tool.fixture-migrate.adapters.*]` in `pyproject` (none when it is absent).

    Raises `MappedAdapterError` for a file that is not TOML or a table that is not valid.
    """
    if not pyproject.is_file():
        return []
    import tomllib

    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MappedAdapterError(pyproject, f"cannot read the adapter tables: {exc}") from None
    tables = document.get("tool", {}).get("fixture-migrate", {}).get("adapters", {})
    if not isinstance(tables, dict):
        raise MappedAdapterError(pyproject, "[tool.fixture-migrate.adapters] must be a table of tables")
    return [MappedAdapter(name, _check_table(pyproject, name, table)) for name, table in tables.items()]
