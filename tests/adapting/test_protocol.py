"""`fixture_migrate.adapting.protocol`: the declarative family adapter, as built-ins and plugins use it."""

from __future__ import annotations

from dataclasses import dataclass

from fixture_migrate.adapting.protocol import Context, FamilyAdapter
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import materialize


@dataclass(frozen=True)
class TeamAdapter(FamilyAdapter):
    """A plugin's family, declared as a dataclass subclass with its own defaults."""

    name: str = "team_cases_v1"
    schema_version: str = "team-cases.v1"
    summary: str = "the team's local cases"


def test_a_dataclass_subclass_keeps_the_inherited_defaults_and_maps_a_file():
    adapter = TeamAdapter()
    assert (adapter.kind, dict(adapter.fills)) == ("family", {})
    unit = Unit({"schema_version": "team-cases.v1", "cases": [{"name": "A", "user_intent": "hi", "owner": "ana"}]})
    assert adapter.claims(unit)
    migrated = materialize(adapter.to_canonical(unit, Context(skill="demo")), unit.data)
    assert migrated["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    assert migrated["cases"][0]["input"] == "hi"
    assert migrated["cases"][0]["extensions"] == {"name": "A", "owner": "ana"}
