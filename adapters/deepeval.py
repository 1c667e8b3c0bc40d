"""DeepEval goldens (confident-ai/deepeval `Golden` and `ConversationalGolden`: JSON array,
JSON Lines or CSV), imported with `fixture-migrate import --from deepeval`.

Keys are DeepEval's snake_case names; the camelCase names its models also
serialize (`expectedOutput`, `retrievalContext`, ...) are read the same way and
written under their snake_case names, with `key_style: "camel"` recorded.

- `input`: `input`; for a multi-turn golden (`scenario` set), `scenario` (what the
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
from fixture_migrate.importing.base import (
    ABSENT,
    Draft,
    ExternalAdapter,
    Job,
    Sniff,
    Source,
    SourceRecord,
    content_id,
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
SINGLE_TURN_MARKS = ("expected_output", "actual_output", "retrieval_context", "context", "tools_called")
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
    return "input" in snake and any(key in snake for key in SINGLE_TURN_MARKS)


class DeepEvalAdapter(ExternalAdapter):
    name = "deepeval"
    format = "deepeval"
    tag = "deepeval"
    namespace = "deepeval"
    summary = "DeepEval goldens, single- and multi-turn (JSON, JSONL or CSV): import only"
    id_rule = "slug of name, else golden-<sha256 of {input or scenario, expected_output or expected_outcome}>"

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
        return sniff_records(source, _is_golden, "goldens", "is not a golden (input, or scenario and turns)")

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts = []
        for source in sources:
            if not isinstance(source.data, list):
                raise source.error("DeepEval goldens are a list (JSON array, JSON Lines or CSV)", "not_a_list")
            for record in source.records():
                drafts.append(self._draft(record, csv=source.syntax == "csv", job=job))
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


ADAPTER = DeepEvalAdapter()
