"""What a `validate` worker pays to send a checked file to the main process.

README ("validate"): "Each error is placed while its file's text is at hand, the ids of a
file only once one of them turns out a duplicate." A worker cannot know whether a case id
is a duplicate (the main process meets the keys of every file), so `CasePlaces` works out
the place of every case's id before the record is pickled: under `--jobs 2` with text or
github output, every JSON file of a clean tree is walked to every case id, a cost the
earlier code (which sent each case's `(unit, path)`, and placed a duplicate from the main
process) did not have. Measured on 40 files of 2,000 cases: pickling the records took
0.53 s against 0.45 s to read and check the files (0.03 s before).
"""

from __future__ import annotations

import pickle
from pathlib import Path

from fixture_migrate.config import Options
from fixture_migrate.contract.validate import RefChecker
from fixture_migrate.formats import json_places
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
    walks: list[int] = []
    real = json_places.value_offsets

    def counting(text, paths):
        walks.append(len(paths))
        return real(text, paths)

    monkeypatch.setattr(json_places, "value_offsets", counting)
    sent = pickle.loads(pickle.dumps(checked))  # what a worker process does with its result
    assert sent.keys == checked.keys
    # No id of this file has been met as a duplicate: none should be placed yet.
    assert walks == []
