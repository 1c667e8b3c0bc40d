"""The `spec-first.workflow-eval-fixtures.v1` contract: its constants and value rules.

This module owns the facts of the contract as the reference consumer
(`skills/spec-skill-audit/scripts/eval-fixture-normalizer.js` in
ajiao7240/spec-first, blob ae86f60) implements them, and the small JavaScript
value semantics those rules depend on (truthiness, `String.prototype.trim`,
`String(value)`), so that `normalize` and `validate` give byte-for-byte the
reference's answers. It imports nothing of the project.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

CANONICAL_SCHEMA_VERSION: Final = "spec-first.workflow-eval-fixtures.v1"
"""The schema_version of a canonical file (`CANONICAL_SCHEMA_VERSION` in the reference)."""

SOURCE_REF_AUTHORITIES: Final = ("source", "historical", "advisory")
DEFAULT_SOURCE_REF_AUTHORITY: Final = "source"

REQUIRED_BUCKETS: Final = ("trigger", "boundary")
OPTIONAL_BUCKETS: Final = ("failure", "expected")
BUCKETS: Final = REQUIRED_BUCKETS + OPTIONAL_BUCKETS

FILE_KEYS: Final = (
    "schema_version",
    "skill",
    "description",
    "source_refs",
    "source_ref_authority",
    "coverage_tags",
    "extensions",
    "cases",
)
"""Members a canonical file may hold at its top level (`extensions` is this tool's home
for file-level local fields)."""

CASE_KEYS: Final = (
    "id",
    "input",
    "coverage_tags",
    "expected_outcome",
    "boundary_note",
    "forbidden_signals",
    "source_refs",
    "source_ref_authority",
    "extensions",
)
"""Members a canonical case may hold; any other case member is a local field."""

NORMALIZED_KEYS: Final = (
    "schema_version",
    "skill",
    "id",
    "input",
    "expected_outcome",
    "coverage_tags",
    "source_refs",
    "source_ref_authority",
    "boundary_note",
    "forbidden_signals",
    "source_file",
    "source_schema_version",
    "normalized_from",
    "coverage_basis",
    "extensions",
)
"""Key order of a normalized case, as the reference emits it."""

INPUT_SOURCES: Final = ("input", "user_intent", "input_shape", "intent")
"""Case members the reference reads `input` from, first non-blank string wins."""

OUTCOME_SOURCES: Final = ("expected_outcome", "expected", "expected_posture", "expected_signal")
"""Case members the reference reads `expected_outcome` from, first present wins (null counts)."""

OUTCOME_OBJECT_TRIGGERS: Final = ("expected_decision", "expected_failure", "expected_output")
OUTCOME_OBJECT_KEYS: Final = OUTCOME_OBJECT_TRIGGERS + ("expected_next_action",)
"""When no `OUTCOME_SOURCES` member is present but one of the triggers is, the reference
builds `expected_outcome` as an object of the `OUTCOME_OBJECT_KEYS` that are present."""

FORBIDDEN_SOURCES: Final = ("forbidden_signals", "negative_signal")


EXTENSION_COPY_KEYS: Final = (
    "name",
    "context",
    "context_snippets",
    "source_note",
    "intent",
    "input_shape",
    "public_workflow_required",
    "expected_entrypoint",
    "graphify_required",
    "artifact_expected",
    "dispatch_decision",
    "fallback_reason",
)
"""Case members the reference copies into the normalized `extensions` (`normalizeExtensions`)."""

GENERATED_OR_HISTORICAL_PREFIXES: Final = (
    ".claude/",
    ".codex/",
    ".agents/skills/",
    "docs/plans/",
    "docs/validation/",
)
"""Paths a `source` authority ref may not point into (`GENERATED_OR_HISTORICAL_SOURCE_PATTERNS`)."""

COVERAGE_TAG_RE: Final = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A valid coverage tag; use with `fullmatch` (the reference's `^...$` has no multiline flag)."""

