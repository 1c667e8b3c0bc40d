"""A run that writes nothing lets the pin verdicts of its changes wait for the index of
pinned files, which it then builds from its own reads (`MigrationRun.outcomes`,
`PinIndex.feed`): the same outcomes, in the same order, as a run that builds the index at
its first change by reading every tracked file, and no walked file read a second time."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fixture_migrate.config import iter_selected
from fixture_migrate.consumers import pins
from fixture_migrate.consumers.pins import PinIndex, TrackedReader
from fixture_migrate.files import parallel
from fixture_migrate.migration import run as run_module
from fixture_migrate.migration.engine import Options
from fixture_migrate.migration.run import MigrateMode, MigrationRun
from fixture_migrate.migration.status import Status

ROOT = Path(__file__).resolve().parents[2]
LEGACY = (ROOT / "examples" / "legacy" / "review-examples.json").read_bytes()
CANONICAL = (ROOT / "examples" / "canonical" / "release-notes.json").read_bytes()


def _legacy(n: int) -> bytes:
    """A legacy file of other bytes than `LEGACY` (so of other digests)."""
    data = json.loads(LEGACY)
    data["skill"] = f"demo-{n}"
    return json.dumps(data, indent=2).encode()


def _digests(body: bytes) -> tuple[str, str]:
    return hashlib.sha256(body).hexdigest(), hashlib.sha1(body).hexdigest()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Four legacy files, pinned from walked files after them, from files the run does not
    walk before and after them in the index's order, and by size; one left unpinned."""
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    a, c, d, e = LEGACY, _legacy(1), _legacy(2), _legacy(3)
    (evals / "a-legacy.json").write_bytes(a)
    (evals / "b-canonical.json").write_bytes(CANONICAL)
    (evals / "c-legacy.json").write_bytes(c)
    (evals / "d-legacy.json").write_bytes(d)
    (evals / "e-legacy.json").write_bytes(e)
    # Walked after the files it pins (a by sha256, d by sha1); not a fixture.
    (evals / "z-manifest.json").write_text(json.dumps({"a": _digests(a)[0], "d": _digests(d)[1]}, indent=1))
    # Not walked: before the manifest in the index's order (d's sha1 too: its place wins) ...
    (root / "aa-notes").mkdir()
    (root / "aa-notes" / "pins.txt").write_text(f"x\n{_digests(d)[1]}\n")
    # ... and after it (a's sha256 too: the manifest's place wins), and c by its size.
    (root / "zz-notes").mkdir()
    (root / "zz-notes" / "pins.txt").write_text(f"{_digests(a)[0]}\nc-legacy.json is {len(c)} bytes\n")
    return root


def _run(root: Path, mode: MigrateMode, **kwargs) -> tuple[MigrationRun, list[tuple[str, Status, str | None]]]:
    options = Options(repo_root=root)
    run = MigrationRun.over(iter_selected([root], options), options, mode, pins=PinIndex, **kwargs)
    found = [(o.result.path.relative_to(root).as_posix(), o.status, o.pinned_by) for o in run.outcomes()]
    return run, found


