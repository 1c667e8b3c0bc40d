"""`fixture_migrate.migration.run`: the migrate run loop, with no printing: each file's
`Outcome`, the skip rule, the pin check, a failed write, the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.config import iter_selected
from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.engine import Engine, Options
from fixture_migrate.migration.run import MigrateMode, MigrationRun
from fixture_migrate.migration.status import Status

ROOT = Path(__file__).resolve().parents[2]
LEGACY = (ROOT / "examples" / "legacy" / "review-examples.json").read_bytes()
CANONICAL = (ROOT / "examples" / "canonical" / "release-notes.json").read_bytes()
OTHER_TOOL = b'{"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "expected_output": "o"}]}\n'
UNCLAIMED = json.dumps({"cases": [{"id": "a", "prompt": "p", "expected_behavior": "e"}]}).encode()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (root / ".git").mkdir()
    (evals / "a-legacy.json").write_bytes(LEGACY)
    (evals / "b-canonical.json").write_bytes(CANONICAL)
    (evals / "evals.json").write_bytes(OTHER_TOOL)
    (root / "data").mkdir()
    (root / "data" / "qa.json").write_bytes(UNCLAIMED)
    (root / "data" / "broken.json").write_bytes(b"{")  # unreadable, outside the places fixtures live
    (root / "notes.json").write_bytes(b'{"name": "x"}')
    return root


def outcomes(root: Path, mode: MigrateMode, **kwargs) -> tuple[MigrationRun, dict[str, object]]:
    options = Options(repo_root=root)
    run = MigrationRun.over(iter_selected([root], options), options, mode, **kwargs)
    found = {o.result.path.relative_to(root).as_posix(): o for o in run.outcomes()}
    return run, found


def test_each_file_ends_in_one_status_and_the_summary_counts_them(tree: Path):
    run, found = outcomes(tree, MigrateMode(check=True))
    assert {name: o.status for name, o in found.items()} == {
        "data/broken.json": Status.SKIPPED,
        "data/qa.json": Status.UNCLAIMED,
        "notes.json": Status.NOT_FIXTURE,
        "skills/demo/evals/a-legacy.json": Status.CHANGED,
        "skills/demo/evals/b-canonical.json": Status.UNCHANGED,
        "skills/demo/evals/evals.json": Status.OTHER_TOOL,
    }
    assert found["data/broken.json"].error is None and "[invalid_json]" in found["data/broken.json"].result.reason
    assert (tree / "skills/demo/evals/a-legacy.json").read_bytes() == LEGACY, "--check writes nothing"
    summary = run.summary()
    assert {k: summary[k] for k in ("files_scanned", "migrated", "unchanged", "not_fixtures", "unclaimed")} == {
        "files_scanned": 6,
        "migrated": 1,
        "unchanged": 1,
        "not_fixtures": 1,
        "unclaimed": 1,
    }
    assert (summary["skipped"], summary["errors"], summary["other_tools"]) == (1, 0, {"skill-creator": 1})
    assert summary["cases_migrated"] == found["skills/demo/evals/a-legacy.json"].result.cases > 0
    assert summary["written"] is False and "pinned" not in summary
    assert [group["status"] for group in summary["not_migrated"]] == [Status.UNCLAIMED, Status.OTHER_TOOL]  # walk order


def test_a_named_unreadable_file_stays_an_error(tree: Path):
    broken = tree / "data" / "broken.json"
    options = Options(repo_root=tree)
    run = MigrationRun.over(iter_selected([broken], options), options, MigrateMode(check=True), named={broken})
    [outcome] = run.outcomes()
    assert outcome.status is Status.ERROR and outcome.error is not None and outcome.error.code == "invalid_json"
    assert run.summary()["errors"] == 1


def test_a_write_writes_and_a_second_run_finds_nothing_to_do(tree: Path):
    run, found = outcomes(tree, MigrateMode())
    assert found["skills/demo/evals/a-legacy.json"].status is Status.CHANGED
    assert (tree / "skills/demo/evals/a-legacy.json").read_bytes() != LEGACY
    assert run.summary()["written"] is True
    again, found = outcomes(tree, MigrateMode())
    assert found["skills/demo/evals/a-legacy.json"].status is Status.UNCHANGED and again.summary()["migrated"] == 0


class Pins:
    """A pin index that pins every file it is asked about."""

    built: list[Path] = []

    def __init__(self, root: Path) -> None:
        Pins.built.append(root)

    def pinned_by(self, path: Path, fingerprint: object) -> str:
        return "tests/pins.txt:1"


def test_a_pinned_change_is_left_undone_unless_pinned_files_are_included(tree: Path):
    Pins.built = []
    run, found = outcomes(tree, MigrateMode(), pins=Pins)
    legacy = found["skills/demo/evals/a-legacy.json"]
    assert (legacy.status, legacy.pinned_by, legacy.result.status) == (Status.PINNED, "tests/pins.txt:1", Status.CHANGED)
    assert (tree / "skills/demo/evals/a-legacy.json").read_bytes() == LEGACY
    summary = run.summary()
    assert (summary["pinned"], summary["migrated"], summary["cases_migrated"]) == (1, 0, 0)
    assert Pins.built == [tree], "the index is built once, at the first change"
    _, found = outcomes(tree, MigrateMode(include_pinned=True), pins=Pins)
    assert found["skills/demo/evals/a-legacy.json"].status is Status.CHANGED
    assert (tree / "skills/demo/evals/a-legacy.json").read_bytes() != LEGACY


def test_a_failed_write_is_the_file_s_error_and_the_other_files_go_on(tree: Path, monkeypatch):
    (tree / "skills/demo/evals/c-legacy.json").write_bytes(LEGACY)
    real_apply = Engine.apply

    def apply(self, result):
        if result.path.name == "a-legacy.json":
            raise FixtureError("cannot write: disk full", code="io")
        real_apply(self, result)

    monkeypatch.setattr(Engine, "apply", apply)
    run, found = outcomes(tree, MigrateMode())
    failed = found["skills/demo/evals/a-legacy.json"]
    assert (failed.status, failed.result.status, failed.error.code) == (Status.ERROR, Status.CHANGED, "io")
    assert found["skills/demo/evals/c-legacy.json"].status is Status.CHANGED
    summary = run.summary()
    assert (summary["migrated"], summary["errors"], summary["cases_migrated"]) == (1, 1, failed.result.cases)
