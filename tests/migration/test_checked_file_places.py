"""What a `validate` worker pays to send a checked file to the main process.

A worker cannot know whether a case id is a duplicate (the main process meets the keys of
every file), so it must not place every case's id before its result is pickled: a clean
tree under `--jobs 2` would have every JSON file walked to every id (measured on 40 files
of 2,000 cases: 0.53 s of pickling against 0.45 s of checking). The result carries the
file's bytes and member paths instead, and the main process walks the text only when a
place is asked for.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from fixture_migrate.config import Options
from fixture_migrate.contract.validate import RefChecker
from fixture_migrate.formats import json_places
from fixture_migrate.formats.json_format import JsonDocument
from fixture_migrate.migration.engine import Engine
from fixture_migrate.migration.reader import Reader
from fixture_migrate.migration.validation import check_file

CANONICAL = "spec-first.workflow-eval-fixtures.v1"


def _clean_file(root: Path, cases: int) -> Path:
    body = ", ".join(
        f'{{"id": "c{n}", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "y"}}' for n in range(cases)
    )
    path = root / "skills" / "s" / "evals" / "clean.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        f'{{"schema_version": "{CANONICAL}", "skill": "s", "source_refs": ["skills/s/SKILL.md"], "cases": [{body}]}}\n'
    )
    return path


def test_sending_a_file_without_errors_does_not_place_its_ids(tmp_path, monkeypatch):
    path = _clean_file(tmp_path, 50)
    reader = Reader(Engine(Options(tmp_path)))
    checked = check_file(reader, path, RefChecker(tmp_path, check_exists=False), place=True)
    assert checked.errors == [] and len(checked.keys) == 50
    walks: list[int] = []  # per walk of a text, how many places it gave
    real, real_items = json_places.places, json_places.item_member_places

    def counting(body, paths, *data):
        walks.append(len(paths))
        return real(body, paths, *data)

    def counting_items(body, prefix, key, data):
        found = real_items(body, prefix, key, data)
        walks.append(-1 if found is None else len(found))
        return found

    monkeypatch.setattr(json_places, "places", counting)
    monkeypatch.setattr(json_places, "item_member_places", counting_items)
    sent = pickle.loads(pickle.dumps(checked))  # what a worker process does with its result
    assert sent.keys == checked.keys
    # No id of this file has been met as a duplicate: none should be placed yet.
    assert walks == []
    # Asked for in the main process, the places are walked there, once, and are those the
    # reading process gives.
    assert [sent.dup_places[i] for i in (0, 49)] == [checked.dup_places[i] for i in (0, 49)]
    assert walks == [50, 50]  # the one walk of each side, every id at once


_SHAPES = {
    # Every case an object with an id: the ids matched in the bytes.
    "ids": '{"schema_version": "V", "skill": "s", "cases": [\n  {"id": "a", "input": "x"},\n  {"input": "é工😀", "id": "b"}\n]}\n',
    "examples": '{"schema_version": "V", "skill": "s", "examples": [{"id": "a"}, {"id": "b", "note": "say \\"id\\": 1"}]}',
    "bare list": '[{"id": "a", "input": "x"}, {"id": "b", "input": "y"}]',
    "crlf": '{\r\n  "schema_version": "V",\r\n  "skill": "s",\r\n  "cases": [\r\n    {"id": "a"},\r\n    {"id": "b"}\r\n  ]\r\n}\r\n',
    "bom": '\ufeff{"schema_version": "V", "skill": "s", "cases": [{"id": "a"}, {"id": "b"}]}',
    # The general way: a case without an id (its name is placed), a case that is no
    # object, an id written with an escape, an id elsewhere in the text.
    "a name": '{"schema_version": "V", "skill": "s", "cases": [{"id": "a"}, {"name": "B c"}, {"id": "b"}]}',
    "not an object": '{"schema_version": "V", "skill": "s", "cases": [{"id": "a"}, 3, {"id": "b"}]}',
    "escaped": '{"schema_version": "V", "skill": "s", "cases": [{"\\u0069d": "a"}, {"id": "b"}]}',
    "nested id": '{"schema_version": "V", "skill": "s", "cases": [{"id": "a", "extensions": {"id": 1}}, {"id": "b"}]}',
}


def test_the_places_of_every_cases_id_are_those_each_case_gives_alone(tmp_path):
    from fixture_migrate.contract import rules as c
    from fixture_migrate.migration.locate import error_place
    from fixture_migrate.migration.reader import CaseOrigins

    for number, (shape, text) in enumerate(_SHAPES.items()):
        root = tmp_path / str(number)
        path = root / "skills" / "s" / "evals" / "cases.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(text.replace("V", CANONICAL).encode("utf-8"))
        reader = Reader(Engine(Options(root)))
        checked = check_file(reader, path, RefChecker(root, check_exists=False), place=True)
        # Each case placed on its own, by the span tree (`JsonDocument.locate`), in a file
        # read again.
        loaded = reader.load(path, last_duplicate_wins=True)
        origins = CaseOrigins()
        reader.cases(loaded, origins=origins)
        alone = [error_place(origin, {"reason_code": c.DUPLICATE_CASE_ID}) for origin in origins]
        assert len(alone) == len(checked.keys) >= 2, shape
        assert None not in alone, shape
        sent = pickle.loads(pickle.dumps(checked))  # placed in the main process, from the bytes
        assert [checked.dup_places[i] for i in range(len(alone))] == alone, shape
        assert [sent.dup_places[i] for i in range(len(alone))] == alone, shape


def test_ids_the_match_cannot_prove_are_walked_to_without_a_second_try(tmp_path, monkeypatch):
    # One id written with an escape: the match proves nothing, and the paths are walked to
    # (not matched again through `places`), in process and after pickling.
    text = _SHAPES["escaped"].replace("V", CANONICAL)
    path = tmp_path / "skills" / "s" / "evals" / "cases.json"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    reader = Reader(Engine(Options(tmp_path)))
    tries: list[int] = []
    real = json_places._proven_starts
    monkeypatch.setattr(json_places, "_proven_starts", lambda *args: tries.append(1) or real(*args))
    for pickled in (False, True):
        checked = check_file(reader, path, RefChecker(tmp_path, check_exists=False), place=True)
        if pickled:
            checked = pickle.loads(pickle.dumps(checked))
        tries.clear()
        by_spans = JsonDocument(path, path.read_bytes())
        assert [checked.dup_places[i] for i in (0, 1)] == [by_spans.locate(0, ("cases", i, "id")) for i in (0, 1)]
        assert tries == [1]
