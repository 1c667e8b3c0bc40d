"""A local family fixture-migrate has no adapter for, migrated only on evidence.

It claims a payload (or a bare list of records: a JSON array, a YAML list, JSON
Lines) whose records carry the evidence of eval cases
(`fixture_migrate.adapting.evidence`): every record of its `cases` or `examples` list
has an input-like member and an expected-like member, or the payload holds trigger
lists (`should_trigger` / `should_not_trigger`, `positive` / `negative` /
`near_miss`, ...). An `id` and a `cases` key alone are not enough, and a document
declaring `$schema` is never claimed.

The reference's own mapping applies first (DESIGN.md, "The contract"); then the
vocabulary (`fixture_migrate.adapting.vocabulary`) fills what the reference leaves
empty from the fields that obviously hold it (`prompt` -> `input`,
`expected_behavior` -> `expected_outcome`, `must_not` -> `forbidden_signals`, a
trigger polarity -> coverage tags and outcome). Members the reference copies into
`extensions` and every member with no canonical home move under `extensions`; the
legacy schema_version is kept as `extensions.migrated_from`. A bare list becomes a
canonical file around its cases (JSON Lines as `<stem>.json` beside it). Reports name
this adapter so a reviewer knows no family-specific rule was applied.
"""

from __future__ import annotations

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.adapting.evidence import evidence, record_list
from fixture_migrate.adapting.local import bare_list_file, entries_of, family_mapper, file_skill, trigger_cases
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Node, Val


class GenericAdapter:
    """Claims a local family whose records carry input and expected outcome; tried last.

    The claim rules (`fixture_migrate.claiming.rules`) also hand it a file in fixture
    territory whose records carry an input, under whatever key they lie
    (`fixture_migrate.adapting.evidence.record_list`)."""

    name = "generic"
    kind = "generic"
    summary = (
        "a local family whose records carry input and expected outcome (or trigger lists): the vocabulary's mapping"
    )

    def claims(self, unit: Unit) -> bool:
        if unit.binding is not None:
            return False  # a list bound to a name in code is the `case_list` adapter's
        return evidence(unit)[0] is not None

    def explain(self, unit: Unit) -> str:
        found, why_not = evidence(unit)
        return found.reason if found is not None else why_not

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        data = unit.data
        if isinstance(data, list):
            return bare_list_file(family_mapper(data), data, context.skill_for(None))
        skill = file_skill(data, context)
        lists = tuple(v.trigger_lists(data)) if isinstance(data, dict) else ()
        found = record_list(data)
        if lists and (found is None or found[0] not in ("cases", "examples")):
            mapper = family_mapper(entries_of(data, lists))
            cases = trigger_cases(mapper, data, lists, v.TRIGGER_LISTS)
            return mapper.map_file(data, skill=skill, cases=cases, replaces=lists)
        if found is None:
            return family_mapper([]).map_file(data, skill=skill)
        key, records = found
        mapper = family_mapper(records)
        if key in ("cases", "examples"):
            return mapper.map_file(data, skill=skill)
        # The list's own name is kept, so code reading `data["tests"]` finds where it went.
        moved = (("migrated_cases_from", Val(key)),)
        return mapper.map_file(
            data, skill=skill, cases=mapper.map_cases(records, (key,)), replaces=(key,), moved=moved
        )


ADAPTER = GenericAdapter()
