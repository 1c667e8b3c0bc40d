"""Synthetic fixture trees for the benchmarks: canonical files and every legacy family.

Shapes follow what the spec-first corpus shows (see each adapter's docstring):
files of one to a few cases most of the time and now and then of tens to
hundreds of cases, text in several scripts, 2-space indentation with short
scalar arrays written inline. Everything is drawn from a seeded random
generator, so a tree is the same for the same arguments.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

WORDS = (
    "plan review task pack source boundary route skill workflow trigger evidence handoff "
    "审查 计划 边界 证据 工作流 техника проверка граница décision étape naïve façade"
).split()

CANONICAL = "spec-first.workflow-eval-fixtures.v1"


def _text(rng: random.Random, n: int = 8) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, n))).capitalize() + "."


def _tags(rng: random.Random) -> list[str]:
    return rng.sample(["trigger", "boundary", "expected", "failure", "routing", "output-quality"], rng.randint(1, 3))


def _canonical_case(rng: random.Random, i: int) -> dict[str, Any]:
    case: dict[str, Any] = {"id": f"case-{i}-{rng.randrange(10**6)}", "input": _text(rng), "coverage_tags": _tags(rng)}
    case["expected_outcome"] = _text(rng)
    if rng.random() < 0.5:
        case["boundary_note"] = _text(rng)
    if rng.random() < 0.3:
        case["forbidden_signals"] = [_text(rng, 5) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.2:
        case["extensions"] = {"context": _text(rng), "weight": rng.randint(1, 5)}
    return case


def _decision_case(rng: random.Random, i: int, *keys: str) -> dict[str, Any]:
    case: dict[str, Any] = {"id": f"d-{i}", "input": _text(rng), "context": _text(rng)}
    for key in keys:
        case[key] = _text(rng, 4)
    return case


FAMILIES: dict[str, tuple[str, str, Any, dict[str, Any]]] = {
    # name: (schema_version, case key, case builder, extra top-level members)
    "prompt_examples_v1": (
        "prompt-examples/v1",
        "examples",
        lambda rng, i: {
            "name": f"Example {i} {rng.choice(WORDS)}",
            "user_intent": _text(rng),
            "expected_posture": _text(rng),
            "boundary_note": _text(rng),
            "negative_signal": _text(rng, 5),
            "context_snippets": [_text(rng, 3), _text(rng, 3)],
            "source_note": _text(rng),
        },
        {},
    ),
    "spec_prd_evals_v1": (
        "spec-prd-evals.v1",
        "cases",
        lambda rng, i: {
            "id": f"prd-{i}",
            "intent": rng.choice(["create", "refine", "validate"]),
            "case_type": rng.choice(["positive", "boundary", "failure"]),
            "quality_buckets": _tags(rng),
            "input_shape": _text(rng),
            "expected": [_text(rng, 5) for _ in range(rng.randint(1, 4))],
            "must_not": [_text(rng, 5)],
            "coverage_tags": _tags(rng),
        },
        {"description": "Synthetic PRD evals.", "case_contract": {"case_types": ["positive", "boundary"]}},
    ),
    "spec_write_tasks_boundary_cases_v1": (
        "spec-first.spec-write-tasks-boundary-cases.v1",
        "cases",
        lambda rng, i: {
            **_decision_case(rng, i, "expected_decision", "expected_next_action"),
            "dispatch_authorization": "missing",
        },
        {},
    ),
    "spec_write_tasks_failure_cases_v1": (
        "spec-first.spec-write-tasks-failure-cases.v1",
        "cases",
        lambda rng, i: _decision_case(rng, i, "expected_failure", "expected_next_action"),
        {},
    ),
    "spec_write_tasks_trigger_cases_v1": (
        "spec-first.spec-write-tasks-trigger-cases.v1",
        "cases",
        lambda rng, i: _decision_case(rng, i, "expected_decision", "expected_next_action"),
        {},
    ),
    "spec_write_tasks_expected_behavior_cases_v1": (
        "spec-first.spec-write-tasks-expected-behavior-cases.v1",
        "cases",
        lambda rng, i: {
            "id": f"e-{i}",
            "input": _text(rng),
            "expected_decision": "compile",
            "expected_output": _text(rng),
        },
        {},
    ),
    "spec_graph_bootstrap_boundary_cases_v1": (
        "spec-first.spec-graph-bootstrap-boundary-cases.v1",
        "cases",
        lambda rng, i: {**_decision_case(rng, i, "expected_decision"), "expected_boundary": _text(rng)},
        {"_no_skill": True},
    ),
    "spec_graph_bootstrap_expected_behavior_cases_v1": (
        "spec-first.spec-graph-bootstrap-expected-behavior-cases.v1",
        "cases",
        lambda rng, i: {
            "id": f"g-{i}",
            "input": _text(rng),
            "expected_decision": "primary",
            "expected_output": _text(rng),
        },
        {"_no_skill": True},
    ),
    "spec_graph_bootstrap_failure_cases_v1": (
        "spec-first.spec-graph-bootstrap-failure-cases.v1",
        "cases",
        lambda rng, i: _decision_case(rng, i, "expected_failure", "expected_next_action"),
        {"_no_skill": True},
    ),
    "spec_graph_bootstrap_trigger_cases_v1": (
        "spec-first.spec-graph-bootstrap-trigger-cases.v1",
        "cases",
        lambda rng, i: _decision_case(rng, i, "expected_decision", "expected_next_action"),
        {"_no_skill": True},
    ),
    "skill_audit_eval_cases_v1": (
        "spec-first.skill-audit-eval-cases.v1",
        "cases",
        lambda rng, i: {"id": f"a-{i}", "input": _text(rng), "expected": _text(rng), "coverage_tags": _tags(rng)},
        {},
    ),
    "skill_audit_boundary_cases_v1": (
        "spec-first.skill-audit-boundary-cases.v1",
        "cases",
        lambda rng, i: {"id": f"b-{i}", "input": _text(rng), "expected": _text(rng)},
        {},
    ),
    "skill_audit_security_cases_v1": (
        "spec-first.skill-audit-security-cases.v1",
        "cases",
        lambda rng, i: {"id": f"s-{i}", "input": _text(rng), "expected_signal": "REMOTE_PIPE", "forbidden_signals": []},
        {},
    ),
    "skill_audit_trigger_cases_v1": (
        "spec-first.skill-audit-trigger-cases.v1",
        "cases",
        lambda rng, i: {"id": f"t-{i}", "input": _text(rng), "expected_signal": "broad_trigger", "boundary_note": ""},
        {},
    ),
    "using_spec_first_routing_cases_v1": (
        "using-spec-first-routing-cases/v1",
        "cases",
        lambda rng, i: {
            "id": f"r-{i}",
            "name": f"Route {i}",
            "user_intent": _text(rng),
            "expected_outcome": "direct_answer",
            "public_workflow_required": False,
            "expected_entrypoint": None,
            "graphify_required": False,
            "artifact_expected": False,
        },
        {},
    ),
    "spec_write_tasks_output_quality_cases_v1": (
        "spec-first.spec-write-tasks-output-quality-cases.v1",
        "cases",
        lambda rng, i: {
            "id": f"q-{i}",
            "input": _text(rng),
            "input_files": [{"path": "a/b.md", "evidence": "file-backed"}],
            "baseline_risks": [_text(rng)],
            "with_skill_expectations": [_text(rng)],
            "objective_assertions": [_text(rng), _text(rng)],
            "expected_outcome": _text(rng),
            "evidence_status": "file-backed",
        },
        {"coverage_tags": ["expected"], "source_refs": ["skills/x/SKILL.md"]},
    ),
    "spec_plan_output_quality_cases_v1": (
        "spec-first.spec-plan-output-quality-cases.v1",
        "cases",
        lambda rng, i: {
            "id": f"p-{i}",
            "input": _text(rng),
            "baseline_risks": [_text(rng)],
            "expected_outcome": _text(rng),
        },
        {"coverage_tags": ["expected"]},
    ),
    "agent_native_architecture_eval_examples_v1": (
        "spec-first.agent-native-architecture-eval-examples.v1",
        "examples",
        lambda rng, i: {
            "id": f"n-{i}",
            "user_intent": _text(rng),
            "coverage_tags": _tags(rng),
            "expected_posture": _text(rng),
            "forbidden_signals": [_text(rng, 4)],
            "source_refs": ["skills/x/SKILL.md"],
        },
        {},
    ),
    "team_standards_output_evals_v1": (
        "team-standards-output-evals/v1",
        "cases",
        lambda rng, i: {
            "case_id": f"OUT-{i:03d}",
            "case_type": "candidate-card",
            "input_refs": ["docs/x.md"],
            "required_fields": ["a", "b", "c"],
            "must_not": [_text(rng, 3)],
            "threshold_result": "not-run",
        },
        {"_no_skill": True},
    ),
    "team_standards_trigger_evals_v1": (
        "team-standards-trigger-evals/v1",
        "cases",
        lambda rng, i: {
            "case_id": f"TRG-{i:03d}",
            "case_type": "acquisition-trigger",
            "prompt": _text(rng),
            "expected_result": "should-trigger",
            "expected_mode": "init",
            "reason_code": "single-target",
        },
        {"_no_skill": True},
    ),
    "spec_write_skill_trigger_cases_v1": (
        "spec-first.spec-write-skill-trigger-cases.v1",
        "cases",
        lambda rng, i: {
            "id": f"w-{i}",
            "case_id": f"W-{i}",
            "input": _text(rng),
            "prompt": _text(rng),
            "coverage_tags": ["trigger"],
            "expected_outcome": "should-trigger",
            "expected_result": "should-trigger",
        },
        {},
    ),
    "spec_app_consistency_audit_recorded_output_fixtures_v1": (
        "spec-app-consistency-audit-recorded-output-fixtures.v1",
        "cases",
        lambda rng, i: {
            "id": f"c-{i}",
            "input": _text(rng),
            "coverage_tags": ["expected"],
            "input_summary": _text(rng),
            "expected_outcome": _text(rng),
            "recorded_output": {"status": "not_run", "issues": []},
            "assertions": ["a", "b"],
        },
        {"execution_kind": "recorded_fixture"},
    ),
}


def _case_count(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.75:
        return rng.randint(1, 6)
    if roll < 0.97:
        return rng.randint(7, 60)
    return rng.randint(100, 300)


def _yao(rng: random.Random, skill: str) -> dict[str, Any]:
    def queries() -> list[dict[str, str]]:
        return [{"text": _text(rng), "family": rng.choice(WORDS)} for _ in range(rng.randint(2, 6))]

    return {
        "schema_version": "yao.semantic-trigger-cases.v1",
        "skill": skill,
        "recommended_threshold": 0.58,
        "coverage_tags": ["trigger", "boundary"],
        "should_trigger": queries(),
        "should_not_trigger": queries(),
        "near_neighbor": queries(),
    }


def payload(rng: random.Random, family: str, skill: str) -> dict[str, Any]:
    """A random payload of `family` ("canonical", a legacy adapter name, or "yao")."""
    if family == "yao":
        return _yao(rng, skill)
    if family == "canonical":
        return {
            "schema_version": CANONICAL,
            "skill": skill,
            "description": _text(rng),
            "source_refs": [f"skills/{skill}/SKILL.md"],
            "source_ref_authority": "source",
            "cases": [_canonical_case(rng, i) for i in range(_case_count(rng))],
        }
    version, key, build, extra = FAMILIES[family]
    out: dict[str, Any] = {"schema_version": version}
    if not extra.get("_no_skill"):
        out["skill"] = skill
    out.update({k: v for k, v in extra.items() if not k.startswith("_")})
    out[key] = [build(rng, i) for i in range(_case_count(rng))]
    return out


def dumps(value: Any, indent: str = "") -> str:
    """JSON with 2-space indentation and arrays of scalars on one line, as the corpus writes them."""
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        members = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, (dict, list)) for v in value):
            return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
        return "[\n" + ",\n".join(inner + dumps(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


_ID_KEYS = ("id", "case_id", "name")


def _unique_ids(data: dict[str, Any], n: int) -> None:
    """Give every case of file `n` an id no other file has (the family's own ids repeat
    per skill: `d-0`, `d-1`, ...); a yao set's queries get their own numbered text."""
    for key in ("cases", "examples"):
        for case in data.get(key) or []:
            for name in _ID_KEYS:
                if isinstance(case.get(name), str):
                    case[name] = f"{case[name]}-f{n}"
    for key in ("should_trigger", "should_not_trigger", "near_neighbor"):
        for i, query in enumerate(data.get(key) or []):
            query["text"] = f"{query['text']} {n}-{i}"


