"""`fixture_migrate.files.walk`: which files a run visits, in which order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.walk import iter_files
from fixture_migrate.files.writes import TEMP_SUFFIX

from tests.helpers import inside_and_outside


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in (
        "b/evals/z.json",
        "b/evals/a.yaml",
        "a/cases.jsonl",
        "a/test_cases.py",
        "a/notes.txt",
        ".hidden/x.json",
        "node_modules/pkg/package.json",
        "venv/lib/x.json",
        f"a/half{TEMP_SUFFIX}",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    return tmp_path


def names(found, root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path, error in found if error is None]


def test_a_directory_is_walked_sorted_for_the_suffixes_read(tree: Path):
    assert names(iter_files([tree]), tree) == ["a/cases.jsonl", "a/test_cases.py", "b/evals/a.yaml", "b/evals/z.json"]


def test_a_named_file_is_yielded_whatever_its_suffix(tree: Path):
    assert names(iter_files([tree / "a" / "notes.txt"]), tree) == ["a/notes.txt"]


def test_overlapping_arguments_yield_each_file_once(tree: Path):
    found = names(iter_files([tree / "a", tree / "a" / "cases.jsonl", tree / "a"]), tree)
    assert found == ["a/cases.jsonl", "a/test_cases.py"]


def test_a_missing_path_is_an_error_in_place(tree: Path):
    [(path, error)] = list(iter_files([tree / "nowhere.json"]))
    assert path == tree / "nowhere.json"
    assert error is not None and error.code == "io"


def test_symlinked_directories_are_not_followed(tree: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "x.json").write_text("{}")
    os.symlink(outside, tree / "b" / "link", target_is_directory=True)
    assert "b/link/x.json" not in names(iter_files([tree]), tree)


def _links(tmp_path: Path) -> Path:
    """data/a.json, and other/link.json and other/again.json leading to it."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text("{}")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "link.json").symlink_to("../data/a.json")
    (tmp_path / "other" / "again.json").symlink_to("../data/a.json")
    return tmp_path


def test_a_linked_file_under_the_walk_is_processed_once_as_itself(tmp_path: Path):
    root = _links(tmp_path)
    assert [path.relative_to(root).as_posix() for path, _ in iter_files([root])] == ["data/a.json"]


def test_one_target_outside_the_walk_is_processed_once(tmp_path: Path):
    root = _links(tmp_path)
    assert [path.relative_to(root).as_posix() for path, _ in iter_files([root / "other"])] == ["other/again.json"]


def test_a_link_to_an_ignored_or_excluded_file_is_left_out(tmp_path: Path):
    from fixture_migrate.files.ignore import GitIgnore

    root = _links(tmp_path)
    (root / ".gitignore").write_text("data/\n")
    assert list(iter_files([root], ignore=GitIgnore(root))) == []
    assert list(iter_files([root / "other"], ignore=GitIgnore(root))) == []
    (root / ".gitignore").unlink()
    excluded = list(iter_files([root / "other"], admits=lambda target: "data" not in target.parts))
    assert excluded == []


def test_a_named_link_is_processed_whatever_its_target(tmp_path: Path):
    from fixture_migrate.files.ignore import GitIgnore

    root = _links(tmp_path)
    (root / ".gitignore").write_text("data/\n")
    assert [path for path, _ in iter_files([root / "other" / "link.json"], ignore=GitIgnore(root))] == [
        root / "other" / "link.json"
    ]


def test_a_read_during_the_walk_never_follows_its_directory_swapped_for_a_symlink(tmp_path: Path):
    """The walk holds `evals` open while it yields its files; swapped meanwhile for a symlink
    leading outside, a read of its next file never reaches outside the root."""
    from fixture_migrate.files.reads import read_fixture
    from fixture_migrate.files.root import pin_root

    root, evals, outside = inside_and_outside(tmp_path)
    pin_root(root)
    walk = iter_files([root], root=root)
    first, _ = next(walk)
    assert read_fixture(first, root=root) == b'{"inside": true}'
    os.rename(evals, root / "moved")
    os.symlink(outside, evals, target_is_directory=True)
    second, _ = next(walk)
    assert second == evals / "b.json"
    try:
        found = read_fixture(second, root=root)
    except FixtureError as error:
        assert error.code in ("symlink_outside_repo", "changed_meanwhile")
    else:
        assert found == b'{"inside": true}'  # the directory the walk opened, never the link
    assert list(walk) == []


