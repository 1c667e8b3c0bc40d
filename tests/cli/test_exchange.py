"""The shells of `import` and `export` (`fixture_migrate.cli.exchange`): the pipelines
plan and write nothing of the command line's; these print, write and decide the exit code."""

from __future__ import annotations

import ast
import io
import json
from pathlib import Path

import pytest
from fixture_migrate.cli.exchange import run_export, run_import
from fixture_migrate.cli.report import Report
from fixture_migrate.exporting.pipeline import ExportRequest
from fixture_migrate.importing.pipeline import ImportRequest

PACKAGE = Path(__file__).resolve().parents[2] / "migrate"


@pytest.mark.parametrize("module", ["importing/pipeline.py", "exporting/pipeline.py"])
def test_the_pipelines_know_nothing_of_the_command_line(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(name and name.startswith("fixture_migrate.cli") for name in imported)  # TYPE_CHECKING too


def test_an_export_that_fails_prints_its_json_document_with_the_exit_code(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    request = ExportRequest(
        paths=[tmp_path / "missing.json"],
        target="inspect",
        dest=tmp_path / "dataset.jsonl",
        repo_root=tmp_path,
        check=False,
        diff=False,
        strict=False,
        config_path=None,
    )
    code = run_export(request, out=out, report=Report(err=err), output_format="json")
    document = json.loads(out.getvalue())
    assert code == 2 and document["exit_code"] == 2 and document["status"] == "error" and document["errors"]
    assert "missing.json" in err.getvalue() and not (tmp_path / "dataset.jsonl").exists()


def test_an_import_diff_is_printed_and_nothing_written(tmp_path: Path) -> None:
    source = tmp_path / "samples.jsonl"
    source.write_text('{"input": "hello", "target": "a greeting"}\n', encoding="utf-8")
    dest = tmp_path / "skills" / "demo" / "evals" / "imported.json"
    request = ImportRequest(
        sources=[source],
        dest=dest,
        repo_root=tmp_path,
        fmt="inspect",
        skill="demo",
        source_refs=[],
        authority="source",
        fields={},
        diff=True,
        check=False,
        config_path=None,
    )
    out, err = io.StringIO(), io.StringIO()
    code = run_import(request, out=out, report=Report(err=err))
    assert code == 0, err.getvalue()
    assert out.getvalue().startswith("--- ") and "+++ " in out.getvalue() and not dest.exists()
