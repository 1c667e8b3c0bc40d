"""`migrate --check` re-runs that replay the run before them (`fixture_migrate.cli.recording`,
`fixture_migrate.migration.replay`): the same output and exit code as a run that plans every
file, on an unchanged tree; and after any change to what the output depends on, the output
of a run that plans every file again."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_migrate.migration import cache as cache_module
from fixture_migrate.migration.cache import CACHE_DIR_NAME, ENV_VAR
from fixture_migrate.migration.engine import Engine

from tests.helpers import CANONICAL, LEGACY
from tests.runner import ROOT, run_cli, run_process

BROKEN = '{"schema_version": "prompt-examples/v1", "examples": [\n'


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "legacy.json").write_text(LEGACY)
    (evals / "canonical.json").write_text(CANONICAL)
    (evals / "other.json").write_text('{"not": "a fixture"}\n')
    (root / "skills" / "demo" / "SKILL.md").write_text("# demo\n")
    return root


def check(tree: Path, monkeypatch, capsys, *extra: str):
    return run_cli(["migrate", "--check", "--repo-root", str(tree), *extra, str(tree)], tree, monkeypatch, capsys)


def fresh(tree: Path, monkeypatch, capsys, *extra: str):
    """What a run that plans every file says (no cache, so no record either)."""
    return check(tree, monkeypatch, capsys, *extra, "--no-cache")


def said(run) -> tuple[int, str, str]:
    return run.code, run.out, run.err


def records(tree: Path) -> list[Path]:
    return sorted((tree / CACHE_DIR_NAME).glob("*.run"))


@pytest.fixture
def planned(monkeypatch) -> list[str]:
    """The names of the files the engine plans from now on, and the caches opened (a replay
    does neither)."""
    names: list[str] = []
    real_plan, real_open = Engine.plan_bytes, cache_module.Cache.open

    def plan(self, path, raw):
        names.append(Path(path).name)
        return real_plan(self, path, raw)

    def open_(options):
        names.append("<cache opened>")
        return real_open(options)

    monkeypatch.setattr(Engine, "plan_bytes", plan)
    monkeypatch.setattr(cache_module.Cache, "open", staticmethod(open_))
    return names


FORMATS = [
    pytest.param((), id="text"),
    pytest.param(("-q",), id="quiet"),
    pytest.param(("-v",), id="verbose"),
    pytest.param(("--output-format", "json"), id="json"),
    pytest.param(("--output-format", "github"), id="github"),
    pytest.param(("--jobs", "2"), id="two-jobs"),
    pytest.param(("--include-pinned",), id="include-pinned"),
]


@pytest.mark.parametrize("extra", FORMATS)
def test_a_re_run_replays_what_a_full_run_prints(tree, monkeypatch, capsys, planned, extra):
    expected = said(fresh(tree, monkeypatch, capsys, *extra))
    first = check(tree, monkeypatch, capsys, *extra)
    assert said(first) == expected
    assert len(records(tree)) == 1
    planned.clear()
    again = check(tree, monkeypatch, capsys, *extra)
    assert planned == []  # no file planned, not even the cache's verdicts loaded
    assert said(again) == expected
    assert expected[0] == 1
    assert ("legacy.json" in expected[1] + expected[2]) is ("-q" not in extra)


def test_a_replay_prints_the_same_bytes_in_a_real_process(tree):
    argv = ["migrate", "--check", "--repo-root", str(tree), str(tree)]
    env = {ENV_VAR: str(tree.parent / "cache")}
    first = run_process(argv, tree, env=env)
    assert list((tree.parent / "cache").glob("*.run"))
    again = run_process(argv, tree, env=env)
    plain = run_process([*argv, "--no-cache"], tree, env=env)
    assert (again.code, again.out, again.err) == (first.code, first.out, first.err) == (plain.code, plain.out, plain.err)
    # stdout and stderr to one pipe: they interleave as they did
    merged = [
        subprocess.run(
            [sys.executable, "-m", "fixture_migrate", *argv, *extra, "--output-format", "github"],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            check=False,
        ).stdout
        for extra in ((), (), ("--no-cache",))
    ]
    assert merged[0] == merged[1] == merged[2]


def _same_size_edit(tree: Path) -> None:
    target = tree / "skills" / "demo" / "evals" / "canonical.json"
    before = os.stat(target)
    target.write_text(CANONICAL.replace("spec-first.workflow-eval-fixtures.v1", "spec-first.skill-audit-eval-cases.v1"))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))


def _fix_legacy(tree: Path) -> None:
    (tree / "skills" / "demo" / "evals" / "legacy.json").write_text(CANONICAL)


def _add_legacy(tree: Path) -> None:
    (tree / "skills" / "demo" / "evals" / "more.json").write_text(LEGACY)


def _remove_legacy(tree: Path) -> None:
    (tree / "skills" / "demo" / "evals" / "legacy.json").unlink()


def _rename_legacy(tree: Path) -> None:
    evals = tree / "skills" / "demo" / "evals"
    (evals / "legacy.json").rename(evals / "renamed.json")


def _ignore_legacy(tree: Path) -> None:
    (tree / ".gitignore").write_text("legacy.json\n")


def _pin_legacy(tree: Path) -> None:
    digest = hashlib.sha256((tree / "skills" / "demo" / "evals" / "legacy.json").read_bytes()).hexdigest()
    (tree / "NOTES.md").write_text(f"legacy fixture sha256 {digest}\n")


def _break_a_file(tree: Path) -> None:
    (tree / "skills" / "demo" / "evals" / "broken.json").write_text(BROKEN)


def _configure(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.fixture-migrate]\nexclude = ["skills/demo/evals/legacy.json"]\n')


CHANGES = [_same_size_edit, _fix_legacy, _add_legacy, _remove_legacy, _rename_legacy, _ignore_legacy, _pin_legacy,
           _break_a_file, _configure]


@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__[1:])
def test_after_a_change_a_re_run_says_what_a_full_run_says(tree, monkeypatch, capsys, change):
    check(tree, monkeypatch, capsys)
    check(tree, monkeypatch, capsys)  # replayed
    before = said(fresh(tree, monkeypatch, capsys))
    change(tree)
    expected = said(fresh(tree, monkeypatch, capsys))
    assert expected != before  # the change changes what a run says
    assert said(check(tree, monkeypatch, capsys)) == expected
    assert said(check(tree, monkeypatch, capsys)) == expected  # and what it records, a replay says


def test_a_pin_added_after_the_record_leaves_the_file_as_it_is(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    _pin_legacy(tree)
    pinned = check(tree, monkeypatch, capsys)
    assert pinned.code == 0 and "pinned by `NOTES.md:1`" in pinned.err
    assert said(check(tree, monkeypatch, capsys)) == said(pinned)  # replayed, pin and all
    (tree / "NOTES.md").write_text("no digest here\n")  # a file the run never walks
    assert said(check(tree, monkeypatch, capsys)) == said(fresh(tree, monkeypatch, capsys))
    assert check(tree, monkeypatch, capsys).code == 1


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(lambda tree, monkeypatch: monkeypatch.setenv("NO_COLOR", "1"), id="NO_COLOR"),
        pytest.param(lambda tree, monkeypatch: monkeypatch.setenv("GITHUB_ACTIONS", "true"), id="GITHUB_ACTIONS"),
        pytest.param(lambda tree, monkeypatch: monkeypatch.setenv("FIXTURE_MIGRATE_MAX_JSON_BYTES", "10"), id="size limit"),
        pytest.param(lambda tree, monkeypatch: monkeypatch.chdir(tree / "skills"), id="working directory"),
    ],
)
def test_another_invocation_is_not_replayed(tree, monkeypatch, capsys, planned, other):
    argv = ["migrate", "--check", "--repo-root", str(tree), str(tree)]
    run_cli(argv, tree, monkeypatch, capsys)
    other(tree, monkeypatch)
    planned.clear()
    capsys.readouterr()
    from fixture_migrate.cli.app import main

    main(argv)
    assert "<cache opened>" in planned  # run as usual


def test_other_options_are_not_replayed(tree, monkeypatch, capsys, planned):
    check(tree, monkeypatch, capsys)
    planned.clear()
    check(tree, monkeypatch, capsys, "-q")
    assert "<cache opened>" in planned
    planned.clear()
    check(tree, monkeypatch, capsys)  # the record is of the last run that qualified: -q now
    assert "<cache opened>" in planned


@pytest.mark.parametrize(
    "extra",
    [pytest.param(("--diff",), id="diff"), pytest.param(("--no-cache",), id="no-cache")],
)
def test_runs_that_never_record(tree, monkeypatch, capsys, extra):
    check(tree, monkeypatch, capsys, *extra)
    assert records(tree) == []


def test_a_writing_run_neither_records_nor_replays(tree, monkeypatch, capsys, planned):
    check(tree, monkeypatch, capsys)
    planned.clear()
    wrote = run_cli(["migrate", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys)
    assert wrote.code == 0 and "legacy.json" in planned
    assert said(check(tree, monkeypatch, capsys)) == said(fresh(tree, monkeypatch, capsys))


def test_a_run_with_an_error_is_not_recorded(tree, monkeypatch, capsys):
    _break_a_file(tree)
    assert check(tree, monkeypatch, capsys).code == 2
    assert records(tree) == []


def test_a_terminal_neither_records_nor_replays(tree, monkeypatch, capsys):
    from fixture_migrate.cli import recording

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    assert recording.start({}, [tree], None, iter(()), check=True, diff=False, use_cache=True) == (None, None)


def test_a_damaged_record_is_ignored_and_replaced(tree, monkeypatch, capsys, planned):
    first = check(tree, monkeypatch, capsys)
    (record,) = records(tree)
    good = record.read_bytes()
    for damaged in (b"", good[:-1], good[:40], good[: good.index(b"\n") + 1], b"\x00" * 100, good + b"x"):
        record.write_bytes(damaged)
        planned.clear()
        again = check(tree, monkeypatch, capsys)
        assert said(again) == said(first)
        assert "<cache opened>" in planned, damaged[:60]
        assert record.read_bytes() == good


def test_a_stale_record_put_back_replays_nothing(tree, monkeypatch, capsys):
    """A record is of the bytes it was made on: one of an earlier state of the tree, put back
    beside the cache, does not match the files as they are now."""
    check(tree, monkeypatch, capsys)
    (record,) = records(tree)
    stale = record.read_bytes()
    _fix_legacy(tree)
    now = check(tree, monkeypatch, capsys)
    assert record.read_bytes() != stale
    record.write_bytes(stale)
    assert said(check(tree, monkeypatch, capsys)) == said(now) == said(fresh(tree, monkeypatch, capsys))
    assert now.code == 0


def test_cache_clean_removes_the_record(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    assert records(tree)
    run_cli(["cache", "clean", "--repo-root", str(tree)], tree, monkeypatch, capsys)
    assert not (tree / CACHE_DIR_NAME).exists()


def test_a_cache_directory_reached_through_a_symlink_is_never_read(tree, monkeypatch, capsys, planned, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "link"))
    (tmp_path / "link").symlink_to(elsewhere)
    check(tree, monkeypatch, capsys)
    assert list(elsewhere.iterdir()) == []  # neither cache nor record written through it


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: the tracked files come from a walk then")
def test_in_a_git_repository_a_newly_tracked_pin_is_seen(tree, monkeypatch, capsys):
    """In a git checkout the index of pinned files reads what `git ls-files` lists: a pin in a
    file that becomes tracked since the record makes the re-run run again."""
    git = ["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    check(tree, monkeypatch, capsys)
    _pin_legacy(tree)  # NOTES.md, untracked: the index does not read it
    assert said(check(tree, monkeypatch, capsys)) == said(fresh(tree, monkeypatch, capsys))
    assert check(tree, monkeypatch, capsys).code == 1
    subprocess.run([*git, "add", "NOTES.md"], check=True)
    tracked = check(tree, monkeypatch, capsys)
    assert said(tracked) == said(fresh(tree, monkeypatch, capsys))
    assert tracked.code == 0 and "pinned by `NOTES.md:1`" in tracked.err


def test_a_run_on_worker_processes_is_not_recorded_but_the_next_one_is(tree, monkeypatch, capsys):
    """What a worker prints reaches the stream without passing through the run's own
    process, so a record of such a run could miss it: it is never recorded. The re-run,
    which plans nothing and starts no worker, is; and the one after it replays."""
    from fixture_migrate.files import parallel

    evals = tree / "skills" / "demo" / "evals"
    for n in range(80):  # enough to be worth two processes (`parallel.MIN_FILES_PER_JOB`)
        (evals / f"more-{n:02d}.json").write_text(LEGACY.replace('"Greets"', f'"Greets {n}"'))
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    before = parallel.pools_started
    first = check(tree, monkeypatch, capsys, "--jobs", "2")
    assert parallel.pools_started == before + 1
    assert records(tree) == []
    second = check(tree, monkeypatch, capsys, "--jobs", "2")
    assert parallel.pools_started == before + 1 and len(records(tree)) == 1
    third = check(tree, monkeypatch, capsys, "--jobs", "2")
    assert said(first) == said(second) == said(third) == said(fresh(tree, monkeypatch, capsys, "--jobs", "2"))


def test_a_cache_directory_inside_the_root_replays_and_pins_nothing(tree, monkeypatch, capsys):
    """A cache directory named inside the root (not hidden, no git) is the tool's: the index
    of pinned files never reads it, so its files (rewritten by each run) neither change the
    index's inputs nor pin anything."""
    monkeypatch.setenv(ENV_VAR, str(tree / "cache"))
    first = check(tree, monkeypatch, capsys)
    (record,) = sorted((tree / "cache").glob("*.run"))
    written = record.stat().st_mtime_ns
    again = check(tree, monkeypatch, capsys)
    assert said(again) == said(first) == said(fresh(tree, monkeypatch, capsys))
    assert record.stat().st_mtime_ns == written  # replayed: nothing written
    from fixture_migrate.consumers import pins

    read: list[str] = []
    real = pins.TrackedReader.read
    monkeypatch.setattr(pins.TrackedReader, "read", lambda self, path, relative: read.append(relative) or real(self, path, relative))
    pins.PinIndex(tree).build()
    assert read and not any(relative.startswith("cache/") for relative in read)