@pytest.mark.parametrize("symlink_left", [True, False], ids=["symlink-left", "moved-away"])
def test_a_held_directory_moved_out_of_the_root_is_not_read_from(tmp_path: Path, symlink_left: bool):
    """The walk holds `skills/s/evals` open; its parent `skills/s` is moved outside the root
    (a symlink to it left in its place, or nothing): the next read must not go through the
    moved directory, whose files now lie outside the root."""
    from fixture_migrate.files.reads import read_fixture
    from fixture_migrate.files.root import pin_root

    root = tmp_path / "repo"
    evals = root / "skills" / "s" / "evals"
    evals.mkdir(parents=True)
    for name in ("a.json", "b.json"):
        (evals / name).write_text('{"inside": true}')
    pin_root(root)
    walk = iter_files([root], root=root)
    first, _ = next(walk)
    assert read_fixture(first, root=root) == b'{"inside": true}'
    away = tmp_path / "away"
    os.rename(root / "skills" / "s", away)
    (away / "evals" / "b.json").write_text('{"secret": "outside"}')
    if symlink_left:
        os.symlink(away, root / "skills" / "s", target_is_directory=True)
    second, _ = next(walk)
    assert second.name == "b.json"
    with pytest.raises(FixtureError) as caught:
        read_fixture(second, root=root)
    assert caught.value.code in ("symlink_outside_repo", "changed_meanwhile", "io")
    assert list(walk) == []


def test_a_file_swapped_for_a_symlink_in_a_held_directory_is_refused(tmp_path: Path):
    from fixture_migrate.files.reads import read_fixture
    from fixture_migrate.files.root import pin_root

    root, evals, outside = inside_and_outside(tmp_path)
    pin_root(root)
    walk = iter_files([root], root=root)
    next(walk)
    (evals / "b.json").unlink()
    os.symlink(outside / "b.json", evals / "b.json")
    second, _ = next(walk)
    with pytest.raises(FixtureError) as caught:
        read_fixture(second, root=root)
    walk.close()
    assert caught.value.code == "symlink_outside_repo"


def test_a_held_directory_is_not_used_once_the_walk_leaves_it_or_in_a_forked_child(tmp_path: Path):
    from fixture_migrate.files import root as files_root

    root, evals, _ = inside_and_outside(tmp_path)
    (root / "later").mkdir()
    (root / "later" / "c.json").write_text("{}")
    walk = iter_files([root], root=root)
    next(walk)
    assert str(evals) in files_root._HELD
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing held
        os.write(write, b"1" if files_root._HELD else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"0"
    os.close(read)
    os.close(write)
    assert [path for path, _ in walk] == [evals / "b.json", root / "later" / "c.json"]
    assert str(evals) not in files_root._HELD


@pytest.mark.parametrize("how", ["symlink", "renamed"])
def test_a_root_swapped_during_the_walk_refuses_the_next_read_of_a_held_directory(tmp_path: Path, how: str):
    from fixture_migrate.files.reads import read_fixture
    from fixture_migrate.files.root import pin_root

    root, evals, outside = inside_and_outside(tmp_path)
    (outside / "evals").mkdir()
    (outside / "evals" / "b.json").write_text('{"secret": "outside"}')
    pin_root(root)
    walk = iter_files([root], root=root)
    first, _ = next(walk)
    assert read_fixture(first, root=root) == b'{"inside": true}'
    os.rename(root, tmp_path / "moved")
    if how == "symlink":
        os.symlink(outside, root, target_is_directory=True)
    else:
        os.rename(outside, root)
    second, _ = next(walk)
    with pytest.raises(FixtureError) as caught:
        read_fixture(second, root=root)
    walk.close()
    assert caught.value.code in ("changed_meanwhile", "symlink_outside_repo")


def _walk_names(root: Path) -> list[str]:
    from fixture_migrate.files.ignore import GitIgnore

    return names(iter_files([root], ignore=GitIgnore(root), root=root), root)


def test_a_gitignore_that_is_a_pipe_is_passed_over_without_waiting(tmp_path: Path):
    import threading

    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "a.json").write_text("{}")
    os.mkfifo(root / ".gitignore")
    found: list[list[str]] = []
    walker = threading.Thread(target=lambda: found.append(_walk_names(root)), daemon=True)
    walker.start()
    walker.join(10)
    if walker.is_alive():  # let the blocked open go, so the test run ends
        os.close(os.open(root / ".gitignore", os.O_WRONLY | os.O_NONBLOCK))
        walker.join(10)
        pytest.fail("the walk waited on a .gitignore that is a pipe")
    assert found == [["evals/a.json"]]


