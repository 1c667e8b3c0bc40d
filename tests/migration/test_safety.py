"""Faults injected into real runs: whatever happens, every file ends up byte-identical to
its original or to its migrated form, the user is told which, and nothing is left half
written. Also the walk's and the ref checker's refusal to leave the repo root.

The faults hit the write path, not a parser; the trees hold fixtures of every
syntax (JSON, JSON Lines, YAML, Python) all the same.
"""

from __future__ import annotations

import errno
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixture_migrate.cli import commands
from fixture_migrate.cli.app import main
from fixture_migrate.cli.report import Report
from fixture_migrate.contract.validate import RefChecker
from fixture_migrate.files import walk
from fixture_migrate.files.writes import TEMP_SUFFIX
from fixture_migrate.migration import engine
from fixture_migrate.migration.engine import Engine, Options

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "legacy"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SEED = int(os.environ.get("FIXTURE_MIGRATE_TEST_SEED", random.randrange(1 << 32)))


def build_tree(root: Path, count: int) -> None:
    """`count` legacy fixtures of every sample family and syntax (JSON, JSON Lines, YAML,
    Python) under `root/skills/*/evals/`, two of them hard-linked pairs (in one
    directory, so both names migrate to the same bytes)."""
    samples = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".json", ".jsonl"))
    samples += sorted(p for p in (ROOT / "examples" / "yaml-python").iterdir() if p.suffix in (".yaml", ".py"))
    for i in range(count):
        sample = samples[i % len(samples)]
        evals = root / "skills" / f"skill-{i % 25}" / "evals"
        evals.mkdir(parents=True, exist_ok=True)
        text = sample.read_bytes().replace(b"demo", f"demo{i}".encode())
        (evals / f"{i:03d}-{sample.name}").write_bytes(text)
    for i in (1, 2, 5):  # prd-evals and review-examples as JSON, review-examples as YAML
        first = next(p for p in (root / "skills" / f"skill-{i}" / "evals").glob(f"{i:03d}-*") if p.suffix != ".jsonl")
        os.link(first, first.with_name(f"{first.stem}-hardlink{first.suffix}"))


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def expected_migrations(root: Path) -> dict[str, tuple[str, bytes]]:
    """Per original file: where its migration lands and its bytes, planned in memory."""
    planner = Engine(Options(repo_root=root))
    expected = {}
    for name in files(root):
        result = planner.plan(root / name)
        assert result.status == "changed", (name, result.error)
        target = result.new_path or result.path
        expected[name] = (target.relative_to(root).as_posix(), result.new_bytes)
    return expected


def assert_each_file_whole(root: Path, original: dict[str, bytes], migrated: dict[str, tuple[str, bytes]], why: str):
    """Every file is its original or its migrated form; the only other files are
    temporary files of a write that was killed."""
    now = files(root)
    leftovers = [name for name in now if name.endswith(TEMP_SUFFIX)]
    for name in leftovers:
        del now[name]
    accounted = set()
    for name, old in original.items():
        new_name, new = migrated[name]
        if new_name == name:
            assert now.get(name) in (old, new), f"{why}: {name} is neither its original nor its migration"
            accounted.add(name)
        else:  # a JSONL file: the original, the migration, or both after a kill between the two steps
            states = (now.get(name), now.get(new_name))
            assert states in ((old, None), (None, new), (old, new)), f"{why}: {name} -> {new_name}: {states}"
            accounted.update({name, new_name})
    assert set(now) <= accounted, f"{why}: unexpected files {sorted(set(now) - accounted)}"
    return leftovers


def migrate_process(root: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "fixture_migrate", "migrate", "--repo-root", str(root), *extra, str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )


