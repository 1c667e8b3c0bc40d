"""A run's record (`fixture_migrate.migration.replay`): its file round-trips and refuses what
is not one; a re-run's inputs match it only when every file the run read is the same, in the
same order, and, where the run built the index of pinned files, every tracked file too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_migrate.consumers import pins
from fixture_migrate.files import beneath
from fixture_migrate.files.walk import iter_files
from fixture_migrate.migration import replay
from fixture_migrate.migration.cache import digest
from fixture_migrate.migration.engine import FileResult
from fixture_migrate.migration.replay import MAGIC, Inputs, RunRecord, same_inputs
from fixture_migrate.migration.status import Status
from xxhash import xxh3_128_digest

from tests.helpers import CANONICAL, LEGACY


def paths_digest(paths: list[Path]) -> bytes:
    return xxh3_128_digest(b"".join(os.fsencode(str(path)) + b"\0" for path in paths))


def record_of(root: Path, *, pinned: bool = False) -> RunRecord:
    """The record a run over `root` would make now: each walked file's digest, in walk order."""
    walked = [path for path, _ in iter_files([root], root=root)]
    entries = b"".join(digest(path.read_bytes()) for path in walked)
    pins_inputs = pins.inputs_digest(root, {}) if pinned else None
    return RunRecord(b"i" * 16, entries, paths_digest(walked), pins_inputs, [[replay.STDERR, "would migrate x\n"]], 1)


def matches(record: RunRecord, root: Path) -> bool:
    return same_inputs(record, iter_files([root], root=root), root)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "legacy.json").write_text(LEGACY)
    (evals / "canonical.json").write_text(CANONICAL)
    (root / "cases.json").write_text(CANONICAL)  # a file at the root itself: its path has no folder
    (root / "README.md").write_text("notes\n")  # tracked, never walked: an input of the pin index only
    return root


def test_a_record_file_round_trips():
    record = RunRecord(b"\x01" * 16, b"\x02" * 48, b"\x04" * 16, b"\x03" * 16, [[1, "out\n"], [2, "é\n"], [3, "{}\n"]], 1)
    assert RunRecord.load(record.dump()) == record
    no_pins = RunRecord(b"\x01" * 16, b"", b"\x04" * 16, None, [], 0)
    assert RunRecord.load(no_pins.dump()) == no_pins


def signed(body: bytes) -> bytes:
    """A record file of `body` (header line and entries) with a right checksum."""
    return MAGIC + xxh3_128_digest(body).hex().encode() + b"\n" + body


HEADER = b'{"invocation": "00", "files": 0, "paths": "00", "pins": null, "exit_code": 0, "output": []}\n'


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"garbage",
        MAGIC,
        MAGIC + HEADER,  # no checksum
        b"fixture-migrate run 0\n" + signed(HEADER)[len(MAGIC) :],
        signed(b"{}"),
        signed(b"{not json\n"),
        signed(b"[]\n"),
        signed(HEADER.replace(b'"files": 0', b'"files": 1') + b"x" * 15),
        signed(HEADER + b"x"),
        signed(HEADER.replace(b'"invocation": "00"', b'"invocation": "zz"')),
        signed(HEADER.replace(b'"pins": null', b'"pins": 5')),
        signed(HEADER.replace(b'"exit_code": 0', b'"exit_code": "1"')),
        signed(HEADER.replace(b'"output": []', b'"output": [[4, "x"]]')),
        signed(HEADER.replace(b'"output": []', b'"output": [[1, 2]]')),
        signed(HEADER.replace(b'"output": []', b'"output": {}')),
        signed(HEADER.replace(b'"files": 0, ', b"")),
        signed(HEADER.replace(b'"paths": "00", ', b"")),
    ],
)
def test_what_is_not_a_record_is_none(raw):
    assert RunRecord.load(raw) is None
    assert RunRecord.load(signed(HEADER)) is not None  # the same, well formed


def test_a_record_with_any_byte_changed_is_none():
    record = RunRecord(b"\x01" * 16, b"\x02" * 32, b"\x04" * 16, None, [[2, "would migrate a.json\n"]], 1)
    raw = record.dump()
    assert RunRecord.load(raw) == record
    for at in range(len(raw)):
        flipped = raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1 :]
        assert RunRecord.load(flipped) is None, at
    for cut in range(len(raw)):
        assert RunRecord.load(raw[:cut]) is None, cut


