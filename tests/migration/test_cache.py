"""The cache of `migrate` verdicts: reused only for the same bytes, path, tool and settings;
corrupt or foreign files ignored; safe under concurrent runs; never the source of a write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from fixture_migrate.files import beneath
from fixture_migrate.migration import cache as cache_module
from fixture_migrate.migration.cache import CACHE_DIR_NAME, ENV_VAR, MAGIC, digest
from fixture_migrate.migration.engine import Engine

from tests.helpers import CANONICAL, LEGACY
from tests.runner import ROOT, run_cli

# The same length as CANONICAL, but a legacy file: only its bytes tell them apart.
LEGACY_SAME_SIZE = CANONICAL.replace("spec-first.workflow-eval-fixtures.v1", "spec-first.skill-audit-eval-cases.v1")
assert len(LEGACY_SAME_SIZE) == len(CANONICAL)


@pytest.fixture(autouse=True)
def per_file_cache_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the per-file cache: no run's record (`fixture_migrate.migration.replay`,
    tested in tests/migration/test_replay.py) replays a re-run before it reaches it."""
    from fixture_migrate.cli import recording

    monkeypatch.setattr(recording, "start", lambda *args, **kwargs: (None, None))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(ENV_VAR, raising=False)  # the default place: at the repo root
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "legacy.json").write_text(LEGACY)
    (evals / "canonical.json").write_text(CANONICAL)
    (evals / "other.json").write_text('{"not": "a fixture"}\n')
    return root


def check(tree: Path, monkeypatch, capsys, *extra: str):
    return run_cli(["migrate", "--check", "--repo-root", str(tree), *extra, str(tree)], tree, monkeypatch, capsys)


def cache_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.cache"))


def planned(monkeypatch) -> list[str]:
    """The names of the files the engine plans from now on (a cached verdict plans none)."""
    names: list[str] = []
    original = Engine.plan_bytes

    def spy(self, path, raw):
        names.append(Path(path).name)
        return original(self, path, raw)

    monkeypatch.setattr(Engine, "plan_bytes", spy)
    return names


def test_a_rerun_reuses_every_verdict_and_says_the_same(tree, monkeypatch, capsys):
    first = check(tree, monkeypatch, capsys)
    directory = tree / CACHE_DIR_NAME
    assert len(cache_files(directory)) == 1
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    names = planned(monkeypatch)
    second = check(tree, monkeypatch, capsys)
    assert names == []
    assert (second.code, second.out, second.err) == (first.code, first.out, first.err)
    assert first.code == 1 and "would migrate" in first.err and "legacy.json" in first.err


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(tree, monkeypatch, capsys):
    target = tree / "skills" / "demo" / "evals" / "canonical.json"
    (tree / "skills" / "demo" / "evals" / "legacy.json").unlink()
    assert check(tree, monkeypatch, capsys).code == 0
    before = os.stat(target)
    target.write_text(LEGACY_SAME_SIZE)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(target)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    names = planned(monkeypatch)
    result = check(tree, monkeypatch, capsys)
    assert names == ["canonical.json"]
    assert result.code == 1 and "would migrate" in result.err


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"garbage \x00\xff",
        MAGIC,
        MAGIC + b"{not json",
        MAGIC + b"[]",
        MAGIC + b'{"key": "other", "entries": {}}',
        b'{"key": "KEY", "entries": {}}',  # no magic line
        MAGIC + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": ["00", "unchanged"]}}',
        MAGIC + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": [1, "unchanged", [], 0, 1, {}, "", false]}}',
        MAGIC + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": ["DIGEST", "written", [], 0, 1, {}, "", false]}}',
        MAGIC + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": ["DIGEST", "unchanged", [], 0, 1, {}, ""]}}',
        MAGIC + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": ["DIGEST", "unchanged", [], 0, 1, {}, "", 1]}}',
        MAGIC + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": ["DIGEST", "unchanged", [1], 0, 1, {}, "", false]}}',
        MAGIC
        + b'{"key": "KEY", "entries": {"skills/demo/evals/legacy.json": ["DIGEST", "unchanged", [], 0, 1, {}, "", false], "x": 3}}',
    ],
)
def test_a_corrupt_or_foreign_cache_file_is_ignored_and_replaced(tree, monkeypatch, capsys, content):
    first = check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    legacy = (tree / "skills" / "demo" / "evals" / "legacy.json").read_bytes()
    content = content.replace(b"KEY", path.stem.encode()).replace(b"DIGEST", digest(legacy).hex().encode())
    path.write_bytes(content)
    names = planned(monkeypatch)
    again = check(tree, monkeypatch, capsys)
    assert (again.code, again.err) == (first.code, first.err)
    assert "legacy.json" in names  # planned, not taken from the damaged file
    assert path.read_bytes().startswith(MAGIC)
    assert orjson.loads(path.read_bytes()[len(MAGIC) :])["key"] == path.stem


