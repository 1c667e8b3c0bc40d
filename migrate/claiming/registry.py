"""The adapter registry: which adapters exist, in which order they are asked.

Built-in adapters are listed here, explicitly, in detection order: the
canonical pass-through, then the legacy families (each told apart by its
schema_version or shape), then `case_list` (bare case lists bound to a name in
code) and `generic`, which claims any payload with a case list and so must come
last. The first adapter that claims a unit migrates it.
Import adapters (`kind = "external"`, `fixture_migrate.importing.base`) are listed too; they
never claim a unit, `fixture-migrate import` picks them.

Third-party adapters come from the entry-point group `fixture_migrate.adapters`
(each entry point names an adapter object or a class to instantiate). A plugin
that fails to load is reported by its distribution name and skipped; a plugin
named like a built-in adapter is an error (`RegistryError`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from fixture_migrate.adapting.protocol import Adapter
from fixture_migrate.formats import Unit

MIGRATION_ADAPTERS = (
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
"""Module names under `adapters/` of the adapters that claim files, in detection order."""

IMPORT_ADAPTERS = (
    "openai_evals",
    "promptfoo",
    "inspect_ai",
    "skill_creator",
    "deepeval",
    "langsmith",
)
"""Module names of the import adapters: they claim no file; `fixture-migrate import` picks them."""

BUILTIN_ADAPTERS = MIGRATION_ADAPTERS + IMPORT_ADAPTERS
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

    def import_adapters(self) -> tuple[Any, ...]:
        """The built-in import adapters, whose `sniff` recognizes other eval tools' files
        (`migrate` leaves those to `import`); loaded on first use."""
        return _import_adapters()


@lru_cache(maxsize=1)
def _import_adapters() -> tuple[Any, ...]:
    return tuple(load_builtin(name) for name in IMPORT_ADAPTERS)


def load_builtin(name: str) -> Adapter:
    """The `ADAPTER` of the built-in module `fixture_migrate.adapters.<name>`."""
    return importlib.import_module(f"fixture_migrate.adapters.{name}").ADAPTER


ENTRY_POINT_GROUP = "fixture_migrate.adapters"


def _warn(message: str) -> None:
    print(f"fixture-migrate: warning: {message}", file=sys.stderr)


def _may_declare(group: str) -> bool:
    """Whether a distribution on `sys.path` may declare entry points of `group`.

    A first look at each `*.dist-info`/`*.egg-info` folder's `entry_points.txt` (a few
    milliseconds) that spares a run the import of `importlib.metadata` (some 30 ms) when
    no plugin is installed. A path entry it cannot look into (a zip file) answers yes.
    """
    needle = f"[{group}]".encode()
    for entry in sys.path:
        try:
            found = os.scandir(entry or ".")
        except NotADirectoryError:
            return True
        except OSError:
            continue
        with found:
            for item in found:
                if not item.name.endswith((".dist-info", ".egg-info")):
                    continue
                try:
                    with open(os.path.join(item.path, "entry_points.txt"), "rb") as handle:
                        if needle in handle.read():
                            return True
                except OSError:
                    continue
    return False


def entry_points_of(group: str) -> list[Any]:
    """The entry points of `group` (`importlib.metadata.EntryPoint`s), sorted by name.

    Discovery is once per run (`default_registry` is cached); `importlib.metadata` is
    imported only when some distribution may declare the group (`_may_declare`).
    """
    if not _may_declare(group):
        return []
    from importlib.metadata import entry_points

    return sorted(entry_points(group=group), key=lambda point: point.name)


def load_plugins(warn: Callable[[str], None] = _warn) -> list[Adapter]:
    """The adapters of the `fixture_migrate.adapters` entry points, sorted by entry-point name.

    A plugin that fails to import, or whose object is not an adapter, is reported through
    `warn` by its distribution name and skipped. Raises `RegistryError` when a plugin is
    named like a built-in adapter.
    """
    found: list[Adapter] = []
    for point in entry_points_of(ENTRY_POINT_GROUP):
        dist = point.dist.name if point.dist is not None else "an unknown distribution"
        try:
            loaded = point.load()
            adapter = loaded() if isinstance(loaded, type) else loaded
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the run
            warn(f"adapter plugin {point.name!r} of {dist} failed to load ({type(exc).__name__}: {exc}); skipped")
            continue
        if not isinstance(adapter, Adapter):
            warn(
                f"adapter plugin {point.name!r} of {dist} is not an adapter (name, kind, summary, claims, to_canonical); skipped"
            )
            continue
        if adapter.name in BUILTIN_ADAPTERS:
            raise RegistryError(
                f"adapter plugin {point.name!r} of {dist} is named {adapter.name!r}, like a built-in adapter"
            )
        found.append(adapter)
    return found


@lru_cache(maxsize=1)
def _plugins() -> tuple[Adapter, ...]:
    return tuple(load_plugins())


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The registry of every built-in adapter (import adapters included) and the installed plugins."""
    return Registry([*(load_builtin(name) for name in BUILTIN_ADAPTERS), *_plugins()])


class _OnDemandRegistry(Registry):
    """The registry of `MIGRATION_ADAPTERS` and the plugins, imported as detection reaches them.

    Detection asks the built-ins in order and imports each only when it gets to it, so a
    run over canonical files imports one adapter module and looks for no plugin; plugins
    and `generic` (asked after every other adapter) are loaded when a unit gets that far.
    The answers are the full registry's: it is built, and checked for name clashes, then.
    """

    def __init__(self) -> None:  # noqa: D107 - nothing is loaded yet
        self._names = [name for name in MIGRATION_ADAPTERS if name != "generic"]
        self._loaded: list[Adapter] = []
        self._full: Registry | None = None

    def _registry(self) -> Registry:
        if self._full is None:
            self._full = Registry([*(load_builtin(name) for name in MIGRATION_ADAPTERS), *_plugins()])
        return self._full

    def __iter__(self) -> Iterator[Adapter]:
        return iter(self._registry())

    def __getitem__(self, name: str) -> Adapter:
        return self._registry()[name]

    def detect(self, unit: Unit) -> Adapter | None:
        for index, name in enumerate(self._names):
            if index == len(self._loaded):
                self._loaded.append(load_builtin(name))
            if self._loaded[index].claims(unit):
                return self._loaded[index]
        return self._registry().detect(unit)


@lru_cache(maxsize=1)
def migration_registry() -> Registry:
    """The adapters that can claim a file (no import adapters), and the installed plugins:
    what `migrate`, `normalize`, `validate` and `detect` ask, loaded on demand."""
    return _OnDemandRegistry()


def forget() -> None:
    """Drop the registries and plugins found so far, so the next run looks again (tests)."""
    for cached in (_plugins, default_registry, migration_registry):
        cached.cache_clear()