def test_output_that_is_not_text_cannot_be_recorded():
    with pytest.raises(TypeError):
        RunRecord(b"i" * 16, b"", b"p" * 16, None, [[1, "\udcff"]], 0).dump()


def test_inputs_keep_verdicts_of_the_files_facts_only():
    inputs = Inputs()
    kept = FileResult(Path("a.json"), Status.UNCHANGED)
    kept.digest = b"d" * 16
    inputs.add(kept)
    assert inputs.entries == b"d" * 16
    assert inputs.paths() == paths_digest([Path("a.json")])
    for status in (Status.UNCLAIMED, Status.OTHER_TOOL, Status.NOT_FIXTURE, Status.CHANGED):
        left = Inputs()
        result = FileResult(Path("b.json"), status)
        result.digest = b"d" * 16
        left.add(result)
        assert left.entries == b"d" * 16, status
    for status in (Status.ERROR, Status.SKIPPED):
        other = Inputs()
        result = FileResult(Path("b.json"), status)
        result.digest = b"d" * 16
        other.add(result)
        assert other.entries is None, status
    unknown = Inputs()
    unknown.add(FileResult(Path("c.json"), Status.UNCHANGED))  # no digest: bytes not known
    assert unknown.entries is None
    renamed = Inputs()
    result = FileResult(Path("d.jsonl"), Status.CHANGED, new_path=Path("d.json"))
    result.digest = b"d" * 16
    renamed.add(result)
    assert renamed.entries is None


@pytest.mark.parametrize("pinned", [False, True])
def test_an_unchanged_tree_matches(tree, pinned):
    assert matches(record_of(tree, pinned=pinned), tree)


def _edit_same_size(root: Path) -> None:
    target = root / "skills" / "demo" / "evals" / "canonical.json"
    target.write_text(CANONICAL.replace('"x"', '"z"'))


def _add(root: Path) -> None:
    (root / "skills" / "demo" / "evals" / "new.json").write_text(CANONICAL)


def _remove(root: Path) -> None:
    (root / "skills" / "demo" / "evals" / "canonical.json").unlink()


def _rename(root: Path) -> None:
    evals = root / "skills" / "demo" / "evals"
    (evals / "canonical.json").rename(evals / "canonical2.json")


def _swap_contents(root: Path) -> None:
    evals = root / "skills" / "demo" / "evals"
    (evals / "canonical.json").write_text(LEGACY)
    (evals / "legacy.json").write_text(CANONICAL)


def _edit_root_file(root: Path) -> None:
    (root / "cases.json").write_text(LEGACY)


@pytest.mark.parametrize(
    "change", [_edit_same_size, _add, _remove, _rename, _swap_contents, _edit_root_file], ids=lambda f: f.__name__[1:]
)
@pytest.mark.parametrize("pinned", [False, True])
def test_any_change_to_a_walked_file_does_not_match(tree, change, pinned):
    record = record_of(tree, pinned=pinned)
    change(tree)
    assert not matches(record, tree)


def test_a_change_to_a_file_only_the_pin_index_reads_matters_only_where_it_was_built(tree):
    with_pins, without = record_of(tree, pinned=True), record_of(tree)
    (tree / "README.md").write_text("sha256 of legacy.json: " + "0" * 64 + "\n")
    assert not matches(with_pins, tree)
    assert matches(without, tree)  # a run that built no index: no pin could decide its output


def test_a_walked_file_turned_symlink_does_not_match(tree, tmp_path):
    record = record_of(tree)
    target = tree / "skills" / "demo" / "evals" / "canonical.json"
    copy = tmp_path / "elsewhere.json"
    copy.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(copy)  # the same bytes, outside the root: the run's read refuses it
    assert not matches(record, tree)


def test_every_walked_file_is_read_and_hashed(tree, monkeypatch):
    hashed: list[bytes] = []
    real = replay.xxh3_128_digest
    monkeypatch.setattr(replay, "xxh3_128_digest", lambda data: hashed.append(data) or real(data))
    assert matches(record_of(tree), tree)
    contents = {path.read_bytes() for path, _ in iter_files([tree], root=tree)}
    assert contents <= set(hashed)