def _plant(path: Path, key: str, relative: str, content: bytes, status: str, adapters: list[str]) -> None:
    entries = {relative: [digest(content).hex(), status, adapters, 7, 1, {"x": 1}, "", False]}
    path.write_bytes(MAGIC + orjson.dumps({"key": key, "entries": entries}))


def test_no_cache_neither_reads_nor_writes_it(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    legacy = tree / "skills" / "demo" / "evals" / "legacy.json"
    # A verdict planted for the legacy file says it needs nothing: a run with the cache
    # believes it (same bytes, same key), a run without it does not look.
    _plant(path, path.stem, "skills/demo/evals/legacy.json", legacy.read_bytes(), "unchanged", ["prompt_examples_v1"])
    assert check(tree, monkeypatch, capsys).code == 0
    planted = path.read_bytes()
    result = check(tree, monkeypatch, capsys, "--no-cache")
    assert result.code == 1 and "legacy.json" in result.err
    assert path.read_bytes() == planted


def test_no_cache_creates_no_directory(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys, "--no-cache")
    assert not (tree / CACHE_DIR_NAME).exists()


def test_the_environment_variable_moves_the_cache(tree, tmp_path, monkeypatch, capsys):
    elsewhere = tmp_path / "elsewhere" / "cache"
    monkeypatch.setenv(ENV_VAR, str(elsewhere))
    check(tree, monkeypatch, capsys)
    assert len(cache_files(elsewhere)) == 1
    assert not (tree / CACHE_DIR_NAME).exists()
    assert run_cli(["cache", "dir", "--repo-root", str(tree)], tree, monkeypatch, capsys).out.strip() == str(elsewhere)


def test_cache_clean_removes_it(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    assert (tree / CACHE_DIR_NAME).is_dir()
    done = run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert done.code == 0 and "removed" in done.out
    assert not (tree / CACHE_DIR_NAME).exists()
    again = run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert again.code == 0 and "no cache" in again.out


def test_cache_clean_leaves_files_it_did_not_write(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    mine = tree / CACHE_DIR_NAME / "notes.txt"
    mine.write_text("keep me")
    run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert mine.read_text() == "keep me"
    assert cache_files(tree / CACHE_DIR_NAME) == []


def test_cache_clean_never_empties_a_directory_swapped_in_outside_the_root(tree, tmp_path, monkeypatch, capsys):
    # The cache directory is replaced by a symlink to another repo's cache right after
    # clean looked at it: that cache stays whole.
    check(tree, monkeypatch, capsys)
    directory = tree / CACHE_DIR_NAME
    other = tmp_path / "other-cache"
    directory.rename(other)
    held = sorted(path.name for path in other.iterdir())
    real_is_symlink = Path.is_symlink

    def swapped(path: Path) -> bool:
        answer = real_is_symlink(path)
        if path == directory and not real_is_symlink(directory):
            directory.rmdir()
            directory.symlink_to(other)
        return answer

    directory.mkdir()
    monkeypatch.setattr(Path, "is_symlink", swapped)
    cache_module.clean(tree)
    assert sorted(path.name for path in other.iterdir()) == held


def test_other_settings_use_another_cache_file(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    check(tree, monkeypatch, capsys, "--skill", "other")
    check(tree, monkeypatch, capsys, "--py-name", "ROWS")
    assert len(cache_files(tree / CACHE_DIR_NAME)) == 3


def test_a_changed_tool_uses_another_cache_file(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    monkeypatch.setattr(cache_module, "_tool_fingerprint", lambda: ["another build"])
    check(tree, monkeypatch, capsys)
    assert len(cache_files(tree / CACHE_DIR_NAME)) == 2


def test_a_cached_change_never_makes_a_write(tree, monkeypatch, capsys):
    """A cached "would change" serves `--check` only: writing and `--diff` plan afresh and
    write or show what that plan made, whatever the cache says."""
    check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    canonical = tree / "skills" / "demo" / "evals" / "canonical.json"
    before = canonical.read_bytes()
    _plant(path, path.stem, "skills/demo/evals/canonical.json", before, "changed", ["canonical"])
    assert check(tree, monkeypatch, capsys).code == 1  # --check believes the (planted) verdict
    names = planned(monkeypatch)
    diff = run_cli(["migrate", "--diff", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys)
    assert "canonical.json" in names and "canonical.json" not in diff.out
    written = run_cli(["migrate", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys)
    assert written.code == 0
    assert canonical.read_bytes() == before
    assert "migrated skills/demo/evals/legacy.json" in written.err.replace(str(tree) + "/", "")
    assert "canonical.json" not in written.err
    # What was written is what a run without any cache writes.
    assert (tree / "skills" / "demo" / "evals" / "legacy.json").read_text() != LEGACY


def test_a_write_after_a_check_plans_again_and_the_next_check_is_clean(tree, monkeypatch, capsys):
    assert check(tree, monkeypatch, capsys).code == 1
    names = planned(monkeypatch)
    assert run_cli(["migrate", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys).code == 0
    assert "legacy.json" in names
    assert check(tree, monkeypatch, capsys).code == 0


def test_a_cache_directory_leading_outside_the_root_is_not_used(tree, tmp_path, monkeypatch, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / CACHE_DIR_NAME).symlink_to(outside, target_is_directory=True)
    result = check(tree, monkeypatch, capsys)
    assert result.code == 1
    assert list(outside.iterdir()) == []


def test_an_unwritable_cache_does_not_fail_the_run(tree, monkeypatch, capsys):
    (tree / CACHE_DIR_NAME).write_text("a file where the directory would be")
    result = check(tree, monkeypatch, capsys)
    assert result.code == 1 and "error" not in result.err


def test_concurrent_runs_agree_and_leave_one_whole_cache_file(tree, monkeypatch):
    for n in range(40):
        (tree / "skills" / "demo" / "evals" / f"more-{n:02d}.json").write_text(CANONICAL.replace('"a"', f'"a{n}"'))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(ENV_VAR, None)
    argv = [sys.executable, "-m", "fixture_migrate", "migrate", "--check", "--repo-root", str(tree), str(tree)]
    for _ in range(2):  # a cold round, then one that reads what the first one wrote
        runs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(6)]
        results = [(run.wait(), run.stdout.read(), run.stderr.read()) for run in runs]  # type: ignore[union-attr]
        for run in runs:
            run.stdout.close()  # type: ignore[union-attr]
            run.stderr.close()  # type: ignore[union-attr]
        assert len(set(results)) == 1, results
        assert results[0][0] == 1
    directory = tree / CACHE_DIR_NAME
    (path,) = cache_files(directory)
    value = orjson.loads(path.read_bytes()[len(MAGIC) :])
    assert len(value["entries"]) == 43
    # No temporary file left; beside the cache file, the record of the runs (all alike).
    assert sorted(p.name for p in directory.iterdir()) == [".gitignore", path.name, path.stem + ".run"]


def _config_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, records: str) -> Path:
    monkeypatch.delenv(ENV_VAR, raising=False)
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "pyproject.toml").write_text(config)
    for name in ("a", "b"):
        (root / "data" / f"{name}.json").write_text(records.replace("NAME", name))
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # A declared adapter table with `files` claims the files; without `files` it claims none.
        (
            '[tool.fixture-migrate.adapters.odd]\nfiles = ["data/*.json"]\ninput = "ask"\nexpected_outcome = "want"\n',
            '[tool.fixture-migrate.adapters.odd]\ninput = "ask"\nexpected_outcome = "want"\n',
        ),
        # A table's mapping decides what the migration makes (here: `want` goes to extensions).
        (
            '[tool.fixture-migrate.adapters.odd]\nfiles = ["data/*.json"]\ninput = "ask"\nexpected_outcome = "want"\n',
            '[tool.fixture-migrate.adapters.odd]\nfiles = ["data/*.json"]\ninput = "ask"\nexpected_outcome = "none"\n',
        ),
    ],
)
def test_a_changed_declared_family_is_not_served_from_the_cache(tmp_path, monkeypatch, capsys, before, after):
    root = _config_tree(tmp_path, monkeypatch, before, '{"cases": [{"ask": "NAME", "want": "does NAME"}]}\n')
    assert check(root, monkeypatch, capsys).code == 1
    (root / "pyproject.toml").write_text(after)
    cached = check(root, monkeypatch, capsys)
    assert cached == check(root, monkeypatch, capsys, "--no-cache")


def test_a_changed_include_is_not_served_from_the_cache(tmp_path, monkeypatch, capsys):
    # `include` gives a bare case list outside an evals folder its fixture context.
    records = '[{"id": "NAME", "input": "NAME it", "expected_outcome": "done"}]\n'
    root = _config_tree(tmp_path, monkeypatch, '[tool.fixture-migrate]\ninclude = ["data/*.json"]\n', records)
    assert check(root, monkeypatch, capsys).code == 1
    (root / "pyproject.toml").write_text("[tool.fixture-migrate]\n")
    cached = check(root, monkeypatch, capsys)
    assert cached.code == 0
    assert cached == check(root, monkeypatch, capsys, "--no-cache")


def test_cache_clean_removes_only_the_cache_files_of_a_named_directory(tree, tmp_path, monkeypatch, capsys):
    # Files put beside the cache later, a `.gitignore` of another content and files that
    # merely end in `.cache` among them, are not the cache's.
    shared = tmp_path / "shared"
    monkeypatch.setenv(ENV_VAR, str(shared))
    check(tree, monkeypatch, capsys)
    (shared / "build.cache").write_text("keep me")
    (shared / ("0" * 32 + ".cache")).write_text("not a cache of ours")
    assert len(cache_files(shared)) == 3
    done = run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert done.out == f"removed the cache files in {shared} (it holds other files, left in place)\n"
    assert sorted(p.name for p in shared.iterdir()) == ["0" * 32 + ".cache", "build.cache"]
    assert (shared / "build.cache").read_text() == "keep me"
    assert (shared / ("0" * 32 + ".cache")).read_text() == "not a cache of ours"


def test_an_upgraded_yaml_or_python_parser_uses_another_cache_file(tree, tmp_path, monkeypatch, capsys):
    # ruamel.yaml and libcst render YAML and Python fixtures: their release decides "unchanged".
    # The installed library is stood in for by a copy of its `__init__.py` (touching the real
    # one would change the key of every other test running at the same time).
    import importlib.util

    real = importlib.util.find_spec("ruamel.yaml")
    assert real is not None and real.origin is not None
    init = tmp_path / "ruamel_yaml_init.py"
    init.write_bytes(Path(real.origin).read_bytes())
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: (
            importlib.util.spec_from_file_location(name, init) if name == "ruamel.yaml" else find_spec(name, *rest)
        ),
    )
    (parser,) = [entry for entry in cache_module._parsers() if entry[0] == "ruamel.yaml"]
    assert parser[1] == str(init) and parser[2] is not None
    check(tree, monkeypatch, capsys)
    info = init.stat()
    os.utime(init, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    check(tree, monkeypatch, capsys)
    assert len(cache_files(tree / CACHE_DIR_NAME)) == 2


def test_entries_of_removed_or_renamed_files_are_dropped(tree, monkeypatch, capsys):
    evals = tree / "skills" / "demo" / "evals"
    check(tree, monkeypatch, capsys)
    for round in range(3):
        (evals / ("other.json" if round == 0 else f"other{round - 1}.json")).rename(evals / f"other{round}.json")
        check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    entries = orjson.loads(path.read_bytes()[len(MAGIC) :])["entries"]
    assert sorted(entries) == [
        "skills/demo/evals/canonical.json",
        "skills/demo/evals/legacy.json",
        "skills/demo/evals/other2.json",
    ]


def test_an_edited_plugin_of_the_same_version_changes_the_key(tmp_path, monkeypatch):
    # An editable install keeps its version while its code changes.
    from importlib.metadata import EntryPoint

    from fixture_migrate.claiming import registry
    from fixture_migrate.migration.engine import Options

    module = tmp_path / "plugin_of_cache_test.py"
    module.write_text("ADAPTER = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = EntryPoint("mine", "plugin_of_cache_test:ADAPTER", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points_of", lambda group: [point])
    options = Options(tmp_path)
    before = cache_module.run_key(options)
    assert cache_module.run_key(options) == before
    info = module.stat()
    os.utime(module, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    assert cache_module.run_key(options) != before


def test_a_named_directory_of_other_files_is_not_used(tree, tmp_path, monkeypatch, capsys):
    # The repo root itself, say: a cache there would write into it, and a `.gitignore` of
    # `*` would hide every file from git and from the walk.
    (tree / ".gitignore").write_text("node_modules/\n")
    monkeypatch.setenv(ENV_VAR, str(tree))
    first = check(tree, monkeypatch, capsys)
    assert first.code == 1  # the legacy file would change
    assert cache_files(tree) == []
    assert (tree / ".gitignore").read_text() == "node_modules/\n"
    # One the run creates is the cache's own, and gets the `.gitignore`.
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "new" / "cache"))
    check(tree, monkeypatch, capsys)
    assert (tmp_path / "new" / "cache" / ".gitignore").read_bytes() == cache_module.GITIGNORE
    # An existing one holding only the cache's files is used, and gets no `.gitignore`.
    held = tmp_path / "held"
    held.mkdir()
    monkeypatch.setenv(ENV_VAR, str(held))
    check(tree, monkeypatch, capsys)
    assert len(cache_files(held)) == 1 and not (held / ".gitignore").exists()


def test_a_cached_run_opens_each_file_once(tree, monkeypatch, capsys):
    """A re-run opens each file once in all, the pin index's read of it included (the cache
    takes its verdict on that read), relative to a directory held open: none of the per-file
    walks from the root (one open per directory on the way). The legacy file, a "would
    change", is read once more for its fingerprint. (The first re-run also learns which files
    pin nothing, and writes that to the cache: the second is counted.)"""
    evals = tree / "skills" / "demo" / "evals"
    for i in range(20):
        (evals / f"more-{i:02}.json").write_text(CANONICAL)
    first = check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    learnt = path.read_bytes()
    assert check(tree, monkeypatch, capsys).code == first.code
    assert path.read_bytes() != learnt and path.read_bytes().count(b"true]") == 23
    opened: list[str] = []
    real_open = os.open

    def spy(path, *args, **kwargs):
        opened.append(os.fsdecode(path))
        return real_open(path, *args, **kwargs)

    real_beneath = beneath.open_beneath

    def spy_beneath(directory_fd, relative, flags):  # one call from the pinned root, where the kernel has it
        opened.append(relative.rpartition("/")[2])
        return real_beneath(directory_fd, relative, flags)

    beneath.available()  # its one probe per process, made before the count begins
    monkeypatch.setattr(os, "open", spy)
    monkeypatch.setattr(beneath, "open_beneath", spy_beneath)
    names = planned(monkeypatch)
    second = check(tree, monkeypatch, capsys)
    monkeypatch.undo()
    assert names == []
    assert (second.code, second.err) == (first.code, first.err)
    fixtures = sorted(name.rpartition("/")[2] for name in opened if name.endswith(".json"))
    assert fixtures == sorted([path.name for path in evals.iterdir()] + ["legacy.json"])
    directories = [name for name in opened if not name.endswith(".json")]
    # The walk's own, the cache's and the pin index's root: not one per file (22 files).
    assert len(directories) < 16, directories


def test_a_cache_file_that_is_a_symlink_leading_outside_is_not_read(tree, tmp_path, monkeypatch, capsys):
    """A cache file swapped for a symlink to a forged cache outside the root (one that
    calls the legacy file "unchanged") serves no verdict, and the file outside is kept."""
    first = check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    legacy = (tree / "skills" / "demo" / "evals" / "legacy.json").read_bytes()
    forged = tmp_path / "forged.cache"
    _plant(forged, path.stem, "skills/demo/evals/legacy.json", legacy, "unchanged", [])
    kept = forged.read_bytes()
    path.unlink()
    path.symlink_to(forged)
    names = planned(monkeypatch)
    again = check(tree, monkeypatch, capsys)
    assert (again.code, again.err) == (first.code, first.err)
    assert "legacy.json" in names
    assert forged.read_bytes() == kept


@pytest.mark.parametrize("kind", ["pipe", "device"])
def test_a_cache_file_that_is_no_regular_file_is_passed_over(tree, monkeypatch, capsys, kind):
    import threading

    first = check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    path.unlink()
    if kind == "pipe":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    results = []
    runner = threading.Thread(target=lambda: results.append(check(tree, monkeypatch, capsys)), daemon=True)
    runner.start()
    runner.join(20)
    if runner.is_alive():  # let the blocked open go, so the test run ends
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        runner.join(20)
        pytest.fail(f"the run waited on a cache file that is a {kind}")
    (again,) = results
    assert (again.code, again.err) == (first.code, first.err)


# -- a cache can never change which files a walk visits (issue 22, item 2) --


@pytest.mark.parametrize("target", [".", "skills/demo/evals", "skills"])
def test_a_cache_directory_that_is_a_symlink_inside_the_root_is_not_used(tree, monkeypatch, capsys, target):
    link = tree / CACHE_DIR_NAME
    link.symlink_to(tree / target if target != "." else tree, target_is_directory=True)
    before = sorted(str(p.relative_to(tree)) for p in tree.rglob("*"))
    for _ in range(2):  # the second run is where a `.gitignore` of `*` written by the first would hide the tree
        done = check(tree, monkeypatch, capsys)
        assert done.code == 1, done
        assert "3 files scanned" in done.err or "legacy.json" in done.err
    assert sorted(str(p.relative_to(tree)) for p in tree.rglob("*")) == before  # nothing written anywhere
    assert not list(tree.rglob(".gitignore")) and not list(tree.rglob("*.cache"))
    cleaned = run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert cleaned.out == "no cache to remove\n"
    assert link.is_symlink() and sorted(str(p.relative_to(tree)) for p in tree.rglob("*")) == before


def test_a_cache_directory_holding_other_files_is_not_used(tree, monkeypatch, capsys):
    directory = tree / CACHE_DIR_NAME
    directory.mkdir()
    (directory / "notes.txt").write_text("mine")
    first = check(tree, monkeypatch, capsys)
    names = planned(monkeypatch)
    again = check(tree, monkeypatch, capsys)
    assert (again.code, again.err) == (first.code, first.err)
    assert "legacy.json" in names  # planned again: no cache was kept
    assert sorted(p.name for p in directory.iterdir()) == ["notes.txt"]


def test_a_hand_written_gitignore_makes_the_directory_not_the_caches(tree, monkeypatch, capsys):
    directory = tree / CACHE_DIR_NAME
    directory.mkdir()
    (directory / ".gitignore").write_text("!important.json\n")
    check(tree, monkeypatch, capsys)
    assert sorted(p.name for p in directory.iterdir()) == [".gitignore"]


def test_a_named_directory_reached_through_a_symlink_is_not_used(tree, tmp_path, monkeypatch, capsys):
    outside = tmp_path / "real-cache"
    outside.mkdir()
    (tmp_path / "link-cache").symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "link-cache"))
    assert check(tree, monkeypatch, capsys).code == 1
    assert list(outside.iterdir()) == []
    # Inside the root, through a symlinked folder on its path: it would land among the fixtures.
    (tree / "alias").symlink_to(tree / "skills" / "demo", target_is_directory=True)
    monkeypatch.setenv(ENV_VAR, str(tree / "alias" / "evals"))
    assert check(tree, monkeypatch, capsys).code == 1
    assert sorted(p.name for p in (tree / "skills" / "demo" / "evals").iterdir()) == [
        "canonical.json",
        "legacy.json",
        "other.json",
    ]
    assert run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys).out == "no cache to remove\n"


