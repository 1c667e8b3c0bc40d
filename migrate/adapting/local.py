"""How a local family is mapped onto the canonical shape: the helpers the `generic` adapter
and the families declared in pyproject.toml (`fixture_migrate.adapting.families`) share.

The skill a file names none of comes from the reference's rules, else a top-level
`skill_name`; trigger lists become one case per query (`vocabulary` module docstring);
a bare list of records becomes a canonical file around its cases.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.adapting.case_mapper import CaseMapper
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.contract import rules as c
from fixture_migrate.formats.target import Arr, Node, Obj, Src, Val


def file_skill(payload: Any, context: Context) -> str | None:
    """The skill to write into a payload: the reference's (caller, `skills/<name>/`), else a
    top-level `skill_name` (a value the reference leaves empty may be filled)."""
    skill = context.skill_for(payload)
    if skill is None and isinstance(payload, dict) and not c.js_truthy(payload.get("skill")):
        skill = next((payload[k] for k in v.SKILL if c.is_non_empty_string(payload.get(k))), None)
    return skill


def trigger_cases(
    mapper: CaseMapper, payload: dict[str, Any], lists: tuple[str, ...], polarities: dict[str, bool]
) -> Arr:
    """The cases of trigger lists: one per query, in list order (`vocabulary` module docstring)."""
    cases: list[Node] = []
    for key in lists:
        polarity = polarities[key]
        outcome, tags = v.polarity_words(polarity)
        prefix = key.replace("_", "-")
        for n, entry in enumerate(payload[key], start=1):
            path = (key, n - 1)
            if isinstance(entry, dict):
                cases.append(mapper.map_case(entry, path, n - 1, polarity=polarity, default_id=f"{prefix}-{n}"))
            else:
                cases.append(
                    Obj(
                        [
                            ("id", Val(f"{prefix}-{n}")),
                            ("input", Src(path)),
                            ("coverage_tags", Val(list(tags))),
                            ("expected_outcome", Val(outcome)),
                        ]
                    )
                )
    return Arr(cases)


def bare_list_file(mapper: CaseMapper, records: list[Any], skill: str | None) -> Node:
    """A canonical file around the cases of a bare list of records."""
    members: list[tuple[str, Node]] = [("schema_version", Val(c.CANONICAL_SCHEMA_VERSION))]
    if skill:
        members.append(("skill", Val(skill)))
    members.append(("cases", Arr([mapper.map_case(record, (i,), i) for i, record in enumerate(records)], origin=())))
    return Obj(members)


@lru_cache(maxsize=256)
def _mapper(fills: tuple[tuple[str, tuple[str, ...]], ...], tags: tuple[str, ...]) -> CaseMapper:
    return CaseMapper(fills=dict(fills), polarity_fields=v.POLARITY, tag_fields=tags)


def family_mapper(records: list[Any]) -> CaseMapper:
    """The `CaseMapper` of the family `records` belong to (`vocabulary.family_roles`): the
    vocabulary's names and the members the family's roles add, its coverage-tag fields,
    the boolean polarities. One mapper per distinct mapping."""
    roles = v.family_roles(records)
    return _mapper(tuple(roles.fills.items()), roles.tag_fields)


def entries_of(payload: Any, lists: tuple[str, ...]) -> list[Any]:
    """The object entries of a payload's trigger lists `lists` (their family's records)."""
    return [entry for key in lists for entry in payload[key] if isinstance(entry, dict)]
