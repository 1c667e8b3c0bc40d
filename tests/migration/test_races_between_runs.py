"""Races a single writer cannot cause: two migrate runs on one tree, an editor's save by
rename between the last check and the rename, the repo root itself swapped, a hard-linked
JSON Lines file, a signal mid-move. Each is made deterministic with `steps.set_step_hook`
(or by running the other writer inside the last check) and checked for lost bytes.
"""

from __future__ import annotations

import io
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fixture_migrate.cli import commands
from fixture_migrate.cli.app import main
from fixture_migrate.cli.report import Report
from fixture_migrate.files import root as files_root
from fixture_migrate.files import steps, writes
from fixture_migrate.files.writes import TEMP_SUFFIX
from fixture_migrate.migration.engine import Options

ROOT = Path(__file__).resolve().parents[2]
JSONL = (ROOT / "examples" / "legacy" / "output-cases.jsonl").read_bytes()
LEGACY = (ROOT / "examples" / "legacy" / "review-examples.json").read_bytes()
EDITOR = b'{"note": "an editor saved this by a rename"}\n'


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "evals").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    return root, root / "evals", outside


@pytest.fixture
def at_step() -> Iterator[Callable[[str, Callable[[], None]], None]]:
    def install(step: str, action: Callable[[], None]) -> None:
        done = [False]

        def hook(name: str, path: str) -> None:
            if name == step and not done[0]:
                done[0] = True
                action()

        steps.set_step_hook(hook)

    yield install
    steps.set_step_hook(None)


def run_migrate(root: Path, *paths: Path) -> tuple[int, str]:
    err = io.StringIO()
    code = commands.run_migrate(
        list(paths) or [root], Options(repo_root=root), commands.MigrateMode(), out=io.StringIO(), report=Report(err=err)
    )
    return code, err.getvalue()


def migrated_jsonl(tmp_path: Path) -> bytes:
    """The bytes `cases.jsonl` migrates to, from a run on a copy."""
    copy = tmp_path / "copy"
    (copy / "evals").mkdir(parents=True)
    (copy / "evals" / "cases.jsonl").write_bytes(JSONL)
    assert run_migrate(copy)[0] == 0
    return (copy / "evals" / "cases.json").read_bytes()


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


# --- two runs at once -------------------------------------------------------------------------


@pytest.mark.parametrize("pause", ["temp_written", "before_unlink", "after_unlink"])
def test_two_runs_moving_one_jsonl_never_lose_it(tree, at_step, tmp_path, pause):
    """Run A pauses at `pause`; run B migrates the same tree completely; A resumes. The cases
    survive: in the migrated `.json`, or in the `.jsonl` still."""
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    migrated = migrated_jsonl(tmp_path)
    other: list[tuple[int, str]] = []
    at_step(pause, lambda: other.append(run_migrate(root)))
    code, err = run_migrate(root)
    assert other, "run B ran inside run A"
    target = evals / "cases.json"
    assert target.exists() or source.exists(), f"both copies gone: A {code} {err} / B {other}"
    if target.exists():
        assert target.read_bytes() == migrated
    if source.exists():
        assert source.read_bytes() == JSONL
    assert leftovers(root) == []
    assert run_migrate(root)[0] == 0  # whatever is left, the next run finishes it
    assert target.read_bytes() == migrated and not source.exists()


def test_a_move_keeps_its_source_when_the_json_is_no_longer_the_one_it_wrote(tree, at_step, tmp_path):
    """Another run replaced the `.json` by its own copy (same bytes, another inode) just before
    the removal: this run removes neither the `.jsonl` nor that `.json`."""
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    target = evals / "cases.json"

    def replace_json() -> None:
        content = target.read_bytes()
        (evals / "theirs").write_bytes(content)
        os.replace(evals / "theirs", target)

    at_step("before_unlink", replace_json)
    code, err = run_migrate(root)
    assert code == 2 and "[changed_meanwhile]" in err
    assert source.read_bytes() == JSONL, "the source is kept"
    assert target.read_bytes() == migrated_jsonl(tmp_path), "their .json is never removed"