def test_cache_clean_removes_exactly_what_the_cache_wrote(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    directory = tree / CACHE_DIR_NAME
    assert sorted(p.name for p in directory.iterdir()) == [".gitignore", cache_files(directory)[0].name]
    done = run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert done.out == f"removed {directory}\n"
    assert sorted(str(p.relative_to(tree)) for p in tree.rglob("*")) == [
        "skills",
        "skills/demo",
        "skills/demo/evals",
        "skills/demo/evals/canonical.json",
        "skills/demo/evals/legacy.json",
        "skills/demo/evals/other.json",
    ]


# -- untried cases (issue 22, item 8) --


@pytest.mark.parametrize("edited", ["plugin_pkg_of_cache_test/sub/rules.py", "plugin_pkg_of_cache_test/data/words.txt"])
def test_a_plugins_whole_package_is_in_the_key(tmp_path, monkeypatch, edited):
    # The entry point's module is `plugin_pkg_of_cache_test.adapter`; its code reads a
    # subpackage and a data file beside it: editing either changes the key.
    from importlib.metadata import EntryPoint

    from fixture_migrate.claiming import registry
    from fixture_migrate.migration.engine import Options

    package = tmp_path / "plugin_pkg_of_cache_test"
    for folder in (package, package / "sub", package / "data"):
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    (package / "adapter.py").write_text("ADAPTER = None\n")
    (package / "sub" / "rules.py").write_text("RULES = 1\n")
    (package / "data" / "words.txt").write_text("alpha\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = EntryPoint("mine", "plugin_pkg_of_cache_test.adapter:ADAPTER", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points_of", lambda group: [point])
    options = Options(tmp_path)
    before = cache_module.run_key(options)
    assert cache_module.run_key(options) == before
    path = tmp_path / edited
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    assert cache_module.run_key(options) != before


def test_two_runs_saving_one_cache_file_lose_no_entry_and_serve_no_stale_verdict(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    (path,) = cache_files(tree / CACHE_DIR_NAME)
    key = path.stem
    options = type("O", (), {"repo_root": tree})()
    first = cache_module.Cache(path, key, cache_module._read(path, key, tree), root=tree)
    second = cache_module.Cache(path, key, cache_module._read(path, key, tree), root=tree)
    for cache in (first, second):
        cache.repo_root = options.repo_root
    evals = tree / "skills" / "demo" / "evals"
    (evals / "one.json").write_text(CANONICAL)
    (evals / "two.json").write_text(CANONICAL)
    result = type("R", (), {"status": "unchanged", "new_path": None, "adapters": ["canonical"], "cases": 1,
                            "first_changed_line": 0, "to_extensions": {}, "reason": ""})()
    old, new = digest(b"old bytes"), digest(CANONICAL.encode())
    first.put("skills/demo/evals/one.json", new, result)
    first.put("skills/demo/evals/legacy.json", old, result)  # a verdict of bytes since replaced
    second.put("skills/demo/evals/two.json", new, result)
    second.put("skills/demo/evals/legacy.json", digest(LEGACY.encode()), result)
    assert first.save() and second.save()  # the second merges over what the first wrote
    merged = cache_module._read(path, key, tree)
    assert {"skills/demo/evals/one.json", "skills/demo/evals/two.json"} <= set(merged)
    again = cache_module.Cache(path, key, merged, root=tree)
    assert again.get("skills/demo/evals/legacy.json", old) is None  # the stale verdict is gone
    assert again.get("skills/demo/evals/one.json", new) is not None


def test_a_named_cache_folder_the_run_makes_inside_the_root_hides_nothing(tree, monkeypatch, capsys):
    evals = tree / "skills" / "other" / "evals"
    monkeypatch.setenv(ENV_VAR, str(evals))
    check(tree, monkeypatch, capsys)
    assert not (evals / ".gitignore").exists()
    (evals / "cases.json").write_text(LEGACY)
    monkeypatch.delenv(ENV_VAR)
    again = check(tree, monkeypatch, capsys)
    assert "skills/other/evals/cases.json" in again.err


def test_a_named_cache_folder_whose_path_leads_out_through_a_symlink_is_not_used(tree, tmp_path, monkeypatch, capsys):
    outside = tmp_path / "ext"
    outside.mkdir()
    (tree / "lnk").symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv(ENV_VAR, str(tree / "lnk" / "a" / "b"))
    check(tree, monkeypatch, capsys)
    assert list(outside.rglob("*")) == []


def test_a_pin_added_after_a_cached_verdict_still_keeps_the_file(tree, monkeypatch, capsys):
    import hashlib

    assert check(tree, monkeypatch, capsys).code == 1  # the legacy file would change; now cached
    legacy = tree / "skills" / "demo" / "evals" / "legacy.json"
    (tree / "pins.txt").write_text(hashlib.sha256(legacy.read_bytes()).hexdigest() + "  skills/demo/evals/legacy.json\n")
    again = check(tree, monkeypatch, capsys)
    assert again.code == 0 and "pinned by `pins.txt:1`" in again.err


LOCAL = '{"cases": [{"prompt": "hello there", "expected": "greets back"}, {"prompt": "bye now", "expected": "waves"}]}\n'


@pytest.mark.parametrize("marker", ["go.mod", "package.json", "__init__.py", "Cargo.toml"])
def test_a_marker_added_or_removed_on_a_files_way_is_seen(tree, monkeypatch, capsys, marker):
    """A project marker makes a folder below `evals/` a sandbox (data, not fixtures): a
    verdict is of the markers on the file's way as much as of its bytes."""
    sub = tree / "skills" / "demo" / "evals" / "sub"
    sub.mkdir()
    (sub / "local.json").write_text(LOCAL)
    (tree / "skills" / "demo" / "evals" / "legacy.json").unlink()

    def both():
        cached, plain = check(tree, monkeypatch, capsys), check(tree, monkeypatch, capsys, "--no-cache")
        assert (cached.code, cached.out, cached.err) == (plain.code, plain.out, plain.err)
        return cached.code

    assert both() == 1  # a local family in fixture territory: would migrate
    (sub / marker).write_text("")
    assert both() == 0  # a sandbox now
    (sub / marker).unlink()
    assert both() == 1


def test_a_symlink_pointed_elsewhere_is_judged_where_it_leads(tree, monkeypatch, capsys):
    evals = tree / "skills" / "demo" / "evals"
    (evals / "legacy.json").unlink()
    (evals / "x.json").write_text(LOCAL)
    (evals / "workspace").mkdir()
    (evals / "workspace" / "x.json").write_text(LOCAL)  # the same bytes, in a sandbox
    links = tree / "links"
    links.mkdir()
    (links / "ln.json").symlink_to("../skills/demo/evals/x.json")

    def said():
        # Over the links alone (a walk over the tree meets the real file itself).
        argv = ["migrate", "--check", "--repo-root", str(tree), str(links), str(evals / "other.json")]
        cached = run_cli(argv, tree, monkeypatch, capsys)
        plain = run_cli([*argv, "--no-cache"], tree, monkeypatch, capsys)
        assert (cached.code, cached.out, cached.err) == (plain.code, plain.out, plain.err)
        return cached.code

    assert said() == 1
    (links / "ln.json").unlink()
    (links / "ln.json").symlink_to("../skills/demo/evals/workspace/x.json")
    assert said() == 0
    (links / "ln.json").unlink()
    (links / "ln.json").symlink_to("../skills/demo/evals/x.json")
    assert said() == 1