def test_sigkill_at_random_points_of_a_bulk_run_leaves_every_file_whole(tmp_path):
    """240 files, killed with SIGKILL after a random number of files plus a random delay,
    run after run on the same tree until one completes. (Six rounds of at most 47 files
    each: the first four are certain to be killed mid-run.)"""
    rng = random.Random(SEED)
    root = tmp_path / "repo"
    build_tree(root, 240)
    original = files(root)
    migrated = expected_migrations(root)
    kills = 0
    for round_ in range(6):
        process = migrate_process(root)
        assert process.stderr is not None
        wanted = rng.randrange(1, 48)
        seen = 0
        for line in process.stderr:
            seen += line.startswith("migrated ")
            if seen >= wanted:
                time.sleep(rng.random() * 0.004)
                process.send_signal(signal.SIGKILL)
                break
        code = process.wait()
        kills += code == -signal.SIGKILL
        assert_each_file_whole(root, original, migrated, f"seed {SEED}, round {round_}, after {seen} files")
    assert kills >= 4, f"seed {SEED}: the runs ended before they could be killed"
    final = subprocess.run(
        [sys.executable, "-m", "fixture_migrate", "migrate", "--repo-root", str(root), str(root)],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert final.returncode == 0, final.stderr[-2000:]
    leftovers = assert_each_file_whole(root, original, migrated, f"seed {SEED}, final run")
    assert len(leftovers) <= kills
    now = files(root)
    for name, (new_name, new) in migrated.items():
        assert now[new_name] == new, f"seed {SEED}: {new_name} is not migrated after the final run"
        assert new_name == name or name not in now
    check = subprocess.run(
        [sys.executable, "-m", "fixture_migrate", "migrate", "--check", "--repo-root", str(root), str(root)],
        capture_output=True,
        env=ENV,
    )
    assert check.returncode == 0


KILLER = """
import os, signal, sys
from fixture_migrate.cli.app import main
import importlib
name, at = sys.argv[1], int(sys.argv[2])
owner = importlib.import_module("fixture_migrate.files." + name.split(".")[0]) if "." in name else os
name = name.split(".")[-1]
real, calls = getattr(owner, name), [0]
def hook(*args, **kwargs):
    calls[0] += 1
    if calls[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
setattr(owner, name, hook)
code = main(sys.argv[3:])
print(calls[0])  # with at=0: how many calls a whole run makes
sys.exit(code)
"""


WRITE_STEPS = ("write", "fsync", "fchmod", "link", "unlink", "writes._renameat2")
"""The system calls of a write a kill is aimed at: `writes._renameat2` is the atomic exchange
(or, where there is none, the fallback to `os.replace`) that puts each new file in place."""

COUNTER = """
import json, os, sys
from fixture_migrate.cli.app import main
calls = {}
def counting(name, real):
    def hook(*args, **kwargs):
        calls[name] = calls.get(name, 0) + 1
        return real(*args, **kwargs)
    return hook
import importlib
for name in sys.argv[1].split(","):
    owner = importlib.import_module("fixture_migrate.files." + name.split(".")[0]) if "." in name else os
    setattr(owner, name.split(".")[-1], counting(name, getattr(owner, name.split(".")[-1])))
code = main(sys.argv[2:])
print(json.dumps(calls))
sys.exit(code)
"""


@pytest.fixture(scope="module")
def write_step_calls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    """How many calls of each write step a whole run over a 40-file tree makes: one run
    counts them all (a tree built by `build_tree` is the same every time)."""
    counting = tmp_path_factory.mktemp("counting")
    build_tree(counting, 40)
    done = subprocess.run(
        [sys.executable, "-c", COUNTER, ",".join(WRITE_STEPS), "migrate", "--repo-root", str(counting), str(counting)],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.split("\n")[-2])


@pytest.fixture(scope="module")
def tree_of_40(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, tuple[str, bytes]]]:
    """`(files, expected migrations)` of a 40-file tree built by `build_tree`, planned once
    for the module: every such tree holds the same names and bytes, wherever it is."""
    root = tmp_path_factory.mktemp("tree-of-40")
    build_tree(root, 40)
    return files(root), expected_migrations(root)


def run_killer(call: str, at: int, root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", KILLER, call, str(at), "migrate", "--repo-root", str(root), str(root)],
        capture_output=True,
        text=True,
        env=ENV,
    )


