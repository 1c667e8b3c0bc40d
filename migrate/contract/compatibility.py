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
        where = f"case {number} ({old.get('id')!s})"
        for key in c.NORMALIZED_KEYS:
            if key in _FREE:
                continue
            before, after = old.get(key), new.get(key)
            if key in _MAY_GROW:
                if not (isinstance(after, list) and all(item in after for item in before)):
                    problems.append(f"{where}: {key} lost values: {before!r} -> {after!r}")
            elif before != after and not _is_empty(before):
                problems.append(f"{where}: {key} changed: {before!r} -> {after!r}")
        if new.get("normalized_from") != "canonical" or new.get("source_schema_version") != c.CANONICAL_SCHEMA_VERSION:
            problems.append(f"{where}: the migration does not normalize as canonical")
        if old.get("coverage_basis") == "declared_coverage_tags" and new.get("coverage_basis") != old.get(
            "coverage_basis"
        ):
            problems.append(f"{where}: coverage_basis changed")
        old_ext, new_ext = old.get("extensions") or {}, new.get("extensions") or {}
        for key, value in old_ext.items():
            if key not in new_ext or new_ext[key] != value:
                problems.append(f"{where}: extensions.{key} lost or changed")
    return problems
