"""export never overwrites a file it did not write (nor one the cases were imported from)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
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


@pytest.mark.parametrize(("target", "suffix"), [("inspect", ".jsonl"), ("promptfoo", ".yaml"), ("deepeval", ".json")])
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
