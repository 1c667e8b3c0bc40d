"""The normalized view: one flat record per case, exactly as the reference builds it.

`normalize_payload` reproduces `normalizeFixturePayload` of the reference
normalizer rule by rule (see `fixture_migrate.contract.rules` for where the rules live). It
works on parsed data, whatever syntax the file was written in.
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.contract import rules as c

_COPY_KEYS = frozenset(c.EXTENSION_COPY_KEYS)
_ABSENT = object()

NormalizedCase = dict[str, Any]
"""A normalized case: the keys of `contract.NORMALIZED_KEYS`, in that order."""


def case_list(payload: Any) -> list[Any]:
    """The case list of a payload: `cases` if an array, else `examples` if an array, else `[]`."""
    if not isinstance(payload, dict):
        return []
    for key in ("cases", "examples"):
        value = payload.get(key)
        if isinstance(value, list):
            return value
    return []


def resolve_skill(payload: dict[str, Any], skill: str | None, source_file: str | None) -> Any:
    """The file's skill: its own `skill` if truthy, else `skill` given by the caller, else the
    `<name>` of a `skills/<name>/...` path, else None (reference: `normalizeFixturePayload`)."""
    own = payload.get("skill")
    if c.js_truthy(own):
        return own
    if skill:
        return skill
    return c.infer_skill(source_file)


def normalize_case_id(entry: dict[str, Any], index: int) -> str:
    """`id` if a non-blank string, else the slug of `name`, else `case-<index + 1>` (`normalizeCaseId`)."""
    if c.is_non_empty_string(entry.get("id")):
        return entry["id"]
    if c.is_non_empty_string(entry.get("name")):
        return c.slugify(entry["name"])
    return f"case-{index + 1}"


def normalize_extensions(entry: dict[str, Any]) -> dict[str, Any]:
    """The case's `extensions` plus the `contract.EXTENSION_COPY_KEYS` present (`normalizeExtensions`).

    A non-object `extensions` spreads as JavaScript spreads it: a string or array gives
    its indices as keys; any other value gives nothing.
    """
    own = entry.get("extensions")
    if isinstance(own, dict):
        extensions = dict(own)
    elif isinstance(own, list):
        extensions = {str(i): item for i, item in enumerate(own)}
    elif isinstance(own, str):
        units = own.encode("utf-16-le")
        extensions = {
            str(i): units[2 * i : 2 * i + 2].decode("utf-16-le", "surrogatepass") for i in range(len(units) // 2)
        }
    else:
        extensions = {}
    if not _COPY_KEYS.isdisjoint(entry):
        for key in c.EXTENSION_COPY_KEYS:
            if key in entry:
                extensions[key] = entry[key]
    return extensions


def case_outcome(entry: dict[str, Any]) -> Any:
    """A case's expected outcome (reference: `normalizeFixturePayload`): the value of the first
    of `contract.OUTCOME_SOURCES` it has, else an object of its `contract.OUTCOME_OBJECT_KEYS`
    when it has one of `contract.OUTCOME_OBJECT_TRIGGERS`, else None."""
    for key in c.OUTCOME_SOURCES:
        if key in entry:
            return entry[key]
    for key in c.OUTCOME_OBJECT_TRIGGERS:
        if key in entry:
            return {key: entry[key] for key in c.OUTCOME_OBJECT_KEYS if key in entry}
    return None


def normalize_payload(
    payload: Any,
    *,
    source_file: str | None,
    skill: str | None = None,
    schema_version: Any = ...,
    normalized_from: str | None = None,
) -> list[NormalizedCase]:
    """Normalize a parsed fixture file into flat cases (reference: `normalizeFixturePayload`).

    `payload` is the parsed top-level value; `source_file` its repo-relative POSIX path
    (or None); `skill` the caller's skill for files without one. Cases that are not
    objects are skipped (the reference would throw or misread them; the caller reports
    them), but still count for `case-<n>` ids. `schema_version` and `normalized_from`
    override `source_schema_version` and `normalized_from` for views of a migrated
    payload that should still name the source. Returns a list of dicts with the keys
    of `contract.NORMALIZED_KEYS` in that order.
    """
    if not isinstance(payload, dict):
        return []
    version = payload.get("schema_version")
    resolved_skill = resolve_skill(payload, skill, source_file)
    file_refs = c.string_array(payload.get("source_refs"))
    file_tags = c.string_array(payload.get("coverage_tags"))
    file_authority = payload.get("source_ref_authority")
    if not c.js_truthy(file_authority):
        file_authority = c.DEFAULT_SOURCE_REF_AUTHORITY
    source_version = (version if c.js_truthy(version) else None) if schema_version is ... else schema_version
    origin = normalized_from or ("canonical" if version == c.CANONICAL_SCHEMA_VERSION else "legacy_adapter")

    cases: list[NormalizedCase] = []
    # The reference's rules for each field (`normalizeCaseId`, the precedence of input,
    # expected outcome and forbidden signals, `normalizeExtensions`), written inline for
    # the common types (this loop runs once per case of every file `normalize`,
    # `validate` and `migrate` read): `text` is `is_non_empty_string`, `strings` is
    # `string_array`. (Calling `strings` where a value is there costs about 1% of this loop
    # over writing its list inline, measured on 166,245 cases; a helper for the filter of
    # repeats below cost 6%, so that filter is written out where it is used.)
    whitespace, blank_start = c.JS_WHITESPACE, c.JS_WHITESPACE_SET
    is_text = c.is_non_empty_string

    def text(value: Any) -> bool:
        if value.__class__ is str:
            return value != "" and (value[0] not in blank_start or value.strip(whitespace) != "")
        return is_text(value)

    def strings(value: Any) -> list[str]:
        if value is None:
            return []
        if value.__class__ is list:
            return [
                item
                for item in value
                if (
                    item != "" and (item[0] not in blank_start or item.strip(whitespace) != "")
                    if item.__class__ is str
                    else is_text(item)
                )
            ]
        return [value] if text(value) else []

    copy_set = _COPY_KEYS
    input_sources = c.INPUT_SOURCES
    canonical = c.CANONICAL_SCHEMA_VERSION
    truthy = c.js_truthy
    for index, entry in enumerate(case_list(payload)):
        if entry.__class__ is not dict and not isinstance(entry, dict):
            continue
        get = entry.get
        authority = get("source_ref_authority")
        if authority is None or not (authority if authority.__class__ is str else truthy(authority)):
            authority = file_authority
        value = get("coverage_tags")
        own_tags = [] if value is None else strings(value)
        tags = file_tags + own_tags if file_tags else own_tags
        if len(tags) > 1 and (tags[0] == tags[1] if len(tags) == 2 else len(set(tags)) < len(tags)):
            tags = list(dict.fromkeys(tags))  # the first of each, in order (the lists are new ones)
        value = get("source_refs")
        own_refs = [] if value is None else strings(value)
        refs = file_refs + own_refs if file_refs else own_refs
        if len(refs) > 1 and (refs[0] == refs[1] if len(refs) == 2 else len(set(refs)) < len(refs)):
            refs = list(dict.fromkeys(refs))
        case_id = get("id")
        if not (
            case_id != "" and (case_id[0] not in blank_start or case_id.strip(whitespace) != "")
            if case_id.__class__ is str
            else is_text(case_id)
        ):
            name = get("name")
            case_id = c.slugify(name) if text(name) else f"case-{index + 1}"
        case_input = get("input")  # the first of `input_sources`, nearly always there
        if not (
            case_input.__class__ is str
            and case_input != ""
            and (case_input[0] not in blank_start or case_input.strip(whitespace) != "")
        ):
            for key in input_sources:
                value = get(key)
                if value is not None and text(value):
                    case_input = value
                    break
            else:
                case_input = ""
        outcome = get("expected_outcome", _ABSENT)  # the first of `OUTCOME_SOURCES`, nearly always there
        if outcome is _ABSENT:
            outcome = case_outcome(entry)
        note = get("boundary_note")
        if note is not None and not (
            note != "" and (note[0] not in blank_start or note.strip(whitespace) != "")
            if note.__class__ is str
            else is_text(note)
        ):
            note = ""
        value = get("forbidden_signals")
        forbidden = [] if value is None else strings(value)
        negative = get("negative_signal")
        if negative is not None:
            forbidden += strings(negative)
        if len(forbidden) > 1 and (
            forbidden[0] == forbidden[1] if len(forbidden) == 2 else len(set(forbidden)) < len(forbidden)
        ):
            forbidden = list(dict.fromkeys(forbidden))
        own = get("extensions")
        if own is None or own.__class__ is dict:
            extensions = {} if own is None else dict(own)
            if not copy_set.isdisjoint(entry):
                for key in c.EXTENSION_COPY_KEYS:
                    if key in entry:
                        extensions[key] = entry[key]
        else:
            extensions = normalize_extensions(entry)
        cases.append(
            {
                "schema_version": canonical,
                "skill": resolved_skill,
                "id": case_id,
                "input": case_input,
                "expected_outcome": outcome,
                "coverage_tags": tags,
                "source_refs": refs,
                "source_ref_authority": authority,
                "boundary_note": "" if note is None else note,
                "forbidden_signals": forbidden,
                "source_file": source_file,
                "source_schema_version": source_version,
                "normalized_from": origin,
                "coverage_basis": "declared_coverage_tags" if tags else "missing_coverage_tags",
                "extensions": extensions,
            }
        )
    return cases
