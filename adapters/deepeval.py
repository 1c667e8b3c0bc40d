"""DeepEval goldens (confident-ai/deepeval `Golden` and `ConversationalGolden`: JSON array,
JSON Lines or CSV), imported with `fixture-migrate import --from deepeval`.

Keys are DeepEval's snake_case names; the camelCase names its models also
serialize (`expectedOutput`, `retrievalContext`, ...) are read the same way and
written under their snake_case names, with `key_style: "camel"` recorded.

Recognized (`--from auto`) by `input` (or `query`) beside one of DeepEval's single-turn
members (`SINGLE_TURN_MARKS`: `expected_output`, `actual_output`, `context`,
`retrieval_context`, `tools_called`, `expected_tools`, `additional_metadata`,
`custom_column_key_values`), or by `scenario` with `turns`.

- `input`: `input` (`query` in files that name it so: `input_key` records it); for a multi-turn golden (`scenario` set), `scenario` (what the
  simulated user tries to do). The turns stay in `extensions.deepeval.turns`.
- `expected_outcome`: single-turn, `expected_output`, or an object
  `{expected_output, expected_tools}` when expected tools are given; multi-turn,
  `expected_outcome`; a golden without one has none (null stays null).
- `id`: the slug of `name`, else `golden-<hash of {input or scenario,
  expected_output or expected_outcome}>`.
- `boundary_note`: none (`comments` is a free remark, kept in extensions).
- `coverage_tags`: `deepeval` (file); `multi-turn` for conversational goldens;
  `expected` when the outcome is non-empty. Metadata values are not made tags.
- `extensions.context`: `context` (the reference normalizer copies a case's
  `context` into extensions too, so both views agree).
- `extensions.deepeval`: every other key verbatim (`actual_output`,
  `retrieval_context`, `tools_called`, `expected_tools`, `additional_metadata`,
  `custom_column_key_values`, `comments`, `name`, `source_file`,
  `user_description`, `turns`, unknown keys). `turns` stored as a JSON string is
  parsed; the string stays under `extensions.deepeval.original`.

A JSON object holding the goldens under `goldens` (or under its only member that is a
list of goldens) beside other members is read too; the other members stay at file
level under `extensions.deepeval.files[<source ref>]`.

**Export** (`--to deepeval`, JSON, JSON Lines or CSV as DeepEval's loaders read them): an
imported golden comes back as it was read (CSV cells as their text when DEST is CSV,
parsed when it is not; camelCase keys when it had them); a native case becomes
`{input, expected_output, comments, additional_metadata}`: the outcome as text (an
array or object as JSON text, a loss), `boundary_note` as `comments`, the other
canonical members under `additional_metadata.fixture_migrate`.

CSV (DeepEval's loader defaults): `context` and `retrieval_context` are split on
`|`; `tools_called` and `expected_tools` hold JSON, or `;`-separated tool names;
`additional_metadata` and `custom_column_key_values` hold JSON (or a Python dict
literal); `turns` holds JSON; an empty cell is null. Every cell read otherwise
than as text keeps its text under `extensions.deepeval.original`. A `|` inside a
passage cannot be told from the delimiter (DeepEval's own limit).
"""

from __future__ import annotations

import ast
import json
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError
from fixture_migrate.importing.base import (
    ABSENT,
    META_KEY,
    METADATA,
    TEXT,
    Draft,
    ExportContext,
    ImportAdapter,
    Job,
    Sniff,
    Source,
    SourceRecord,
    content_id,
    extension,
    fixture_metadata,
    origin_syntax,
    outcome_text,
    outcome_value,
    record_error,
    require_object,
    sniff_records,
)

