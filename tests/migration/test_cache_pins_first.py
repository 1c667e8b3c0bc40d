"""A re-run whose cache holds a "would change" builds the pin index first, and its read of each
tracked file spares the cache a second read (`Engine.note_read`): the same output as a run
that reads every file again, for files unchanged, edited, grown past their limit, swapped
for a symlink or removed since the cache learnt them."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from fixture_migrate.consumers import pins
from fixture_migrate.migration import cache as cache_module
from fixture_migrate.migration import run as run_module
from fixture_migrate.migration.cache import ENV_VAR
from fixture_migrate.migration.engine import Engine

from tests.helpers import CANONICAL, LEGACY
from tests.runner import run_cli


@pytest.fixture(autouse=True)
def per_file_cache_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the per-file cache: no run's record (`fixture_migrate.migration.replay`,
    tested in tests/migration/test_replay.py) replays a re-run before it reaches it."""
    from fixture_migrate.cli import recording

    monkeypatch.setattr(recording, "start", lambda *args, **kwargs: (None, None))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(ENV_VAR, raising=False)
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "legacy.json").write_text(LEGACY)
    for i in range(6):
        (evals / f"canonical-{i}.json").write_text(CANONICAL)
    (evals / "other.json").write_text('{"not": "a fixture"}\n')
    (root / "notes.md").write_text("nothing pinned here\n")
    return root


def check(tree: Path, monkeypatch, capsys, *extra: str):
    return run_cli(["migrate", "--check", "--repo-root", str(tree), *extra, str(tree)], tree, monkeypatch, capsys)


def reads(monkeypatch) -> list[str]:
    """The names of the files the engine reads from now on (the pin index's reads not counted)."""
    names: list[str] = []
    original = Engine.read

    def spy(self, path):
        names.append(Path(path).name)
        return original(self, path)

    monkeypatch.setattr(Engine, "read", spy)
    return names


def without_pins_first(monkeypatch) -> None:
    """Runs from now on build the index at their first change, as before: every file read again."""
    monkeypatch.setattr(run_module.MigrationRun, "_pins_first", lambda self: None)


def both(tree: Path, monkeypatch, capsys, *extra: str):
    """The re-run's output with the index built first, then without (same tree, same cache)."""
    first = check(tree, monkeypatch, capsys, *extra)
    with monkeypatch.context() as patch:
        without_pins_first(patch)
        second = check(tree, monkeypatch, capsys, *extra)
    return first, second


def test_a_re_run_reads_each_file_once_but_a_change(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)  # fills the cache
    read = reads(monkeypatch)
    again = check(tree, monkeypatch, capsys)
    assert again.code == 1
    # The change's bytes are read again for its fingerprint (a pin added since still keeps
    # it); every other file's verdict is taken on the pin index's read.
    assert read == ["legacy.json"]
    monkeypatch.undo()
    monkeypatch.delenv(ENV_VAR, raising=False)
    first, second = both(tree, monkeypatch, capsys)
    assert (first.code, first.out, first.err) == (second.code, second.out, second.err)
    assert "would migrate" in first.out + first.err


