"""Races, made deterministic: the write path is paused at a named step
(`steps.set_step_hook`) and another writer edits, appends, removes or swaps exactly
there. Whatever it does, no byte of its is lost, nothing outside the repo root is
touched, and the run says what happened (`changed_meanwhile`, `symlink_outside_repo`).

Every write and removal path is attacked: a fixture rewritten in place, a JSON Lines
file moved to its `.json`, a file `import --out` creates or updates, the temporary
file each of them goes through, and a file read for planning.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fixture_migrate.cli import commands
from fixture_migrate.cli.app import main
from fixture_migrate.cli.report import Report
from fixture_migrate.errors import FixtureError
from fixture_migrate.files import reads, steps, writes
from fixture_migrate.files import root as files_root
from fixture_migrate.files.moves import move_file, remove_file
from fixture_migrate.files.writes import TEMP_SUFFIX, write_atomic
from fixture_migrate.migration.engine import Options

ROOT = Path(__file__).resolve().parents[2]
JSONL = (ROOT / "examples" / "legacy" / "output-cases.jsonl").read_bytes()
LEGACY = (ROOT / "examples" / "legacy" / "review-examples.json").read_bytes()
APPENDED = b'{"id": "appended", "prompt": "Added meanwhile.", "with_skill_output": "kept"}\n'


@pytest.fixture
def at_step() -> Iterator[Callable[[str, Callable[[], None]], list[str]]]:
    """`at_step(step, action)`: run `action` once, the first time a write reaches `step`;
    returns the list of steps seen (filled as the run goes)."""
    seen: list[str] = []

    def install(step: str, action: Callable[[], None]) -> list[str]:
        done = [False]

        def hook(name: str, path: str) -> None:
            seen.append(name)
            if name == step and not done[0]:
                done[0] = True
                action()

        steps.set_step_hook(hook)
        return seen

    yield install
    steps.set_step_hook(None)


def run_migrate(root: Path, *paths: Path) -> tuple[int, str]:
    err = io.StringIO()
    code = commands.run_migrate(
        list(paths) or [root],
        Options(repo_root=root),
        commands.MigrateMode(),
        out=io.StringIO(),
        report=Report(err=err),
    )
    return code, err.getvalue()


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder`: a file's bytes, a symlink's target, `dir` for a directory."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_dir():
            found[name] = "dir"
        else:
            found[name] = path.read_bytes()
    return found


def temps(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    """`(root, evals, outside)`: a repo root with an `evals/` folder, and a folder outside it."""
    root = tmp_path / "repo"
    evals = root / "evals"
    evals.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    return root, evals, outside


# --- item 1: the JSON Lines move ------------------------------------------------------------


def test_a_line_appended_before_the_jsonl_is_removed_is_kept(tree, at_step):
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    at_step("before_unlink", lambda: source.open("ab").write(APPENDED))
    code, err = run_migrate(root, source)
    assert code == 2 and "[changed_meanwhile]" in err
    assert source.read_bytes() == JSONL + APPENDED, "the other writer's line is kept"
    assert not (evals / "cases.json").exists(), "the .json made from the older bytes is removed again"
    assert temps(root) == []
    code, err = run_migrate(root, source)  # the next run migrates both lines
    assert code == 0, err
    assert b"appended" in (evals / "cases.json").read_bytes() and not source.exists()


def test_a_line_written_through_an_open_descriptor_right_after_the_removal_is_put_back(tree, at_step):
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    fd = os.open(source, os.O_WRONLY | os.O_APPEND)  # a writer that opened the file before the removal
    try:
        at_step("after_unlink", lambda: os.write(fd, APPENDED))
        code, err = run_migrate(root, source)
    finally:
        os.close(fd)
    assert code == 2 and "[changed_meanwhile]" in err
    assert source.read_bytes() == JSONL + APPENDED and not (evals / "cases.json").exists()


@pytest.mark.parametrize("step", ["opened", "temp_written", "before_unlink"])
def test_a_jsonl_removed_mid_run_is_changed_meanwhile_as_a_json_is(tree, at_step, step):
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    at_step(step, source.unlink)
    code, err = run_migrate(root, source)
    assert code == 2
    assert "refused: the file was removed while it was being migrated; nothing written [changed_meanwhile]" in err
    assert list(evals.iterdir()) == []


def test_a_jsonl_removed_between_the_plan_and_the_write_is_changed_meanwhile(tree, monkeypatch):
    root, evals, _ = tree
    moved, edited = evals / "a.jsonl", evals / "b.json"
    moved.write_bytes(JSONL)
    edited.write_bytes(LEGACY)
    real = commands.Engine.plan

    def plan_then_remove(self, path):
        result = real(self, path)
        path.unlink()
        return result

    monkeypatch.setattr(commands.Engine, "plan", plan_then_remove)
    code, err = run_migrate(root)
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 2 and all("was removed while it was being migrated" in line for line in lines)
    assert all(line.endswith("[changed_meanwhile] (help: run again once the other writer is done)") for line in lines)


# --- the plain rewrite: a writer that reached the old file after the last check ---------------


def test_bytes_written_to_the_old_file_right_after_the_rename_are_put_back(tree, at_step):
    root, evals, _ = tree
    target = evals / "cases.json"
    target.write_bytes(LEGACY)
    theirs = LEGACY.replace(b"Review", b"Edited meanwhile")
    fd = os.open(target, os.O_WRONLY)  # opened before the rename, written after it

    def write_theirs() -> None:
        os.pwrite(fd, theirs, 0)

    try:
        at_step("after_swap", write_theirs)
        code, err = run_migrate(root, target)
    finally:
        os.close(fd)
    assert code == 2 and "[changed_meanwhile]" in err
    assert target.read_bytes() == theirs and temps(root) == []


@pytest.mark.parametrize("step", ["opened", "temp_written", "before_swap"])
def test_an_edit_at_each_step_of_a_rewrite_is_kept(tree, at_step, step):
    root, evals, _ = tree
    target = evals / "cases.json"
    target.write_bytes(LEGACY)
    theirs = LEGACY + b"\n"
    at_step(step, lambda: target.write_bytes(theirs))
    code, err = run_migrate(root, target)
    assert code == 2 and "[changed_meanwhile]" in err
    assert target.read_bytes() == theirs and temps(root) == []


# --- item 2: a directory on the path swapped for a symlink, at every step of every path ------


def swap_for_symlink(folder: Path, to: Path) -> Callable[[], None]:
    """Move `folder` away (beside the root's parent) and put a symlink to `to` in its place."""

    def swap() -> None:
        if not folder.is_symlink():
            shutil.move(str(folder), str(folder.parent.parent / f"moved-{folder.name}"))
            folder.symlink_to(to, target_is_directory=True)

    return swap


WRITE_STEPS = ["opened", "temp_written", "before_swap"]
MOVE_STEPS = ["opened", "temp_written", "before_unlink"]


@pytest.mark.parametrize("step", WRITE_STEPS)
def test_migrate_never_writes_through_a_directory_swapped_mid_write(tree, at_step, step):
    root, evals, outside = tree
    (evals / "c.json").write_bytes(LEGACY)
    (outside / "c.json").write_bytes(LEGACY)  # the same bytes: the old check alone passed
    before = snapshot(outside)
    at_step(step, swap_for_symlink(evals, outside))
    code, err = run_migrate(root, evals / "c.json")
    assert code == 2 and ("[symlink_outside_repo]" in err or "[changed_meanwhile]" in err), err
    assert snapshot(outside) == before
    assert temps(root.parent) == []


@pytest.mark.parametrize("step", MOVE_STEPS)
def test_a_jsonl_move_never_creates_or_removes_through_a_swapped_directory(tree, at_step, step):
    root, evals, outside = tree
    (evals / "c.jsonl").write_bytes(JSONL)
    (outside / "c.jsonl").write_bytes(JSONL)  # would be removed by the old move
    before = snapshot(outside)
    at_step(step, swap_for_symlink(evals, outside))
    code, err = run_migrate(root, evals / "c.jsonl")
    assert code == 2 and ("[symlink_outside_repo]" in err or "[changed_meanwhile]" in err), err
    assert snapshot(outside) == before
    moved = root.parent / "moved-evals"
    assert snapshot(moved) == {"c.jsonl": JSONL}, "the source is kept, no .json made from it stays"
    assert temps(root.parent) == []


def test_a_directory_swapped_before_the_write_starts_is_refused_as_outside(tree, monkeypatch):
    root, evals, outside = tree
    (evals / "c.json").write_bytes(LEGACY)
    (outside / "c.json").write_bytes(LEGACY)
    real_resolve = files_root.resolve_target
    swap = swap_for_symlink(evals, outside)

    def resolve_then_swap(path, root_):
        found = real_resolve(path, root_)
        swap()  # after the path was checked, before anything is opened
        return found

    monkeypatch.setattr(writes, "resolve_target", resolve_then_swap)
    with pytest.raises(FixtureError) as caught:
        write_atomic(evals / "c.json", b"{}\n", original=LEGACY, root=root)
    assert caught.value.code == "symlink_outside_repo"
    assert (outside / "c.json").read_bytes() == LEGACY


def test_a_read_never_follows_a_directory_swapped_after_the_check(tree, monkeypatch):
    root, evals, outside = tree
    (evals / "c.json").write_bytes(LEGACY)
    (outside / "c.json").write_bytes(b'{"secret": "outside"}')
    real_resolve = files_root.resolve_target
    swap = swap_for_symlink(evals, outside)

    def resolve_then_swap(path, root_):
        found = real_resolve(path, root_)
        swap()
        return found

    monkeypatch.setattr(files_root, "resolve_target", resolve_then_swap)
    with pytest.raises(FixtureError) as caught:
        reads.read_fixture(evals / "c.json", root=root)
    assert caught.value.code == "symlink_outside_repo"


@pytest.mark.parametrize("step", ["opened", "temp_written", "before_swap"])
def test_remove_file_and_write_new_act_only_inside(tree, at_step, step):
    root, evals, outside = tree
    (evals / "gone.json").write_bytes(b"x")
    (outside / "gone.json").write_bytes(b"x")
    before = snapshot(outside)
    swap_for_symlink(evals, outside)()
    with pytest.raises(FixtureError) as caught:
        remove_file(evals / "gone.json", b"x", root=root)
    assert caught.value.code == "symlink_outside_repo"
    with pytest.raises(FixtureError):
        writes.write_new(evals / "new.json", b"{}", root=root)
    assert snapshot(outside) == before


def test_move_file_api_refuses_a_swapped_source_directory(tree, at_step):
    root, evals, outside = tree
    (evals / "c.jsonl").write_bytes(JSONL)
    (outside / "c.jsonl").write_bytes(JSONL)
    at_step("before_unlink", swap_for_symlink(evals, outside))
    with pytest.raises(FixtureError) as caught:
        move_file(evals / "c.jsonl", JSONL, evals / "c.json", b"{}\n", root=root)
    assert caught.value.code in ("symlink_outside_repo", "changed_meanwhile")
    assert snapshot(outside) == {"c.jsonl": JSONL}


# --- item 3: import ---------------------------------------------------------------------------

LANGSMITH = (ROOT / "examples" / "external" / "langsmith" / "examples.jsonl").read_bytes()


def run_import(capsys, root: Path, *argv: str) -> tuple[int, str]:
    code = main(["import", "--repo-root", str(root), "--skill", "demo", *argv])
    return code, capsys.readouterr().err


def test_import_refuses_a_source_symlink_leading_outside(tree, capsys):
    root, evals, outside = tree
    (outside / "examples.jsonl").write_bytes(LANGSMITH)
    (root / "src.jsonl").symlink_to(outside / "examples.jsonl")
    code, err = run_import(capsys, root, str(root / "src.jsonl"), "--out", str(evals / "a.json"))
    assert code == 2 and "[symlink_outside_repo]" in err and not (evals / "a.json").exists()


def test_import_follows_a_source_symlink_inside(tree, capsys):
    root, evals, _ = tree
    (root / "real.jsonl").write_bytes(LANGSMITH)
    (root / "src.jsonl").symlink_to("real.jsonl")
    code, err = run_import(capsys, root, str(root / "src.jsonl"), "--out", str(evals / "a.json"))
    assert code == 0, err


@pytest.mark.parametrize("dangling", [True, False])
def test_import_out_through_a_symlink_leading_outside_is_refused(tree, capsys, dangling):
    root, evals, outside = tree
    (root / "in.jsonl").write_bytes(LANGSMITH)
    if not dangling:
        (outside / "planted.json").write_bytes(b"{}")
    (evals / "dest.json").symlink_to(outside / "planted.json")
    before = snapshot(outside)
    code, err = run_import(capsys, root, str(root / "in.jsonl"), "--out", str(evals / "dest.json"))
    assert code == 2 and "[symlink_outside_repo]" in err
    assert snapshot(outside) == before


def test_import_out_in_a_symlinked_directory_leading_outside_is_refused(tree, capsys):
    root, _, outside = tree
    (root / "in.jsonl").write_bytes(LANGSMITH)
    (root / "linked").symlink_to(outside, target_is_directory=True)
    code, err = run_import(capsys, root, str(root / "in.jsonl"), "--out", str(root / "linked" / "new" / "a.json"))
    assert code == 2 and "[symlink_outside_repo]" in err
    assert snapshot(outside) == {}, "not even a directory is made outside"


@pytest.mark.parametrize(
    "existing, step", [(False, "temp_written"), (True, "opened"), (True, "temp_written"), (True, "before_swap")]
)
def test_import_out_never_lands_outside_when_its_directory_is_swapped(tree, capsys, at_step, step, existing):
    root, evals, outside = tree
    (root / "in.jsonl").write_bytes(LANGSMITH)
    if existing:
        code, err = run_import(capsys, root, str(root / "in.jsonl"), "--out", str(evals / "a.json"))
        assert code == 0, err
        (root / "in.jsonl").write_bytes(LANGSMITH.replace(b"}\n", b', "extra": 1}\n', 1))
    before = snapshot(outside)
    at_step(step, swap_for_symlink(evals, outside))
    code, err = run_import(capsys, root, str(root / "in.jsonl"), "--out", str(evals / "a.json"))
    assert code == 2 and ("[symlink_outside_repo]" in err or "[changed_meanwhile]" in err), err
    assert snapshot(outside) == before
    assert temps(root.parent) == []


PROMPTFOO_CONFIG = "prompts: ['{{q}}']\ntests: file://tests.yaml\n"
PROMPTFOO_TESTS = "- vars: {q: %s}\n  assert: [{type: equals, value: x}]\n"


def test_a_promptfoo_load_swapped_for_a_symlink_after_its_check_is_never_read(tree, capsys, monkeypatch):
    from fixture_migrate.importing import base

    root, _, outside = tree
    folder = root / "pf"
    folder.mkdir()
    (folder / "promptfooconfig.yaml").write_text(PROMPTFOO_CONFIG)
    (folder / "tests.yaml").write_text(PROMPTFOO_TESTS % "inside")
    (outside / "tests.yaml").write_text(PROMPTFOO_TESTS % "secret outside")
    real = base.resolve_within

    def check_then_swap(*args, **kwargs):
        found = real(*args, **kwargs)
        (folder / "tests.yaml").unlink()
        (folder / "tests.yaml").symlink_to(outside / "tests.yaml")
        return found

    monkeypatch.setattr(base, "resolve_within", check_then_swap)
    code, err = run_import(capsys, root, str(folder / "promptfooconfig.yaml"), "--out", str(root / "pf.json"))
    assert code == 2 and "[symlink_outside_repo]" in err
    assert not (root / "pf.json").exists()


# --- files the tool owns (a cache): write_file ------------------------------------------------


def test_write_file_replaces_atomically_and_never_through_a_swapped_directory(tree, at_step):
    root, evals, outside = tree
    cache = evals / "cache.bin"
    writes.write_file(cache, b"one", root=root)
    writes.write_file(cache, b"two", root=root)
    assert cache.read_bytes() == b"two" and temps(root) == []
    (outside / "cache.bin").write_bytes(b"outside")
    at_step("temp_written", swap_for_symlink(evals, outside))
    with pytest.raises(FixtureError) as caught:
        writes.write_file(cache, b"three", root=root)
    assert caught.value.code in ("symlink_outside_repo", "changed_meanwhile")
    assert snapshot(outside) == {"cache.bin": b"outside"} and temps(root.parent) == []


def test_write_file_in_pieces_writes_them_all_or_leaves_the_old_file(tree):
    root, evals, _ = tree
    cache = evals / "cache.bin"
    writes.write_file(cache, iter([b"one ", b"", bytearray(b"two "), memoryview(b"three")]), root=root)
    assert cache.read_bytes() == b"one two three" and temps(root) == []

    def broken() -> Iterator[bytes]:
        yield b"half of it"
        raise OSError(28, "No space left on device")

    with pytest.raises(FixtureError) as caught:
        writes.write_file(cache, broken(), root=root)
    assert caught.value.code == "io" and "No space left" in str(caught.value)
    assert cache.read_bytes() == b"one two three" and temps(root) == []


def test_write_file_replaces_a_symlink_instead_of_following_it(tree):
    root, evals, outside = tree
    (outside / "target").write_bytes(b"outside")
    (evals / "cache.bin").symlink_to(outside / "target")
    with pytest.raises(FixtureError) as caught:
        writes.write_file(evals / "cache.bin", b"x", root=root)
    assert caught.value.code == "symlink_outside_repo" and (outside / "target").read_bytes() == b"outside"