CAMEL = {
    "expectedOutput": "expected_output",
    "actualOutput": "actual_output",
    "retrievalContext": "retrieval_context",
    "toolsCalled": "tools_called",
    "expectedTools": "expected_tools",
    "additionalMetadata": "additional_metadata",
    "customColumnKeyValues": "custom_column_key_values",
    "sourceFile": "source_file",
    "expectedOutcome": "expected_outcome",
    "userDescription": "user_description",
}
SINGLE_TURN_MARKS = (
    "expected_output",
    "actual_output",
    "retrieval_context",
    "context",
    "tools_called",
    # DeepEval's own field names, which no other format uses: goldens of `{input,
    # additional_metadata}` are DeepEval's (`name`, `comments`, `source_file` are too
    # common elsewhere to tell a golden alone).
    "expected_tools",
    "additional_metadata",
    "custom_column_key_values",
)
"""Members that, beside `input` (or `query`), make a record a single-turn golden."""
LIST_COLUMNS = ("context", "retrieval_context")
TOOL_COLUMNS = ("tools_called", "expected_tools")
JSON_COLUMNS = ("additional_metadata", "custom_column_key_values", "turns")


def _snake(record: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The record with camelCase keys as snake_case, and whether any was renamed."""
    renamed = {CAMEL.get(key, key): value for key, value in record.items()}
    if len(renamed) != len(record):
        return record, False  # both spellings present: keep the record as written
    return renamed, renamed.keys() != record.keys()


def _is_golden(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    snake, _ = _snake(record)
    if c.is_non_empty_string(snake.get("scenario")) and "turns" in snake:
        return True
    return ("input" in snake or "query" in snake) and any(key in snake for key in SINGLE_TURN_MARKS)


def _golden_list(data: Any) -> tuple[str, list[Any]] | None:
    """The member of a JSON object that holds its goldens (`goldens`, else the only member
    whose value is a non-empty list of goldens), with that list."""
    if not isinstance(data, dict):
        return None
    lists = [(key, value) for key, value in data.items() if isinstance(value, list) and value]
    found = [(key, value) for key, value in lists if all(_is_golden(item) for item in value)]
    named = [item for item in found if item[0] == "goldens"]
    if named:
        return named[0]
    return found[0] if len(found) == 1 else None


class DeepEvalAdapter(ImportAdapter):
    name = "deepeval"
    format = "deepeval"
    tag = "deepeval"
    namespace = "deepeval"
    summary = "DeepEval goldens, single- and multi-turn (JSON, JSONL or CSV): import and export"
    id_rule = "slug of name, else golden-<sha256 of {input or scenario, expected_output or expected_outcome}>"

    export_syntaxes = ("json", "jsonl", "csv")

    def name_hint(self, path: Any) -> bool:
        return "golden" in path.name.lower()

    def sniff(self, source: Source) -> Sniff | None:
        if source.syntax == "csv":
            columns = {CAMEL.get(name, name) for name in source.header or ()}
            if "input" in columns and columns & set(SINGLE_TURN_MARKS):
                return Sniff("cases", "CSV goldens")
            if {"scenario", "turns"} <= columns:
                return Sniff("cases", "CSV conversational goldens")
            return None
        if source.syntax in ("json", "yaml") and _golden_list(source.data) is not None:
            return Sniff("cases", "goldens in an object with other members")
        return sniff_records(source, _is_golden, "goldens", "is not a golden (input, or scenario and turns)")

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts = []
        for source in sources:
            at: tuple[str, ...] = ()
            if not isinstance(source.data, list):
                found = _golden_list(source.data)
                if found is None:
                    raise source.error(
                        "DeepEval goldens are a list (JSON array, JSON Lines or CSV), or an object with a `goldens` list",
                        "not_a_list",
                    )
                at = (found[0],)
                rest = {key: value for key, value in source.data.items() if key != found[0]}
                job.extensions.setdefault("files", {})[source.ref] = {"list_key": found[0], "members": rest}
                job.note(f"mapped: {source.path}: goldens read from `{found[0]}`; the other members kept at file level")
            made = [self._draft(record, csv=source.syntax == "csv", job=job) for record in source.records(at)]
            queries = sum(1 for d in made if d.extensions.get("input_key") == "query")
            if queries:
                job.note(f"mapped: {source.path}: {queries} golden(s) name the input `query`; read as `input`")
            drafts.extend(made)
        return drafts

    def _draft(self, record: SourceRecord, *, csv: bool, job: Job) -> Draft:
        golden, camel = _snake(require_object(record))
        original: dict[str, Any] = {}
        if csv:
            golden = {key: _cell(key, value, original) for key, value in golden.items()}
        multi = golden.get("scenario") not in (None, "")
        extensions: dict[str, Any] = {}
        shared: dict[str, Any] = {}
        if "turns" in golden and isinstance(golden["turns"], str) and not csv:
            try:
                parsed = json.loads(golden["turns"])
            except ValueError:
                job.note(f"{record.ref}: `turns` is a string that is not JSON; kept as it is")
            else:
                original["turns"] = golden["turns"]
                golden["turns"] = parsed

        if multi:
            text_key, outcome_key = "scenario", "expected_outcome"
        else:
            text_key, outcome_key = "input", "expected_output"
            if "input" not in golden and "query" in golden:
                text_key = "query"  # some hand-written goldens name the input `query`
                extensions["input_key"] = "query"
        if text_key not in golden:
            raise record_error(record, f"has no `{text_key}`")
        raw_text = golden[text_key]
        if isinstance(raw_text, str):
            text = raw_text
        elif raw_text is None:
            text = ""
            original[text_key] = None
        else:
            raise record_error(record, f"`{text_key}` is not a string", key=text_key)

        expected: Any = ABSENT
        used = {text_key}
        tools = golden.get("expected_tools")
        if not multi and isinstance(tools, list) and tools:
            expected = {"expected_output": golden.get("expected_output"), "expected_tools": tools}
            used |= {"expected_output", "expected_tools"}
        elif outcome_key in golden:
            expected = outcome_value(golden[outcome_key], original, outcome_key)
            used.add(outcome_key)

        if "context" in golden:
            shared["context"] = golden["context"]
            used.add("context")
        for key, value in golden.items():
            if key not in used:
                extensions[key] = value
        if camel:
            extensions["key_style"] = "camel"
        if original:
            extensions["original"] = original

        name = golden.get("name")
        label = c.slugify(name) if isinstance(name, str) else ""
        if label:
            case_id = label
        else:
            identity = {text_key: raw_text}
            if outcome_key in golden:
                identity[outcome_key] = golden[outcome_key]
            case_id = content_id("golden", identity)
        tags = ["multi-turn"] if multi else []
        if expected is not ABSENT and c.is_non_empty_expected(expected):
            tags.append("expected")
        return Draft(record, case_id, text, expected, tags, extensions=extensions, shared=shared)


def _cell(key: str, cell: Any, original: dict[str, Any]) -> Any:
    """A CSV cell read as DeepEval's loader reads its column (see the module docstring);
    a cell read as anything but its text keeps the text in `original`."""
    if not isinstance(cell, str):
        return cell
    if cell == "":
        value: Any = None
    elif key in LIST_COLUMNS:
        value = cell.split("|")
    elif key in TOOL_COLUMNS:
        value = _json(cell)
        if value is ABSENT:
            value = [{"name": name.strip()} for name in cell.split(";") if name.strip()]
    elif key in JSON_COLUMNS:
        value = _json(cell)
        if value is ABSENT and key != "turns":
            value = _python_literal(cell)
        if value is ABSENT:
            return cell
    else:
        return cell
    original[key] = cell
    return value


def _json(cell: str) -> Any:
    if not cell.strip().startswith(("[", "{")):
        return ABSENT
    try:
        return json.loads(cell)
    except ValueError:
        return ABSENT


def _python_literal(cell: str) -> Any:
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return ABSENT
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return ABSENT
    return value if isinstance(value, dict) else ABSENT




# --- export ------------------------------------------------------------------------------

SNAKE = {snake: camel for camel, snake in CAMEL.items()}


def record_of(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """The golden a case was imported from (see the module docstring)."""
    ext = extension(case, "deepeval")
    # A CSV cell's text is its source form only in a CSV; a JSON source's own value always is.
    use_original = origin_syntax(case) != "csv" or context.syntax == "csv"
    original = ext.get("original") if use_original and isinstance(ext.get("original"), dict) else {}
    multi = "multi-turn" in (case.get("coverage_tags") or [])
    text_key = "scenario" if multi else ext.get("input_key", "input")
    outcome_key = "expected_outcome" if multi else "expected_output"
    record: dict[str, Any] = {text_key: case.get("input", "")}
    expected = case.get("expected_outcome", ABSENT)
    if not multi and isinstance(expected, dict) and isinstance(expected.get("expected_tools"), list):
        record["expected_output"] = expected.get("expected_output")
        record["expected_tools"] = expected["expected_tools"]
    elif expected is not ABSENT:
        record[outcome_key] = expected
    shared = case.get("extensions", {})
    if "context" in shared:
        record["context"] = shared["context"]
    for key, value in ext.items():
        if key not in ("original", "key_style", "input_key"):
            record[key] = value
    record = {key: original.get(key, value) for key, value in record.items()}
    if ext.get("key_style") == "camel":
        record = {SNAKE.get(key, key): value for key, value in record.items()}
    return record


def map_case(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A native case as a golden (see the module docstring)."""
    record: dict[str, Any] = {"input": case.get("input", "")}
    expected = case.get("expected_outcome")
    if expected is not None:
        record["expected_output"] = outcome_text(expected)
        if not isinstance(expected, str):
            context.loss(
                case, "expected_outcome", TEXT, "expected_output", "`expected_output` is a string; written as JSON text"
            )
    if case.get("boundary_note"):
        record["comments"] = case["boundary_note"]
    meta = fixture_metadata(case, skip=("boundary_note",))
    if "forbidden_signals" in meta:
        context.loss(
            case,
            "forbidden_signals",
            METADATA,
            f"additional_metadata.{META_KEY}.forbidden_signals",
            "no DeepEval metric reads it",
        )
    if meta:
        record["additional_metadata"] = {META_KEY: meta}
    return record


def csv_row(record: dict[str, Any], case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A golden as a row DeepEval's CSV loader reads back: snake_case column names (its
    defaults), `context`/`retrieval_context` joined by `|`, the JSON columns as JSON
    text. A list item holding `|`, or any other non-text value, is a loss."""
    row: dict[str, Any] = {}
    for key, value in record.items():
        key = CAMEL.get(key, key)
        if value is None or isinstance(value, str):
            row[key] = value
        elif key in LIST_COLUMNS and isinstance(value, list) and all(isinstance(v, str) for v in value):
            if any("|" in v for v in value):
                context.loss(case, key, TEXT, key, "an item holds `|`, which DeepEval's CSV loader splits on")
            row[key] = "|".join(value)
        elif key in TOOL_COLUMNS or key in JSON_COLUMNS:
            row[key] = json.dumps(value, ensure_ascii=False)  # DeepEval parses these columns as JSON
        else:
            context.loss(case, key, TEXT, key, "a CSV cell is text: written as JSON text, read back as a string")
            row[key] = json.dumps(value, ensure_ascii=False)
    return row


def export_document(records: list[dict[str, Any]], context: ExportContext) -> Any:
    """The goldens, wrapped back in the object they were read from when the canonical file
    came from one such JSON file; in a CSV, rows as `csv_row` writes them. Single- and
    multi-turn goldens in one file are refused (`mixed_turns`): DeepEval loads a file as one
    kind (unless the file is one source given back as it was read)."""
    cases = context.cases or [{}] * len(records)
    multi = [str(case.get("id")) for case in cases if "multi-turn" in (case.get("coverage_tags") or [])]
    verbatim = context.verbatim or [False] * len(records)
    sources = {extension(case, "import").get("source_file") for case in cases}
    as_read = all(verbatim) and len(sources) == 1  # one source file given back as it was: its own mix
    if multi and len(multi) < len(cases) and not as_read:
        raise FixtureError(
            f"single- and multi-turn goldens in one file (multi-turn: {', '.join(multi[:5])}): DeepEval's loaders "
            "read a file as one kind; export each kind to its own file",
            code="mixed_turns",
        )
    if context.syntax == "csv":
        return [csv_row(record, case, context) for record, case in zip(records, cases, strict=True)]
    files = extension(context.file, "deepeval").get("files")
    if context.syntax == "json" and isinstance(files, dict) and len(files) == 1:
        (held,) = files.values()
        if isinstance(held, dict) and isinstance(held.get("list_key"), str):
            members = held.get("members") if isinstance(held.get("members"), dict) else {}
            return {**members, held["list_key"]: records}
    return records


ADAPTER = DeepEvalAdapter(record_of=record_of, map_case=map_case, export_document=export_document)