@pytest.mark.parametrize("call", WRITE_STEPS)
def test_sigkill_at_each_step_of_a_write(tmp_path, capsys, call, write_step_calls, tree_of_40):
    """SIGKILL exactly when the nth call of one step of the write path begins; the run
    after it (in this process: it is an ordinary run) completes the migration."""
    rng = random.Random(f"{SEED}-{call}")
    calls = write_step_calls.get(call, 0)
    assert calls >= 8, f"a run of 40 files makes only {calls} os.{call} calls"
    root = tmp_path / "repo"
    build_tree(root, 40)
    original, migrated = tree_of_40
    assert files(root) == original
    at = rng.randrange(1, calls + 1)
    done = run_killer(call, at, root)
    assert done.returncode == -signal.SIGKILL, f"os.{call} was called fewer than {at} times"
    leftovers = assert_each_file_whole(root, original, migrated, f"seed {SEED}, killed at os.{call} call {at}")
    assert len(leftovers) <= 2, "at most the temporary file of the write in progress and one link to it"
    capsys.readouterr()
    rerun = main(["migrate", "--repo-root", str(root), str(root)])
    assert rerun == 0, capsys.readouterr().err[-2000:]
    now = files(root)
    assert all(now[new_name] == new for new_name, new in migrated.values())


def test_sigterm_mid_run_unwinds_cleanly(tmp_path):
    root = tmp_path / "repo"
    build_tree(root, 300)
    original = files(root)
    migrated = expected_migrations(root)
    process = migrate_process(root)
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("migrated "):
            process.send_signal(signal.SIGTERM)
            break
    rest = process.stderr.read()
    assert process.wait() == 128 + signal.SIGTERM
    assert "interrupted; every file is either migrated or as it was" in rest
    assert assert_each_file_whole(root, original, migrated, "SIGTERM") == [], "no temporary file after SIGTERM"


def run_migrate(root: Path, *paths: Path, check: bool = False) -> tuple[int, str]:
    err = io.StringIO()
    code = commands.run_migrate(
        list(paths) or [root],
        Options(repo_root=root),
        commands.MigrateMode(check=check),
        out=io.StringIO(),
        report=Report(err=err),
    )
    return code, err.getvalue()


LEGACY = (EXAMPLES / "review-examples.json").read_bytes()


def two_files(root: Path) -> tuple[Path, Path]:
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    first, second = evals / "a.json", evals / "b.json"
    first.write_bytes(LEGACY)
    second.write_bytes(LEGACY)
    return first, second


def test_disk_full_is_reported_exit_2_original_intact_others_continue(tmp_path, monkeypatch):
    first, second = two_files(tmp_path)
    real_write = os.write
    calls = []

    def write(fd, data):
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    code, err = run_migrate(tmp_path)
    assert code == 2
    assert f"{first.as_posix()}: error: cannot write: No space left on device; the file is unchanged [io]" in err
    assert "Migrated 1 file" in err and "1 error" in err
    assert first.read_bytes() == LEGACY and second.read_bytes() != LEGACY
    assert not list(tmp_path.rglob("*" + TEMP_SUFFIX))


def test_disk_full_at_fsync_is_reported_too(tmp_path, monkeypatch):
    first, _ = two_files(tmp_path)

    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)
    code, err = run_migrate(tmp_path, first)
    assert code == 2 and "No space left on device" in err and first.read_bytes() == LEGACY
    assert not list(tmp_path.rglob("*" + TEMP_SUFFIX))


def test_read_only_file_is_reported_and_others_continue(tmp_path):
    first, second = two_files(tmp_path)
    first.chmod(0o444)
    code, err = run_migrate(tmp_path)
    assert code == 2
    assert f"{first.as_posix()}: error: refused: the file is read-only [read_only]" in err
    assert first.read_bytes() == LEGACY and second.read_bytes() != LEGACY


def test_read_only_directory_is_reported_and_others_continue(tmp_path):
    first, _ = two_files(tmp_path)
    other = tmp_path / "skills" / "other" / "evals"
    other.mkdir(parents=True)
    third = other / "c.json"
    third.write_bytes(LEGACY)
    first.parent.chmod(0o555)
    try:
        code, err = run_migrate(tmp_path)
    finally:
        first.parent.chmod(0o755)
    assert code == 2 and err.count("refused: its directory is read-only [read_only]") == 2
    assert first.read_bytes() == LEGACY and third.read_bytes() != LEGACY


