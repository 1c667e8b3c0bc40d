"""Who takes a payload, and why: the claim rules behind `migrate`, `detect`, `normalize`
and `validate` (DESIGN.md, "Claiming a file: where decides whether, the fields decide how").

One ordered list of named rules (`RULES`) over facts computed once per payload
(`fixture_migrate.claiming.facts.UnitFacts`); the first rule that decides gives the
claim, and `detect -v` names it:

| rule | decides |
|---|---|
| `known_family` | the canonical pass-through, a legacy family (its schema_version and shape) or a plugin: migrated |
| `declared_family` | a family declared in pyproject.toml (`[tool.fixture-migrate.adapters.NAME]` with `files`): migrated |
| `other_tool` | another eval tool's file, by its own signature (promptfoo, skill-creator, OpenAI Evals, Inspect AI, DeepEval, LangSmith): left for `fixture-migrate import --from FORMAT` |
| `ruled_out` | a well-known configuration, a JSON Schema, `docs/validation/`, `docs/plans/`, a generated report, a run's results: not a fixture |
| `sandbox` | a file in an eval's sandbox inside fixture territory (`workspace/`, `iteration-N/`, a folder with its own `package.json`, ...): not a fixture |
| `territory_records` | in fixture territory, a list of records (any key, a bare list, JSON Lines, a Python `CASES` list) whose records carry an input: migrated by the vocabulary's mapping |
| `territory_trigger_lists` | in fixture territory, trigger lists (`should_trigger`, `positive`, `near_miss`, ...): migrated |
| `territory_local_family` | in fixture territory, a payload a local family's adapter claims by its own shape (`output_cases_jsonl` lines, a `case_list` with the evidence): migrated |
| `case_file_evidence` | outside territory, a file named as a case file (`cases.json`, `plugin-test-cases.yaml`, not in a `fixtures/`-like folder of code's test data) whose records all carry an input and an expected outcome, or that holds trigger lists: migrated |
| `outside_territory` | records with an input and an expected outcome (or trigger lists) outside fixture territory: unclaimed, named with the `include` or `suggest` that brings them in |
| `looks_like_fixture` | a case list that looks like cases but carries no input: unclaimed, named |
| `territory_unplaced` | in fixture territory, records or queries no rule places: unclaimed, named |
| `not_a_fixture` | anything else: not a fixture |

A `skill` key alone is never evidence of a fixture. Each claim carries its rule and a
one-line reason, which `detect -v` prints and reports name.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from fixture_migrate.adapting.protocol import Adapter
from fixture_migrate.adapting.vocabulary import QUERY_KEY_HINTS
from fixture_migrate.claiming.facts import LOCAL_FAMILIES, UnitFacts, is_local, other_tool, other_tool_shape
from fixture_migrate.claiming.registry import load_builtin
from fixture_migrate.claiming.territory import OUTSIDE_TERRITORY
from fixture_migrate.contract import rules as c
from fixture_migrate.formats import Unit
from fixture_migrate.slots import Record


class Verdict(StrEnum):
    """What a claim decides for one payload (a file's outcome, which the engine derives from
    its payloads' verdicts, is `fixture_migrate.migration.status.Status`). A `StrEnum`:
    each member equals the word `detect --output-format json` prints."""

    CLAIMED = "claimed"
    """An adapter takes the payload: it is migrated."""
    OTHER_TOOL = "other_tool"
    """Another eval tool's payload, left for `fixture-migrate import --from FORMAT`."""
    UNCLAIMED = "unclaimed"
    """A local family's payload without the evidence to migrate it: named, left alone."""
    NOT_FIXTURE = "not_fixture"
    """Not a fixture: left alone."""


class Claim(Record):
    """The decision for one payload: `status` (a `Verdict`), the `adapter` when claimed, the
    `import_from` format for another tool's file, the `reason` in one line, the `rule` (a
    name in `RULES`) that decided, and the `family` of a local family's payload (its
    records' members, `"{id, prompt, ideal}"`, or its trigger lists), by which reports
    group files."""

    __slots__ = ("status", "adapter", "reason", "import_from", "rule", "family")

    def __init__(
        self,
        status: Verdict,
        adapter: Adapter | None = None,
        reason: str = "",
        import_from: str | None = None,
        rule: str = "",
        family: str | None = None,
    ) -> None:
        self.status = status
        self.adapter = adapter
        self.reason = reason
        self.import_from = import_from
        self.rule = rule
        self.family = family


def explain(adapter: Adapter, unit: Unit) -> str:
    """Why `adapter` claims `unit`: its own `explain` when it has one, else its
    schema_version and what it reads."""
    own = getattr(adapter, "explain", None)
    if callable(own):
        return own(unit)
    data = unit.data
    if adapter.kind == "canonical":
        return f"schema_version {c.CANONICAL_SCHEMA_VERSION!r}"
    if isinstance(data, dict) and c.is_non_empty_string(data.get("schema_version")):
        return f"schema_version {data['schema_version']!r}"
    return adapter.summary


__all__ = [
    "Verdict", "Claim", "RULES", "decide", "decide_facts", "decide_known", "explain", "proven_unchanged",
    "claim_words", "held_records", "python_records", "is_local", "other_tool", "other_tool_shape", "LOCAL_FAMILIES",
]  # fmt: skip

Rule = Callable[[UnitFacts], "Claim | None"]
"""A claim rule: the claim it gives a payload's facts, or None when it does not decide."""


def known_family(facts: UnitFacts) -> Claim | None:
    """The canonical pass-through, a legacy family or a plugin claims the payload."""
    adapter = facts.known
    if adapter is None:
        return None
    return Claim(Verdict.CLAIMED, adapter, explain(adapter, facts.unit))


def declared_family(facts: UnitFacts) -> Claim | None:
    """A family declared in pyproject.toml claims the payload by path and shape."""
    for family in facts.declared:
        if family.claims_at(facts.unit, facts.path):
            return Claim(Verdict.CLAIMED, family, family.explain(facts.unit))
    return None


def other_tool_rule(facts: UnitFacts) -> Claim | None:
    """Another eval tool's file, recognized by its own signature: left for `import`. A payload
    that names its own `schema_version` is not one (promptfoo, skill-creator, OpenAI Evals,
    Inspect AI, DeepEval and LangSmith write none): `{"schema_version": "local/v3", "cases":
    [{"input", "expected_output"}]}` is a local family whose cases merely look like goldens."""
    tool = facts.other_tool
    if tool is None:
        return None
    data = facts.unit.data
    if isinstance(data, dict) and isinstance(data.get("schema_version"), str) and data["schema_version"]:
        return None  # no supported tool writes a schema_version: a local family declares itself
    fmt, what = tool
    return Claim(
        Verdict.OTHER_TOOL,
        reason=f"{what}: another tool's file; `fixture-migrate import --from {fmt}` takes it",
        import_from=fmt,
    )


def ruled_out_rule(facts: UnitFacts) -> Claim | None:
    """A file a local family may never claim (`fixture_migrate.claiming.territory.ruled_out`)."""
    out = facts.ruled_out
    return None if out is None else Claim(Verdict.NOT_FIXTURE, reason=f"not a fixture: {out}")


def sandbox_rule(facts: UnitFacts) -> Claim | None:
    """A file in an eval's sandbox inside fixture territory is data."""
    where = facts.sandbox
    return None if where is None else Claim(Verdict.NOT_FIXTURE, reason=f"not a fixture: {where}")


def territory_records(facts: UnitFacts) -> Claim | None:
    """In fixture territory, a list of records whose records carry an input: migrated."""
    if facts.territory is None or facts.vocabulary_adapter is None:
        return None
    ok, why = facts.input_records
    if not ok or facts.trigger_lists_win:
        return None
    key = facts.records_key
    where = f"`{key}`" if key else ("`" + facts.unit.binding + "`" if facts.unit.binding else "the bare list")
    return Claim(Verdict.CLAIMED, facts.vocabulary_adapter, f"{where}: {why} ({facts.territory})")


def territory_trigger_lists(facts: UnitFacts) -> Claim | None:
    """In fixture territory, trigger lists: migrated, one case per query."""
    if facts.territory is None or not facts.trigger_lists or facts.vocabulary_adapter is None:
        return None
    lists = ", ".join(f"`{k}`" for k in facts.trigger_lists)
    return Claim(Verdict.CLAIMED, facts.vocabulary_adapter, f"trigger lists {lists} ({facts.territory})")


def territory_local_family(facts: UnitFacts) -> Claim | None:
    """In fixture territory, a payload a local family's adapter claims by its own shape
    (`output_cases_jsonl` lines, a `case_list` with the evidence): migrated."""
    found = facts.detected
    if facts.territory is None or found is None or facts.known is not None:
        return None
    adapter = facts.local_adapter or found
    return Claim(Verdict.CLAIMED, adapter, f"{explain(adapter, facts.unit)} ({facts.territory})")


def case_file_evidence(facts: UnitFacts) -> Claim | None:
    """Outside territory, a case file (`cases.json`, `*-test-cases.yaml`) whose records all
    carry an input and an expected outcome, or that holds trigger lists: migrated."""
    if facts.territory is not None or facts.case_file is None or not facts.evidence:
        return None
    adapter = facts.vocabulary_adapter
    if adapter is None:
        return None
    return Claim(Verdict.CLAIMED, adapter, f"{explain(adapter, facts.unit)} ({facts.case_file})")


def outside_territory(facts: UnitFacts) -> Claim | None:
    """Records with an input and an expected outcome, or trigger lists, outside fixture
    territory: named, not migrated (records with an input alone are data there)."""
    if facts.territory is not None or not facts.evidence:
        return None
    return Claim(Verdict.UNCLAIMED, reason=f"a local family ({explain(facts.local_adapter, facts.unit)}), but {OUTSIDE_TERRITORY}")


def looks_like_fixture_rule(facts: UnitFacts) -> Claim | None:
    """A case list that looks like cases but carries no input: named, not migrated."""
    if not facts.looks_like_fixture:
        return None
    ok, why = facts.input_records
    if ok and facts.territory is None:
        why = OUTSIDE_TERRITORY
    elif ok:
        why = f"{why}, yet no rule places it"
    return Claim(Verdict.UNCLAIMED, reason=f"looks like a fixture of a local family, but {why}")


def territory_unplaced(facts: UnitFacts) -> Claim | None:
    """In fixture territory, records or queries that no rule places: named, not migrated."""
    if facts.territory is None or facts.path is None:
        return None
    held = held_records(facts.unit.data)
    if held is None:
        return None
    return Claim(Verdict.UNCLAIMED, reason=f"{facts.territory} and holds {held}, but no rule places it")


def not_a_fixture(facts: UnitFacts) -> Claim:
    """Anything else is not a fixture."""
    return Claim(Verdict.NOT_FIXTURE, reason="no case list, trigger lists or known schema_version")


RULES: tuple[tuple[str, Rule], ...] = (
    ("known_family", known_family),
    ("declared_family", declared_family),
    ("other_tool", other_tool_rule),
    ("ruled_out", ruled_out_rule),
    ("sandbox", sandbox_rule),
    ("territory_records", territory_records),
    ("territory_trigger_lists", territory_trigger_lists),
    ("territory_local_family", territory_local_family),
    ("case_file_evidence", case_file_evidence),
    ("outside_territory", outside_territory),
    ("looks_like_fixture", looks_like_fixture_rule),
    ("territory_unplaced", territory_unplaced),
    ("not_a_fixture", not_a_fixture),
)
"""The claim rules in order: `(name, rule)`; see the module docstring."""


def decide_facts(facts: UnitFacts) -> Claim:
    """The claim the first deciding rule of `RULES` gives `facts`, with the rule's name."""
    for name, rule in RULES:
        claim = rule(facts)
        if claim is not None:
            claim.rule = name
            local = claim.status == Verdict.CLAIMED and claim.adapter is not None and claim.adapter.kind == "generic"
            if local or claim.status == Verdict.UNCLAIMED:
                claim.family = facts.family
            return claim
    raise AssertionError("the last rule always decides")  # pragma: no cover


def decide(
    registry: Any,
    unit: Unit,
    *,
    syntax: str | None = None,
    path: Path | None = None,
    declared: Any = (),
    root: Path | None = None,
    included: bool | Callable[[], bool] = False,
) -> Claim:
    """The claim for `unit` by `registry` (a `Registry`) and the `declared` families
    (`fixture_migrate.adapting.families`) of the file `path` (`root` the repository root,
    `included` whether it matches a configured `include`, or a function that tells); see
    the module docstring. A payload a known family claims takes the `known_family` rule's
    claim before any other fact is worked out (`included` is not asked then)."""
    claim, adapter = decide_known(registry, unit)
    if claim is not None:
        return claim
    facts = UnitFacts(registry, unit, syntax=syntax, path=path, declared=declared, root=root, included=included)
    facts.__dict__["detected"] = adapter  # the `cached_property`, already known: the registry is asked once
    return decide_facts(facts)


def decide_known(registry: Any, unit: Unit) -> tuple[Claim | None, Adapter | None]:
    """The claim of `unit` when the first rule decides it (`known_family`: the adapter the
    registry detects is a known family's), with no other fact computed, and that adapter;
    else `(None, the adapter detected or None)`."""
    adapter = registry.detect(unit)
    if adapter is None or is_local(adapter, unit):
        return None, adapter
    claim = Claim(Verdict.CLAIMED, adapter, explain(adapter, unit))
    claim.rule = "known_family"
    return claim, adapter


def proven_unchanged(registry: Any, document: Any) -> list[Claim] | None:
    """The claims of `document` (a `Document`) when its key sets alone prove that migrating
    it changes nothing: every unit a payload that the built-in canonical adapter claims (the
    registry's own `detect`, so the `known_family` rule's claim) and whose mapping would be
    `Src(())` (`CaseMapper.file_at_home`). None when not proven: the claim rules and the
    mapper decide then, as for any file."""
    units = document.units
    if not units or getattr(document, "refused", ()) or document.output_path != document.path:
        return None
    adapter = _canonical()[0]
    claims = []
    for unit in units:
        # `at_home(registry.detect(unit), unit)`, the key sets asked first: they are cheaper.
        if not _keys_at_home(unit) or registry.detect(unit) is not adapter:
            return None
        claim = Claim(Verdict.CLAIMED, adapter, explain(adapter, unit))
        claim.rule = "known_family"
        claims.append(claim)
    return claims


def at_home(adapter: Adapter, unit: Unit) -> bool:
    """True when `adapter` (what the registry detects for `unit`) is the built-in canonical
    adapter and the key sets of `unit` (a payload) alone prove that its mapping,
    `adapter.to_canonical(unit, context)` for any context, is `Src(())`: the canonical
    adapter maps with no skill, and `CaseMapper.file_at_home` proves `map_file` of such a
    payload leaves it as it is. False says nothing: the mapper decides then."""
    return adapter is _canonical()[0] and _keys_at_home(unit)


def _keys_at_home(unit: Unit) -> bool:
    """True when `unit` is a payload whose key sets prove the canonical mapper leaves it as
    it is (`CaseMapper.file_at_home`)."""
    return unit.shape == "payload" and _canonical()[1].file_at_home(unit.data)


@lru_cache(maxsize=1)
def _canonical() -> tuple[Adapter, Any]:
    """The built-in canonical adapter, and its mapper."""
    adapter = load_builtin("canonical")
    return adapter, adapter.mapper  # type: ignore[attr-defined]


def held_records(data: Any, where: str = "", depth: int = 0) -> str | None:
    """Where `data` holds a non-empty list of records (objects), within three levels of
    objects, a top-level list of queries (strings under a key that names queries:
    `should_fire`, `trigger_queries`, ...), or an empty `cases`/`examples` list, as
    `"a list of records at `suite.cases`"`; None when it holds none of these (a
    configuration's lists of identifiers are not queries)."""
    if isinstance(data, list) and data:
        if all(isinstance(item, dict) for item in data):
            return "a list of records" + (f" at `{where}`" if where else "")
        if depth == 1 and all(isinstance(item, str) for item in data):
            if any(hint in where.lower() for hint in QUERY_KEY_HINTS):
                return f"a list of queries at `{where}`"
        return None
    if isinstance(data, dict) and depth < 3:
        if depth == 0:
            for key in ("cases", "examples"):
                if data.get(key) == []:
                    return f"an empty `{key}` list"
        for key, value in data.items():
            found = held_records(value, f"{where}.{key}" if where else str(key), depth + 1)
            if found is not None:
                return found
    return None


def python_records(raw: bytes) -> str | None:
    """Where a Python module binds a literal holding records at module level (`TEST_CASES =
    [...]`, `EVALS = {"evals": [...]}`), as `"`TEST_CASES` holds a list of records"`; None
    when no such binding (or the module cannot be parsed)."""
    import ast

    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not names or not isinstance(value, (ast.List, ast.Tuple, ast.Dict)):
            continue
        try:
            data = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(data, tuple):
            data = list(data)
        held = held_records(data)
        if held is not None:
            return f"`{names[0]}` holds {held}"
    return None


def claim_words(claim: Claim) -> str:
    """What `detect` says of a claim: `adapter (kind)`, `canonical`, left for import,
    unclaimed, or not a fixture (the `-v` notes of `validate` and `normalize` say the same)."""
    adapter = claim.adapter
    if adapter is None:
        return {
            Verdict.OTHER_TOOL: f"left for `fixture-migrate import --from {claim.import_from}`",
            Verdict.UNCLAIMED: "unclaimed local family, not migrated",
        }.get(claim.status, "not a fixture")
    if adapter.kind == "canonical":
        return "canonical"
    return f"{adapter.name} ({adapter.kind})"
