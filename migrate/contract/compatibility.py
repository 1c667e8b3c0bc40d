"""The compatibility relation between the reference's view of a legacy file and the
normalized view of its migration (DESIGN.md, "Compatibility").

For every case, the migrated view must equal the reference's field by field,
except that `extensions` may hold more keys, `forbidden_signals` and
`coverage_tags` may hold more values, a value the reference left empty (`""`,
null, `[]`) may be filled, `normalized_from` becomes `canonical` and
`source_schema_version` becomes v1. A file of which the reference makes no
case may yield cases.
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import NormalizedCase

_EMPTY: tuple[Any, ...] = ("", None, [])
_MAY_GROW = ("coverage_tags", "forbidden_signals")
_FREE = ("source_schema_version", "normalized_from", "coverage_basis", "extensions", "source_file")
_COMPARED = tuple((key, key in _MAY_GROW) for key in c.NORMALIZED_KEYS if key not in _FREE)
"""The members compared one by one, in order, each with whether it may grow."""


def _is_empty(value: Any) -> bool:
    return any(value == empty and type(value) is type(empty) for empty in _EMPTY)


def compatibility_violations(reference: list[NormalizedCase], migrated: list[NormalizedCase]) -> list[str]:
    """Why `migrated` is not compatible with `reference`, one line each; `[]` when it is.

    Both are lists of normalized cases (`fixture_migrate.contract.normalize.normalize_payload`), in
    file order. `source_file` is compared only for equality of the file's stem, as a
    JSONL file's migration is a `.json` file.
    """
    if not reference:
        return []
    if len(reference) != len(migrated):
        return [f"the reference has {len(reference)} cases, the migration {len(migrated)}"]
    problems: list[str] = []
    for number, (old, new) in enumerate(zip(reference, migrated, strict=True), start=1):
        get, get_new = old.get, new.get
        for key, may_grow in _COMPARED:
            before, after = get(key), get_new(key)
            if may_grow:
                if not (isinstance(after, list) and all(item in after for item in before)):
                    problems.append(f"{_where(number, old)}: {key} lost values: {before!r} -> {after!r}")
            elif before != after and not _is_empty(before):
                problems.append(f"{_where(number, old)}: {key} changed: {before!r} -> {after!r}")
        if get_new("normalized_from") != "canonical" or get_new("source_schema_version") != c.CANONICAL_SCHEMA_VERSION:
            problems.append(f"{_where(number, old)}: the migration does not normalize as canonical")
        if get("coverage_basis") == "declared_coverage_tags" and get_new("coverage_basis") != get("coverage_basis"):
            problems.append(f"{_where(number, old)}: coverage_basis changed")
        old_ext = get("extensions")
        if old_ext:
            new_ext = get_new("extensions") or {}
            for key, value in old_ext.items():
                if key not in new_ext or new_ext[key] != value:
                    problems.append(f"{_where(number, old)}: extensions.{key} lost or changed")
    return problems


def _where(number: int, case: NormalizedCase) -> str:
    return f"case {number} ({case.get('id')!s})"