@pytest.mark.skipif(os.geteuid() == 0, reason="the superuser is not denied by permissions")
def test_unreadable_file_is_reported_and_others_continue(tmp_path):
    first, second = two_files(tmp_path)
    first.chmod(0)
    code, err = run_migrate(tmp_path)
    assert code == 2 and "cannot read: Permission denied" in err and second.read_bytes() != LEGACY


def test_file_deleted_between_the_walk_and_the_read(tmp_path, monkeypatch):
    first, second = two_files(tmp_path)
    real_iter = commands.iter_selected

    def walk_then_delete(paths, options):
        for path, error in real_iter(paths, options):
            if path == first:
                first.unlink()
            yield path, error

    monkeypatch.setattr(commands, "iter_selected", walk_then_delete)
    code, err = run_migrate(tmp_path)
    assert code == 2
    assert f"{first.as_posix()}: error: cannot read: No such file or directory [io]" in err
    assert not first.exists() and second.read_bytes() != LEGACY


def test_file_deleted_between_the_read_and_the_write_is_not_recreated(tmp_path, monkeypatch):
    first, second = two_files(tmp_path)
    real_write = engine.write_atomic

    def delete_first(path, *args, **kwargs):
        if path == first:
            first.unlink()
        real_write(path, *args, **kwargs)

    monkeypatch.setattr(engine, "write_atomic", delete_first)
    code, err = run_migrate(tmp_path)
    assert code == 2 and "the file was removed while it was being migrated" in err
    assert not first.exists() and second.read_bytes() != LEGACY


def test_file_edited_between_the_read_and_the_write_is_left_as_edited(tmp_path, monkeypatch):
    first, second = two_files(tmp_path)
    theirs = LEGACY.replace(b"Review", b"Edited meanwhile")
    real_write = engine.write_atomic

    def edit_first(path, *args, **kwargs):
        if path == first:
            first.write_bytes(theirs)
        real_write(path, *args, **kwargs)

    monkeypatch.setattr(engine, "write_atomic", edit_first)
    code, err = run_migrate(tmp_path)
    assert code == 2
    assert f"{first.as_posix()}: error: refused: the file changed while it was being migrated" in err
    assert first.read_bytes() == theirs and second.read_bytes() != LEGACY


def test_jsonl_edited_before_its_rename_is_left_as_edited(tmp_path, monkeypatch):
    source = tmp_path / "cases.jsonl"
    original = (EXAMPLES / "output-cases.jsonl").read_bytes()
    source.write_bytes(original)
    real_plan = Engine.plan

    def plan_then_edit(self, path):
        result = real_plan(self, path)
        source.write_bytes(original + original)
        return result

    monkeypatch.setattr(Engine, "plan", plan_then_edit)
    code, err = run_migrate(tmp_path)
    assert code == 2 and "[changed_meanwhile]" in err
    assert source.read_bytes() == original + original and not (tmp_path / "cases.json").exists()


def test_jsonl_run_killed_between_its_two_steps_is_completed_by_the_next_run(tmp_path):
    source = tmp_path / "cases.jsonl"
    source.write_bytes((EXAMPLES / "output-cases.jsonl").read_bytes())
    result = Engine(Options(repo_root=tmp_path)).plan(source)
    assert result.new_bytes is not None
    (tmp_path / "cases.json").write_bytes(result.new_bytes)  # as a kill after the link leaves it
    code, err = run_migrate(tmp_path, source)
    assert code == 0, err
    assert not source.exists() and (tmp_path / "cases.json").read_bytes() == result.new_bytes


def test_jsonl_next_to_an_unrelated_json_is_refused(tmp_path):
    source = tmp_path / "cases.jsonl"
    source.write_bytes((EXAMPLES / "output-cases.jsonl").read_bytes())
    (tmp_path / "cases.json").write_bytes(b'{"unrelated": true}\n')
    for check in (True, False):  # --check says what migrate would do: the same refusal
        code, err = run_migrate(tmp_path, source, check=check)
        assert code == 2 and "refused: cases.json already exists beside it [exists]" in err
    assert source.exists() and (tmp_path / "cases.json").read_bytes() == b'{"unrelated": true}\n'


