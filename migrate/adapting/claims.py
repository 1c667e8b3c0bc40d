"""Who takes a payload, and why: the claim decision behind `migrate`, `detect`, `normalize`
and `validate` (DESIGN.md, "Claiming a file").

In order:

1. a known family: the canonical pass-through, a legacy family (its schema_version and
   shape), a plugin, or a family declared in pyproject.toml;
2. another eval tool's file (promptfoo, skill-creator, OpenAI Evals, Inspect AI,
   DeepEval, LangSmith): left to `fixture-migrate import --from FORMAT`, never
   rewritten in place;
3. a file a local family may never claim (`fixture_migrate.adapting.context.ruled_out`:
   a well-known configuration, a JSON Schema, a generated report or a run's results,
   a file under `docs/validation/` or `docs/plans/`): not a fixture;
4. a local family (`generic`, `case_list`, `output_cases_jsonl` without recorded
   outputs) with the evidence of
   eval cases *and* fixture context (an `evals`/`eval` folder, a configured `include`,
   a named skill: `fixture_migrate.adapting.context`); with the evidence and no
   context it is *unclaimed*;
5. a file that looks like a fixture but carries no such evidence, or one in an evals
   folder holding a list of records or strings: *unclaimed*, named in the output with
   what is missing (`fixture-migrate suggest` drafts a table);
6. anything else is not a fixture.

Each decision carries a one-line reason, which `detect -v` prints and reports name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixture_migrate.adapting.context import NO_CONTEXT, fixture_context, in_fixture_folder, ruled_out
from fixture_migrate.adapting.evidence import evidence, looks_like_fixture
from fixture_migrate.adapting.protocol import Adapter
from fixture_migrate.contract import rules as c
from fixture_migrate.formats import Unit
from fixture_migrate.slots import Record

CLAIMED = "claimed"
OTHER_TOOL = "other_tool"
UNCLAIMED = "unclaimed"
NOT_FIXTURE = "not_fixture"


class Claim(Record):
    """The decision for one payload: `status` (`CLAIMED`, `OTHER_TOOL`, `UNCLAIMED`,
    `NOT_FIXTURE`), the `adapter` when claimed, the `import_from` format for another
    tool's file, and the `reason` in one line."""

    __slots__ = ("status", "adapter", "reason", "import_from")

    def __init__(
        self, status: str, adapter: Adapter | None = None, reason: str = "", import_from: str | None = None
    ) -> None:
        self.status = status
        self.adapter = adapter
        self.reason = reason
        self.import_from = import_from


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


def other_tool(tools: Any, unit: Unit, syntax: str | None, path: Path | None) -> tuple[str, str] | None:
    """`(format, what)` when one of the import adapters `tools` recognizes `unit` as a file of
    its eval tool (its `sniff`), else None."""
    if syntax not in ("json", "jsonl", "yaml") or unit.binding is not None:
        return None
    from fixture_migrate.importing.readers import Source

    data = unit.data
    lines = list(range(1, len(data) + 1)) if syntax == "jsonl" and isinstance(data, list) else []
    source = Source(path=path or Path("-"), ref="", syntax=syntax, data=data, raw=b"", record_lines=lines)
    for adapter in tools:
        try:
            found = adapter.sniff(source)
        except Exception:  # noqa: BLE001 - a sniff that trips on odd data just does not match
            continue
        if found is not None and found.matched:
            return adapter.format, found.detail or adapter.format
    return None


LOCAL_FAMILIES = frozenset({"generic", "case_list", "output_cases_jsonl"})
"""Adapters of local families: they claim only with evidence and fixture context
(`fixture_migrate.adapting.context`), after other tools' files. `output_cases_jsonl`
is a known family where its lines carry recorded outputs (its `known`), a local one
otherwise; there the `generic` adapter takes lines it has the evidence for (the
vocabulary maps them)."""


def is_local(adapter: Adapter, unit: Unit) -> bool:
    """True for an adapter of a local family (claims by field names, not by a schema_version)."""
    if adapter.kind == "generic":
        return True
    if adapter.name in LOCAL_FAMILIES:
        known = getattr(adapter, "known", None)
        return not (callable(known) and known(unit))
    return False


