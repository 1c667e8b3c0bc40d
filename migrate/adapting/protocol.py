"""What an adapter is: the protocol every adapter meets, and the declarative family adapter.

An adapter recognizes one legacy or external format (`claims`) and maps a
payload of that format onto the canonical shape (`to_canonical`), as a target
tree (`fixture_migrate.formats.target`) so the syntax writers can keep every unmoved byte. Most
legacy families differ from the canonical shape only by the reference's own
mapping plus a few members that fill what the reference leaves empty: those
are a `FamilyAdapter` and a few lines of data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from fixture_migrate.adapting.case_mapper import CaseMapper
from fixture_migrate.contract import rules as c
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Node
from fixture_migrate.slots import Record


class Context(Record):
    """What an adapter knows of a file besides its data: `source_file`, the repo-relative
    POSIX path (None when outside the repo), and `skill`, the caller's skill if any."""

    __slots__ = ("source_file", "skill")
    __hash__ = Record.value_hash

    def __init__(self, source_file: str | None = None, skill: str | None = None) -> None:
        self.source_file = source_file
        self.skill = skill

    def skill_for(self, payload: Any) -> str | None:
        """The skill to write into a payload that has none: the caller's, else the
        `skills/<name>/` of its path (reference: `normalizeFixturePayload`)."""
        if isinstance(payload, dict) and c.js_truthy(payload.get("skill")):
            return None
        return self.skill or c.infer_skill(self.source_file)


def has_case_list(data: dict[str, Any]) -> bool:
    """True when a payload holds a `cases` or `examples` array (the reference's case list)."""
    return isinstance(data.get("cases"), list) or isinstance(data.get("examples"), list)


@runtime_checkable
class Adapter(Protocol):
    """A format fixture-migrate can migrate.

    `name` is the registry key (the module name for built-ins); `kind` is
    "canonical", "family", "generic" or "external"; `summary` one line for
    `fixture-migrate adapters`.
    """

    name: str
    kind: str
    summary: str

    def claims(self, unit: Unit) -> bool:
        """True when this adapter reads `unit` (a payload or a bare case list)."""
        ...

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        """The canonical payload for `unit` as a target tree; `Src(())` when nothing changes.

        Raises `fixture_migrate.errors.MappingError` when the data cannot be mapped losslessly.
        """
        ...


@dataclass(frozen=True)
class FamilyAdapter:
    """A legacy family told apart by its `schema_version` and mapped by the shared rules.

    `fills` names, per canonical case member, the family's members that fill it when
    the reference leaves it empty (see `fixture_migrate.adapting.case_mapper.CaseMapper`).

    A dataclass, unlike the records in `fixture_migrate.slots`: plugins may subclass it, as
    dataclasses themselves.
    """

    name: str
    schema_version: str
    summary: str
    fills: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    kind: str = "family"

    @property
    def mapper(self) -> CaseMapper:
        return CaseMapper(fills=self.fills, explicit_ids=self.kind != "canonical")

    def claims(self, unit: Unit) -> bool:
        # A legacy schema_version alone is not a fixture (a sidecar may quote it): the
        # family's case list must be there too. A canonical file is one by its version.
        data = unit.data
        return (
            unit.shape == "payload"
            and isinstance(data, dict)
            and data.get("schema_version") == self.schema_version
            and (self.kind == "canonical" or has_case_list(data))
        )

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        # A canonical file is never given members it does not have (DESIGN: canonical in, same bytes out).
        skill = None if self.kind == "canonical" else context.skill_for(unit.data)
        return self.mapper.map_file(unit.data, skill=skill)