def test_an_undone_move_removes_only_its_own_json(tree, at_step, tmp_path):
    """A line is appended (the move is undone) and the `.json` replaced meanwhile: the replaced
    `.json` is not this run's, so it stays."""
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    target = evals / "cases.json"

    def both() -> None:
        with source.open("ab") as f:
            f.write(b'{"id": "late", "prompt": "p", "with_skill_output": "o"}\n')
        (evals / "theirs").write_bytes(b'{"theirs": true}\n')
        os.replace(evals / "theirs", target)

    at_step("before_unlink", both)
    code, err = run_migrate(root)
    assert code == 2 and "[changed_meanwhile]" in err
    assert b"late" in source.read_bytes()
    assert target.read_bytes() == b'{"theirs": true}\n'


def test_a_json_left_by_an_interrupted_run_is_taken_over_and_the_move_finishes(tree, tmp_path):
    root, evals, _ = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    migrated = migrated_jsonl(tmp_path)
    (evals / "cases.json").write_bytes(migrated)
    code, err = run_migrate(root)
    assert code == 0, err
    assert (evals / "cases.json").read_bytes() == migrated and not source.exists()


# --- an editor's save by rename, after the last check -------------------------------------------


def save_in_last_check(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[int]:
    """Run an editor's save (write a temporary file, rename it over `path`) inside the last
    check before the rename or removal (`Directory.verify` after `before_swap`/`before_unlink`)."""
    armed: list[int] = []
    real_verify = files_root.Directory.verify

    def hook(step: str, _: str) -> None:
        if step in ("before_swap", "before_unlink"):
            armed.append(1)

    def verify(self: files_root.Directory) -> None:
        real_verify(self)
        if armed == [1]:
            armed.append(2)
            saved = path.with_name(".editor-save")
            saved.write_bytes(EDITOR)
            os.rename(saved, path)

    monkeypatch.setattr(files_root.Directory, "verify", verify)
    steps.set_step_hook(hook)
    return armed


@pytest.mark.parametrize("name, content", [("cases.json", LEGACY), ("cases.jsonl", JSONL)])
def test_a_save_by_rename_right_before_the_rename_is_kept(tree, monkeypatch, name, content):
    root, evals, _ = tree
    path = evals / name
    path.write_bytes(content)
    armed = save_in_last_check(monkeypatch, path)
    try:
        code, err = run_migrate(root)
    finally:
        steps.set_step_hook(None)
    assert armed == [1, 2], "the save happened in the window"
    assert code == 2 and "[changed_meanwhile]" in err
    assert path.read_bytes() == EDITOR, "the editor's save is what the name holds"
    assert not (evals / "cases.json").exists() or name == "cases.json"
    assert leftovers(root) == []


def test_without_rename_exchange_a_save_before_the_jsonl_removal_is_still_kept(tree, monkeypatch):
    """Where the system has no RENAME_EXCHANGE, the JSON Lines move still renames its source
    aside and checks it before removing it."""
    root, evals, _ = tree
    monkeypatch.setattr(writes, "_renameat2", lambda *args: False)
    path = evals / "cases.jsonl"
    path.write_bytes(JSONL)
    save_in_last_check(monkeypatch, path)
    try:
        code, err = run_migrate(root)
    finally:
        steps.set_step_hook(None)
    assert code == 2 and "[changed_meanwhile]" in err
    assert path.read_bytes() == EDITOR and not (evals / "cases.json").exists()


def test_without_rename_exchange_writes_still_migrate(tree, monkeypatch, tmp_path):
    root, evals, _ = tree
    monkeypatch.setattr(writes, "_renameat2", lambda *args: False)
    (evals / "a.json").write_bytes(LEGACY)
    (evals / "cases.jsonl").write_bytes(JSONL)
    code, err = run_migrate(root)
    assert code == 0, err
    assert (evals / "cases.json").read_bytes() == migrated_jsonl(tmp_path)
    assert (evals / "a.json").read_bytes() != LEGACY and leftovers(root) == []


def test_an_exchanged_out_file_that_is_not_the_one_read_goes_back(tree, monkeypatch):
    """The check after the exchange, from the other side: the file swapped out is compared by
    inode, so a file renamed over the name with the very same bytes is kept too."""
    root, evals, _ = tree
    path = evals / "cases.json"
    path.write_bytes(LEGACY)
    real_verify = files_root.Directory.verify
    armed: list[int] = []

    def verify(self: files_root.Directory) -> None:
        real_verify(self)
        if not armed and any(p.name.endswith(TEMP_SUFFIX) for p in evals.iterdir()):
            armed.append(1)
            (evals / ".same").write_bytes(LEGACY)
            os.rename(evals / ".same", path)

    monkeypatch.setattr(files_root.Directory, "verify", verify)
    inode = []
    steps.set_step_hook(lambda step, _: inode.append(os.stat(path).st_ino) if step == "after_swap" else None)
    try:
        code, err = run_migrate(root)
    finally:
        steps.set_step_hook(None)
    assert code == 2 and "[changed_meanwhile]" in err
    assert path.read_bytes() == LEGACY and leftovers(root) == []


# --- the root itself swapped ----------------------------------------------------------------


@pytest.mark.parametrize("step", ["opened", "temp_written", "before_swap", "before_unlink"])
@pytest.mark.parametrize("how", ["symlink", "renamed"])
def test_a_root_swapped_mid_run_is_never_written_through(tree, at_step, step, how):
    """The root is swapped while one file is written: neither that file nor any file after
    it is read or written in the directory swapped in."""
    root, evals, outside = tree
    files = {"a.json": LEGACY, "b.jsonl": JSONL, "c.json": LEGACY, "d.jsonl": JSONL}
    (outside / "evals").mkdir()
    for name, content in files.items():
        (evals / name).write_bytes(content)
        (outside / "evals" / name).write_bytes(content)

    def swap() -> None:
        os.rename(root, root.with_name("repo.moved"))
        if how == "symlink":
            os.symlink(outside, root)
        else:
            os.rename(outside, root)  # another directory renamed in under the root's name

    at_step(step, swap)
    code, err = run_migrate(root)
    assert code == 2, err
    assert "[changed_meanwhile]" in err or "[symlink_outside_repo]" in err
    swapped_in = outside if how == "symlink" else root
    assert {p.name: p.read_bytes() for p in (swapped_in / "evals").iterdir()} == files


# --- hard links ---------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_hard_linked_jsonl_is_not_moved(tree, where):
    root, evals, outside = tree
    source = evals / "cases.jsonl"
    source.write_bytes(JSONL)
    other = (evals / "copy.txt") if where == "inside" else (outside / "cases.jsonl")
    os.link(source, other)
    code, err = run_migrate(root, source)
    assert code == 2
    assert ("[hard_link_rename]" if where == "inside" else "[hard_link_outside_repo]") in err
    assert source.read_bytes() == JSONL and other.read_bytes() == JSONL
    assert not (evals / "cases.json").exists()


# --- a signal mid-write ---------------------------------------------------------------------


PASSED_STEPS = {
    "a.json": ("opened", "temp_written", "before_swap", "after_swap"),  # replaced in place (write_atomic)
    "cases.jsonl": ("opened", "temp_written", "before_unlink", "after_unlink"),  # moved to cases.json (move_file)
}
"""The steps each file's migration passes: a replacement never unlinks, a move never swaps."""


def test_the_signal_cases_cover_every_step():
    assert sorted({step for passed in PASSED_STEPS.values() for step in passed}) == sorted(steps.STEPS)


@pytest.mark.parametrize("name, step", [(name, step) for name, passed in PASSED_STEPS.items() for step in passed])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_write_finishes_the_write_before_stopping(tree, tmp_path, capsys, name, step, signum):
    root, evals, _ = tree
    content = LEGACY if name.endswith(".json") else JSONL
    (evals / name).write_bytes(content)
    seen: list[str] = []

    def hook(s: str, _: str) -> None:
        if s == step and not seen:
            seen.append(s)
            os.kill(os.getpid(), signum)

    steps.set_step_hook(hook)
    try:
        code = main(["migrate", "--repo-root", str(root), str(root)])
    finally:
        steps.set_step_hook(None)
    assert seen, f"{name} never reached {step}"
    err = capsys.readouterr().err
    assert code == 128 + signum
    assert "interrupted" in err
    files = sorted(p.name for p in evals.iterdir())
    if name == "cases.jsonl":
        assert files in (["cases.json"], ["cases.jsonl"]), files
        if files == ["cases.jsonl"]:
            assert (evals / "cases.jsonl").read_bytes() == JSONL
    else:
        assert files == ["a.json"]
        assert (evals / "a.json").read_bytes() != LEGACY, "the write finished before the process stopped"


# --- a third writer during a put-back ---------------------------------------------------------


def test_a_file_removed_during_the_put_back_is_changed_meanwhile(tree):
    root, evals, _ = tree
    path = evals / "a.json"
    path.write_bytes(LEGACY)
    held: dict[str, int] = {}

    def hook(step: str, _: str) -> None:
        if step == "opened":
            held["fd"] = os.open(path, os.O_WRONLY)
        if step == "after_swap":
            os.write(held["fd"], b"THEIRS")
            os.unlink(path)

    steps.set_step_hook(hook)
    try:
        code, err = run_migrate(root)
    finally:
        steps.set_step_hook(None)
        os.close(held["fd"])
    assert code == 2 and "[changed_meanwhile]" in err and "synced" not in err
    assert path.read_bytes().startswith(b"THEIRS"), "the other writer's bytes are put back"
    assert leftovers(root) == []


# --- symlink loops and special files: placed, correct errors -----------------------------------


def loops(evals: Path) -> None:
    os.symlink("loop.json", evals / "loop.json")
    os.symlink("b.json", evals / "a.json")
    os.symlink("a.json", evals / "b.json")


@pytest.mark.parametrize("command", ["migrate", "validate", "normalize"])
def test_a_symlink_loop_is_named_as_one_by_every_command(tree, capsys, command):
    root, evals, _ = tree
    loops(evals)
    code = main([command, "--repo-root", str(root), str(evals)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("[symlink_loop]") == 3 and "internal" not in err and "changed_meanwhile" not in err


def test_import_names_the_looping_source_or_destination(tree, capsys):
    root, evals, _ = tree
    loops(evals)
    source = root / "e.jsonl"
    source.write_text('{"input": "hi", "ideal": "hello"}\n')
    os.symlink("src-loop.jsonl", root / "src-loop.jsonl")
    base = ["import", "--from", "openai-evals", "--skill", "d", "--repo-root", str(root)]
    assert main([*base, str(source), "--out", str(evals / "loop.json")]) == 2
    err = capsys.readouterr().err
    assert "loop.json: error: refused: it is a symlink loop" in err and "internal" not in err
    assert main([*base, str(root / "src-loop.jsonl"), "--out", str(evals / "new.json")]) == 2
    err = capsys.readouterr().err
    assert "src-loop.jsonl: error: refused: it is a symlink loop" in err and "new.json: error" not in err
    assert not (evals / "new.json").exists()


def test_import_out_naming_a_pipe_is_not_called_a_directory(tree, capsys):
    root, evals, _ = tree
    os.mkfifo(evals / "fifo.json")
    source = root / "e.jsonl"
    source.write_text('{"input": "hi", "ideal": "hello"}\n')
    code = main(["import", "--from", "openai-evals", "--skill", "d", "--repo-root", str(root), str(source),
                 "--out", str(evals / "fifo.json")])
    err = capsys.readouterr().err
    assert code == 2 and "[not_regular]" in err and "directory" not in err.split("(help")[0]
