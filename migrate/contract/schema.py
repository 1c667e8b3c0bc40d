"""The JSON Schema (draft 2020-12) of a canonical `spec-first.workflow-eval-fixtures.v1` file.

The schema describes the shape the contract's reference reads, as
fixture-migrate writes it, not the validation rules on top (those are
`fixture-migrate validate`'s reason codes): a file may lack coverage tags or
source refs and still be a well-formed v1 file. What it encodes:

- the members a file and a case may hold (`contract.FILE_KEYS`, `contract.CASE_KEYS`),
  and nothing else: every local field belongs under `extensions`;
- `schema_version` is the v1 constant; `cases` and, in every case, `id` are
  present (a migration writes the ids the reference would derive);
- `coverage_tags`, `source_refs` and `forbidden_signals` are arrays of strings, or
  a lone string, which the reference reads as a one-element array;
  a coverage tag matches `contract.COVERAGE_TAG_RE`;
- `expected_outcome` is a string, an array or an object (the reference accepts
  each), or null, which a migration keeps where a legacy file had it and the
  reference reads as "no outcome";
- `source_ref_authority` is one of `contract.SOURCE_REF_AUTHORITIES`.
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.contract import rules as c

SCHEMA_ID = "urn:fixture-migrate:schema:spec-first.workflow-eval-fixtures.v1"


def _strings(description: str, item: dict[str, Any] | None = None) -> dict[str, Any]:
    item = item or {"type": "string"}
    return {
        "description": description + " A lone string is read as a one-element array.",
        "oneOf": [item, {"type": "array", "items": item}],
    }


def canonical_schema() -> dict[str, Any]:
    """The JSON Schema of a canonical v1 fixture file, as a dict ready for `json.dumps`."""
    tag = {"type": "string", "pattern": f"^{c.COVERAGE_TAG_RE.pattern}$"}
    authority = {
        "description": f"How source_refs are to be read; default {c.DEFAULT_SOURCE_REF_AUTHORITY!r}.",
        "enum": list(c.SOURCE_REF_AUTHORITIES),
    }
    extensions = {
        "description": "Local fields with no canonical home, kept as they were.",
        "type": "object",
    }
    case = {
        "type": "object",
        "description": "One eval case.",
        "required": ["id"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "minLength": 1, "description": "Unique within the skill."},
            "input": {"type": "string", "description": "What the user says or asks."},
            "coverage_tags": {"$ref": "#/$defs/coverage_tags"},
            "expected_outcome": {
                "description": "What should happen: a string, an array or an object; null means none.",
                "type": ["string", "array", "object", "null"],
            },
            "boundary_note": {"type": "string", "description": "Why this case sits on a boundary."},
            "forbidden_signals": _strings("What must not happen."),
            "source_refs": {"$ref": "#/$defs/source_refs"},
            "source_ref_authority": {"$ref": "#/$defs/source_ref_authority"},
            "extensions": extensions,
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": c.CANONICAL_SCHEMA_VERSION,
        "description": (
            "A canonical eval-fixture file. File-level source_refs, source_ref_authority and "
            "coverage_tags are inherited by every case; case values extend them."
        ),
        "type": "object",
        "required": ["schema_version", "cases"],
        "additionalProperties": False,
        "properties": {
            "schema_version": {"const": c.CANONICAL_SCHEMA_VERSION},
            "skill": {"type": "string", "minLength": 1, "description": "The skill the cases evaluate."},
            "description": {"type": "string"},
            "source_refs": {"$ref": "#/$defs/source_refs"},
            "source_ref_authority": {"$ref": "#/$defs/source_ref_authority"},
            "coverage_tags": {"$ref": "#/$defs/coverage_tags"},
            "extensions": extensions,
            "cases": {"type": "array", "items": {"$ref": "#/$defs/case"}},
        },
        "$defs": {
            "case": case,
            "coverage_tags": _strings(
                "Coverage buckets and topics (required buckets: "
                + ", ".join(c.REQUIRED_BUCKETS)
                + "; optional: "
                + ", ".join(c.OPTIONAL_BUCKETS)
                + ").",
                tag,
            ),
            "source_refs": _strings("Repo-relative POSIX paths, optionally with #anchor."),
            "source_ref_authority": authority,
        },
    }
