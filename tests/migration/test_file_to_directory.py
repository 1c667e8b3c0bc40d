"""A fixture turned into a directory mid-run is an error in place; nothing else is affected
(issue "Reliability round 3", item 8). Each step of the write is tried, and the moment
between the plan and the write."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fixture_migrate.migration import engine as engine_module

from tests.migration.test_races import LEGACY, WRITE_STEPS, at_step, run_migrate, snapshot, temps, tree  # noqa: F401


def _to_directory(path: Path) -> None:
    os.unlink(path)
    path.mkdir()
    (path / "inside.json").write_bytes(b'{"kept": true}\n')


@pytest.mark.parametrize("step", WRITE_STEPS)
def test_a_file_turned_into_a_directory_during_its_write_is_an_error_in_place(tree, at_step, step):  # noqa: F811
    root, evals, _ = tree
    first, second = evals / "a.json", evals / "b.json"
    first.write_bytes(LEGACY)
    second.write_bytes(LEGACY)
    hooked = [False]

    def turn() -> None:
        if not hooked[0] and first.is_file():
            hooked[0] = True
            _to_directory(first)

    at_step(step, turn)
    code, err = run_migrate(root, first, second)
    assert hooked[0], "the write never reached the step"
    assert code == 2 and "a.json" in err
    assert first.is_dir() and (first / "inside.json").read_bytes() == b'{"kept": true}\n'
    assert second.read_bytes() != LEGACY  # the other file is migrated
    assert temps(root) == []


def test_a_file_turned_into_a_directory_between_plan_and_write(tree, monkeypatch):  # noqa: F811
    root, evals, _ = tree
    first, second = evals / "a.json", evals / "b.json"
    first.write_bytes(LEGACY)
    second.write_bytes(LEGACY)
    apply = engine_module.Engine.apply

    def turned(self, result):
        if result.path == first:
            _to_directory(first)
        return apply(self, result)

    monkeypatch.setattr(engine_module.Engine, "apply", turned)
    code, err = run_migrate(root, first, second)
    assert code == 2 and "a.json" in err
    assert snapshot(first) == {"inside.json": b'{"kept": true}\n'}
    assert second.read_bytes() != LEGACY
    assert temps(root) == []


def test_many_tiny_files_are_all_walked_and_planned(tmp_path):
    """The mechanism a run over 10^5 tiny files rests on, at 3,000: every file is walked
    once and planned, with no descriptor left open."""
    root = tmp_path / "repo"
    evals = root / "skills" / "s" / "evals"
    evals.mkdir(parents=True)
    for n in range(3000):
        (evals / f"c{n}.json").write_bytes(b"{}")
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    code, err = run_migrate(root)
    assert code == 0 and "(3000 files scanned, 3000 not fixtures)" in err
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) <= before + 2
    shutil.rmtree(root)
