"""LangSmith dataset examples (a JSON array or JSON Lines of `{inputs, outputs}` objects, as
exported or uploaded through the LangSmith SDK), imported with `fixture-migrate import --from langsmith`.

- `input`: the rendering of `inputs` by the shared rule for variable maps (its
  value when it holds a single string; else `input`, `question`, `query`,
  `prompt`, `task`, `message`, `text`; a `messages` chat list by the chat rule;
  else `key: value` lines). `inputs` always stays under `extensions.langsmith.inputs`.
- `expected_outcome`: `outputs` (an example without `outputs` has no outcome); an object with a single key whose value is a
  string, list or object becomes that value (`{"answer": "..."}` -> the answer),
  the object then kept under `extensions.langsmith.outputs`; null stays null.
- `id`: `id` (a UUID) when present, else `example-<hash of {inputs, outputs}>`.
- `coverage_tags`: `langsmith` (file); the slugs of `split` (a string or a list);
  `expected` when the outcome is non-empty.
- `extensions.langsmith`: `inputs`, `metadata`, `dataset_id`, `source_run_id`,
  `created_at`, `modified_at`, `attachments` and every other key, verbatim.

Detection needs an `inputs` object in every record and `outputs` (or `dataset_id`,
`source_run_id`) in at least one: other tools use `inputs` too (MLflow pairs it with
`expectations`, which is never LangSmith's). With `--from langsmith` every record with
an `inputs` object is an example.

**Export** (`--to langsmith`, JSON Lines or a JSON array): an imported example comes back
as it was read; a native case becomes `{id, inputs: {input}, outputs: {output}, metadata}`
(`id` only when the case id is a UUID, as LangSmith requires; the canonical members
without a LangSmith field under `metadata.fixture_migrate`).
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.importing.base import (
    ABSENT,
    META_KEY,
    METADATA,
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
    original_of,
    outcome_value,
    own_id,
    proposed_id,
    record_error,
    render_vars,
    require_object,
    slug_tag,
    sniff_records,
)

LANGSMITH_MARKS = ("outputs", "dataset_id", "source_run_id")
"""Members only LangSmith examples have beside `inputs`; one record with one of them is enough."""


def _has_inputs(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("inputs"), dict)


class LangSmithAdapter(ImportAdapter):
    name = "langsmith"
    format = "langsmith"
    tag = "langsmith"
    namespace = "langsmith"
    summary = "LangSmith dataset examples (inputs/outputs, JSON or JSONL): import and export"
    id_rule = "id, else example-<sha256 of {inputs, outputs}>"

    export_syntaxes = ("jsonl", "json")

    def sniff(self, source: Source) -> Sniff | None:
        found = sniff_records(source, _has_inputs, "examples with inputs", "has no `inputs` object")
        if found is None or not found.matched:
            return found
        records = [r for r in source.data if isinstance(r, dict)]
        if any("expectations" in r for r in records):
            return Sniff(miss="records with `expectations` (MLflow's shape, not LangSmith's)")
        if not any(any(key in r for key in LANGSMITH_MARKS) for r in records):
            return Sniff(miss="no record has `outputs` (say --from langsmith for examples without outputs)")
        return found

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts = []
        for source in sources:
            if not isinstance(source.data, list):
                raise source.error("LangSmith examples are a list (JSON array or JSON Lines)", "not_a_list")
            made = [self._draft(record, job) for record in source.records()]
            bare = [d for d in made if d.expected is ABSENT]
            if bare:
                job.note(f"mapped: {source.path}: {len(bare)} example(s) without `outputs`: cases without an outcome")
            drafts.extend(made)
        return drafts

    def _draft(self, record: SourceRecord, job: Job) -> Draft:
        example = require_object(record)
        inputs = example.get("inputs")
        if not isinstance(inputs, dict):
            raise record_error(record, "has no `inputs` object", key="inputs" if "inputs" in example else None)
        extensions: dict[str, Any] = {"inputs": inputs}
        original: dict[str, Any] = {}
        expected: Any = None
        outputs = example.get("outputs")
        if "outputs" not in example:
            expected = ABSENT  # an example without reference outputs (as the SDK allows)
        elif isinstance(outputs, dict) and len(outputs) == 1:
            (value,) = outputs.values()
            if isinstance(value, (str, list, dict)):
                expected = value
                extensions["outputs"] = outputs
            else:
                expected = outputs
        else:
            expected = outcome_value(outputs, original, "outputs")
        for key, value in example.items():
            if key not in ("inputs", "outputs", "id"):
                extensions[key] = value
        case_id = own_id(example.get("id"))
        if "id" in example and (case_id is None or not isinstance(example["id"], str)):
            extensions["id"] = example["id"]
        if case_id is None:
            case_id = content_id("example", {"inputs": inputs, "outputs": outputs})
        if original:
            extensions["original"] = original
        split = example.get("split")
        tags = [t for t in (slug_tag(s) for s in (split if isinstance(split, list) else [split])) if t]
        if expected is not ABSENT and c.is_non_empty_expected(expected):
            tags.append("expected")
        return Draft(record, case_id, render_vars(inputs), expected, tags, extensions=extensions)




# --- export ------------------------------------------------------------------------------


def record_of(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """The example a case was imported from: `id` (unless a content id was made for it),
    `inputs`, `outputs` (none when the case has no outcome), every other member."""
    ext = extension(case, "langsmith")
    inputs = ext.get("inputs", {})
    record: dict[str, Any] = {}
    has_outputs = "expected_outcome" in case
    outputs = ext["outputs"] if "outputs" in ext else original_of(ext, "outputs", case.get("expected_outcome"))
    if "id" in ext:
        record["id"] = ext["id"]
    else:
        identity = {"inputs": inputs, "outputs": outputs if has_outputs else None}
        if proposed_id(case) != content_id("example", identity):
            record["id"] = proposed_id(case)
    record["inputs"] = inputs
    if has_outputs:
        record["outputs"] = outputs
    for key, value in ext.items():
        if key not in ("inputs", "outputs", "original", "id"):
            record[key] = value
    return record


def map_case(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A native case as an example (see the module docstring)."""
    record: dict[str, Any] = {}
    if _is_uuid(case.get("id")):
        record["id"] = case["id"]
    record["inputs"] = {"input": case.get("input", "")}
    expected = case.get("expected_outcome")
    record["outputs"] = None if expected is None else {"output": expected}
    meta = fixture_metadata(case, skip=("id",) if "id" in record else ())
    for name in ("boundary_note", "forbidden_signals"):
        if name in meta:
            context.loss(case, name, METADATA, f"metadata.{META_KEY}.{name}", "no LangSmith evaluator reads it")
    if meta:
        record["metadata"] = {META_KEY: meta}
    return record


def _is_uuid(value: Any) -> bool:
    import uuid

    try:
        return isinstance(value, str) and str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


ADAPTER = LangSmithAdapter(record_of=record_of, map_case=map_case)
