"""skill-creator skill evals (anthropics/skills `skills/skill-creator`, `references/schemas.md`),
imported with `fixture-migrate import --from skill-creator`.

Two file kinds:

**Output evals** (`<skill>/evals/evals.json`): `{skill_name, evals: [{id, name?, prompt,
expected_output, files, expectations | assertions}], notes?}`, or the `evals` list alone
(a bare JSON array of such items; its ref is listed under `extensions.skill_creator.bare`).

- `skill`: `--skill`, else `skill_name` (the first file that has one).
- `id`: the slug of `name`, else `eval-<id>` (a number as its decimal text: ids
  start at 0 in the wild), else `eval-<hash of prompt>`; the `eval-` prefix keeps
  ids of two files of one skill apart.
- `input`: `prompt` (a non-blank string; an `evals` list whose items have no
  prompt, such as a script-check list, is refused: there is no case input).
- `expected_outcome`: with a checks list (`expectations` or `assertions`, under
  its own name) an object `{expected_output, <checks key>: [texts]}`, object items
  reduced to their `text` (the items kept under `extensions.skill_creator.original`,
  where an item's own member named `original` is kept too);
  else `expected_output` alone, a string; else none.
- `coverage_tags`: `skill-creator` (file); `expected` when the outcome is non-empty.
- `extensions.skill_creator`: `id`, `name`, `files` and every other member, verbatim.

**Trigger sets** (`trigger-evals.json`, `eval_set.json`): an array of `{query,
should_trigger}`, or an object holding it under `queries`.

- `id`: the item's `id` (`trigger-<n>` when it is a number), else `trigger-<hash of query>`.
- `input`: `query`; `expected_outcome`: "The skill triggers." or "The skill does not
  trigger." (the boolean stays in `extensions.skill_creator.should_trigger`: a boolean
  is never an outcome).
- `coverage_tags`: `trigger` and `should-trigger`, or `trigger`, `should-not-trigger`
  and `boundary` (negatives are near misses; the outcome satisfies the boundary rule).
- A query listed twice with both labels is reported.

File-level members other than the case list (`skill_name`, `notes`, run
instructions) stay under `extensions.skill_creator.files[<source ref>]`, verbatim (`{}`
for an envelope holding `evals` alone, so its export gains no `skill_name`). An item of
an evals list is an output eval even when it has a `should_trigger` member.

**Export** (`--to skill-creator`, JSON): imported evals and trigger items come back as
they were read, in their envelope (`skill_name`, `notes`, ... from the file level) or as a
bare list; a native case becomes an output eval `{id, name, prompt, expected_output,
expectations}` (`id` its 1-based position, `name` the case id; an outcome list becomes
`expectations`, each forbidden signal one more "The output does not contain ..."
expectation); `skill_name` is the canonical file's skill. What has no field is kept
under the eval's `fixture_migrate` member.

Refused: a keyword trigger list (`{should_trigger: [...], should_not_trigger: [...]}`
of short strings, no queries: not realistic user messages; compare the
`yao.semantic-trigger-cases` files `migrate` reads), and an `evals` list without prompts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.importing.base import (
    ABSENT,
    DROPPED,
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
    original_of,
    outcome_text,
    own_id,
    record_error,
    require_object,
)

TRIGGERS = "The skill triggers."
DOES_NOT_TRIGGER = "The skill does not trigger."
CHECK_KEYS = ("expectations", "assertions")


def _is_query(item: Any) -> bool:
    return (
        isinstance(item, dict) and isinstance(item.get("query"), str) and isinstance(item.get("should_trigger"), bool)
    )


def _query_list(data: Any) -> tuple[Any, tuple[str, ...]] | None:
    """The list of trigger queries and its path, when `data` is a trigger set."""
    if isinstance(data, list) and data and all(_is_query(item) for item in data):
        return data, ()
    if isinstance(data, dict) and isinstance(data.get("queries"), list) and data["queries"]:
        if all(_is_query(item) for item in data["queries"]):
            return data["queries"], ("queries",)
    return None


EVAL_FIELDS = frozenset({"id", "name", "prompt", "expected_output", "files", "expectations", "assertions", "notes"})
"""The members of a skill-creator output eval (`references/schemas.md`, and the observed `name`, `notes`)."""

OWN_FIELDS = ("expected_output", "expectations", "assertions", "files")
"""Members only skill-creator's evals carry beside `prompt`: its signature in a bare list."""