# Reason codes of the reference, in the order its checks run.
MISSING_SKILL: Final = "missing_skill"
MISSING_ID: Final = "missing_id"
MISSING_INPUT: Final = "missing_input"
MISSING_COVERAGE_TAGS: Final = "missing_coverage_tags"
INVALID_COVERAGE_TAG: Final = "invalid_coverage_tag"
MISSING_SOURCE_REFS: Final = "missing_source_refs"
INVALID_SOURCE_REF_AUTHORITY: Final = "invalid_source_ref_authority"
INVALID_SOURCE_REF: Final = "invalid_source_ref"
SOURCE_REF_NOT_SOURCE_AUTHORITY: Final = "source_ref_not_source_authority"
SOURCE_REF_MISSING: Final = "source_ref_missing"
MISSING_EXPECTED_OUTCOME: Final = "missing_expected_outcome"
MISSING_BOUNDARY_EVIDENCE: Final = "missing_boundary_evidence"
DUPLICATE_CASE_ID: Final = "duplicate_case_id"
# Reason codes of this tool's own checks; they add to the reference's, never replace them.
SOURCE_REF_OUTSIDE_REPO: Final = "source_ref_outside_repo"
DUPLICATE_KEY: Final = "duplicate_key"
CASE_NOT_OBJECT: Final = "case_not_object"

REFERENCE_REASON_CODES: Final = (
    MISSING_SKILL,
    MISSING_ID,
    MISSING_INPUT,
    MISSING_COVERAGE_TAGS,
    INVALID_COVERAGE_TAG,
    MISSING_SOURCE_REFS,
    INVALID_SOURCE_REF_AUTHORITY,
    INVALID_SOURCE_REF,
    SOURCE_REF_NOT_SOURCE_AUTHORITY,
    SOURCE_REF_MISSING,
    MISSING_EXPECTED_OUTCOME,
    MISSING_BOUNDARY_EVIDENCE,
    DUPLICATE_CASE_ID,
)
EXTRA_REASON_CODES: Final = (SOURCE_REF_OUTSIDE_REPO, DUPLICATE_KEY, CASE_NOT_OBJECT)

# ECMAScript WhiteSpace and LineTerminator code points: what `String.prototype.trim` strips.
# Python's str.strip() differs (it strips U+001C..U+001F and U+0085, keeps U+FEFF).
_JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SLUG_RUN_RE: Final = re.compile(r"[^a-z0-9]+")
_SKILL_PATH_RE: Final = re.compile(r"skills/([^/]+)/")


def js_trim(value: str) -> str:
    """Return `value` trimmed as JavaScript's `String.prototype.trim` trims it."""
    return value.strip(_JS_WHITESPACE)


_JS_WHITESPACE_SET: Final = frozenset(_JS_WHITESPACE)
JS_WHITESPACE: Final = _JS_WHITESPACE
"""What JavaScript's `trim` removes."""
JS_WHITESPACE_SET: Final = _JS_WHITESPACE_SET


def is_non_empty_string(value: Any) -> bool:
    """True for a string holding something besides whitespace (`isNonEmptyString`)."""
    if type(value) is not str or not value:
        return isinstance(value, str) and bool(js_trim(value))
    # Most strings start with a visible character: no need to copy them to trim.
    return value[0] not in _JS_WHITESPACE_SET or bool(value.strip(_JS_WHITESPACE))


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: `""`, 0, false and null are falsy; `[]`, `{}` are not."""
    if value is None or value is False:
        return False
    if isinstance(value, (dict, list)):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def js_string(value: Any) -> str:
    """`String(value)` for a JSON value, as the reference's messages and keys format it.

    Numbers follow JavaScript's `Number.prototype.toString` for the ranges JSON
    fixtures use; arrays join their items with `,` (null items give ``), objects
    give `[object Object]`.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def _js_number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa.removesuffix('.0')}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return text


def string_array(value: Any) -> list[str]:
    """The non-blank strings of an array, or of a lone string (`stringArray`)."""
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if is_non_empty_string(item)]
    return [value] if is_non_empty_string(value) else []


def unique(values: list[Any]) -> list[Any]:
    """`values` without repeats, first occurrence order (`[...new Set(values)]`)."""
    return list(dict.fromkeys(values))


def slugify(value: str) -> str:
    """Lower case, runs of non `[a-z0-9]` as `-`, trimmed of `-` (`slugify`)."""
    return _SLUG_RUN_RE.sub("-", js_trim(value).lower()).strip("-")


def infer_skill(relative_file: str | None) -> str | None:
    """`<name>` of a repo-relative POSIX path `skills/<name>/...`, else None (`inferSkillId`)."""
    if not relative_file:
        return None
    match = _SKILL_PATH_RE.match(relative_file)
    return match.group(1) if match else None


def is_non_empty_expected(value: Any) -> bool:
    """True when an expected outcome holds a non-blank string somewhere (`isNonEmptyExpected`)."""
    if is_non_empty_string(value):
        return True
    if isinstance(value, list):
        return any(is_non_empty_expected(item) for item in value)
    if isinstance(value, dict):
        return any(is_non_empty_expected(item) for item in value.values())
    return False
