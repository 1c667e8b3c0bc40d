"""OpenAI Evals registry samples (`evals/registry/data/<eval>/*.jsonl` in openai/evals),
imported with `fixture-migrate import --from openai-evals`.

Each JSONL line is a sample `{"input": ..., "ideal": ...}`; the registry YAML of the
eval (`evals/registry/evals/<eval>.yaml`), when given alongside, names its class.

- `input`: a string stays; a chat message list is rendered by the shared rule
  (one message: its text; else the last `user` message; with no user message,
  as in the common system-only task, all texts joined by a blank line). The
  list stays under `extensions.openai_evals.messages`. Model-graded data without
  `input` (the grading prompt interpolates the record's members): the `sample`
  text, else the string members as `key: value` lines; the members stay under
  `extensions.openai_evals` and `rendered_from` says which (`sample`, `members`).
- `expected_outcome`: `ideal` as it is (a string, or a list of acceptable answers,
  "any of"); a sample without `ideal` (model-graded data) has no outcome.
- `id`: `sample-<hash of {input, ideal}>` (of the whole record when it has no
  `input`); samples have no ids of their own (the
  tool names them by 0-based position, kept as `extensions.import.index`).
- `coverage_tags`: `openai-evals` (file); per case `expected` when `ideal` is
  non-empty, and the class of each registry entry whose `args.samples_jsonl`
  names this file (or of the only entry given): `match`, `includes`,
  `fuzzy-match`, `json-match`, `modelgraded-<spec>` (from `modelgraded_spec` or
  `modelgraded_spec_file`), else the slug of the class name. The class is per
  import, not per file: the same data can feed several evals.
- `extensions.openai_evals`: `messages`, `eval` (the registry entries that apply),
  every other sample key (`choice`, keys a grading prompt interpolates) verbatim;
  file level: `registry`, each registry YAML's data under its source ref.
  `description` is the registry entry's.

Refused: a Git LFS pointer (the upstream repository stores data files with LFS),
a few-shot file (`{"sample": [messages]}` records are prompt material, not cases;
a `sample` string is model-graded data and is imported), a line that is not a JSON
object (named by its line number).

**Export** (`fixture-migrate export --to openai-evals`, JSON Lines): an imported sample
comes back as it was read; a native case becomes `{input, ideal, fixture_migrate}`,
its other canonical members under `fixture_migrate` (samples have no ids).
"""

from __future__ import annotations

import posixpath
from pathlib import Path
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
    content_id,
    extension,
    fixture_metadata,
    is_message_list,
    original_of,
    outcome_text,
    outcome_value,
    record_error,
    render_messages,
    render_vars,
    require_object,
    slug_tag,
)

KNOWN_CLASSES = {
    "evals.elsuite.basic.match:Match": "match",
    "evals.elsuite.basic.includes:Includes": "includes",
    "evals.elsuite.basic.fuzzy_match:FuzzyMatch": "fuzzy-match",
    "evals.elsuite.basic.json_match:JsonMatch": "json-match",
}
MODEL_GRADED = "evals.elsuite.modelgraded.classify:ModelBasedClassify"


def class_tag(spec: dict[str, Any]) -> str | None:
    """The coverage tag of a registry eval entry's `class` (see the module docstring)."""
    name = spec.get("class")
    if not isinstance(name, str):
        return None
    if name in KNOWN_CLASSES:
        return KNOWN_CLASSES[name]
    args = spec.get("args") if isinstance(spec.get("args"), dict) else {}
    if name == MODEL_GRADED:
        graded = args.get("modelgraded_spec") or args.get("modelgraded_spec_file")
        suffix = slug_tag(graded) if graded else None
        return f"modelgraded-{suffix}" if suffix else "modelgraded"
    return slug_tag(name.rpartition(":")[2] or name)


def _is_few_shot(record: Any) -> bool:
    """A few-shot file's line: a `sample` message list and no `input` (prompt material)."""
    return isinstance(record, dict) and "input" not in record and is_message_list(record.get("sample"))


