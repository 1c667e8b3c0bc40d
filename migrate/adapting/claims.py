"""Who takes a payload, and why: the claim decision behind `migrate`, `detect`, `normalize`
and `validate` (DESIGN.md, "Claiming a file").

In order:

1. a known family: the canonical pass-through, a legacy family (its schema_version and
   shape), a plugin, or a family declared in pyproject.toml;
2. another eval tool's file (promptfoo, skill-creator, OpenAI Evals, Inspect AI,
   DeepEval, LangSmith): left to `fixture-migrate import --from FORMAT`, never
   rewritten in place;
3. a local family with the evidence of eval cases (`generic`, `case_list`);
4. a file that looks like a fixture but carries no such evidence: *unclaimed*, named
   in the output with what is missing (`fixture-migrate suggest` drafts a table);
5. anything else is not a fixture.

Each decision carries a one-line reason, which `detect -v` prints and reports name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def decide(
    registry: Any, unit: Unit, *, syntax: str | None = None, path: Path | None = None, declared: Any = ()
) -> Claim:
    """The claim for `unit` by `registry` (a `Registry`) and the `declared` families
    (`fixture_migrate.adapting.families`) of the file `path`; see the module docstring."""
    adapter = registry.detect(unit)
    if adapter is not None and adapter.kind != "generic":
        return Claim(CLAIMED, adapter, explain(adapter, unit))
    for family in declared:
        if family.claims_at(unit, path):
            return Claim(CLAIMED, family, family.explain(unit))
    tool = other_tool(getattr(registry, "import_adapters", tuple)(), unit, syntax, path)
    if tool is not None:
        fmt, what = tool
        return Claim(
            OTHER_TOOL,
            reason=f"{what}: another tool's file; `fixture-migrate import --from {fmt}` takes it",
            import_from=fmt,
        )
    if adapter is not None:
        return Claim(CLAIMED, adapter, explain(adapter, unit))
    if looks_like_fixture(unit):
        _, why = evidence(unit)
        return Claim(UNCLAIMED, reason=f"looks like a fixture of a local family, but {why}")
    return Claim(NOT_FIXTURE, reason="no case list, trigger lists or known schema_version")
