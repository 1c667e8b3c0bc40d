"""Any other payload with a `cases` or `examples` list: a local family fixture-migrate
has no adapter for (an unknown or missing `schema_version`).

It claims a payload with a string `schema_version`; without one, only a non-empty
list of objects that each carry an id, an input or prompt, or an expected outcome
(`contract.CASE_EVIDENCE_KEYS`), and never a document declaring a `$schema`: a JSON
Schema's `examples` or a configuration's `cases` are not fixtures.

The reference's own mapping applies (DESIGN.md, "The contract"), with no
family-specific fills: members it reads under other names are renamed, the
members it copies into `extensions` and every member with no canonical home move
under `extensions`, and the legacy schema_version is kept as
`extensions.migrated_from`. So a new local family migrates without loss; reports
name this adapter so a reviewer knows no family-specific rule was applied.
"""

from __future__ import annotations

from fixture_migrate.adapting.case_mapper import CaseMapper
from fixture_migrate.adapting.protocol import Context, looks_like_cases
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Node


class GenericAdapter:
    """Claims any payload with a case list; always tried last."""

    name = "generic"
    kind = "generic"
    summary = "any other payload with a cases/examples list: the reference's mapping, the rest under extensions"

    def claims(self, unit: Unit) -> bool:
        data = unit.data
        if unit.shape != "payload" or not isinstance(data, dict) or "$schema" in data:
            return False
        cases = next((data[k] for k in ("cases", "examples") if isinstance(data.get(k), list)), None)
        if cases is None:
            return False
        # Without a schema_version, only cases that look like eval cases make a fixture: a
        # JSON Schema's `examples`, or a config's empty `cases`, are left alone.
        return isinstance(data.get("schema_version"), str) or looks_like_cases(cases)

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        return CaseMapper().map_file(unit.data, skill=context.skill_for(unit.data))


ADAPTER = GenericAdapter()