def _at_first_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs from here on build the index at their first change, as before (no waiting)."""
    monkeypatch.setattr(MigrationRun, "_waits", lambda self, outcome: False)


def test_the_verdicts_are_those_of_an_index_built_at_the_first_change(tree, monkeypatch):
    waited, found = _run(tree, MigrateMode(check=True))
    evals = "skills/demo/evals/"
    assert found == [
        (evals + "a-legacy.json", Status.PINNED, "skills/demo/evals/z-manifest.json:2"),
        (evals + "b-canonical.json", Status.UNCHANGED, None),
        (evals + "c-legacy.json", Status.PINNED, "zz-notes/pins.txt:2"),
        (evals + "d-legacy.json", Status.PINNED, "aa-notes/pins.txt:2"),
        (evals + "e-legacy.json", Status.CHANGED, None),
        (evals + "z-manifest.json", Status.NOT_FIXTURE, None),
    ]
    _at_first_change(monkeypatch)
    at_once, same = _run(tree, MigrateMode(check=True))
    assert same == found
    assert waited.summary() == at_once.summary() and waited.summary()["pinned"] == 3


def test_no_walked_file_after_the_first_change_is_read_again(tree, monkeypatch):
    read: list[str] = []
    original = TrackedReader.read

    def counted(self, path, relative):
        read.append(relative)
        return original(self, path, relative)

    monkeypatch.setattr(TrackedReader, "read", counted)
    _run(tree, MigrateMode(check=True))
    # The first change (a) was read before the run knew it would need the index; every walked
    # file after it reached the index through the run's own read.
    assert sorted(read) == ["aa-notes/pins.txt", "skills/demo/evals/a-legacy.json", "zz-notes/pins.txt"]
    read.clear()
    _at_first_change(monkeypatch)
    _run(tree, MigrateMode(check=True))
    assert len(read) == 8  # every tracked file, read again


@pytest.mark.parametrize("wait", [1, 2, 3])
def test_a_full_wait_builds_the_index_at_once_and_the_run_goes_on(tree, monkeypatch, wait):
    monkeypatch.setattr(run_module, "PIN_WAIT", wait)
    run, found = _run(tree, MigrateMode(check=True))
    _at_first_change(monkeypatch)
    reference, expected = _run(tree, MigrateMode(check=True))
    assert found == expected and run.summary() == reference.summary()


@pytest.mark.parametrize("mode", [MigrateMode(diff=True), MigrateMode()], ids=["diff", "write"])
def test_runs_that_write_or_show_diffs_never_wait(tree, monkeypatch, mode):
    fed: list[str] = []
    monkeypatch.setattr(PinIndex, "feed", lambda self, relative, data: fed.append(relative))
    run, found = _run(tree, mode)
    assert fed == [] and run._waiting is None
    assert [status for _, status, _ in found].count(Status.PINNED) == 3
    assert (tree / "skills/demo/evals/a-legacy.json").read_bytes() == LEGACY, "a pinned file is never written"


def test_files_planned_in_worker_processes_feed_nothing_and_give_the_same_verdicts(tree, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_FILES_PER_JOB", 1)
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    fed: list[str] = []
    released: list[bool] = []
    monkeypatch.setattr(PinIndex, "feed", lambda self, relative, data: fed.append(relative))
    monkeypatch.setattr(MigrationRun, "_release", lambda self: released.append(True))
    pools = parallel.pools_started
    options = Options(repo_root=tree)
    run = MigrationRun.over(iter_selected([tree], options), options, MigrateMode(check=True), pins=PinIndex)
    found = [(o.result.path.name, o.status, o.pinned_by) for o in run.outcomes(jobs=2)]
    assert parallel.pools_started == pools + 1, "the files were planned in worker processes"
    assert fed == [] and released == []  # nothing waited: the index was built at the first change
    monkeypatch.undo()
    _, expected = _run(tree, MigrateMode(check=True))
    assert found == [(Path(path).name, status, by) for path, status, by in expected]


def test_an_index_built_from_fed_bytes_is_the_index_built_by_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(pins, "MAX_TEXT_BYTES", 64)
    (tmp_path / "a").mkdir()
    files = {
        "a/digests.txt": f"{'ab' * 20}\n{'cd' * 32} x\n".encode(),  # over 64 bytes: never read
        "a/sizes.md": b"t.json 12\nu.yaml 7 8\n",
        "a/binary.dat": b"\0" + b"ef" * 20,
        "a/empty.txt": b"",
        "b.txt": f"{'12' * 20}\nt.json 12\n".encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    read = PinIndex(tmp_path)
    read.keep_inputs = True
    read.build()
    fed = PinIndex(tmp_path)
    fed.keep_inputs = True
    for name in ("a/sizes.md", "a/binary.dat", "a/digests.txt", "b.txt"):
        fed.feed(name, files[name])
    fed.feed("not/tracked.txt", b"t.json 12\n")  # fed, but no file there: adds nothing
    fed.build()
    assert (fed._digests, fed._sizes, fed.inputs) == (read._digests, read._sizes, read.inputs)
    assert read._digests == {"12" * 20: "b.txt:1"} and read._sizes[("t.json", 12)] == ["b.txt:2", "a/sizes.md:1"]
    fed.feed("b.txt", b"")  # once built, the index takes nothing more
    assert fed._fed == {}


def test_files_reached_through_a_symlinked_folder_give_the_same_verdicts(tree, monkeypatch):
    # The walk may reach a folder's files through a symlink to it: the index reads a tracked
    # name only along its real path, so what such a read gives stands only for that path.
    (tree / "skills" / "alias").symlink_to(tree / "skills" / "demo", target_is_directory=True)
    (tree / "skills" / "other" / "evals").mkdir(parents=True)
    (tree / "skills" / "other" / "evals" / "x-legacy.json").write_bytes(_legacy(9))
    (tree / "skills" / "other" / "evals" / "y.json").write_text(f'{{"pin": "{_digests(_legacy(9))[0]}"}}')
    run, found = _run(tree, MigrateMode(check=True))
    _at_first_change(monkeypatch)
    reference, expected = _run(tree, MigrateMode(check=True))
    assert found == expected and run.summary() == reference.summary()
    assert ("skills/other/evals/x-legacy.json", Status.PINNED, "skills/other/evals/y.json:1") in found


def test_a_wait_past_its_time_builds_the_index_at_once(tree, monkeypatch):
    monkeypatch.setattr(run_module, "PIN_WAIT_SECONDS", 0.0)
    run, found = _run(tree, MigrateMode(check=True))
    _at_first_change(monkeypatch)
    reference, expected = _run(tree, MigrateMode(check=True))
    assert found == expected and run.summary() == reference.summary()


def test_what_is_fed_past_the_budget_is_dropped_and_read_by_the_build(tmp_path, monkeypatch):
    monkeypatch.setattr(pins, "FEED_BUDGET", 2)
    files = {"a.txt": f"{'ab' * 20}\n".encode(), "b.txt": f"{'cd' * 20} {'ef' * 20}\nt.json 3\n".encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    fed = PinIndex(tmp_path)
    fed.feed("a.txt", files["a.txt"])
    assert list(fed._fed) == ["a.txt"]
    fed.feed("b.txt", files["b.txt"])  # 1 + 3 found: past the budget
    assert fed._fed == {}
    fed.feed("a.txt", files["a.txt"])  # no more feeding in this index
    assert fed._fed == {}
    read = PinIndex(tmp_path)
    fed.build(), read.build()
    assert (fed._digests, fed._sizes) == (read._digests, read._sizes) and len(read._digests) == 3


def test_a_file_git_does_not_track_is_not_fed(tmp_path):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    run = lambda *args: subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (tmp_path / "tracked.txt").write_text(f"{'ab' * 20}\n")
    (tmp_path / "untracked.txt").write_text(f"{'cd' * 20}\n")
    run("add", "tracked.txt")
    fed = PinIndex(tmp_path)
    for name in ("tracked.txt", "untracked.txt"):
        fed.feed(name, (tmp_path / name).read_bytes())
    assert list(fed._fed) == ["tracked.txt"]
    read = PinIndex(tmp_path)
    fed.build(), read.build()
    assert fed._digests == read._digests == {"ab" * 20: "tracked.txt:1"}