def _is_graded(record: Any) -> bool:
    """Model-graded data without `input`: the text to grade as a string `sample`."""
    return isinstance(record, dict) and "input" not in record and c.is_non_empty_string(record.get("sample"))


def _is_registry(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and bool(data)
        and all(isinstance(entry, dict) and ("class" in entry or "id" in entry) for entry in data.values())
        and any("class" in entry for entry in data.values())
    )


class OpenAIEvalsAdapter(ImportAdapter):
    name = "openai_evals"
    format = "openai-evals"
    tag = "openai-evals"
    namespace = "openai_evals"
    summary = "OpenAI Evals samples (JSONL input/ideal) with their registry YAML: import and export"
    id_rule = "sample-<sha256 of {input, ideal}>"

    export_syntaxes = ("jsonl",)

    def name_hint(self, path: Path) -> bool:
        posix = path.as_posix()
        return "registry/data/" in posix or "registry/evals/" in posix

    def sniff(self, source: Source) -> Sniff | None:
        if source.syntax == "yaml":
            return Sniff("aux", "an OpenAI Evals registry entry") if _is_registry(source.data) else None
        if source.syntax != "jsonl":
            return None
        records = source.data
        if all(_is_few_shot(r) for r in records):
            return Sniff(
                refusal="a few-shot file (each line holds a `sample` message list): prompt material, not cases"
            )
        first = records[0]
        if not (isinstance(first, dict) and (("input" in first and "ideal" in first) or _is_graded(first))):
            return None
        for number, record in zip(source.record_lines, records, strict=True):
            if not (isinstance(record, dict) and ("input" in record or _is_graded(record))):
                return Sniff(miss=f"line {number} has no `input` (nor a `sample` text)")
        return Sniff("cases", "JSONL samples (input, or a model-graded `sample` text)")

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        registries = [s for s in sources if s.role == "aux"]
        data_files = [s for s in sources if s.role != "aux"]
        if not data_files:
            raise registries[0].error(
                "a registry entry holds no samples: import the JSONL file its `samples_jsonl` names", "no_cases"
            )
        specs: list[tuple[str, dict[str, Any]]] = []
        bases: dict[str, dict[str, Any]] = {}
        for registry in registries:
            if not _is_registry(registry.data):
                raise registry.error("not an OpenAI Evals registry entry (no eval with a `class`)", "not_registry")
            for key, entry in registry.data.items():
                if "class" in entry:
                    specs.append((key, entry))
                else:
                    bases.setdefault(key, entry)
        if registries:
            job.extensions["registry"] = {registry.ref: registry.data for registry in registries}

        drafts = []
        for data in data_files:
            applying = _specs_for(data, specs)
            if specs and not applying:
                job.note(f"{data.path}: no registry entry names this file in `samples_jsonl`; no class tag")
            tags = [t for t in (class_tag(spec) for _, spec in applying) if t]
            eval_names = [key for key, _ in applying]
            for name in eval_names:
                base = next((b for b in bases.values() if b.get("id") == name), None) or bases.get(name.split(".")[0])
                if job.description is None and base and c.is_non_empty_string(base.get("description")):
                    job.description = base["description"]
            made = [self._draft(record, tags, eval_names, job) for record in data.records()]
            rendered = [d.record.locator for d in made if d.extensions.get("rendered_from") == "members"]
            if rendered:
                job.note(
                    f"mapped: {data.path}: {len(rendered)} sample(s) without `input` or `sample` text "
                    f"({', '.join(rendered[:3])}{', ...' if len(rendered) > 3 else ''}): "
                    "the input is their text members as `key: value` lines"
                )
            drafts.extend(made)
        return drafts

    def _draft(self, record: Any, tags: list[str], eval_names: list[str], job: Job | None = None) -> Draft:
        sample = require_object(record)
        if _is_few_shot(sample):
            raise record_error(record, "holds a few-shot `sample`: prompt material, not a case", "few_shot")
        extensions: dict[str, Any] = {}
        original: dict[str, Any] = {}
        raw_input = sample.get("input")
        if "input" not in sample:
            # Model-graded data: the grading prompt interpolates the record's members, so the
            # text graded (`sample`, else the string members) is the case input.
            if _is_graded(sample):
                text = sample["sample"]
            else:
                members = {k: v for k, v in sample.items() if k != "ideal" and isinstance(v, str)}
                if not any(c.is_non_empty_string(v) for v in members.values()):
                    raise record_error(record, "has no `input`, no `sample` text and no other text member")
                text = render_vars(members)
            extensions["rendered_from"] = "sample" if _is_graded(sample) else "members"
        elif isinstance(raw_input, str):
            text = raw_input
        elif is_message_list(raw_input):
            text = render_messages(raw_input)
            extensions["messages"] = raw_input
        else:
            raise record_error(record, "`input` is neither a string nor a list of chat messages", key="input")
        expected = ABSENT
        identity: dict[str, Any] = {"input": raw_input} if "input" in sample else dict(sample)
        if "ideal" in sample:
            identity.setdefault("ideal", sample["ideal"])
            expected = outcome_value(sample["ideal"], original, "ideal")
        if eval_names:
            extensions["eval"] = list(eval_names)
        for key, value in sample.items():
            if key not in ("input", "ideal"):
                extensions[key] = value
        if original:
            extensions["original"] = original
        case_tags = list(tags)
        if expected is not ABSENT and c.is_non_empty_expected(expected):
            case_tags.append("expected")
        return Draft(record, content_id("sample", identity), text, expected, case_tags, extensions=extensions)