def test_a_gitignore_that_is_a_symlink_is_not_followed(tmp_path: Path):
    """As git (2.32 on) does: the rules of a symlinked `.gitignore` are not read (and one
    leading outside the root is never opened)."""
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "a.json").write_text("{}")
    (tmp_path / "outside").write_text("*.json\n")
    os.symlink(tmp_path / "outside", root / "evals" / ".gitignore")
    assert _walk_names(root) == ["evals/a.json"]


def test_the_gitignore_of_a_directory_swapped_for_a_symlink_is_read_from_the_one_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The walk lists `evals` through the descriptor it opened; swapped meanwhile for a
    symlink leading outside, the `.gitignore` beside those files is still the one in the
    directory listed, never the one outside."""
    root = tmp_path / "repo"
    evals = root / "evals"
    evals.mkdir(parents=True)
    (evals / "a.json").write_text("{}")
    (evals / ".gitignore").write_text("b.json\n")
    (evals / "b.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".gitignore").write_text("*.json\n")
    scandir = os.scandir

    def listing(where):  # noqa: ANN001, ANN202
        entries = list(scandir(where))
        if isinstance(where, int) and {entry.name for entry in entries} == {"a.json", "b.json", ".gitignore"}:
            os.rename(evals, root / "moved")
            os.symlink(outside, evals, target_is_directory=True)
        return iter(entries)

    monkeypatch.setattr(os, "scandir", listing)
    assert _walk_names(root) == ["evals/a.json"]


def _nested(root: Path, depth: int) -> str:
    """`root/d/d/.../d/deep.json`, `depth` directories down (made one level at a time)."""
    directory = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=directory)
        below = os.open("d", os.O_RDONLY, dir_fd=directory)
        os.close(directory)
        directory = below
    os.close(os.open("deep.json", os.O_WRONLY | os.O_CREAT, dir_fd=directory))
    os.close(directory)
    return "/".join(["d"] * depth + ["deep.json"])


def test_a_tree_deeper_than_the_open_file_limit_is_walked_whole(tmp_path: Path):
    """A walk holds no descriptor per level of depth without bound: a tree deeper than the
    descriptors the process may open is walked to its bottom, never silently cut short."""
    resource = pytest.importorskip("resource")
    root = tmp_path / "repo"
    root.mkdir()
    deep = _nested(root, 120)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 16
    resource.setrlimit(resource.RLIMIT_NOFILE, (opened + 48, hard))
    try:
        found = names(iter_files([root], root=root), root)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert found == [deep]


def test_a_tree_deeper_than_the_recursion_limit_is_walked(tmp_path: Path):
    import sys

    root = tmp_path / "repo"
    root.mkdir()
    deep = _nested(root, 150)  # not deeper: pytest removes its temporary trees recursively
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)
    try:
        found = names(iter_files([root], root=root), root)
    finally:
        sys.setrecursionlimit(limit)
    assert found == [deep]


def test_a_deep_directory_swapped_for_a_symlink_below_the_held_levels_is_not_entered(tmp_path: Path):
    """Past `HELD_LEVELS` a listed directory is closed, and opened again to enter its next
    subdirectory only when it is still the directory listed: one swapped meanwhile for a
    symlink leading outside is not entered."""
    from fixture_migrate.files.walk import HELD_LEVELS

    root = tmp_path / "repo"
    deep = root.joinpath(*["d"] * (HELD_LEVELS + 3))
    (deep / "a").mkdir(parents=True)
    (deep / "a" / "first.json").write_text("{}")
    (deep / "b").mkdir()
    (deep / "b" / "second.json").write_text("{}")
    outside = tmp_path / "outside"
    (outside / "b").mkdir(parents=True)
    (outside / "b" / "secret.json").write_text("{}")
    walk = iter_files([root], root=root)
    first, _ = next(walk)
    assert first == deep / "a" / "first.json"
    os.rename(deep, tmp_path / "moved")
    os.symlink(outside, deep, target_is_directory=True)
    assert list(walk) == []


def test_a_directory_not_opened_for_want_of_descriptors_is_an_error_not_left_out(tmp_path: Path):
    """Out of descriptors (a limit lower than the levels the walk holds), a directory the
    walk cannot open is reported as an error in place: a run never passes over it as if
    it were not there."""
    resource = pytest.importorskip("resource")
    root = tmp_path / "repo"
    root.mkdir()
    _nested(root, 40)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 16
    resource.setrlimit(resource.RLIMIT_NOFILE, (opened + 6, hard))
    try:
        found = list(iter_files([root], root=root))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    errors = [(path, error) for path, error in found if error is not None]
    assert errors and all(error.code == "io" for _, error in errors)
    assert all(path.is_dir() for path, _ in errors)


def test_the_exclude_file_of_a_linked_worktree_is_the_repositorys(tmp_path: Path):
    """In a linked worktree (`git worktree add`) `.git` is a file naming the worktree's git
    folder, whose `commondir` leads to the repository's: `info/exclude` is read there, as git
    reads it."""
    store = tmp_path / "main" / ".git"
    (store / "info").mkdir(parents=True)
    (store / "info" / "exclude").write_text("private.json\n")
    (store / "worktrees" / "wt").mkdir(parents=True)
    (store / "worktrees" / "wt" / "commondir").write_text("../..\n")
    root = tmp_path / "wt"
    (root / "evals").mkdir(parents=True)
    (root / ".git").write_text(f"gitdir: {store / 'worktrees' / 'wt'}\n")
    for name in ("kept.json", "private.json"):
        (root / "evals" / name).write_text("{}")
    assert _walk_names(root) == ["evals/kept.json"]


def test_the_exclude_file_of_a_real_linked_worktree_is_read(tmp_path: Path):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str, cwd: Path = repo) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init")
    git("worktree", "add", "-q", str(tmp_path / "wt"))
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("private.json\n")
    root = tmp_path / "wt"
    (root / "evals").mkdir()
    for name in ("kept.json", "private.json"):
        (root / "evals" / name).write_text("{}")
    listed = subprocess.run(
        ["git", "ls-files", "-o", "--exclude-standard"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.split()
    assert listed == ["evals/kept.json"]
    assert _walk_names(root) == listed


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(b"\xef\xbb\xbfignored.json\nalso.json\n", id="bom"),
        pytest.param(b"ignored.json\r\nalso.json\r\n", id="crlf"),
        pytest.param(b"\xef\xbb\xbfignored.json\r\nalso.json", id="bom-crlf-no-final-newline"),
    ],
)
@pytest.mark.parametrize("where", [".gitignore", ".git/info/exclude"])
def test_rules_files_are_read_as_git_reads_them(tmp_path: Path, rules: bytes, where: str):
    """A leading byte order mark is dropped (git keeps the first pattern) and CRLF ends a
    line; the walk leaves out what `git check-ignore` says git ignores."""
    import shutil
    import subprocess

    root = tmp_path / "repo"
    (root / ".git" / "info").mkdir(parents=True)
    for name in ("ignored.json", "also.json", "kept.json"):
        (root / name).write_text("{}\n")
    (root / where).write_bytes(rules)
    assert _walk_names(root) == ["kept.json"]
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / where).write_bytes(rules)  # git init may write its own exclude
        found = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "ignored.json", "also.json", "kept.json"],
            capture_output=True,
            text=True,
        )
        assert found.stdout.split() == ["ignored.json", "also.json"]


def test_a_lone_carriage_return_or_form_feed_is_part_of_a_pattern(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("a.json", "b.json"):
        (root / name).write_text("{}\n")
    (root / ".gitignore").write_bytes(b"a.json\rb.json\n")  # one pattern naming neither file, as git reads it
    assert _walk_names(root) == ["a.json", "b.json"]
