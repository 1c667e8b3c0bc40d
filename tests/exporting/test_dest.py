"""export never overwrites a file it did not write (nor one the cases were imported from)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.exporting.pipeline import ExportRequest, plan_export
from fixture_migrate.importing.pipeline import ImportFailed

from tests.exporting.test_pipeline import NATIVE, ROOT, export
from tests.import_helpers import EXAMPLES, plan
from tests.runner import run_cli


@pytest.fixture
def native_file(tmp_path: Path) -> Path:
    path = tmp_path / "release.json"
    path.write_text(json.dumps(NATIVE, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("target", "name", "text"),
    [
        ("promptfoo", "promptfooconfig.yaml", "prompts: [hi]\ntests:\n  - vars: {q: hand written}\n"),
        ("inspect", "data.jsonl", '{"input": "hand written", "target": "x"}\n'),
        ("langsmith", "data.jsonl", '{"inputs": {"q": "hand written"}, "outputs": {"a": "x"}}\n'),
        ("deepeval", "goldens.json", '[{"input": "hand written"}]\n'),
    ],
)
def test_a_file_export_did_not_write_is_refused(target, name, text, native_file, tmp_path, monkeypatch, capsys):
    dest = tmp_path / name
    dest.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFailed) as failure:
        export([native_file], target, dest)
    assert failure.value.errors[0][1].code == "dest_not_export"
    run = run_cli(["export", str(native_file), "--to", target, "--out", str(dest)], tmp_path, monkeypatch, capsys)
    assert run.code == 2 and dest.read_text(encoding="utf-8") == text
    assert "delete it or move it away" in run.err


@pytest.mark.parametrize(
    ("target", "suffix"),
    [
        ("inspect", ".jsonl"),
        ("inspect", ".csv"),
        ("promptfoo", ".yaml"),
        ("deepeval", ".json"),
        ("deepeval", ".csv"),
        ("openai-evals", ".jsonl"),
        ("langsmith", ".jsonl"),
        ("skill-creator", ".json"),
    ],
)
def test_an_earlier_export_is_updated(target, suffix, native_file, tmp_path):
    dest = tmp_path / f"out{suffix}"
    dest.write_bytes(export([native_file], target, dest).new_bytes)
    data = json.loads(native_file.read_text(encoding="utf-8"))
    data["cases"] = data["cases"][:1]  # a case deleted since: DEST still holds it
    data["cases"][0]["input"] = "Summarize the v3 release notes."
    native_file.write_text(json.dumps(data, indent=2), encoding="utf-8")
    again = export([native_file], target, dest)
    assert again.changed and b"v3 release" in again.new_bytes


def test_the_source_of_the_cases_is_overwritten(tmp_path):
    folder = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "inspect", folder)
    source = folder / "security.jsonl"
    canonical = plan([source], tmp_path / "c.json", root=ROOT, source_refs=[str(source.relative_to(tmp_path))])
    data = json.loads(canonical.new_bytes)
    data["cases"][0]["input"] = "Edited"
    (tmp_path / "c.json").write_text(json.dumps(data), encoding="utf-8")
    # cited under another path: accepted since every record is one of the cases
    assert export([tmp_path / "c.json"], "inspect", source).changed


# --- DEST is replaced only when it is the export's own earlier output --------------------

HAND = [
    {"id": "1", "input": "HAND-WRITTEN question", "target": "mine", "notes": "kept by hand"},
    {"id": "2", "input": "HAND-WRITTEN second", "target": "also mine", "notes": "kept by hand"},
]


@pytest.fixture
def numbered(tmp_path: Path) -> Path:
    """A canonical file whose case ids are "1" and "2" (as a hand-written dataset's may be)."""
    data = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "release-notes",
        "cases": [
            {"id": "1", "input": "Summarize v2.", "coverage_tags": ["expected"], "expected_outcome": "A summary."},
            {"id": "2", "input": "List changes.", "coverage_tags": ["expected"], "expected_outcome": "A list."},
        ],
    }
    path = tmp_path / "skills" / "release-notes" / "evals" / "cases.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def export_in(root: Path, paths: list[Path], target: str, dest: Path, **kwargs: Any) -> Any:
    return plan_export(ExportRequest(paths=paths, target=target, dest=dest, repo_root=root, **kwargs))