@pytest.mark.skipif(not beneath.available(), reason="no openat2 here: a replay needs it")
def test_each_file_is_opened_from_the_root_in_one_call(tree, monkeypatch):
    """Each file is opened below the root in one call along its own path, and that read
    serves the index's inputs too (no second read of a walked file)."""
    record = record_of(tree, pinned=True)
    opened: list[str] = []
    real = beneath.open_beneath
    monkeypatch.setattr(beneath, "open_beneath", lambda fd, relative, flags: opened.append(relative) or real(fd, relative, flags))
    read_by_index: list[str] = []
    real_read = pins.TrackedReader.read
    monkeypatch.setattr(pins.TrackedReader, "read", lambda self, path, relative: read_by_index.append(relative) or real_read(self, path, relative))
    assert matches(record, tree)
    walked = [path.relative_to(tree).as_posix() for path, _ in iter_files([tree], root=tree)]
    assert opened[: len(walked)] == walked
    assert read_by_index == ["README.md"]  # the only tracked file not walked


def test_a_file_reached_through_a_symlinked_folder_is_never_replayed(tree):
    """Where a symlinked folder leads decides more than the file's bytes (its pin is told
    from its real path): such a file makes the inputs differ, whatever its bytes."""
    (tree / "real").mkdir()
    (tree / "real" / "x.json").write_text(CANONICAL)
    (tree / "link").symlink_to("real")
    named = [tree / "link" / "x.json", tree / "cases.json"]
    files = [(path, None) for path in named]
    entries = b"".join(digest(path.read_bytes()) for path in named)
    record = RunRecord(b"i" * 16, entries, paths_digest(named), None, [], 0)
    assert not same_inputs(record, iter(files), tree)
    direct = [tree / "real" / "x.json", tree / "cases.json"]
    record = RunRecord(b"i" * 16, entries, paths_digest(direct), None, [], 0)
    assert same_inputs(record, iter([(path, None) for path in direct]), tree)  # the same, opened directly


def test_a_file_the_walk_gives_with_an_error_does_not_match(tree):
    record = record_of(tree)
    files = [(path, None) for path, _ in iter_files([tree], root=tree)]
    from fixture_migrate.errors import FixtureError

    files[0] = (files[0][0], FixtureError("cannot open", code="io"))
    assert not same_inputs(record, iter(files), tree)


def test_a_tree_that_lost_its_last_file_does_not_match(tree):
    """Every file left still matches the start of the record: only the count tells."""
    last = tree / "skills" / "demo" / "evals" / "zz.json"
    last.write_text(CANONICAL)
    record = record_of(tree)
    assert [path for path, _ in iter_files([tree], root=tree)][-1] == last
    last.unlink()
    assert not matches(record, tree)


def test_an_index_keeps_the_inputs_a_re_run_reads_again(tree, tmp_path):
    """What a run's index of pinned files read (`PinIndex.inputs`) is what `inputs_digest`
    reads now, with or without the files a re-run read already; a build that was not asked
    to keep them keeps none."""
    (tree / "link.md").symlink_to(tree / "README.md")  # tracked, never read: a symlink
    (tree / "data.bin").write_bytes(b"\0" * 10)
    index = pins.PinIndex(tree)
    index.build()
    assert index.inputs is None
    index.keep_inputs = True
    index.build()
    assert index.inputs is not None
    assert index.inputs == pins.inputs_digest(tree, {})
    known = {
        path.relative_to(tree).as_posix(): digest(path.read_bytes())
        for path, _ in iter_files([tree], root=tree)
    }
    assert index.inputs == pins.inputs_digest(tree, known)
    (tree / "README.md").write_text("other notes\n")
    assert index.inputs != pins.inputs_digest(tree, known)


@pytest.mark.parametrize("pinned", [False, True])
def test_a_file_over_the_pin_indexs_size_limit_still_matches(tree, pinned):
    """The pin index does not read a file over its limit (2 MiB); a replay reads it as a
    walked file all the same, and leaves it out of what the index would have read."""
    big = tree / "skills" / "demo" / "evals" / "big.json"
    big.write_text('{"padding": "' + "x" * (pins.MAX_TEXT_BYTES + 10) + '"}\n')
    record = record_of(tree, pinned=pinned)
    assert matches(record, tree)
    big.write_text('{"padding": "' + "y" * (pins.MAX_TEXT_BYTES + 10) + '"}\n')
    assert not matches(record, tree)
