"""`output/cases.jsonl`: recorded output cases of spec-write-tasks, one JSON object a line
(skills/spec-write-tasks/evals/output/cases.jsonl, 2026-06-23; no schema_version).

Each line holds `id`, `prompt`, `baseline_output`, `with_skill_output`, `assertions`,
`metadata` and `human_review`. JSON Lines cannot hold the canonical envelope, so the
migration writes `<stem>.json` beside the file (reported as a rename; the `.jsonl` is
removed only when writing). Each line becomes a case by the shared rules: `prompt`
fills `input`, the other members go under `extensions`. The reference cannot read
this file at all (JSON.parse stops at the second line), so there is no view to stay
compatible with; the new cases carry no coverage tags or source refs the lines did
not have, and `validate` says so.
"""

from __future__ import annotations

from fixture_migrate.adapting.case_mapper import CaseMapper
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.contract import rules as c
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Arr, Node, Obj, Val

MAPPER = CaseMapper(fills={"input": ("prompt",)})

RECORDED_OUTPUTS = frozenset({"baseline_output", "with_skill_output"})
"""The members that make a line a recorded output case of this family."""


class OutputCasesJsonlAdapter:
    """A bare list of case objects with `id` and `prompt` (JSONL) made into a canonical file."""

    name = "output_cases_jsonl"
    kind = "family"
    summary = "JSON Lines output cases (id, prompt, outputs, assertions), written as <stem>.json"

    def claims(self, unit: Unit) -> bool:
        return unit.shape == "case_list" and all(
            isinstance(line, dict) and "id" in line and "prompt" in line for line in unit.data
        )

    def known(self, unit: Unit) -> bool:
        """True when every line carries a recorded output (`baseline_output`,
        `with_skill_output`): the family's own shape, claimed before anything else. Other
        lines with an id and a prompt (completion logs, prompt lists, other tools'
        datasets) are a local family, claimed only after other tools' files and with
        fixture context (`fixture_migrate.claiming.rules`)."""
        return (
            self.claims(unit) and bool(unit.data) and all(not RECORDED_OUTPUTS.isdisjoint(line) for line in unit.data)
        )

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        cases = Arr([MAPPER.map_case(line, (i,), i) for i, line in enumerate(unit.data)])
        members: list[tuple[str, Node]] = [("schema_version", Val(c.CANONICAL_SCHEMA_VERSION))]
        skill = context.skill_for(None)
        if skill:
            members.append(("skill", Val(skill)))
        members.append(("cases", cases))
        return Obj(members)


ADAPTER = OutputCasesJsonlAdapter()
