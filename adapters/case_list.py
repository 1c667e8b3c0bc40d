"""A bare list of cases bound to a name in code: `CASES = [{...}, ...]` in a Python test module
(the fixture names are `CASES` and `FIXTURE` unless `--py-name` gives others).

Such a list has no envelope, and code may use it as a list
(`@pytest.mark.parametrize("case", CASES)`), so it stays a list: each case is
mapped by the reference's rules, as the `generic` adapter maps a payload's cases
(members renamed, an explicit `id`, everything without a canonical home under the
case's `extensions`; the vocabulary (`fixture_migrate.adapting.vocabulary`) fills
what the reference leaves empty, as for the `generic` adapter), and nothing else is
written. It claims a list only when every case carries an input-like and an
expected-like member, and (as every local family) only with fixture context
(`fixture_migrate.claiming.territory`): a pytest parametrize table is not a fixture. The payload returned around
the cases (`schema_version`, the inferred `skill`) is what `normalize` and
`validate` read the list as; the Python writer keeps only the cases. To give the
list file-level members, make it a dict literal with a `cases` key.
"""

from __future__ import annotations

from fixture_migrate.adapting.evidence import canonical_records, records_evidence
from fixture_migrate.adapting.local import family_mapper
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.contract import rules as c
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Node, Obj, Val

class CaseListAdapter:
    """Claims a bare list of case objects bound to a name; always tried after the families."""

    name = "case_list"
    kind = "generic"
    summary = "a bare list of case dicts bound to a name in code (CASES = [...]): each case mapped, the list kept"

    def claims(self, unit: Unit) -> bool:
        return (
            unit.shape == "case_list"
            and unit.binding is not None
            and isinstance(unit.data, list)
            and all(isinstance(case, dict) for case in unit.data)
            and (records_evidence(unit.data)[0] or canonical_records(unit.data))
        )

    def explain(self, unit: Unit) -> str:
        if canonical_records(unit.data):
            return f"`{unit.binding}`: canonical cases"
        return f"`{unit.binding}`: {records_evidence(unit.data)[1]}"

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        members: list[tuple[str, Node]] = [("schema_version", Val(c.CANONICAL_SCHEMA_VERSION))]
        skill = context.skill_for(None)
        if skill:
            members.append(("skill", Val(skill)))
        members.append(("cases", family_mapper(unit.data).map_cases(unit.data, ())))
        return Obj(members)


ADAPTER = CaseListAdapter()
