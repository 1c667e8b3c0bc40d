"""Exported files, read by the eval tools' own loaders (the `harness` extra and promptfoo from npm).

Inspect AI's `json_dataset`/`csv_dataset`, DeepEval's `EvaluationDataset`, LangSmith's
`ExampleCreate` schema and promptfoo's `validate` and `eval` (its offline `echo`
provider) must read what `export` writes. Each test skips, with the reason, where its
tool is not installed (`pip install -e '.[test,harness]'`; promptfoo: `.ci/run` installs
it with npm into `.harness/node`, or set `PROMPTFOO_BIN`). Nothing here uses the network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.exporting.pipeline import ExportRequest, plan_export

from tests.exporting.test_pipeline import NATIVE
from tests.import_helpers import EXAMPLES, plan

ROOT = EXAMPLES.parents[1]


def exported(tmp_path: Path, target: str, name: str, sources: list[Path] | None = None) -> Path:
    """Export NATIVE (and the cases imported from `sources`) to `tmp_path/name`; its path."""
    canonical = [tmp_path / "native.json"]
    canonical[0].write_text(json.dumps(NATIVE), encoding="utf-8")
    if sources:
        imported = plan(sources, tmp_path / "imported.json", root=ROOT)
        (tmp_path / "imported.json").write_bytes(imported.new_bytes)
        canonical.insert(0, tmp_path / "imported.json")
    dest = tmp_path / name
    result = plan_export(ExportRequest(paths=canonical, target=target, dest=dest, repo_root=ROOT))
    dest.write_bytes(result.new_bytes)
    return dest


# --- Inspect AI --------------------------------------------------------------------------


def test_inspect_json_dataset_reads_the_export(tmp_path):
    dataset = pytest.importorskip("inspect_ai.dataset", reason="inspect_ai is not installed (the harness extra)")
    dest = exported(tmp_path, "inspect", "dataset.jsonl", [EXAMPLES / "inspect" / "security.jsonl"])
    spec = dataset.FieldSpec(input="input", target="target", id="id", metadata=["metadata", "sandbox"])
    samples = list(dataset.json_dataset(str(dest), spec))
    assert len(samples) == 5
    first, second, third, summary, checks = samples
    assert first.id == 0 and [m.role for m in first.input] == ["system", "user"]
    assert second.id == "sqli-1" and second.target == ["no", "it is injectable"]
    assert third.input == "Which header stops clickjacking?" and third.target == "B"
    assert summary.id == "summary" and summary.input == "Summarize the v2 release notes."
    assert summary.target == "A three-line summary that names the breaking change."
    assert summary.metadata["metadata"]["fixture_migrate"]["forbidden_signals"] == ["v1.9"]
    assert checks.target == '{"format": "bullets", "items": 2}'
    defaults = list(dataset.json_dataset(str(dest)))  # the default field names
    assert defaults[3].metadata["fixture_migrate"]["source_refs"] == ["docs/release.md#v2"]


def test_inspect_csv_dataset_reads_the_export(tmp_path):
    dataset = pytest.importorskip("inspect_ai.dataset", reason="inspect_ai is not installed (the harness extra)")
    dest = exported(tmp_path, "inspect", "dataset.csv", [EXAMPLES / "inspect" / "security.csv"])
    spec = dataset.FieldSpec(input="input", target="target", id="id", metadata=["metadata", "label"])
    samples = list(dataset.csv_dataset(str(dest), spec))
    assert [s.id for s in samples] == ["007", "summary", "checks"]
    assert samples[0].input == 'Say "hello", politely.' and samples[0].target == "Hello!"
    assert samples[0].metadata["label"] == "greeting"
    assert json.loads(samples[1].metadata["metadata"])["fixture_migrate"]["coverage_tags"] == ["expected", "boundary"]


# --- DeepEval ----------------------------------------------------------------------------


@pytest.fixture
def deepeval_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    monkeypatch.setenv("DEEPEVAL_UPDATE_WARNING_OPT_IN", "NO")
    monkeypatch.chdir(tmp_path)  # DeepEval keeps a `.deepeval` folder in the working directory
    module = pytest.importorskip("deepeval.dataset", reason="deepeval is not installed (the harness extra)")
    return module.EvaluationDataset


SINGLE_TURN = [
    {
        "input": "What is the refund window?",
        "expected_output": "30 days.",
        "context": ["Refunds: 30 days."],
        "name": "Refund",
    },
    {
        "input": "Book a table",
        "expected_output": None,
        "tools_called": [{"name": "book", "input_parameters": {"n": 2}}],
    },
]


def test_deepeval_loads_exported_goldens(deepeval_dataset, tmp_path):
    source = tmp_path / "goldens-in.json"
    source.write_text(json.dumps(SINGLE_TURN), encoding="utf-8")
    imported = plan([source], tmp_path / "imported.json", root=ROOT, source_refs=["goldens-in.json"])
    (tmp_path / "imported.json").write_bytes(imported.new_bytes)
    (tmp_path / "native.json").write_text(json.dumps(NATIVE), encoding="utf-8")
    dest = tmp_path / "goldens.json"
    request = ExportRequest(
        paths=[tmp_path / "imported.json", tmp_path / "native.json"], target="deepeval", dest=dest, repo_root=ROOT
    )
    dest.write_bytes(plan_export(request).new_bytes)
    dataset = deepeval_dataset()
    dataset.add_goldens_from_json_file(str(dest))
    refund, book, summary, checks = dataset.goldens
    assert (refund.input, refund.expected_output, refund.name) == ("What is the refund window?", "30 days.", "Refund")
    assert refund.context == ["Refunds: 30 days."]
    assert book.tools_called[0].name == "book" and book.tools_called[0].input_parameters == {"n": 2}
    assert summary.input == "Summarize the v2 release notes."
    assert summary.expected_output == "A three-line summary that names the breaking change."
    assert summary.comments == "Only v2; older releases are out of scope."
    assert summary.additional_metadata["fixture_migrate"]["id"] == "summary"
    assert checks.expected_output == '{"format": "bullets", "items": 2}'


def test_deepeval_loads_exported_goldens_jsonl_and_csv(deepeval_dataset, tmp_path):
    jsonl = exported(tmp_path, "deepeval", "goldens.jsonl")
    dataset = deepeval_dataset()
    dataset.add_goldens_from_jsonl_file(str(jsonl))
    assert [g.input for g in dataset.goldens] == ["Summarize the v2 release notes.", "List the breaking changes."]
    pytest.importorskip("pandas", reason="pandas is not installed: DeepEval's CSV loader needs it (the harness extra)")
    csv_file = exported(tmp_path, "deepeval", "goldens.csv")
    dataset = deepeval_dataset()
    dataset.add_goldens_from_csv_file(str(csv_file))
    summary, checks = dataset.goldens
    assert summary.input == "Summarize the v2 release notes." and summary.comments.startswith("Only v2")
    assert summary.additional_metadata["fixture_migrate"]["forbidden_signals"] == ["v1.9"]
    assert checks.expected_output == '{"format": "bullets", "items": 2}'


def test_deepeval_csv_loader_reads_a_json_golden_exported_to_csv(deepeval_dataset, tmp_path):
    """Lists and objects of a JSON golden go into the CSV as DeepEval's loader reads them
    (`|`-joined context, JSON tool and metadata columns, snake_case names)."""
    pytest.importorskip("pandas", reason="pandas is not installed: DeepEval's CSV loader needs it (the harness extra)")
    source = tmp_path / "goldens-in.json"
    golden = {
        "input": "q1",
        "expectedOutput": "o1",
        "context": ["a", "b"],
        "toolsCalled": [{"name": "t", "input_parameters": {"p": 1}}],
        "additionalMetadata": {"k": [1, None]},
    }
    source.write_text(json.dumps([golden]), encoding="utf-8")
    imported = plan([source], tmp_path / "imported.json", root=ROOT, source_refs=["goldens-in.json"])
    (tmp_path / "imported.json").write_bytes(imported.new_bytes)
    dest = tmp_path / "goldens.csv"
    result = plan_export(
        ExportRequest(paths=[tmp_path / "imported.json"], target="deepeval", dest=dest, repo_root=ROOT)
    )
    assert not result.losses
    dest.write_bytes(result.new_bytes)
    dataset = deepeval_dataset()
    dataset.add_goldens_from_csv_file(
        str(dest),
        input_col_name="input",
        expected_output_col_name="expected_output",
        context_col_name="context",
        tools_called_col_name="tools_called",
        additional_metadata_col_name="additional_metadata",
    )
    (loaded,) = dataset.goldens
    assert (loaded.input, loaded.expected_output, loaded.context) == ("q1", "o1", ["a", "b"])
    assert loaded.tools_called[0].name == "t" and loaded.additional_metadata == {"k": [1, None]}


# --- LangSmith ---------------------------------------------------------------------------


def test_langsmith_example_schema_parses_the_export(tmp_path):
    schemas = pytest.importorskip("langsmith.schemas", reason="langsmith is not installed (the harness extra)")
    dest = exported(tmp_path, "langsmith", "examples.jsonl", [EXAMPLES / "langsmith" / "examples.jsonl"])
    lines = [json.loads(line) for line in dest.read_text(encoding="utf-8").splitlines()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # `outputs`: the SDK now also says `reference_outputs`
        examples = [schemas.ExampleCreate(**line) for line in lines]
    assert str(examples[0].id) == "5b1f6c4e-0000-4000-8000-000000000001"
    assert examples[0].inputs == {"question": "What does LangSmith store for a run?"}
    assert examples[3].id is None and examples[3].inputs == {"input": "Summarize the v2 release notes."}
    assert examples[3].reference_outputs == {"output": "A three-line summary that names the breaking change."}
    assert examples[3].metadata["fixture_migrate"]["id"] == "summary"


# --- promptfoo ---------------------------------------------------------------------------


def promptfoo_bin() -> str | None:
    """The promptfoo command: `PROMPTFOO_BIN`, else `.harness/node` (where `.ci/run` installs
    it), else one on PATH."""
    given = os.environ.get("PROMPTFOO_BIN")
    if given:
        return given
    local = ROOT / ".harness" / "node" / "node_modules" / ".bin" / "promptfoo"
    if local.exists():
        return str(local)
    return shutil.which("promptfoo")


PROMPTFOO = promptfoo_bin()
needs_promptfoo = pytest.mark.skipif(
    PROMPTFOO is None or shutil.which("node") is None,
    reason="promptfoo (npm) is not installed: .ci/run installs it into .harness/node (or set PROMPTFOO_BIN)",
)


def promptfoo(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run promptfoo offline: no telemetry, update check or sharing, its state in `cwd`, and
    any request it still makes (it reports that telemetry is off) sent to a closed local port."""
    env = {
        **os.environ,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
        "PROMPTFOO_CONFIG_DIR": str(cwd / ".promptfoo"),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
    }
    assert PROMPTFOO is not None
    return subprocess.run([PROMPTFOO, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


EVAL_OPTIONS = ["--no-cache", "--no-share", "--no-progress-bar", "--no-table", "--grader", "echo", "-o", "out.json"]
"""An offline eval: no cache, no sharing, model-graded assertions graded by `echo`."""


@needs_promptfoo
def test_promptfoo_validates_and_runs_the_export(tmp_path):
    dest = exported(tmp_path, "promptfoo", "promptfooconfig.yaml")
    done = promptfoo(["validate", "-c", str(dest)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    done = promptfoo(["eval", "-c", str(dest), *EVAL_OPTIONS], tmp_path)
    result = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    rows = result["results"]["results"]
    assert len(rows) == 2, done.stdout + done.stderr
    assert [row["vars"] for row in rows] == [
        {"input": "Summarize the v2 release notes."},
        {"input": "List the breaking changes."},
    ]
    # echo answers with the prompt (and grades the rubric offline): the forbidden signal is absent.
    summary = rows[0]["gradingResult"]["componentResults"]
    assert [r["assertion"]["type"] for r in summary] == ["llm-rubric", "not-icontains"]
    assert summary[1]["pass"] is True
    assert result["results"]["stats"]["errors"] == 0


@needs_promptfoo
def test_promptfoo_runs_an_imported_suite_exported_back(tmp_path):
    folder = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "promptfoo" / "scenarios", folder)
    imported = plan([folder / "promptfooconfig.yaml"], tmp_path / "c.json", root=ROOT, source_refs=["suite.yaml"])
    (tmp_path / "c.json").write_bytes(imported.new_bytes)
    dest = folder / "exported.yaml"
    dest.write_bytes(
        plan_export(ExportRequest(paths=[tmp_path / "c.json"], target="promptfoo", dest=dest, repo_root=ROOT)).new_bytes
    )
    assert promptfoo(["validate", "-c", str(dest)], folder).returncode == 0
    promptfoo(["eval", "-c", str(dest), *EVAL_OPTIONS], folder)
    rows = json.loads((folder / "out.json").read_text(encoding="utf-8"))["results"]["results"]
    assert len(rows) == imported.cases == 4
    assert sorted((r["vars"]["language"], r["vars"]["text"]) for r in rows) == [
        ("French", "Goodbye"),
        ("French", "Hello"),
        ("German", "Goodbye"),
        ("German", "Hello"),
    ]
    assert all(r["success"] for r in rows)  # echo repeats the prompt: `Hello` is there, `Auf Wiedersehen` is not


def test_deepeval_loads_metadata_goldens_and_their_export(deepeval_dataset, tmp_path):
    """`{input, additional_metadata}` goldens (examples/external/deepeval/metadata-goldens.json)
    are DeepEval's own: its loader reads the sample, and the export of their import."""
    sample = EXAMPLES / "deepeval" / "metadata-goldens.json"
    dataset = deepeval_dataset()
    dataset.add_goldens_from_json_file(str(sample))
    expected = [(g["input"], g["additional_metadata"]) for g in json.loads(sample.read_text(encoding="utf-8"))]
    assert [(g.input, g.additional_metadata) for g in dataset.goldens] == expected
    imported = plan([sample], tmp_path / "imported.json", root=ROOT)  # --from auto
    (tmp_path / "imported.json").write_bytes(imported.new_bytes)
    dest = tmp_path / "goldens.json"
    dest.write_bytes(plan_export(ExportRequest([tmp_path / "imported.json"], "deepeval", dest, ROOT)).new_bytes)
    again = deepeval_dataset()
    again.add_goldens_from_json_file(str(dest))
    assert [(g.input, g.additional_metadata) for g in again.goldens] == expected
