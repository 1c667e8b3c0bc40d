"""The adapter registry: which adapters exist, in which order they are asked.

Built-in adapters are listed here, explicitly, in detection order: the
canonical pass-through, then the legacy families (each told apart by its
schema_version or shape), then `case_list` (bare case lists bound to a name in
code) and `generic`, which claims any payload with a case list and so must come last. The first adapter that claims a unit migrates it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from functools import lru_cache

from migrate.adapter import Adapter
from migrate.formats import Unit

BUILTIN_ADAPTERS = (
    "canonical",
    "prompt_examples_v1",
    "spec_prd_evals_v1",
    "spec_write_tasks_boundary_cases_v1",
    "using_spec_first_routing_cases_v1",
    "spec_write_tasks_output_quality_cases_v1",
    "skill_audit_security_cases_v1",
    "skill_audit_trigger_cases_v1",
    "spec_write_tasks_expected_behavior_cases_v1",
    "spec_graph_bootstrap_expected_behavior_cases_v1",
    "agent_native_architecture_eval_examples_v1",
    "team_standards_output_evals_v1",
    "team_standards_trigger_evals_v1",
    "skill_audit_eval_cases_v1",
    "skill_audit_boundary_cases_v1",
    "spec_write_tasks_failure_cases_v1",
    "spec_write_tasks_trigger_cases_v1",
    "spec_graph_bootstrap_boundary_cases_v1",
    "spec_graph_bootstrap_failure_cases_v1",
    "spec_graph_bootstrap_trigger_cases_v1",
    "spec_app_consistency_audit_recorded_output_fixtures_v1",
    "spec_plan_output_quality_cases_v1",
    "spec_write_skill_trigger_cases_v1",
    "yao_semantic_trigger_cases_v1",
    "output_cases_jsonl",
    "case_list",
    "generic",
)
"""Module names under `adapters/`, in detection order; each holds one `ADAPTER`."""


class RegistryError(Exception):
    """The set of adapters is inconsistent (two adapters with one name)."""


class Registry:
    """An ordered set of adapters with unique names.

    `adapters` are asked in order; `generic` adapters are always asked after the rest.
    Raises `RegistryError` when two adapters share a name.
    """

    def __init__(self, adapters: Iterable[Adapter]) -> None:
        ordered = sorted(adapters, key=lambda adapter: adapter.kind == "generic")
        self._by_name: dict[str, Adapter] = {}
        for adapter in ordered:
            if adapter.name in self._by_name:
                raise RegistryError(f"two adapters are named {adapter.name!r}")
            self._by_name[adapter.name] = adapter

    def __iter__(self) -> Iterator[Adapter]:
        return iter(self._by_name.values())

    def __getitem__(self, name: str) -> Adapter:
        return self._by_name[name]

    def detect(self, unit: Unit) -> Adapter | None:
        """The first adapter that claims `unit`, or None when it is not a fixture."""
        for adapter in self._by_name.values():
            if adapter.claims(unit):
                return adapter
        return None


def load_builtin(name: str) -> Adapter:
    """The `ADAPTER` of the built-in module `adapters.<name>`."""
    return importlib.import_module(f"adapters.{name}").ADAPTER


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The registry of the built-in adapters."""
    return Registry(load_builtin(name) for name in BUILTIN_ADAPTERS)
