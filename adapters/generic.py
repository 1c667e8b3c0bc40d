"""Any other payload with a `cases` or `examples` list: a local family fixture-migrate
has no adapter for (an unknown or missing `schema_version`).

The reference's own mapping applies (DESIGN.md, "The contract"), with no
family-specific fills: members it reads under other names are renamed, the
members it copies into `extensions` and every member with no canonical home move
under `extensions`, and the legacy schema_version is kept as
`extensions.migrated_from`. So a new local family migrates without loss; reports
name this adapter so a reviewer knows no family-specific rule was applied.
"""

from __future__ import annotations

from migrate.adapter import Context
from migrate.formats import Unit
from migrate.mapping import CaseMapper
from migrate.plan import Node


class GenericAdapter:
    """Claims any payload with a case list; always tried last."""

    name = "generic"
    kind = "generic"
    summary = "any other payload with a cases/examples list: the reference's mapping, the rest under extensions"

    def claims(self, unit: Unit) -> bool:
        data = unit.data
        return (
            unit.shape == "payload"
            and isinstance(data, dict)
            and (isinstance(data.get("cases"), list) or isinstance(data.get("examples"), list))
        )

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        return CaseMapper().map_file(unit.data, skill=context.skill_for(unit.data))


ADAPTER = GenericAdapter()