def _hand_written(tmp_path: Path) -> Path:
    dest = tmp_path / "data" / "hand.jsonl"
    dest.parent.mkdir()
    dest.write_text("".join(json.dumps(record) + "\n" for record in HAND), encoding="utf-8")
    return dest


def test_a_dataset_that_only_shares_the_case_ids_is_refused(numbered, tmp_path, monkeypatch, capsys):
    dest = _hand_written(tmp_path)
    before = dest.read_bytes()
    args = ["export", str(numbered.relative_to(tmp_path)), "--to", "inspect", "--out", "data/hand.jsonl"]
    run = run_cli([*args, "--repo-root", "."], tmp_path, monkeypatch, capsys)
    assert run.code == 2 and dest.read_bytes() == before
    assert "[dest_not_export]" in run.err or "dest_not_export" in run.err
    assert "data/hand.jsonl:1" in run.err  # placed at the first record export did not write
    assert "--force" in run.err


def test_force_replaces_it_and_lists_every_replaced_record(numbered, tmp_path, monkeypatch, capsys):
    dest = _hand_written(tmp_path)
    args = ["export", str(numbered.relative_to(tmp_path)), "--to", "inspect", "--out", "data/hand.jsonl"]
    run = run_cli([*args, "--repo-root", ".", "--force", "--output-format", "json"], tmp_path, monkeypatch, capsys)
    assert run.code == 0, run.err
    replaced = [loss for loss in json.loads(run.out)["losses"] if loss["file"] == "data/hand.jsonl"]
    assert [(loss["case"], loss["field"], loss["kind"]) for loss in replaced] == [
        ("1", "record L1", "dropped"),
        ("2", "record L2", "dropped"),
    ]
    assert "HAND-WRITTEN question" in replaced[0]["reason"]
    assert b"HAND-WRITTEN" not in dest.read_bytes()
    # --strict with --force: a replaced record is a loss, so nothing is written
    dest.write_text(json.dumps(HAND[0]) + "\n", encoding="utf-8")
    strict = run_cli([*args, "--repo-root", ".", "--force", "--strict"], tmp_path, monkeypatch, capsys)
    assert strict.code == 2 and b"HAND-WRITTEN" in dest.read_bytes()


def test_a_record_added_by_hand_to_an_earlier_export_is_refused(numbered, tmp_path):
    dest = tmp_path / "out.jsonl"
    first = export_in(tmp_path, [numbered], "inspect", dest)
    dest.write_bytes(first.new_bytes + (json.dumps(HAND[0]) + "\n").encode())
    with pytest.raises(ImportFailed) as failure:
        export_in(tmp_path, [numbered], "inspect", dest)
    error = failure.value.errors[0][1]
    assert (error.code, error.line) == ("dest_not_export", 3)
    # what export wrote (its records marked `fixture_migrate`) alone is replaced
    dest.write_bytes(first.new_bytes)
    data = json.loads(numbered.read_text(encoding="utf-8"))
    data["cases"][0]["input"] = "Summarize v3."
    numbered.write_text(json.dumps(data), encoding="utf-8")
    assert b"Summarize v3." in export_in(tmp_path, [numbered], "inspect", dest).new_bytes


def test_a_record_added_to_the_source_since_the_import_is_refused(tmp_path):
    # Citing DEST as the cases' source is no longer enough: its added record is not theirs.
    folder = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "inspect", folder)
    source = folder / "security.jsonl"
    canonical = plan([source], tmp_path / "c.json", root=ROOT, source_refs=[str(source.relative_to(tmp_path))])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    lines = source.read_bytes().count(b"\n")
    with source.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "added", "input": "Added by hand", "target": "x"}) + "\n")
    with pytest.raises(ImportFailed) as failure:
        export([tmp_path / "c.json"], "inspect", source)
    assert (failure.value.errors[0][1].code, failure.value.errors[0][1].line) == ("dest_not_export", lines + 1)
    forced = export([tmp_path / "c.json"], "inspect", source, force=True)
    assert [(loss.case, loss.field) for loss in forced.losses.losses] == [("added", f"record L{lines + 1}")]
