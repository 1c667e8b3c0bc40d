"""OpenAI Evals registry samples (`evals/registry/data/<eval>/*.jsonl` in openai/evals),
imported with `fixture-migrate import --from openai-evals`.

Each JSONL line is a sample `{"input": ..., "ideal": ...}`; the registry YAML of the
eval (`evals/registry/evals/<eval>.yaml`), when given alongside, names its class.

- `input`: a string stays; a chat message list is rendered by the shared rule
  (one message: its text; else the last `user` message; with no user message,
  as in the common system-only task, all texts joined by a blank line). The
  list stays under `extensions.openai_evals.messages`.
- `expected_outcome`: `ideal` as it is (a string, or a list of acceptable answers,
  "any of"); a sample without `ideal` (model-graded data) has no outcome.
- `id`: `sample-<hash of {input, ideal}>`; samples have no ids of their own (the
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
a few-shot file (`{"sample": [...]}` records are prompt material, not cases), a
line that is not a JSON object (named by its line number).
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.importing.base import (
    ABSENT,
    Draft,
    ExternalAdapter,
    Job,
    Sniff,
    Source,
    content_id,
    is_message_list,
    outcome_value,
    record_error,
    render_messages,
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


def _is_registry(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and bool(data)
        and all(isinstance(entry, dict) and ("class" in entry or "id" in entry) for entry in data.values())
        and any("class" in entry for entry in data.values())
    )


class OpenAIEvalsAdapter(ExternalAdapter):
    name = "openai_evals"
    format = "openai-evals"
    tag = "openai-evals"
    namespace = "openai_evals"
    summary = "OpenAI Evals samples (JSONL input/ideal) with their registry YAML: import only"
    id_rule = "sample-<sha256 of {input, ideal}>"

    def name_hint(self, path: Path) -> bool:
        posix = path.as_posix()
        return "registry/data/" in posix or "registry/evals/" in posix

    def sniff(self, source: Source) -> Sniff | None:
        if source.syntax == "yaml":
            return Sniff("aux", "an OpenAI Evals registry entry") if _is_registry(source.data) else None
        if source.syntax != "jsonl":
            return None
        records = source.data
        if all(isinstance(r, dict) and "sample" in r and "input" not in r for r in records):
            return Sniff(
                refusal="a few-shot file (each line holds a `sample` message list): prompt material, not cases"
            )
        if not (isinstance(records[0], dict) and "input" in records[0] and "ideal" in records[0]):
            return None
        for number, record in zip(source.record_lines, records, strict=True):
            if not (isinstance(record, dict) and "input" in record and "ideal" in record):
                return Sniff(miss=f"line {number} has no `input` and `ideal`")
        return Sniff("cases", "JSONL samples with input and ideal")

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
            drafts.extend(self._draft(record, tags, eval_names) for record in data.records())
        return drafts

    def _draft(self, record: Any, tags: list[str], eval_names: list[str]) -> Draft:
        sample = require_object(record)
        if "sample" in sample and "input" not in sample:
            raise record_error(record, "holds a few-shot `sample`: prompt material, not a case", "few_shot")
        if "input" not in sample:
            raise record_error(record, "has no `input`")
        raw_input = sample["input"]
        extensions: dict[str, Any] = {}
        original: dict[str, Any] = {}
        if isinstance(raw_input, str):
            text = raw_input
        elif is_message_list(raw_input):
            text = render_messages(raw_input)
            extensions["messages"] = raw_input
        else:
            raise record_error(record, "`input` is neither a string nor a list of chat messages", key="input")
        expected = ABSENT
        identity: dict[str, Any] = {"input": raw_input}
        if "ideal" in sample:
            identity["ideal"] = sample["ideal"]
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


ADAPTER = OpenAIEvalsAdapter()