def test_symlinked_jsonl_is_refused(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_bytes((EXAMPLES / "output-cases.jsonl").read_bytes())
    (tmp_path / "link.jsonl").symlink_to(real.name)
    code, err = run_migrate(tmp_path, tmp_path / "link.jsonl")
    assert code == 2 and "[symlink_rename]" in err and real.exists() and not (tmp_path / "link.json").exists()


def test_hard_linked_fixture_is_migrated_under_every_name(tmp_path):
    first, _ = two_files(tmp_path)
    twin = tmp_path / "skills" / "demo" / "twin.json"
    os.link(first, twin)
    code, err = run_migrate(tmp_path, first)
    assert code == 0, err
    assert twin.read_bytes() == first.read_bytes() != LEGACY and os.path.samefile(first, twin)


def test_hard_links_and_symlinks_planned_ahead_are_written_once(tmp_path):
    # With --jobs, every file is planned before the first is written: the second name of
    # a file then finds the migration it planned already there, written through the first.
    first, _ = two_files(tmp_path)
    twin = first.with_name("twin.json")
    os.link(first, twin)
    link = first.with_name("link.json")
    link.symlink_to(first.name)
    engine = Engine(Options(repo_root=tmp_path))
    results = [engine.plan(path) for path in (first, twin, link)]
    assert [result.status for result in results] == ["changed"] * 3
    for result in results:
        engine.apply(result)
    assert first.read_bytes() == twin.read_bytes() == link.read_bytes() == results[0].new_bytes
    assert os.path.samefile(first, twin) and link.is_symlink()


def test_hard_link_outside_the_root_is_refused(tmp_path):
    root = tmp_path / "repo"
    first, _ = two_files(root)
    os.link(first, tmp_path / "elsewhere.json")
    code, err = run_migrate(root, first)
    assert code == 2 and "[hard_link_outside_repo]" in err and first.read_bytes() == LEGACY


# Walks and symlinks: nothing outside the root is reached through a link.


def test_walk_does_not_follow_symlinked_directories_loops_or_escapes(tmp_path):
    root = tmp_path / "repo"
    first, _ = two_files(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.json").write_bytes(LEGACY)
    evals = first.parent
    (evals / "loop").symlink_to(evals, target_is_directory=True)
    (evals / "escape").symlink_to(outside, target_is_directory=True)
    (evals / "up").symlink_to("..", target_is_directory=True)
    walked = [path for path, _ in walk.iter_files([root])]
    assert walked == [evals / "a.json", evals / "b.json"]
    code, err = run_migrate(root)
    assert code == 0, err
    assert (outside / "victim.json").read_bytes() == LEGACY


def test_symlinked_file_leading_outside_is_refused_with_a_reason_in_every_mode(tmp_path):
    root = tmp_path / "repo"
    two_files(root)
    victim = tmp_path / "victim.json"
    victim.write_bytes(LEGACY)
    link = root / "skills" / "demo" / "evals" / "c.json"
    link.symlink_to(victim)
    for check in (True, False):
        code, err = run_migrate(root, check=check)
        assert code == 2 and f"{link.as_posix()}: error: refused: it is a symlink" in err
        assert "[symlink_outside_repo]" in err
    assert victim.read_bytes() == LEGACY


def test_symlinked_file_inside_the_root_migrates_its_target_once(tmp_path):
    first, _ = two_files(tmp_path)
    link = first.parent / "z-link.json"
    link.symlink_to(first.name)
    code, err = run_migrate(tmp_path)
    assert code == 0, err
    assert link.is_symlink() and link.read_bytes() == first.read_bytes() != LEGACY


def test_temporary_files_of_an_earlier_kill_are_never_read_as_fixtures(tmp_path):
    first, _ = two_files(tmp_path)
    stale = first.parent / f".a.json.x1y2z3{TEMP_SUFFIX}"
    stale.write_bytes(b"{half a fi")
    code, err = run_migrate(tmp_path)
    assert code == 0, err
    assert stale.read_bytes() == b"{half a fi", "a leftover is the user's to delete"


# source_refs: an escape has its own reason code and is never looked up outside the root.


@pytest.fixture
def recorded_lookups(monkeypatch):
    """Every path the ref checker hands to the file system (`lstat`, `stat`, `readlink`,
    `access`, `os.path.exists`: what a lookup can go through)."""
    seen: list[str] = []

    def record(path):
        if isinstance(path, (str, bytes, os.PathLike)):
            seen.append(os.fsdecode(path))

    for name in ("lstat", "stat", "readlink", "access"):
        real = getattr(os, name)

        def hook(path, *args, _real=real, **kwargs):
            record(path)
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, hook)
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda path: record(path) or real_exists(path))
    return seen