def generate(
    root: Path,
    files: int,
    *,
    canonical_share: float,
    seed: int = 1,
    unique_ids: bool = False,
    repeated_ids: bool = False,
) -> list[Path]:
    """Write `files` fixtures under `root/skills/<skill>/evals/`; returns their paths.

    `canonical_share` of them (0..1) are canonical files, the rest cycle through every
    legacy family and the yao trigger sets. With `unique_ids`, every id a file writes
    is made its own (the same tree otherwise, file for file); only the team-standards
    families, whose reference id is the case's position (`case-1`), still repeat one now
    and then. With `repeated_ids`, a canonical case's id is its position (`case-0`, ...),
    so the canonical files of a skill repeat each other's ids: a tree of duplicates.
    """
    rng = random.Random(seed)
    legacy = [*FAMILIES, "yao"]
    written = []
    for n in range(files):
        skill = f"skill-{n % 97:02d}"
        family = "canonical" if rng.random() < canonical_share else legacy[n % len(legacy)]
        folder = root / "skills" / skill / "evals"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{family}-{n:05d}.json"
        data = payload(rng, family, skill)
        if unique_ids:
            _unique_ids(data, n)
        elif repeated_ids and family == "canonical":
            for i, case in enumerate(data["cases"]):
                case["id"] = f"case-{i}"
        path.write_text(dumps(data) + "\n", encoding="utf-8")
        written.append(path)
    return written
