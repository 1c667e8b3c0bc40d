"""Inspect AI datasets (UKGovernmentBEIS/inspect_ai `Sample` records: JSON array, JSON Lines
or CSV), imported with `fixture-migrate import --from inspect`.

Records carry the Sample fields under their default names: `input`, `target`,
`id`, `choices`, `metadata`, `sandbox`, `files`, `setup`. A dataset with other
names is read through Inspect's own field mapping, given as `--field`
(`--field input=question --field target=answer`); it is never guessed.

- `input`: a string stays; a chat message list (content as a string or as parts)
  is rendered by the shared rule (one message: its text; else the last `user`
  message; parts: the `text` parts). The list stays under
  `extensions.inspect_ai.messages`; image and other parts are never inlined.
- `expected_outcome`: `target` as it is (a string, or a list of acceptable
  answers); with `choices`, an object `{target, choice_text}` naming the choice
  each letter (`A` = the first) stands for, clearer than the bare letter. A
  sample without `target` has no outcome. Whether a target is a literal answer or
  grading guidance cannot be told from the data and is not guessed.
- `id`: `id` (a number as its decimal text; `"007"` stays `"007"`), else
  `sample-<hash of {input, target, choices}>`.
- `coverage_tags`: `inspect-ai` (file); `multiple-choice` with `choices`;
  `expected` when the outcome is non-empty. Metadata values are not made tags.
- `extensions.inspect_ai`: `messages`, `choices`, `metadata`, `sandbox`, `files`,
  `setup` and every other column, verbatim. In CSV, `choices` is split on commas
  (on whitespace when there is none) and `metadata`, `sandbox` and `files` cells
  holding JSON are parsed; a JSON-encoded string `metadata` is parsed in any
  syntax. Each parsed or split value keeps its source text under
  `extensions.inspect_ai.original`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fixture_migrate.contract import rules as c
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
    is_message_list,
    origin_syntax,
    original_of,
    outcome_text,
    outcome_value,
    own_id,
    proposed_id,
    record_error,
    render_messages,
    require_object,
    sniff_records,
)

JSON_CELLS = ("metadata", "sandbox", "files")
"""CSV columns Inspect reads as JSON when the cell holds JSON."""


def _is_sample(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and (isinstance(record.get("input"), str) or is_message_list(record.get("input")))
        and ("target" in record or "choices" in record)
    )


class InspectAdapter(ImportAdapter):
    name = "inspect_ai"
    format = "inspect"
    tag = "inspect-ai"
    namespace = "inspect_ai"
    summary = "Inspect AI datasets (input/target samples in JSON, JSONL or CSV): import and export"
    id_rule = "id, else sample-<sha256 of {input, target, choices}>"

    export_syntaxes = ("jsonl", "json", "csv")

    def sniff(self, source: Source) -> Sniff | None:
        if source.syntax == "csv":
            columns = set(source.header or ())
            if "input" in columns and ({"target", "choices"} & columns):
                return Sniff("cases", "CSV samples with input and target")
            return None
        return sniff_records(
            source, _is_sample, "samples with input and target", "has no `input` with `target` or `choices`"
        )

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts = []
        for source in sources:
            if not isinstance(source.data, list):
                raise source.error(
                    "an Inspect dataset is a list of samples (JSON array, JSON Lines or CSV)", "not_a_list"
                )
            drafts.extend(self._draft(record, csv=source.syntax == "csv") for record in source.records())
        return drafts

    def _draft(self, record: SourceRecord, *, csv: bool) -> Draft:
        sample = require_object(record)
        extensions: dict[str, Any] = {}
        original: dict[str, Any] = {}
        if "input" not in sample:
            raise record_error(
                record, "has no `input` (for a dataset with other field names pass --field input=COLUMN)"
            )
        raw_input = sample["input"]
        if isinstance(raw_input, str):
            text = raw_input
        elif is_message_list(raw_input):
            text = render_messages(raw_input)
            extensions["messages"] = raw_input
        else:
            raise record_error(record, "`input` is neither a string nor a list of chat messages", key="input")

        choices = sample.get("choices", ABSENT)
        if csv and isinstance(choices, str):
            original["choices"] = choices
            choices = _split_choices(choices)
        if choices is not ABSENT:
            extensions["choices"] = choices

        expected: Any = ABSENT
        if "target" in sample:
            target = sample["target"]
            if isinstance(choices, list):
                expected = {"target": target}
                text_of = _choice_text(target, choices)
                if text_of is not None:
                    expected["choice_text"] = text_of
            else:
                expected = outcome_value(target, original, "target")

        for key, value in sample.items():
            if key in ("input", "target", "choices", "id"):
                continue
            if key in JSON_CELLS and isinstance(value, str) and (csv or key == "metadata"):
                parsed = _json_cell(value)
                if parsed is not ABSENT:
                    original[key] = value
                    value = parsed
            extensions[key] = value

        case_id = own_id(sample.get("id"))
        if "id" in sample and (case_id is None or not isinstance(sample["id"], str)):
            extensions["id"] = sample["id"]
        if case_id is None:
            identity = {key: sample[key] for key in ("input", "target", "choices") if key in sample}
            case_id = content_id("sample", identity)
        if original:
            extensions["original"] = original
        tags = ["multiple-choice"] if isinstance(choices, list) else []
        if expected is not ABSENT and c.is_non_empty_expected(expected):
            tags.append("expected")
        return Draft(record, case_id, text, expected, tags, extensions=extensions)


def _split_choices(cell: str) -> list[str]:
    """A CSV `choices` cell as Inspect splits it: on commas, else on whitespace."""
    parts = cell.split(",") if "," in cell else re.split(r"\s+", cell.strip())
    return [part.strip() for part in parts if part.strip()]


def _json_cell(cell: str) -> Any:
    """The JSON value of a cell holding a JSON object or array; `ABSENT` when it does not."""
    if not cell.strip().startswith(("{", "[")):
        return ABSENT
    try:
        return json.loads(cell)
    except ValueError:
        return ABSENT


def _choice_text(target: Any, choices: list[Any]) -> Any:
    """The choice a letter target names (`A` = the first), or a list of them; None when
    a target is not a letter within the choices."""

    def one(letter: Any) -> Any:
        if isinstance(letter, str) and len(letter.strip()) == 1 and letter.strip().isalpha():
            index = ord(letter.strip().upper()) - ord("A")
            if 0 <= index < len(choices):
                return choices[index]
        return None

    if isinstance(target, list):
        texts = [one(letter) for letter in target]
        return texts if texts and all(t is not None for t in texts) else None
    return one(target)




# --- export ------------------------------------------------------------------------------


def _record_of(case: dict[str, Any], csv: bool) -> dict[str, Any]:
    """The Inspect sample a case was imported from (see `InspectAdapter.record_of`)."""
    ext = extension(case, "inspect_ai")
    same = (origin_syntax(case) == "csv") == csv
    record: dict[str, Any] = {}
    proposed = proposed_id(case)
    expected = case.get("expected_outcome", ABSENT)
    choices = ext.get("choices", ABSENT)
    if "target" in ext.get("original", {}):
        target = ext["original"]["target"]
    elif isinstance(choices, list) and isinstance(expected, dict):
        target = expected.get("target", ABSENT)
    else:
        target = expected
    identity = {"input": ext.get("messages", case.get("input"))}
    if target is not ABSENT:
        identity["target"] = target
    if choices is not ABSENT:
        identity["choices"] = original_of(ext, "choices", choices, same_syntax=origin_syntax(case) == "csv")
    if "id" in ext:
        record["id"] = ext["id"]
    elif proposed != content_id("sample", identity):
        record["id"] = proposed
    record["input"] = identity["input"]
    if choices is not ABSENT:
        record["choices"] = original_of(ext, "choices", choices, same_syntax=same)
    if target is not ABSENT:
        record["target"] = target
    for key, value in ext.items():
        if key in ("messages", "choices", "original", "id"):
            continue
        record[key] = original_of(ext, key, value, same_syntax=same)
    return record


def record_of(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """The sample as the import read it: `id` (unless a content id was made for it), `input`
    (the message list when it was one), `target`, `choices` and every other member from
    `extensions.inspect_ai`, each in its source form (a CSV cell's text) when DEST has the
    source's syntax."""
    return _record_of(case, context.syntax == "csv")


def map_case(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A native case as an Inspect sample: `id`, `input`, `target` (a string or a list of
    strings; anything else as JSON text, a loss), `metadata.fixture_migrate` for the rest."""
    record: dict[str, Any] = {"id": case.get("id"), "input": case.get("input", "")}
    expected = case.get("expected_outcome")
    if isinstance(expected, str) or (isinstance(expected, list) and all(isinstance(x, str) for x in expected)):
        record["target"] = expected
    elif expected is not None:
        record["target"] = outcome_text(expected)
        context.loss(case, "expected_outcome", TEXT, "target", "Inspect targets are strings; written as JSON text")
    meta = fixture_metadata(case, skip=("id",))
    for name in ("boundary_note", "forbidden_signals"):
        if name in meta:
            context.loss(case, name, METADATA, f"metadata.{META_KEY}.{name}", "no Inspect scorer reads it")
    if meta:
        record["metadata"] = {META_KEY: meta}
    return record


ADAPTER = InspectAdapter(record_of=record_of, map_case=map_case)