def _is_eval_list(data: Any) -> bool:
    """A bare list of output evals (`[{id, prompt, expected_output, ...}]`, no envelope): by
    skill-creator's own signature, every item a `prompt` with one of its own fields
    (`OWN_FIELDS`) and no member skill-creator does not write. A bare list of records
    with a `prompt` and other fields is some local family's, not skill-creator's."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(
            isinstance(x, dict)
            and c.is_non_empty_string(x.get("prompt"))
            and EVAL_FIELDS.issuperset(x)
            and any(k in x for k in OWN_FIELDS)
            for x in data
        )
    )


def _is_keyword_list(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and any(isinstance(data.get(k), list) for k in ("should_trigger", "should_not_trigger"))
        and not isinstance(data.get("queries"), list)
        and not isinstance(data.get("evals"), list)
    )


class SkillCreatorAdapter(ImportAdapter):
    name = "skill_creator"
    format = "skill-creator"
    tag = "skill-creator"
    namespace = "skill_creator"
    summary = "skill-creator evals.json and trigger sets (query/should_trigger): import and export"
    id_rule = "evals: slug of name, else eval-<id>, else eval-<sha256 of prompt>; triggers: id, else trigger-<sha256 of query>"

    export_syntaxes = ("json",)

    def name_hint(self, path: Path) -> bool:
        name = path.name.lower()
        return name == "evals.json" or "trigger" in name or name.startswith("eval_set")

    def sniff(self, source: Source) -> Sniff | None:
        if source.syntax not in ("json", "yaml"):
            return None
        data = source.data
        if isinstance(data, dict) and isinstance(data.get("evals"), list):
            evals = data["evals"]
            if not evals:
                return Sniff(miss="the `evals` list is empty")
            if all(isinstance(item, dict) and c.is_non_empty_string(item.get("prompt")) for item in evals):
                # skill-creator's signature: its `skill_name`, or evals of its own members only.
                # `{skill, evals: [{prompt, expected, criteria, tags}]}` is a local family's.
                if "skill_name" in data or all(EVAL_FIELDS.union(("should_trigger",)).issuperset(i) for i in evals):
                    return Sniff("cases", "skill-creator output evals")
                return Sniff(miss="`evals` items carry members skill-creator does not write, and no `skill_name`")
            return Sniff(refusal="an `evals` list whose items have no `prompt` (a script-check list?): no case input")
        if _query_list(data) is not None:
            return Sniff("cases", "skill-creator trigger set")
        if _is_eval_list(data):
            return Sniff("cases", "skill-creator output evals (a bare list)")
        if isinstance(data, dict) and data.get("queries") == []:
            return Sniff(refusal="a trigger set with no queries: nothing to import")
        if _is_keyword_list(data):
            return Sniff(
                refusal="a keyword trigger list (should_trigger/should_not_trigger strings, no `query` items): "
                "keywords are not realistic queries"
            )
        return None

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        drafts: list[Draft] = []
        for source in sources:
            data = source.data
            if isinstance(data, dict) and isinstance(data.get("evals"), list):
                drafts.extend(self._eval(record) for record in source.records(("evals",)))
                self._leftovers(source, job, "evals")
                continue
            # Items that all name a `prompt` are evals even when one is blank (or --field renamed
            # it): `_eval` then says which record has no prompt.
            if _is_eval_list(data) or (
                isinstance(data, list)
                and data
                and all(isinstance(x, dict) and "prompt" in x and "should_trigger" not in x for x in data)
            ):
                drafts.extend(self._eval(record) for record in source.records())
                job.extensions.setdefault("bare", []).append(source.ref)
                continue
            found = _query_list(data)
            if found is None:
                if _is_keyword_list(data):
                    raise source.error("refused: a keyword trigger list, no `query` items", "refused")
                raise source.error(
                    "not skill-creator evals: expected an object with `evals`, or a list of {query, should_trigger}",
                    "not_skill_creator",
                )
            _, at = found
            records = source.records(at)
            drafts.extend(self._trigger(record) for record in records)
            _report_conflicts(records, job)
            if at:
                self._leftovers(source, job, "queries")
        skills = [
            s.data["skill_name"]
            for s in sources
            if isinstance(s.data, dict) and c.is_non_empty_string(s.data.get("skill_name"))
        ]
        if skills:
            job.skill = skills[0]
        return drafts

    def _leftovers(self, source: Source, job: Job, list_key: str) -> None:
        """The envelope's members but the case list, kept under `files[<ref>]`; an envelope
        of the evals list alone is kept as `{}` (its export gains no `skill_name`)."""
        rest = {key: value for key, value in source.data.items() if key != list_key}
        if rest or list_key == "evals":
            job.extensions.setdefault("files", {})[source.ref] = rest

    def _eval(self, record: SourceRecord) -> Draft:
        item = require_object(record)
        prompt = item.get("prompt")
        if not c.is_non_empty_string(prompt):
            raise record_error(
                record, "has no `prompt`: there is no case input", key="prompt" if "prompt" in item else None
            )
        extensions: dict[str, Any] = {}
        original: dict[str, Any] = {}
        label = c.slugify(item["name"]) if isinstance(item.get("name"), str) else ""
        number = own_id(item.get("id"))
        case_id = label or (f"eval-{number}" if number is not None else content_id("eval", prompt))

        checks_key = next((key for key in CHECK_KEYS if key in item), None)
        expected: Any = ABSENT
        if checks_key is not None:
            expected = {}
            if "expected_output" in item:
                expected["expected_output"] = item["expected_output"]
            checks = item[checks_key]
            if isinstance(checks, list) and any(isinstance(x, dict) and isinstance(x.get("text"), str) for x in checks):
                original[checks_key] = checks
                checks = [x["text"] if isinstance(x, dict) and isinstance(x.get("text"), str) else x for x in checks]
            expected[checks_key] = checks
        elif "expected_output" in item:
            expected = item["expected_output"]
            if not isinstance(expected, (str, list, dict)) and expected is not None:
                original["expected_output"] = expected
                expected = c.js_string(expected)
        used = {"prompt", "expected_output", checks_key, "original"}
        for key, value in item.items():
            if key not in used:
                extensions[key] = value
        if "original" in item:  # the item's own `original`: kept where it cannot be taken for ours
            original["original"] = item["original"]
        if original:
            extensions["original"] = original
        tags = ["expected"] if expected is not ABSENT and c.is_non_empty_expected(expected) else []
        return Draft(record, case_id, prompt, expected, tags, extensions=extensions)

    def _trigger(self, record: SourceRecord) -> Draft:
        item = require_object(record)
        if not _is_query(item):
            raise record_error(record, "needs a string `query` and a boolean `should_trigger`")
        number = own_id(item.get("id"))
        if number is not None:
            case_id = number if isinstance(item["id"], str) else f"trigger-{number}"
        else:
            case_id = content_id("trigger", item["query"])
        positive = item["should_trigger"]
        tags = ["trigger", "should-trigger"] if positive else ["trigger", "should-not-trigger", "boundary"]
        extensions = {key: value for key, value in item.items() if key != "query"}
        return Draft(
            record, case_id, item["query"], TRIGGERS if positive else DOES_NOT_TRIGGER, tags, extensions=extensions
        )


def _report_conflicts(records: list[SourceRecord], job: Job) -> None:
    labels: dict[str, set[bool]] = {}
    for record in records:
        labels.setdefault(record.data["query"], set()).add(record.data["should_trigger"])
    for query, seen in labels.items():
        if len(seen) > 1:
            shown = query if len(query) <= 60 else query[:57] + "..."
            job.note(f"warning: the query {shown!r} is listed both as should_trigger true and false")




# --- export ------------------------------------------------------------------------------

NEGATED = "The output does not contain {!r}."


def _is_trigger_case(case: dict[str, Any], file: dict[str, Any] | None = None) -> bool:
    """A case imported from a trigger query: its item had `should_trigger` and did not stand
    in an evals list (an output eval may carry a `should_trigger` member of its own)."""
    if "should_trigger" not in extension(case, "skill_creator"):
        return False
    info = extension(case, "import")
    if str(info.get("locator", "")).startswith("/evals/"):
        return False
    bare = extension(file or {}, "skill_creator").get("bare") or []
    return info.get("source_file") not in bare


def record_of(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """The eval item or trigger query a case was imported from."""
    ext = extension(case, "skill_creator")
    if _is_trigger_case(case, context.file):
        trigger: dict[str, Any] = {"id": ext["id"]} if "id" in ext else {}
        trigger["query"] = case.get("input", "")
        trigger.update((key, value) for key, value in ext.items() if key != "id")
        return trigger
    record: dict[str, Any] = {key: ext[key] for key in ("id", "name") if key in ext}
    record["prompt"] = case.get("input", "")
    expected = case.get("expected_outcome", ABSENT)
    checks_key = next((k for k in CHECK_KEYS if isinstance(expected, dict) and k in expected), None)
    if checks_key is not None:
        if "expected_output" in expected:
            record["expected_output"] = expected["expected_output"]
        record.update((key, value) for key, value in ext.items() if key not in ("original", "id", "name"))
        record[checks_key] = original_of(ext, checks_key, expected[checks_key])
    else:
        if expected is not ABSENT:
            record["expected_output"] = original_of(ext, "expected_output", expected)
        record.update((key, value) for key, value in ext.items() if key not in ("original", "id", "name"))
    kept = ext.get("original")
    if isinstance(kept, dict) and "original" in kept:
        record["original"] = kept["original"]  # the item's own member of that name
    return record


def map_case(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A native case as an output eval (see the module docstring)."""
    record: dict[str, Any] = {"name": case.get("id"), "prompt": case.get("input", "")}
    expected = case.get("expected_outcome")
    checks: list[str] = []
    if isinstance(expected, list) and all(isinstance(x, str) for x in expected):
        checks = list(expected)
    elif expected is not None:
        record["expected_output"] = outcome_text(expected)
        if not isinstance(expected, str):
            context.loss(
                case, "expected_outcome", TEXT, "expected_output", "`expected_output` is prose; written as JSON text"
            )
    checks += [NEGATED.format(signal) for signal in case.get("forbidden_signals") or []]
    if checks or expected == []:
        record["expectations"] = checks  # an empty outcome list stays an empty list
    meta = fixture_metadata(case, skip=("id", "forbidden_signals"))
    if "boundary_note" in meta:
        context.loss(case, "boundary_note", METADATA, f"{META_KEY}.boundary_note", "skill-creator has no note field")
    if meta:
        record[META_KEY] = meta
    return record


