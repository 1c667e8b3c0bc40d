"""LangSmith dataset examples (a JSON array or JSON Lines of `{inputs, outputs}` objects, as
exported or uploaded through the LangSmith SDK), imported with `fixture-migrate import --from langsmith`.

- `input`: the rendering of `inputs` by the shared rule for variable maps (its
  value when it holds a single string; else `input`, `question`, `query`,
  `prompt`, `task`, `message`, `text`; a `messages` chat list by the chat rule;
  else `key: value` lines). `inputs` always stays under `extensions.langsmith.inputs`.
- `expected_outcome`: `outputs`; an object with a single key whose value is a
  string, list or object becomes that value (`{"answer": "..."}` -> the answer),
  the object then kept under `extensions.langsmith.outputs`; null stays null.
- `id`: `id` (a UUID) when present, else `example-<hash of {inputs, outputs}>`.
- `coverage_tags`: `langsmith` (file); the slugs of `split` (a string or a list);
  `expected` when the outcome is non-empty.
- `extensions.langsmith`: `inputs`, `metadata`, `dataset_id`, `source_run_id`,
  `created_at`, `modified_at`, `attachments` and every other key, verbatim.

Detection needs `outputs` beside an `inputs` object: other tools use `inputs` too
(MLflow pairs it with `expectations`).
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.importing.base import (
    Draft,
    ExternalAdapter,
    Job,
    Sniff,
    Source,
    SourceRecord,
    content_id,
    outcome_value,
    own_id,
    record_error,
    render_vars,
    require_object,
    slug_tag,
    sniff_records,
)


def _is_example(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("inputs"), dict) and "outputs" in record


class LangSmithAdapter(ExternalAdapter):
    name = "langsmith"
    format = "langsmith"
    tag = "langsmith"
    namespace = "langsmith"
    summary = "LangSmith dataset examples (inputs/outputs, JSON or JSONL): import only"
    id_rule = "id, else example-<sha256 of {inputs, outputs}>"

    def sniff(self, source: Source) -> Sniff | None:
        return sniff_records(
            source, _is_example, "examples with inputs and outputs", "has no `inputs` object with `outputs`"
        )

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts = []
        for source in sources:
            if not isinstance(source.data, list):
                raise source.error("LangSmith examples are a list (JSON array or JSON Lines)", "not_a_list")
            drafts.extend(self._draft(record) for record in source.records())
        return drafts

    def _draft(self, record: SourceRecord) -> Draft:
        example = require_object(record)
        inputs = example.get("inputs")
        if not isinstance(inputs, dict):
            raise record_error(record, "has no `inputs` object", key="inputs" if "inputs" in example else None)
        extensions: dict[str, Any] = {"inputs": inputs}
        original: dict[str, Any] = {}
        expected: Any = None
        outputs = example.get("outputs")
        if "outputs" not in example:
            raise record_error(record, "has no `outputs` (null when the example has none)")
        if isinstance(outputs, dict) and len(outputs) == 1:
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
        if c.is_non_empty_expected(expected):
            tags.append("expected")
        return Draft(record, case_id, render_vars(inputs), expected, tags, extensions=extensions)


ADAPTER = LangSmithAdapter()