def _specs_for(data: Source, specs: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The registry entries whose `args.samples_jsonl` names `data` (paths are relative to
    the registry data folder; some entries prefix `data/`), else the only entry given."""
    posix = data.path.as_posix()
    found = []
    for key, spec in specs:
        args = spec.get("args") if isinstance(spec.get("args"), dict) else {}
        named = args.get("samples_jsonl")
        if isinstance(named, str) and named.strip():
            relative = posixpath.normpath(named.strip()).removeprefix("data/")
            if posix == relative or posix.endswith("/" + relative):
                found.append((key, spec))
    if not found and len(specs) == 1:
        return list(specs)
    return found




# --- export ------------------------------------------------------------------------------


def record_of(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """The sample a case was imported from: `input` (the message list when it was one; none
    when the import rendered it from the sample's other members), `ideal` when the case
    has an outcome (its source value when it was not a string or list), every other member
    from `extensions.openai_evals` (the registry's `eval` names excepted)."""
    ext = extension(case, "openai_evals")
    record: dict[str, Any] = {}
    if "rendered_from" not in ext:
        record["input"] = ext.get("messages", case.get("input", ""))
    if "expected_outcome" in case:
        record["ideal"] = original_of(ext, "ideal", case["expected_outcome"])
    registry = "registry" in extension(context.file, "openai_evals")
    for key, value in ext.items():
        if key in ("messages", "original", "rendered_from") or (key == "eval" and registry):
            continue
        record[key] = value
    return record


def map_case(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A native case as a sample: `input`, `ideal` (a string or a list of strings; anything
    else as JSON text, a loss); the other canonical members under `fixture_migrate` (samples
    have no ids: the tool numbers them by position)."""
    record: dict[str, Any] = {"input": case.get("input", "")}
    expected = case.get("expected_outcome")
    if isinstance(expected, str) or (isinstance(expected, list) and all(isinstance(x, str) for x in expected)):
        record["ideal"] = expected
    elif expected is not None:
        record["ideal"] = outcome_text(expected)
        context.loss(
            case, "expected_outcome", TEXT, "ideal", "`ideal` is a string or a list of strings; written as JSON text"
        )
    meta = fixture_metadata(case)
    for name in ("boundary_note", "forbidden_signals"):
        if name in meta:
            context.loss(case, name, METADATA, f"{META_KEY}.{name}", "no OpenAI Evals class reads it")
    if meta:
        record[META_KEY] = meta
    return record


ADAPTER = OpenAIEvalsAdapter(record_of=record_of, map_case=map_case)