def export_document(records: list[dict[str, Any]], context: ExportContext) -> Any:
    """The evals file, or a trigger set when DEST's name says `trigger` or every case is a
    trigger query. The cases of the other kind are left out, each listed as a loss (a
    canonical file that holds both is exported twice, to `evals.json` and to
    `trigger-evals.json`). The file keeps the envelope its cases were read in: the
    members the import kept (`skill_name`, `notes`, ...), or a bare list; native evals
    get `skill_name` from the canonical file and 1-based ids."""
    ext = extension(context.file, "skill_creator")
    cases = context.cases or [{}] * len(records)
    restored = [extension(case, "import").get("format") == "skill-creator" for case in cases]
    triggers = [r and _is_trigger_case(case, context.file) for r, case in zip(restored, cases, strict=True)]
    as_triggers = "trigger" in context.dest_name.lower() or all(triggers)
    kept: list[dict[str, Any]] = []
    source_file = None
    for record, case, is_restored, is_trigger in zip(records, cases, restored, triggers, strict=True):
        tags = case.get("coverage_tags") or []
        if as_triggers and not is_restored and "trigger" in tags:
            record = {"query": case.get("input", ""), "should_trigger": "should-not-trigger" not in tags}
            meta = fixture_metadata(case)
            if meta:
                record[META_KEY] = meta
        elif is_trigger != as_triggers:
            other = "a trigger set" if as_triggers else "an evals file"
            context.loss(case, "case", DROPPED, None, f"it has no place in {other}: export it to another DEST")
            continue
        if is_restored and source_file is None:
            source_file = extension(case, "import").get("source_file")
        kept.append(record)
    files = ext.get("files") if isinstance(ext.get("files"), dict) else {}
    enveloped = isinstance(files.get(source_file), dict)  # the envelope the cases were read in
    held = files[source_file] if enveloped else {}
    bare = source_file in (ext.get("bare") or [])
    if as_triggers:
        return {**held, "queries": kept} if held else kept
    kept = [{"id": n, **r} if META_KEY in r and "id" not in r else r for n, r in enumerate(kept, 1)]
    if bare:
        return kept
    document: dict[str, Any] = {}
    if "skill_name" in held or not enveloped:
        document["skill_name"] = held.get("skill_name", context.file.get("skill"))
    document["evals"] = kept
    document.update((k, v) for k, v in held.items() if k != "skill_name")
    return document


ADAPTER = SkillCreatorAdapter(record_of=record_of, map_case=map_case, export_document=export_document)