def test_edited_files_are_planned_again(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    evals = tree / "skills" / "demo" / "evals"
    (evals / "canonical-1.json").write_text(LEGACY)  # now a change
    (evals / "canonical-2.json").write_text(CANONICAL.replace("demo", "other"))
    (evals / "canonical-3.json").unlink()
    read = reads(monkeypatch)
    first = check(tree, monkeypatch, capsys)
    read_first = sorted(set(read))  # an edited file twice: for its digest, then to plan it
    read.clear()
    with monkeypatch.context() as patch:
        without_pins_first(patch)
        second = check(tree, monkeypatch, capsys)
    assert (first.code, first.out, first.err) == (second.code, second.out, second.err)
    assert "canonical-1.json" in first.out + first.err
    # Read again: the edited files, and the change for its fingerprint; without the index
    # first, every file.
    assert read_first == ["canonical-1.json", "canonical-2.json", "legacy.json"]
    assert sorted(set(read)) == sorted(path.name for path in evals.iterdir())


def test_a_file_grown_past_its_limit_is_refused_as_before(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    size = len((tree / "skills" / "demo" / "evals" / "canonical-0.json").read_bytes())
    monkeypatch.setenv("FIXTURE_MIGRATE_MAX_JSON_BYTES", str(size - 1))  # not in the cache's key
    first, second = both(tree, monkeypatch, capsys)
    assert first.code == second.code == 2
    assert (first.out, first.err) == (second.out, second.err)
    assert "canonical-0.json" in first.err


def test_a_file_swapped_for_a_symlink_is_refused_as_before(tree, tmp_path, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    evals = tree / "skills" / "demo" / "evals"
    outside = tmp_path / "outside.json"
    outside.write_text(CANONICAL)
    (evals / "canonical-4.json").unlink()
    (evals / "canonical-4.json").symlink_to(outside)
    first, second = both(tree, monkeypatch, capsys)
    assert (first.code, first.out, first.err) == (second.code, second.out, second.err)
    assert first.code == 2 and "canonical-4.json" in first.err


def builds(monkeypatch) -> list[str]:
    """How the pin index is built from now on, once a build: "first" (`build`, before the
    files are planned) or "lazily" (at the run's first change)."""
    found: list[str] = []
    real_build, real_inner = pins.PinIndex.build, pins.PinIndex._build

    def build(self, *args, **kwargs):
        found.append("first")
        self.built_first = True
        return real_build(self, *args, **kwargs)

    def inner(self, *args, **kwargs):
        if not getattr(self, "built_first", False):
            found.append("lazily")
        return real_inner(self, *args, **kwargs)

    monkeypatch.setattr(pins.PinIndex, "build", build)
    monkeypatch.setattr(pins.PinIndex, "_build", inner)
    return found


def test_a_tree_without_a_change_builds_no_index(tree, monkeypatch, capsys):
    (tree / "skills" / "demo" / "evals" / "legacy.json").unlink()
    check(tree, monkeypatch, capsys)
    built = builds(monkeypatch)
    assert check(tree, monkeypatch, capsys).code == 0
    assert built == []


def test_a_run_that_writes_shows_diffs_or_includes_pinned_files_builds_it_lazily(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    built = builds(monkeypatch)
    assert check(tree, monkeypatch, capsys, "--include-pinned").code == 1
    assert built == []  # pins are not checked at all
    diff = run_cli(["migrate", "--diff", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys)
    assert diff.code == 0 and built == ["lazily"]
    built.clear()
    assert check(tree, monkeypatch, capsys).code == 1
    assert built == ["first"]


def test_a_run_over_a_folder_without_a_cached_change_reads_no_index(tree, monkeypatch, capsys):
    other = tree / "skills" / "other" / "evals"
    other.mkdir(parents=True)
    (other / "canonical.json").write_text(CANONICAL.replace('"demo"', '"other"'))
    check(tree, monkeypatch, capsys)  # the cache holds the legacy file's change, in skills/demo
    built = builds(monkeypatch)

    def run(*named):
        return run_cli(["migrate", "--check", "--repo-root", str(tree), *map(str, named)], tree, monkeypatch, capsys)

    assert run(other).code == 0 and built == []
    assert run(other / "canonical.json", tree / "skills" / "demo" / "evals" / "other.json").code == 0 and built == []
    assert run(tree / "skills" / "demo").code == 1 and built == ["first"]
    built.clear()
    assert run(tree / "skills" / "demo" / "evals" / "legacy.json", other).code == 1 and built == ["first"]


def test_only_files_read_at_their_own_path_are_given(tmp_path: Path, monkeypatch):
    root = tmp_path / "repo"
    (root / "real").mkdir(parents=True)
    (root / "real" / "a.json").write_text("{}\n")
    (root / "plain.json").write_text("[]\n")
    os.symlink(root / "real", root / "link")
    tracked = [
        (str(root / "plain.json"), "plain.json"),
        (str(root / "real" / "a.json"), "real/a.json"),
        (str(root / "link" / "a.json"), "link/a.json"),  # a tracked folder swapped for a symlink inside
    ]
    monkeypatch.setattr(pins, "_tracked", lambda base: iter(tracked))
    given: list[tuple[str, bytes]] = []
    pins.PinIndex(root).build(on_read=lambda relative, data, info: given.append((relative, data)) or False)
    assert given == [("plain.json", b"[]\n"), ("real/a.json", b"{}\n")]
    # Where the kernel cannot open below the root in one call, nothing is given.
    monkeypatch.setattr(pins.beneath, "available", lambda: False)
    given.clear()
    pins.PinIndex(root).build(on_read=lambda relative, data, info: given.append((relative, data)) or False)
    assert given == []


def scans(monkeypatch) -> list[str]:
    """The files the pin index scans from now on."""
    names: list[str] = []
    original = pins.scan

    def spy(data, relative, digests, sizes):
        names.append(relative.rpartition("/")[2])
        return original(data, relative, digests, sizes)

    monkeypatch.setattr(pins, "scan", spy)
    return names


def test_files_known_to_pin_nothing_are_not_scanned_again(tree, monkeypatch, capsys):
    evals = tree / "skills" / "demo" / "evals"
    legacy = (evals / "legacy.json").read_bytes()
    # A fixture that pins the legacy file by its digest, and a note that names a size.
    (evals / "pinning.json").write_text(CANONICAL.replace('"demo"', '"demo", "note": "' + sha256(legacy) + '"'))
    (tree / "sizes.md").write_text(f"canonical-0.json is {len(CANONICAL.encode())} bytes\n")
    check(tree, monkeypatch, capsys)  # fills the cache (the index built at the first change)
    scanned = scans(monkeypatch)
    learning = check(tree, monkeypatch, capsys)  # scans every file, learns which pin nothing
    files = [path for path in tree.rglob("*.*") if ".fixture_migrate_cache" not in path.parts]
    assert sorted(scanned) == sorted(path.name for path in files)
    scanned.clear()
    learnt = check(tree, monkeypatch, capsys)
    # Scanned: what pins something, and what the cache has no entry of.
    assert sorted(scanned) == ["notes.md", "pinning.json", "sizes.md"]
    assert (learnt.code, learnt.out, learnt.err) == (learning.code, learning.out, learning.err)
    assert "pinned by `skills/demo/evals/pinning.json:3`" in learnt.err
    # Edited since: scanned again, and what they pin now counts (the pin moved).
    (evals / "pinning.json").write_text(CANONICAL)
    (evals / "canonical-5.json").write_text(CANONICAL.replace('"demo"', '"demo", "note": "' + sha256(legacy) + '"'))
    scanned.clear()
    edited = check(tree, monkeypatch, capsys)
    assert sorted(scanned) == ["canonical-5.json", "notes.md", "pinning.json", "sizes.md"]
    assert "pinned by `skills/demo/evals/canonical-5.json:3`" in edited.err
    with monkeypatch.context() as patch:
        without_pins_first(patch)
        plain = check(tree, monkeypatch, capsys)
    assert (edited.code, edited.out, edited.err) == (plain.code, plain.out, plain.err)


def sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("outside", [False, True])
def test_a_path_climbing_out_of_a_symlinked_folder_is_read_as_before(tree, tmp_path, monkeypatch, capsys, outside):
    """`evals/link/../x.json` is spelt like `evals/x.json`, whose entry the index saw; after a
    symlinked folder it is another file (here a legacy one, or one outside the root): it is
    read, and judged, as before."""
    evals = tree / "skills" / "demo" / "evals"
    (evals / "x.json").write_text(CANONICAL)
    target = (tmp_path / "out" if outside else evals / "sub") / "deep"
    target.mkdir(parents=True)
    (target.parent / "x.json").write_text(LEGACY)
    (evals / "link").symlink_to(target)
    check(tree, monkeypatch, capsys)
    named = [str(evals / "link" / ".." / "x.json"), str(evals / "legacy.json")]

    def run():
        return run_cli(["migrate", "--check", "--repo-root", str(tree), *named], tree, monkeypatch, capsys)

    first = run()
    with monkeypatch.context() as patch:
        without_pins_first(patch)
        second = run()
    assert (first.code, first.out, first.err) == (second.code, second.out, second.err)
    assert first.code == (2 if outside else 1)
    assert ("symlink_outside_repo" if outside else "would migrate " + named[0]) in first.err


def test_a_file_swapped_for_a_pipe_after_its_lstat_is_not_given(tmp_path: Path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "regular.json").write_text("")
    os.mkfifo(root / "pipe.json")
    regular = os.lstat(root / "regular.json")
    real_lstat = os.lstat
    monkeypatch.setattr(pins, "_tracked", lambda base: iter([(str(root / "pipe.json"), "pipe.json")]))
    monkeypatch.setattr(os, "lstat", lambda path: regular if str(path).endswith("pipe.json") else real_lstat(path))
    given: list[str] = []
    pins.PinIndex(root).build(on_read=lambda relative, data, info: given.append(relative) or False)
    assert given == []


def test_what_a_re_run_learns_is_written_without_reading_the_cache_again(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    (path,) = (tree / ".fixture_migrate_cache").glob("*.cache")
    reads_of_it: list[object] = []
    real_read = cache_module._read
    monkeypatch.setattr(cache_module, "_read", lambda *args: reads_of_it.append(args) or real_read(*args))
    check(tree, monkeypatch, capsys)  # learns which files pin nothing
    assert reads_of_it == []  # the file as it was loaded: merged in memory
    learnt = orjson.loads(path.read_bytes()[len(cache_module.MAGIC) :])["entries"]
    assert learnt and all(entry[7] is True for entry in learnt.values())


def test_what_a_re_run_learns_merges_over_a_cache_another_run_wrote_meanwhile(tree, monkeypatch, capsys):
    check(tree, monkeypatch, capsys)
    (path,) = (tree / ".fixture_migrate_cache").glob("*.cache")
    filled = path.read_bytes()
    document = orjson.loads(filled[len(cache_module.MAGIC) :])
    other = "skills/demo/evals/canonical-0.json"
    document["entries"][other][0] = "f" * 32  # the other run saw other bytes there
    theirs = cache_module.MAGIC + orjson.dumps(document)
    real_save = cache_module.Cache.save

    def save_after_another_run(self):
        path.write_bytes(theirs)  # written whole while this run went on
        return real_save(self)

    monkeypatch.setattr(cache_module.Cache, "save", save_after_another_run)
    check(tree, monkeypatch, capsys)
    merged = orjson.loads(path.read_bytes()[len(cache_module.MAGIC) :])["entries"]
    assert merged[other] == document["entries"][other]  # theirs, untouched: not of the bytes this run read
    assert all(entry[7] is True for relative, entry in merged.items() if relative != other)
    assert sorted(merged) == sorted(document["entries"])


@pytest.mark.parametrize("how", ["edited", "swapped for a symlink", "removed"])
def test_a_file_changed_after_the_index_read_it_is_judged_on_what_it_is_then(tree, tmp_path, monkeypatch, capsys, how):
    """The index reads every file before the walk: a file written, swapped or removed after
    that read is no longer the file read (its identity), and is read again."""
    check(tree, monkeypatch, capsys)
    target = tree / "skills" / "demo" / "evals" / "canonical-2.json"
    outside = tmp_path / "outside.json"
    outside.write_text(CANONICAL)
    real_build = pins.PinIndex.build

    def build_then_change(self, *args, **kwargs):
        real_build(self, *args, **kwargs)
        if how == "edited":
            target.write_text(LEGACY)  # another size: another identity, whatever the clock's tick
        elif how == "removed":
            target.unlink()
        else:
            target.unlink()
            target.symlink_to(outside)

    monkeypatch.setattr(pins.PinIndex, "build", build_then_change)
    result = check(tree, monkeypatch, capsys)
    expected = {"edited": "would migrate", "swapped for a symlink": "symlink_outside_repo", "removed": "[io]"}
    (line,) = [line for line in result.err.splitlines() if "canonical-2.json" in line]
    assert expected[how] in line  # removed: the walk had listed it (a run's first files are listed first)
    if how == "removed":
        return
    monkeypatch.undo()
    monkeypatch.delenv(ENV_VAR, raising=False)
    with monkeypatch.context() as patch:
        without_pins_first(patch)
        plain = check(tree, monkeypatch, capsys)
    assert (result.code, result.err) == (plain.code, plain.err)


def test_a_change_planned_again_keeps_what_its_entry_knows(tree, monkeypatch, capsys):
    """`--diff` plans a cached change afresh: its entry, of the same bytes, still says they
    pin nothing."""
    check(tree, monkeypatch, capsys)
    check(tree, monkeypatch, capsys)  # learns
    (path,) = (tree / ".fixture_migrate_cache").glob("*.cache")

    def legacy_entry():
        return orjson.loads(path.read_bytes()[len(cache_module.MAGIC) :])["entries"]["skills/demo/evals/legacy.json"]

    assert legacy_entry()[7] is True
    diff = run_cli(["migrate", "--diff", "--repo-root", str(tree), str(tree)], tree, monkeypatch, capsys)
    assert diff.code == 0 and "legacy.json" in diff.out
    assert legacy_entry()[7] is True