@pytest.mark.parametrize(
    "ref, escapes",
    [
        ("../outside/secret.md", True),
        ("docs/../../outside/secret.md", True),
        ("abs-link/secret.md", True),
        ("rel-link/secret.md", True),
        ("file-link.md", True),
        ("chain/secret.md", True),
        ("inside-link/notes.md", False),
        ("docs/notes.md", False),
    ],
)
def test_source_ref_escapes_are_flagged_and_never_looked_up_outside(tmp_path, recorded_lookups, ref, escapes):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "notes.md").write_text("inside")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside")
    (root / "abs-link").symlink_to(outside, target_is_directory=True)
    (root / "rel-link").symlink_to("../outside", target_is_directory=True)
    (root / "file-link.md").symlink_to(outside / "secret.md")
    (root / "chain").symlink_to("docs/../rel-link", target_is_directory=True)
    (root / "inside-link").symlink_to(root / "docs", target_is_directory=True)
    recorded_lookups.clear()
    assert RefChecker(root).lookup(ref) == (escapes, not escapes)
    looked = list(recorded_lookups)
    base = str(root)
    # Resolving the root itself looks at its ancestors; anything else must lie under it
    # (lexically: `repo/abs-link` itself is inside, where it leads is not).
    strays = [
        path
        for path in looked
        if not (os.path.abspath(path) + os.sep).startswith(base + os.sep) and not base.startswith(path + os.sep)
    ]
    assert strays == [], f"looked outside the root: {strays}"


def test_symlink_loop_in_a_source_ref_is_missing_not_a_hang(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    assert RefChecker(tmp_path).lookup("a/x.md") == (False, False)


def test_validate_reports_the_escape_with_its_own_reason_code(tmp_path, capsys):
    from fixture_migrate.cli.app import main

    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (tmp_path / "secret.md").write_text("outside")
    (root / "link.md").symlink_to(tmp_path / "secret.md")
    (evals / "cases.json").write_text(
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo", "cases": ['
        '{"id": "a", "input": "x", "coverage_tags": ["expected"], "expected_outcome": "y",'
        ' "source_refs": ["../secret.md", "link.md#part"]}]}'
    )
    code = main(["validate", "--repo-root", str(root), str(evals)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("source_ref_outside_repo: source_ref leaves the repo root and is not looked up") == 2


def test_read_only_commands_refuse_a_symlink_leading_outside_too(tmp_path, capsys):
    from fixture_migrate.cli.app import main

    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "victim.json").write_bytes(LEGACY)
    (root / "link.json").symlink_to(tmp_path / "victim.json")
    for command in (["normalize"], ["validate"], ["detect"]):
        code = main([*command, "--repo-root", str(root), str(root)])
        err = capsys.readouterr().err
        assert code == 2 and "link.json: error: refused: it is a symlink" in err and "[symlink_outside_repo]" in err


def test_a_jsonl_file_whose_json_name_is_a_symlink_leading_outside_is_left_alone(tmp_path, capsys):
    from fixture_migrate.cli.app import main

    root = tmp_path / "repo"
    evals = root / "skills" / "x" / "evals" / "output"
    evals.mkdir(parents=True)
    source = evals / "cases.jsonl"
    source.write_text('{"id": "a", "prompt": "p"}\n')
    (tmp_path / "victim.json").write_text("{}")
    (evals / "cases.json").symlink_to(tmp_path / "victim.json")
    code = main(["migrate", "--repo-root", str(root), str(source)])
    err = capsys.readouterr().err
    assert code == 2
    assert "cases.jsonl: error: refused: cases.json, which it would become, is a symlink" in err
    assert source.read_text() == '{"id": "a", "prompt": "p"}\n'
    assert (tmp_path / "victim.json").read_text() == "{}"
