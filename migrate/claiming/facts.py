"""The facts the claim rules decide on, computed once per payload (DESIGN.md, "Claiming a
file"), as django-upgrade's `State` computes a file's facts once for every fixer.

`UnitFacts` holds one payload (`Unit`) of one file with where it lies, and computes each
fact on first use (`functools.cached_property`): the known family that claims it, the
other tool whose signature it has, whether it lies in fixture territory or in a sandbox
there, its list of records and whether they carry an input, its trigger lists. The rules
(`fixture_migrate.claiming.rules`) only read these facts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.adapting.protocol import Adapter
from fixture_migrate.claiming import territory as t
from fixture_migrate.formats import Unit

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
(`fixture_migrate.claiming.territory`), after other tools' files. `output_cases_jsonl`
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




class UnitFacts:
    """The facts of one payload `unit` of the file `path` (None: given directly), read with
    `registry` (a `Registry`) and the `declared` families; `root` is the repository root,
    `included` whether the file matches a configured `include` (or a function that tells,
    asked only by the rules that need it). Every fact is computed on
    first use and kept."""

    def __init__(
        self,
        registry: Any,
        unit: Unit,
        *,
        syntax: str | None = None,
        path: Path | None = None,
        declared: Any = (),
        root: Path | None = None,
        included: bool | Callable[[], bool] = False,
    ) -> None:
        self.registry = registry
        self.unit = unit
        self.syntax = syntax
        self.path = path
        self.declared = declared
        self.root = root
        self.included = included

    @cached_property
    def detected(self) -> Adapter | None:
        """The first adapter of the registry that claims the payload (a local one included)."""
        return self.registry.detect(self.unit)

    @cached_property
    def known(self) -> Adapter | None:
        """The adapter of a known family (canonical, legacy, plugin) that claims the payload."""
        adapter = self.detected
        return adapter if adapter is not None and not is_local(adapter, self.unit) else None

    @cached_property
    def local_adapter(self) -> Adapter | None:
        """The adapter that migrates a local family here: the local one the registry found
        (`output_cases_jsonl` lines without recorded outputs), unless `generic` has the
        evidence for them; else `case_list` for a list bound to a name in code, else
        `generic`."""
        generic = self._adapter("generic")
        found = self.detected
        if found is not None and found is not self.known:
            if found.kind != "generic" and generic is not None and generic.claims(self.unit):
                return generic  # the vocabulary's mapping for lines that carry its evidence
            return found
        return self._adapter("case_list" if self.unit.binding is not None else "generic")

    @cached_property
    def vocabulary_adapter(self) -> Adapter | None:
        """The adapter that migrates a local family by the vocabulary's mapping: `case_list`
        for a list bound to a name in code, else `generic`."""
        return self._adapter("case_list" if self.unit.binding is not None else "generic")

    def _adapter(self, name: str) -> Adapter | None:
        try:
            return self.registry[name]
        except (KeyError, TypeError):
            return None

    @cached_property
    def evidence(self) -> bool:
        """True when the payload carries the full evidence of eval cases outside territory
        (`evidence.evidence`: every record an input and an expected outcome, or trigger
        lists): what makes a local family worth naming there."""
        from fixture_migrate.adapting.evidence import evidence

        return evidence(self.unit)[0] is not None

    @cached_property
    def other_tool(self) -> tuple[str, str] | None:
        """`(format, what)` of the other eval tool whose signature the payload has, or None."""
        tools = getattr(self.registry, "import_adapters", tuple)()
        found = other_tool(tools, self.unit, self.syntax, self.path)
        return found if found is not None else other_tool_shape(self.unit)

    @cached_property
    def records_found(self) -> tuple[str | None, list[Any]] | None:
        """`(key, records)` of the payload's list of records (`evidence.record_list`)."""
        from fixture_migrate.adapting.evidence import record_list

        return record_list(self.unit.data)

    @property
    def records_key(self) -> str | None:
        """The key of the payload's list of records (None: a bare list, or none)."""
        return self.records_found[0] if self.records_found else None

    @cached_property
    def records(self) -> list[Any]:
        """The payload's records (empty when it has no list of records)."""
        return self.records_found[1] if self.records_found else []

    @cached_property
    def input_records(self) -> tuple[bool, str]:
        """Whether the records are cases by their inputs, and why (`evidence.input_records`)."""
        if self.records_found is None:
            return False, "it holds no list of records"
        from fixture_migrate.adapting.evidence import input_records

        return input_records(self.records)

    @cached_property
    def trigger_lists(self) -> tuple[str, ...]:
        """The payload's trigger-list keys (`vocabulary.trigger_lists`)."""
        data = self.unit.data
        return tuple(v.trigger_lists(data)) if isinstance(data, dict) else ()

    @property
    def trigger_lists_win(self) -> bool:
        """True when trigger lists, not another list of records, hold the cases."""
        return bool(self.trigger_lists) and self.records_key not in ("cases", "examples")

    @cached_property
    def ruled_out(self) -> str | None:
        """Why the file is never a local family's fixture (`territory.ruled_out`), or None."""
        return t.ruled_out(self.path, self.unit.data, self.root, self.records)

    @cached_property
    def place(self) -> Path | None:
        """Where the file is judged to lie: its path, or a symlink's target (a link in an
        evals folder does not make the file it leads to a fixture)."""
        path = self.path
        if path is not None and os.path.islink(path):
            return Path(os.path.realpath(path))
        return path

    @cached_property
    def territory(self) -> str | None:
        """Why the file lies in fixture territory (`territory.territory`), or None."""
        included = self.included() if callable(self.included) else self.included
        return t.territory(self.place, self.root, included=included)

    @cached_property
    def case_file(self) -> str | None:
        """Why the file is named as a case file (`territory.case_file`), or None."""
        return t.case_file(self.place, self.root)

    @cached_property
    def sandbox(self) -> str | None:
        """Why the file lies in a sandbox inside fixture territory, or None."""
        return t.sandbox(self.place, self.root)

    @cached_property
    def looks_like_fixture(self) -> bool:
        """True when the payload looks like a fixture (`evidence.looks_like_fixture`)."""
        from fixture_migrate.adapting.evidence import looks_like_fixture

        return looks_like_fixture(self.unit)

    @cached_property
    def family(self) -> str | None:
        """The payload's family, as reports name it: its records' members in first-seen
        order (`"{id, prompt, ideal}"`, at most eight), else its trigger lists; None when
        it holds neither."""
        keys = v.signature_of(self.records) if self.records else self.trigger_lists
        if not keys:
            return None
        shown = ", ".join(keys[:8]) + (", ..." if len(keys) > 8 else "")
        return "{" + shown + "}"