def test_a_marker_on_a_files_way_added_after_the_record_is_seen(tree, monkeypatch, capsys):
    """A folder below `evals/` with a project marker is a sandbox: its files are data. The
    marker is no file the run walks, but the verdicts it decides are of it, so a replay too."""
    sub = tree / "skills" / "demo" / "evals" / "sub"
    sub.mkdir()
    (sub / "local.json").write_text(
        '{"cases": [{"prompt": "hello there", "expected": "greets back"}, {"prompt": "bye", "expected": "waves"}]}\n'
    )
    first = check(tree, monkeypatch, capsys)
    assert said(check(tree, monkeypatch, capsys)) == said(first)  # replayed
    assert "local.json" in first.err
    (sub / "go.mod").write_text("module x\n")
    sandboxed = check(tree, monkeypatch, capsys)
    assert said(sandboxed) == said(fresh(tree, monkeypatch, capsys))
    assert "local.json" not in sandboxed.err
    assert said(check(tree, monkeypatch, capsys)) == said(sandboxed)
    (sub / "go.mod").unlink()
    assert said(check(tree, monkeypatch, capsys)) == said(first)


def test_a_folder_named_for_the_cache_that_holds_other_files_still_pins(tree, monkeypatch, capsys):
    """The cache is not used in a folder holding files of the repository's: its files are
    read for pins as any, and a pinned fixture is left as it is, cache or not."""
    tests = tree / "tests"
    tests.mkdir()
    digest = hashlib.sha256((tree / "skills" / "demo" / "evals" / "legacy.json").read_bytes()).hexdigest()
    (tests / "pins.txt").write_text(digest + "\n")
    monkeypatch.setenv(ENV_VAR, str(tests))
    for run in (check(tree, monkeypatch, capsys), fresh(tree, monkeypatch, capsys)):
        assert run.code == 0 and "pinned by `tests/pins.txt:1`" in run.err
    written = run_cli(["migrate", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys)
    assert written.code == 0
    assert hashlib.sha256((tree / "skills" / "demo" / "evals" / "legacy.json").read_bytes()).hexdigest() == digest


OPENAI_EVALS_SAMPLE = '{"input": [{"role": "user", "content": "2+2?"}], "ideal": "4"}\n'


def test_files_left_unclaimed_or_to_another_tool_are_replayed_as_a_run_says(tree, monkeypatch, capsys):
    """Real repositories mostly hold a file left unclaimed or written for another eval tool:
    their verdicts are of their bytes and place as much as any, so such a run records, and
    a change to one of them is seen."""
    evals = tree / "skills" / "demo" / "evals"
    (evals / "local.json").write_text('{"records": [{"prompt": "hello there"}, {"prompt": "bye now"}]}\n')
    (tree / "data").mkdir()
    (tree / "data" / "samples.jsonl").write_text(OPENAI_EVALS_SAMPLE * 2)
    first = check(tree, monkeypatch, capsys)
    assert said(first) == said(fresh(tree, monkeypatch, capsys))
    assert "left for import" in first.err or "not migrated" in first.err
    assert len(records(tree)) == 1
    assert said(check(tree, monkeypatch, capsys)) == said(first)
    (tree / "data" / "samples.jsonl").write_text('{"not": "samples"}\n')
    changed = check(tree, monkeypatch, capsys)
    assert said(changed) == said(fresh(tree, monkeypatch, capsys)) and said(changed) != said(first)