def decide(
    registry: Any,
    unit: Unit,
    *,
    syntax: str | None = None,
    path: Path | None = None,
    declared: Any = (),
    root: Path | None = None,
    included: bool = False,
) -> Claim:
    """The claim for `unit` by `registry` (a `Registry`) and the `declared` families
    (`fixture_migrate.adapting.families`) of the file `path` (`root` the repository root,
    `included` whether it matches a configured `include`); see the module docstring."""
    adapter = registry.detect(unit)
    if adapter is not None and not is_local(adapter, unit):
        return Claim(CLAIMED, adapter, explain(adapter, unit))
    if adapter is not None and adapter.kind != "generic":
        generic = _generic(registry)
        if generic is not None and generic.claims(unit):
            adapter = generic  # the vocabulary's mapping for lines that carry its evidence
    for family in declared:
        if family.claims_at(unit, path):
            return Claim(CLAIMED, family, family.explain(unit))
    tool = other_tool(getattr(registry, "import_adapters", tuple)(), unit, syntax, path)
    if tool is None:
        tool = other_tool_shape(unit)
    if tool is not None:
        fmt, what = tool
        return Claim(
            OTHER_TOOL,
            reason=f"{what}: another tool's file; `fixture-migrate import --from {fmt}` takes it",
            import_from=fmt,
        )
    out = ruled_out(path, unit.data, root)
    if out is not None:
        return Claim(NOT_FIXTURE, reason=f"not a fixture: {out}")
    if adapter is not None:
        where = fixture_context(path, unit.data, root=root, included=included)
        if where is not None:
            return Claim(CLAIMED, adapter, f"{explain(adapter, unit)} ({where})")
        return Claim(UNCLAIMED, reason=f"{explain(adapter, unit)}, but {NO_CONTEXT}")
    if looks_like_fixture(unit):
        _, why = evidence(unit)
        return Claim(UNCLAIMED, reason=f"looks like a fixture of a local family, but {why}")
    if path is not None and in_fixture_folder(path, root):
        held = held_records(unit.data)
        if held is not None:
            return Claim(
                UNCLAIMED,
                reason=f"in an evals folder and holds {held}, but no rule places it",
            )
    return Claim(NOT_FIXTURE, reason="no case list, trigger lists or known schema_version")


def _generic(registry: Any) -> Adapter | None:
    try:
        return registry["generic"]
    except (KeyError, TypeError):
        return None


QUERY_KEY_HINTS = ("trigger", "quer", "fire", "activat", "prompt", "should", "utterance")
"""Parts of a key naming a list of queries (`should_fire`, `trigger_queries`, ...)."""


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


def other_tool_shape(unit: Unit) -> tuple[str, str] | None:
    """`(format, what)` for other eval tools' files in shapes their readers' sniffs do not
    take on sight: a promptfoo configuration of only `description` and `tests`, a LangSmith
    export `{"examples": [{inputs, outputs}]}`, OpenAI Evals samples as a JSON array
    (`[{"input": [chat messages], "ideal": ...}]`)."""
    if unit.binding is not None:
        return None
    data = unit.data
    if isinstance(data, dict):
        keys = set(data)
        tests = data.get("tests")
        if (
            "tests" in keys
            and keys <= {"description", "tests", "prompts", "providers", "defaultTest"}
            and (
                isinstance(tests, str)
                or (
                    isinstance(tests, list)
                    and tests
                    and all(isinstance(t, dict) and ("vars" in t or "assert" in t) for t in tests)
                )
            )
        ):
            return "promptfoo", "a promptfoo configuration (tests with vars/assert)"
        examples = data.get("examples")
        if (
            isinstance(examples, list)
            and examples
            and all(
                isinstance(e, dict) and "inputs" in e and ("outputs" in e or "reference_outputs" in e) for e in examples
            )
        ):
            return "langsmith", "a LangSmith export (examples with inputs and outputs)"
    if (
        isinstance(data, list)
        and data
        and all(
            isinstance(r, dict)
            and isinstance(r.get("input"), list)
            and r["input"]
            and all(isinstance(m, dict) and "role" in m and "content" in m for m in r["input"])
            and "ideal" in r
            for r in data
        )
    ):
        return "openai-evals", "OpenAI Evals samples (chat-message input, ideal)"
    return None


def claim_words(claim: Claim) -> str:
    """What `detect` says of a claim: `adapter (kind)`, `canonical`, left for import,
    unclaimed, or not a fixture (the `-v` notes of `validate` and `normalize` say the same)."""
    adapter = claim.adapter
    if adapter is None:
        return {
            "other_tool": f"left for `fixture-migrate import --from {claim.import_from}`",
            "unclaimed": "unclaimed local family, not migrated",
        }.get(claim.status, "not a fixture")
    if adapter.kind == "canonical":
        return "canonical"
    return f"{adapter.name} ({adapter.kind})"
