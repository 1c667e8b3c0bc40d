"""`yao.semantic-trigger-cases.v1`: semantic trigger sets of spec-write-tasks
(skills/spec-write-tasks/evals/yao-trigger-cases.json, 2026-06-23), for a semantic
trigger scorer (its `semantic_config.json` neighbour is not a fixture).

The file lists queries, not cases, under `should_trigger`, `should_not_trigger` and
`near_neighbor`; the reference makes no case of them. Each entry becomes a case
(an empty list, making none, goes under the file's `extensions` as it is):

| list | id | expected_outcome | coverage_tags |
|---|---|---|---|
| `should_trigger` | `should-trigger-<n>` | `should-trigger` | `trigger`, `should-trigger` |
| `should_not_trigger` | `should-not-trigger-<n>` | `should-not-trigger` | `boundary`, `should-not-trigger` |
| `near_neighbor` | `near-neighbor-<n>` | `should-not-trigger` | `boundary`, `near-neighbor` |

`<n>` counts from 1 within its list, so ids are stable while entries are only
appended. The entry's `text` (or the entry, when it is a plain string) is the
`input`; its other members (`family`, ...) go under the case's `extensions`. The
outcomes are the words team-standards trigger evals use for the same idea. The
file-level `recommended_threshold` goes under the file's `extensions`; the file's
`coverage_tags` and `source_refs` stay and are inherited by every case.
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.adapting.case_mapper import CaseMapper
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Arr, Node, Obj, Src, Val

SCHEMA_VERSION = "yao.semantic-trigger-cases.v1"
LISTS = {
    "should_trigger": ("should-trigger", ["trigger", "should-trigger"]),
    "should_not_trigger": ("should-not-trigger", ["boundary", "should-not-trigger"]),
    "near_neighbor": ("should-not-trigger", ["boundary", "near-neighbor"]),
}


def _case(list_key: str, n: int, entry: Any) -> Node:
    outcome, tags = LISTS[list_key]
    path = (list_key, n - 1)
    members: list[tuple[str, Node]] = [("id", Val(f"{list_key.replace('_', '-')}-{n}"))]
    extensions: list[tuple[str, Node]] = []
    if isinstance(entry, str):
        members.append(("input", Src(path)))
    elif isinstance(entry, dict):
        for key in entry:
            if key == "text" and isinstance(entry[key], str):
                members.append(("input", Src(path + (key,))))
            else:
                extensions.append((key, Src(path + (key,))))
    else:
        extensions.append(("entry", Src(path)))
    members += [("coverage_tags", Val(list(tags))), ("expected_outcome", Val(outcome))]
    if extensions:
        members.append(("extensions", Obj(extensions)))
    return Obj(members)


class YaoTriggerAdapter:
    """Turns the `should_trigger` / `should_not_trigger` / `near_neighbor` lists into cases."""

    name = "yao_semantic_trigger_cases_v1"
    kind = "family"
    summary = "yao semantic trigger sets: should_trigger/should_not_trigger/near_neighbor queries become cases"

    def claims(self, unit: Unit) -> bool:
        data = unit.data
        return (
            unit.shape == "payload"
            and isinstance(data, dict)
            and data.get("schema_version") == SCHEMA_VERSION
            and not isinstance(data.get("cases"), list)
            and not isinstance(data.get("examples"), list)
        )

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        payload = unit.data
        # An empty list makes no case: it stays as it is, under the file's extensions.
        lists = [key for key in payload if key in LISTS and isinstance(payload[key], list) and payload[key]]
        cases = [_case(key, n, entry) for key in lists for n, entry in enumerate(payload[key], start=1)]
        if not lists:
            return CaseMapper().map_file(payload, skill=context.skill_for(payload))
        return CaseMapper().map_file(payload, skill=context.skill_for(payload), cases=Arr(cases), replaces=tuple(lists))


ADAPTER = YaoTriggerAdapter()
