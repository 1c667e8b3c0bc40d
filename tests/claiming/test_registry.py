"""`fixture_migrate.claiming.registry`: the built-in adapters in detection order, plugins from
the entry-point group, name clashes refused, and one adapter = one module = one test
module = one snapshot folder."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_migrate.adapting.protocol import Adapter, FamilyAdapter
from fixture_migrate.claiming import registry
from fixture_migrate.claiming.registry import (
    BUILTIN_ADAPTERS,
    IMPORT_ADAPTERS,
    MIGRATION_ADAPTERS,
    Registry,
    RegistryError,
    default_registry,
    load_builtin,
    migration_registry,
)
from fixture_migrate.formats import Unit

from tests.helpers import ROOT


def test_every_registered_adapter_has_its_module_test_module_and_snapshot_folder() -> None:
    """As django-upgrade's fixers: the registry key is the module name everywhere."""
    problems = []
    for name in BUILTIN_ADAPTERS:
        if load_builtin(name).name != name:
            problems.append(f"{name}: its ADAPTER is named {load_builtin(name).name!r}")
        for needed in (
            ROOT / "adapters" / f"{name}.py",
            ROOT / "tests" / "adapters" / f"test_{name}.py",
            ROOT / "snapshots" / "adapters" / f"test_{name}",
        ):
            if not needed.exists():
                problems.append(f"{name}: {needed.relative_to(ROOT)} is missing")
    assert problems == []


def test_every_adapter_module_is_registered() -> None:
    modules = {path.stem for path in (ROOT / "adapters").glob("*.py")} - {"__init__"}
    assert modules == set(BUILTIN_ADAPTERS)
    tests = {path.stem.removeprefix("test_") for path in (ROOT / "tests" / "adapters").glob("test_*.py")}
    assert tests == set(BUILTIN_ADAPTERS)


def test_builtins_are_unique_and_meet_the_protocol() -> None:
    assert len(set(BUILTIN_ADAPTERS)) == len(BUILTIN_ADAPTERS)
    for adapter in default_registry():
        assert isinstance(adapter, Adapter)
        assert adapter.kind in ("canonical", "family", "generic", "external")
        assert adapter.summary


def test_import_adapters_never_claim_a_file() -> None:
    unit = Unit({"samples": [{"input": "x", "ideal": "y"}], "cases": []})
    for name in IMPORT_ADAPTERS:
        assert load_builtin(name).kind == "external"
        assert not load_builtin(name).claims(unit)


def test_generic_adapters_are_asked_last() -> None:
    names = [adapter.name for adapter in default_registry()]
    generic = [adapter.name for adapter in default_registry() if adapter.kind == "generic"]
    assert names[-len(generic) :] == generic
    assert names[0] == "canonical"
    assert MIGRATION_ADAPTERS[-1] == "generic"


def test_detect_asks_in_order_and_the_first_claim_wins() -> None:
    first = FamilyAdapter(name="first", schema_version="x/v1", summary="first")
    second = FamilyAdapter(name="second", schema_version="x/v1", summary="second")
    found = Registry([first, second]).detect(Unit({"schema_version": "x/v1", "cases": []}))
    assert found is first
    assert Registry([first]).detect(Unit({"schema_version": "y/v1", "cases": []})) is None


def test_a_name_clash_is_an_error() -> None:
    one = FamilyAdapter(name="same", schema_version="a/v1", summary="a")
    other = FamilyAdapter(name="same", schema_version="b/v1", summary="b")
    with pytest.raises(RegistryError, match="two adapters are named 'same'"):
        Registry([one, other])


@pytest.mark.parametrize(
    ("payload", "name"),
    [
        pytest.param({"schema_version": "spec-first.workflow-eval-fixtures.v1", "cases": []}, "canonical", id="v1"),
        pytest.param({"schema_version": "prompt-examples/v1", "examples": []}, "prompt_examples_v1", id="family"),
        pytest.param({"cases": [{"input": "x", "expected": "y"}]}, "generic", id="generic"),
        pytest.param({"name": "package"}, None, id="not-a-fixture"),
    ],
)
def test_the_migration_registry_answers_as_the_full_one(payload, name) -> None:
    unit = Unit(payload)
    found = migration_registry().detect(unit)
    assert (found.name if found else None) == name
    full = default_registry().detect(unit)
    assert (full.name if full else None) == name


@dataclass(frozen=True)
class _EntryPoint:
    name: str
    loaded: object
    dist: object = None

    def load(self) -> object:
        if isinstance(self.loaded, Exception):
            raise self.loaded
        return self.loaded


def test_plugins_load_and_broken_ones_are_skipped_with_a_warning(monkeypatch) -> None:
    good = FamilyAdapter(name="mine_v1", schema_version="mine/v1", summary="mine")
    points = [
        _EntryPoint("broken", ImportError("no module named mine")),
        _EntryPoint("good", good),
        _EntryPoint("not_adapter", object()),
    ]
    monkeypatch.setattr(registry, "entry_points_of", lambda group: points)
    warnings: list[str] = []
    assert registry.load_plugins(warnings.append) == [good]
    assert len(warnings) == 2
    assert "'broken' of an unknown distribution failed to load (ImportError" in warnings[0]
    assert "'not_adapter'" in warnings[1] and "is not an adapter" in warnings[1]


def test_a_plugin_named_like_a_builtin_is_an_error(monkeypatch) -> None:
    clash = FamilyAdapter(name="generic", schema_version="mine/v1", summary="mine")
    monkeypatch.setattr(registry, "entry_points_of", lambda group: [_EntryPoint("generic", clash)])
    with pytest.raises(RegistryError, match="like a built-in adapter"):
        registry.load_plugins()


def test_no_plugin_search_without_a_declaring_distribution(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert registry.entry_points_of(registry.ENTRY_POINT_GROUP) == []
