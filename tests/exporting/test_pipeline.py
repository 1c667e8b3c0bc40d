"""export: canonical fixtures back to each tool's native file, the loss report, the command line.

Round trips on the samples in `examples/external/` and `../shared/corpus/external/`:
import -> export gives each source's data back (its bytes where the source is in the
writer's layout, or where the export goes onto the source itself), and export -> import
gives the canonical file back byte for byte.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.exporting.pipeline import ExportRequest, plan_export
from fixture_migrate.importing.pipeline import ImportFailed
from ruamel.yaml import YAML

from tests.import_helpers import EXAMPLES, EXTERNAL, corpus_files, plan, requires_external
from tests.runner import run_cli

ROOT = EXAMPLES.parents[1]


def native_data(path: Path, raw: bytes | None = None) -> Any:
    """A native file's data as its tool reads it: JSON Lines without blank lines, CSV rows."""
    text = (raw if raw is not None else path.read_bytes()).decode("utf-8-sig")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.suffix == ".csv":
        return list(csv.DictReader(io.StringIO(text, newline="")))
    if path.suffix in (".yaml", ".yml"):
        return YAML(typ="safe", pure=True).load(text)
    return json.loads(text)


def export(paths: list[Path], target: str, dest: Path, **kwargs: Any) -> Any:
    return plan_export(ExportRequest(paths=paths, target=target, dest=dest, repo_root=ROOT, **kwargs))


def round_trip(
    source: Path,
    fmt: str,
    tmp_path: Path,
    *,
    ref: str | None = None,
    fields: dict[str, str] | None = None,
    root: Path = ROOT,
) -> tuple[bytes, bytes, bytes]:
    """Import `source`, export it to a new file of its syntax, import that citing the source's
    ref: the canonical bytes, the exported bytes, and the canonical bytes of the re-import."""
    refs = [ref] if ref else []
    canonical = plan([source], tmp_path / "canonical.json", root=root, fmt=fmt, source_refs=refs, fields=fields)
    (tmp_path / "canonical.json").write_bytes(canonical.new_bytes)
    dest = tmp_path / "native" / f"export{source.suffix}"
    exported = export([tmp_path / "canonical.json"], fmt, dest)
    dest.parent.mkdir(exist_ok=True)
    dest.write_bytes(exported.new_bytes)
    back_ref = ref or source.relative_to(root).as_posix()
    again = plan([dest], tmp_path / "again.json", root=root, fmt=fmt, source_refs=[back_ref], fields=fields)
    return canonical.new_bytes, exported.new_bytes, again.new_bytes


# (format, sample, the export gives the source's bytes: the sample is in the writer's layout)
EXAMPLE_SAMPLES = [
    ("openai-evals", "openai-evals/registry/data/graded/samples.jsonl", True),
    ("inspect", "inspect/security.jsonl", True),
    ("inspect", "inspect/security.csv", False),
    ("skill-creator", "skill-creator/evals/evals.json", False),
    ("skill-creator", "skill-creator/evals/trigger-evals.json", False),
    ("skill-creator", "skill-creator/bare/evals.json", True),
    ("skill-creator", "skill-creator/with-files/evals.json", False),
    ("deepeval", "deepeval/goldens.json", False),
    ("deepeval", "deepeval/goldens.csv", True),
    ("deepeval", "deepeval/query-goldens.json", False),
    ("deepeval", "deepeval/wrapped-goldens.json", False),
    ("deepeval", "deepeval/metadata-goldens.json", False),
    ("langsmith", "langsmith/examples.jsonl", True),
    ("langsmith", "langsmith/partial.jsonl", True),
    ("promptfoo", "promptfoo/tests/cases.csv", False),
]


@pytest.mark.parametrize(("fmt", "name", "same_bytes"), EXAMPLE_SAMPLES, ids=[s[1] for s in EXAMPLE_SAMPLES])
def test_examples_come_back(fmt, name, same_bytes, tmp_path):
    source = EXAMPLES / name
    canonical, exported, again = round_trip(source, fmt, tmp_path)
    assert native_data(source) == native_data(source, exported)
    assert (exported == source.read_bytes()) is same_bytes
    assert again == canonical


def test_openai_evals_blank_line_is_data_equal(tmp_path):
    # A blank line is not data: the samples come back, one a line, and the later lines move up.
    source = EXAMPLES / "openai-evals/registry/data/capitals/samples.jsonl"
    canonical = plan([source], tmp_path / "c.json", root=ROOT)
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    exported = export([tmp_path / "c.json"], "openai-evals", tmp_path / "samples.jsonl")
    assert native_data(source) == native_data(source, exported.new_bytes)
    assert b"\n\n" in source.read_bytes() and b"\n\n" not in exported.new_bytes


@pytest.mark.parametrize("config", ["promptfoo/promptfooconfig.yaml", "promptfoo/scenarios/promptfooconfig.yaml"])
def test_promptfoo_config_comes_back_onto_itself(config, tmp_path):
    """Exported onto the config it came from, the config stays byte for byte (its tests
    files and `file://` references are named as written, never rewritten); a new config
    written next to it is read back into the same canonical file."""
    folder = tmp_path / "suite"
    shutil.copytree((EXAMPLES / config).parent, folder)
    copy = folder / "promptfooconfig.yaml"
    ref = (EXAMPLES / config).relative_to(ROOT).as_posix()
    canonical = plan([copy], tmp_path / "c.json", root=ROOT, source_refs=[ref])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    onto = export([tmp_path / "c.json"], "promptfoo", copy)
    assert not onto.changed
    fresh = export([tmp_path / "c.json"], "promptfoo", folder / "exported.yaml")
    assert native_data(copy) == native_data(copy, fresh.new_bytes) or "tests" in native_data(copy)
    (folder / "exported.yaml").write_bytes(fresh.new_bytes)
    again = plan([folder / "exported.yaml"], tmp_path / "again.json", root=ROOT, source_refs=[ref])
    assert again.new_bytes == canonical.new_bytes


def test_export_onto_the_source_leaves_its_layout(tmp_path):
    # The same data in another layout: DEST keeps its bytes, nothing is written.
    source = EXAMPLES / "skill-creator/evals/evals.json"
    canonical = plan([source], tmp_path / "c.json", root=ROOT)
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    dest = tmp_path / "evals.json"
    shutil.copy(source, dest)
    exported = export([tmp_path / "c.json"], "skill-creator", dest)
    assert not exported.changed and exported.new_bytes == source.read_bytes()


def _corpus_samples() -> list[Any]:
    jobs = []
    for folder, fmt in [
        ("openai_evals", "openai-evals"),
        ("inspect_ai", "inspect"),
        ("skill_creator", "skill-creator"),
        ("deepeval", "deepeval"),
        ("langsmith", "langsmith"),
        ("promptfoo", "promptfoo"),
    ]:
        for path in corpus_files(folder, ".json", ".jsonl", ".csv"):
            jobs.append(pytest.param(fmt, path, id=f"{folder}/{path.name}"))
    return jobs or [pytest.param(None, None, id="absent")]


@requires_external("")
@pytest.mark.parametrize(("fmt", "source"), _corpus_samples())
def test_corpus_samples_come_back(fmt, source, tmp_path):
    fields = {"input": "question", "target": "answer"} if source.name.endswith("biology_qa.jsonl") else None
    # The corpus is its own root: read in place, never through a link out of the checkout.
    canonical, exported, again = round_trip(source, fmt, tmp_path, fields=fields, root=EXTERNAL)
    assert native_data(source) == native_data(source, exported)
    if not source.name.endswith("samples.jsonl") or b"\n\n" not in source.read_bytes():
        assert again == canonical


@requires_external("promptfoo")
@pytest.mark.parametrize(
    "config",
    [p for p in corpus_files("promptfoo", ".yaml") if p.name == "promptfooconfig.yaml"],
    ids=lambda p: p.parent.name,
)
def test_corpus_promptfoo_configs_come_back_onto_themselves(config, tmp_path):
    folder = tmp_path / "suite"
    shutil.copytree(config.parent, folder)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    ref = f"vendor/{config.parent.name}/promptfooconfig.yaml"
    canonical = plan([folder / "promptfooconfig.yaml"], tmp_path / "c.json", root=ROOT, source_refs=[ref])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    assert not export([tmp_path / "c.json"], "promptfoo", folder / "promptfooconfig.yaml").changed
    fresh = export([tmp_path / "c.json"], "promptfoo", folder / "exported.yaml")
    (folder / "exported.yaml").write_bytes(fresh.new_bytes)
    again = plan([folder / "exported.yaml"], tmp_path / "again.json", root=ROOT, source_refs=[ref])
    assert again.new_bytes == canonical.new_bytes


# --- native v1 cases ---------------------------------------------------------------------

NATIVE = {
    "schema_version": "spec-first.workflow-eval-fixtures.v1",
    "skill": "release-notes",
    "description": "Release notes skill",
    "source_refs": ["docs/release.md"],
    "cases": [
        {
            "id": "summary",
            "input": "Summarize the v2 release notes.",
            "coverage_tags": ["expected", "boundary"],
            "expected_outcome": "A three-line summary that names the breaking change.",
            "boundary_note": "Only v2; older releases are out of scope.",
            "forbidden_signals": ["v1.9"],
            "source_refs": ["docs/release.md#v2"],
            "extensions": {"owner": "docs-team"},
        },
        {
            "id": "checks",
            "input": "List the breaking changes.",
            "coverage_tags": ["expected"],
            "expected_outcome": {"format": "bullets", "items": 2},
        },
    ],
}

# Per target: the (case, field, kind) the loss report lists for NATIVE.
NATIVE_LOSSES = {
    "promptfoo": {
        ("summary", "boundary_note", "metadata"),
        ("checks", "expected_outcome", "text"),
    },
    "inspect": {
        ("summary", "boundary_note", "metadata"),
        ("summary", "forbidden_signals", "metadata"),
        ("checks", "expected_outcome", "text"),
    },
    "openai-evals": {
        ("summary", "boundary_note", "metadata"),
        ("summary", "forbidden_signals", "metadata"),
        ("checks", "expected_outcome", "text"),
    },
    "deepeval": {
        ("summary", "forbidden_signals", "metadata"),
        ("checks", "expected_outcome", "text"),
    },
    "langsmith": {
        ("summary", "boundary_note", "metadata"),
        ("summary", "forbidden_signals", "metadata"),
    },
    "skill-creator": {
        ("summary", "boundary_note", "metadata"),
        ("checks", "expected_outcome", "text"),
    },
}
# NATIVE's file-level members the target has no place for (README "Exporting").
for _target, _losses in NATIVE_LOSSES.items():
    _losses.add((None, "source_refs", "dropped"))
    if _target != "promptfoo":
        _losses.add((None, "description", "dropped"))
SUFFIX = {
    "promptfoo": ".yaml",
    "inspect": ".jsonl",
    "openai-evals": ".jsonl",
    "deepeval": ".json",
    "langsmith": ".jsonl",
}


@pytest.fixture
def native_file(tmp_path: Path) -> Path:
    path = tmp_path / "release.json"
    path.write_text(json.dumps(NATIVE, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize("target", sorted(NATIVE_LOSSES))
def test_native_cases_are_mapped_with_a_loss_report(target, native_file, tmp_path):
    dest = tmp_path / f"out{SUFFIX.get(target, '.json')}"
    exported = export([native_file], target, dest)
    assert {(loss.case, loss.field, loss.kind) for loss in exported.losses.losses} == NATIVE_LOSSES[target]
    assert exported.cases == 2 and exported.restored == 0
    text = exported.new_bytes.decode("utf-8")
    for value in ("Summarize the v2 release notes.", "List the breaking changes.", "docs-team", "docs/release.md#v2"):
        assert value in text  # input, and what has no field of its own under the metadata


def test_native_promptfoo_mapping(native_file, tmp_path):
    config = native_data(Path("x.yaml"), export([native_file], "promptfoo", tmp_path / "c.yaml").new_bytes)
    assert config["description"] == "Release notes skill"
    assert config["prompts"] == ["{{input}}"] and config["providers"] == ["echo"]
    summary, checks = config["tests"]
    assert summary["vars"] == {"input": "Summarize the v2 release notes."}
    assert summary["assert"] == [
        {"type": "llm-rubric", "value": "A three-line summary that names the breaking change."},
        {"type": "not-icontains", "value": "v1.9"},
    ]
    assert summary["metadata"]["id"] == "summary"
    assert checks["assert"] == [{"type": "llm-rubric", "value": '{"format": "bullets", "items": 2}'}]


def test_native_skill_creator_mapping(native_file, tmp_path):
    evals = json.loads(export([native_file], "skill-creator", tmp_path / "evals.json").new_bytes)
    assert evals["skill_name"] == "release-notes"
    first = evals["evals"][0]
    assert (first["id"], first["name"], first["prompt"]) == (1, "summary", "Summarize the v2 release notes.")
    assert first["expectations"] == ["The output does not contain 'v1.9'."]


def test_cli_loss_report_and_strict(native_file, tmp_path, monkeypatch, capsys):
    dest = tmp_path / "dataset.jsonl"
    run = run_cli(["export", str(native_file), "--to", "inspect", "--out", str(dest)], tmp_path, monkeypatch, capsys)
    assert run.code == 0 and dest.exists()
    assert "loss (inspect): " in run.err and "case summary: forbidden_signals metadata" in run.err
    dest.unlink()
    run = run_cli(
        ["export", str(native_file), "--to", "inspect", "--out", str(dest), "--strict"], tmp_path, monkeypatch, capsys
    )
    assert run.code == 2 and not dest.exists()
    assert "5 loss(es) with --strict; nothing written [loss]" in run.err  # 3 of the cases, 2 of the file


def test_cli_json_output(native_file, tmp_path, monkeypatch, capsys):
    dest = tmp_path / "goldens.json"
    args = ["export", str(native_file), "--to", "deepeval", "--out", str(dest), "--output-format", "json"]
    run = run_cli(args, tmp_path, monkeypatch, capsys)
    result = json.loads(run.out)
    assert run.code == 0 and result["status"] == "written" and result["cases"] == 2
    assert {(x["case"], x["field"], x["kind"]) for x in result["losses"]} == NATIVE_LOSSES["deepeval"]
    run = run_cli(args, tmp_path, monkeypatch, capsys)
    assert json.loads(run.out)["status"] == "unchanged"


def test_cli_check_and_diff(native_file, tmp_path, monkeypatch, capsys):
    dest = tmp_path / "samples.jsonl"
    base = ["export", str(native_file), "--to", "openai-evals", "--out", str(dest)]
    run = run_cli([*base, "--check"], tmp_path, monkeypatch, capsys)
    assert run.code == 1 and not dest.exists()
    run = run_cli([*base, "--diff"], tmp_path, monkeypatch, capsys)
    assert run.code == 0 and not dest.exists() and run.out.startswith("--- ") and '+{"input": "Summarize' in run.out
    assert run_cli(base, tmp_path, monkeypatch, capsys).code == 0
    assert run_cli([*base, "--check"], tmp_path, monkeypatch, capsys).code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--to", "inspect", "--out", "x.yaml"], "--out for inspect must end in", id="suffix"),
        pytest.param(["--to", "nope", "--out", "x.json"], "cannot export to 'nope'", id="target"),
        pytest.param(["--to", "deepeval", "--out", "release.json"], "is one of the canonical files read", id="self"),
    ],
)
def test_cli_usage_errors(args, message, native_file, tmp_path, monkeypatch, capsys):
    run = run_cli(["export", str(native_file), *args], tmp_path, monkeypatch, capsys)
    assert run.code == 2 and message in run.err


def test_refuses_a_canonical_dest_and_a_non_canonical_source(native_file, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps(NATIVE), encoding="utf-8")
    with pytest.raises(ImportFailed) as caught:
        export([native_file], "deepeval", other)
    assert caught.value.errors[0][1].code == "dest_canonical"
    plain = tmp_path / "plain.json"
    plain.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ImportFailed) as caught:
        export([plain], "deepeval", tmp_path / "goldens.json")
    assert caught.value.errors[0][1].code == "not_canonical"


def test_a_case_of_another_format_is_mapped(tmp_path):
    # A LangSmith example exported to Inspect is a native case there: mapped, its record in metadata.
    source = EXAMPLES / "langsmith/examples.jsonl"
    canonical = plan([source], tmp_path / "c.json", root=ROOT)
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    exported = export([tmp_path / "c.json"], "inspect", tmp_path / "d.jsonl")
    first = native_data(Path("d.jsonl"), exported.new_bytes)[0]
    assert first["input"] == "What does LangSmith store for a run?"
    assert first["metadata"]["fixture_migrate"]["extensions"]["langsmith"]["inputs"] == {
        "question": "What does LangSmith store for a run?"
    }


def test_skill_creator_evals_and_triggers_go_to_their_own_files(tmp_path):
    folder = EXAMPLES / "skill-creator" / "evals"
    canonical = plan([folder / "evals.json", folder / "trigger-evals.json"], tmp_path / "c.json", root=ROOT)
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    for name, other in [("evals.json", "an evals file"), ("trigger-evals.json", "a trigger set")]:
        exported = export([tmp_path / "c.json"], "skill-creator", tmp_path / name)
        assert native_data(folder / name) == native_data(folder / name, exported.new_bytes)
        assert {loss.kind for loss in exported.losses.losses} == {"dropped"}
        assert all(f"no place in {other}" in loss.reason for loss in exported.losses.losses)


def test_field_renames_are_undone_in_the_source_order(tmp_path):
    source = tmp_path / "qa.jsonl"
    source.write_text(
        '{"answer": "4", "question": "2+2?", "qid": "q1"}\n{"answer": "6", "question": "3+3?", "qid": "q2"}\n',
        encoding="utf-8",
    )
    fields = {"input": "question", "target": "answer", "id": "qid"}
    canonical = plan([source], tmp_path / "c.json", root=tmp_path, fmt="inspect", fields=fields)
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    request = ExportRequest(
        paths=[tmp_path / "c.json"], target="inspect", dest=tmp_path / "o.jsonl", repo_root=tmp_path
    )
    assert plan_export(request).new_bytes == source.read_bytes()


def _promptfoo_canonical(tmp_path: Path, name: str, default_vars: dict[str, str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    config = {"defaultTest": {"vars": default_vars}, "providers": ["echo"], "tests": [{"vars": {"q": name}}]}
    (folder / "promptfooconfig.yaml").write_text(json.dumps(config), encoding="utf-8")
    canonical = plan(
        [folder / "promptfooconfig.yaml"], tmp_path / f"{name}.json", root=ROOT, source_refs=[f"{name}.yaml"]
    )
    (tmp_path / f"{name}.json").write_bytes(canonical.new_bytes)
    return tmp_path / f"{name}.json"


def test_paths_with_different_file_level_data_are_refused(tmp_path, monkeypatch, capsys):
    # B's defaultTest would silently become A's: refused, nothing written.
    a = _promptfoo_canonical(tmp_path, "a", {"lang": "en"})
    b = _promptfoo_canonical(tmp_path, "b", {"lang": "fr"})
    dest = tmp_path / "ab.yaml"
    run = run_cli(["export", str(a), str(b), "--to", "promptfoo", "--out", str(dest)], tmp_path, monkeypatch, capsys)
    assert run.code == 2 and not dest.exists()
    assert "file-level `extensions.promptfoo`" in run.err and "[different_files]" in run.err


def test_paths_with_the_same_file_level_data_are_merged(tmp_path):
    a = _promptfoo_canonical(tmp_path, "a", {"lang": "en"})
    data = json.loads(a.read_text(encoding="utf-8"))
    data["cases"][0]["id"] = "other"
    (tmp_path / "a2.json").write_text(json.dumps(data), encoding="utf-8")
    exported = export([a, tmp_path / "a2.json"], "promptfoo", tmp_path / "ab.yaml")
    assert exported.cases == 2


@pytest.mark.parametrize(
    ("cases", "place", "code"),
    [
        ('[{"id": "a", "input": 5, "coverage_tags": ["trigger"], "source_refs": ["x.md"]}]', ":3:", "missing_input"),
        ('[\n  "oops"\n]', ":4:", "case_not_object"),
        ('[{"id": null, "input": "x", "coverage_tags": ["boundary"], "source_refs": ["x.md"]}]', "", "missing_id"),
    ],
    ids=["bad-input", "not-an-object", "null-id"],
)
def test_an_invalid_canonical_file_is_refused_at_its_place(cases, place, code, tmp_path, monkeypatch, capsys):
    path = tmp_path / "bad.json"
    path.write_text(
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1",\n "skill": "demo",\n "cases": ' + cases + "}\n",
        encoding="utf-8",
    )
    dest = tmp_path / "out.jsonl"
    run = run_cli(["export", str(path), "--to", "inspect", "--out", str(dest)], tmp_path, monkeypatch, capsys)
    assert run.code == 2 and not dest.exists()
    assert place in run.err and f"[{code}]" in run.err


FULL = {
    "schema_version": "spec-first.workflow-eval-fixtures.v1",
    "skill": "release-notes",
    "description": "Release notes skill",
    "source_refs": ["docs/release.md"],
    "source_ref_authority": "historical",
    "coverage_tags": ["release"],
    "extensions": {"team": {"owner": "docs-team"}},
    "cases": [
        {
            "id": "summary",
            "input": "Summarize the v2 release notes.",
            "coverage_tags": ["expected"],
            "expected_outcome": "A summary.",
            "source_refs": ["docs/release.md#v2"],
            "source_ref_authority": "advisory",
            "priority": "p1-local-field",
        }
    ],
}


@pytest.mark.parametrize("target", sorted(NATIVE_LOSSES))
def test_every_native_field_is_written_or_reported(target, tmp_path):
    path = tmp_path / "full.json"
    path.write_text(json.dumps(FULL), encoding="utf-8")
    exported = export([path], target, tmp_path / f"out{SUFFIX.get(target, '.json')}")
    text = exported.new_bytes.decode("utf-8")
    assert "p1-local-field" in text and "advisory" in text  # case members with no field: under the metadata
    reported = {loss.field for loss in exported.losses.losses if loss.case is None}
    assert {"source_refs", "source_ref_authority", "coverage_tags", "extensions.team"} <= reported
    assert ("description" in reported) is (target != "promptfoo")
    assert "Release notes skill" in text or "description" in reported


def test_csv_type_losses_are_reported(tmp_path):
    # An Inspect JSONL record with a list target and a metadata object, and one without
    # metadata: in a CSV both are text, and the absent member an empty cell.
    source = tmp_path / "in.jsonl"
    source.write_text(
        '{"input": "a", "target": ["x", "y"], "metadata": {"k": 1}}\n{"input": "b", "target": "z"}\n', encoding="utf-8"
    )
    canonical = plan([source], tmp_path / "c.json", root=ROOT, fmt="inspect", source_refs=["in.jsonl"])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    exported = export([tmp_path / "c.json"], "inspect", tmp_path / "out.csv")
    losses = {(loss.field, loss.kind) for loss in exported.losses.losses}
    assert {("target", "text"), ("metadata", "text")} <= losses
    assert len([loss for loss in exported.losses.losses if loss.field == "metadata"]) == 2  # text; absent


def test_mixed_single_and_multi_turn_goldens_are_refused(tmp_path, monkeypatch, capsys):
    single = tmp_path / "single.json"
    single.write_text(json.dumps([{"input": "q", "expected_output": "o"}]), encoding="utf-8")
    multi = tmp_path / "multi.json"
    multi.write_text(json.dumps([{"scenario": "book a table", "turns": []}]), encoding="utf-8")
    paths = []
    for source in (single, multi):
        canonical = plan(
            [source], tmp_path / f"{source.stem}.c.json", root=ROOT, fmt="deepeval", source_refs=[source.name]
        )
        (tmp_path / f"{source.stem}.c.json").write_bytes(canonical.new_bytes)
        paths.append(str(tmp_path / f"{source.stem}.c.json"))
    dest = tmp_path / "goldens.json"
    run = run_cli(["export", *paths, "--to", "deepeval", "--out", str(dest)], tmp_path, monkeypatch, capsys)
    assert run.code == 2 and not dest.exists() and "[mixed_turns]" in run.err


def test_blank_lines_make_the_reimport_data_equal_with_new_locators(tmp_path):
    # README: a source with blank lines comes back with the export's line locators.
    source = tmp_path / "samples.jsonl"
    source.write_text('{"input": "a", "ideal": "x"}\n\n\n{"input": "b", "ideal": "y"}\n', encoding="utf-8")
    canonical = plan([source], tmp_path / "c.json", root=ROOT, fmt="openai-evals", source_refs=["samples.jsonl"])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    dest = tmp_path / "out" / "samples.jsonl"
    dest.parent.mkdir()
    dest.write_bytes(export([tmp_path / "c.json"], "openai-evals", dest).new_bytes)
    again = plan([dest], tmp_path / "again.json", root=ROOT, fmt="openai-evals", source_refs=["samples.jsonl"])
    before, after = json.loads(canonical.new_bytes), json.loads(again.new_bytes)
    assert [c["source_refs"] for c in before["cases"]] == [["samples.jsonl#L1"], ["samples.jsonl#L4"]]
    assert [c["source_refs"] for c in after["cases"]] == [["samples.jsonl#L1"], ["samples.jsonl#L2"]]
    for case in (*before["cases"], *after["cases"]):
        case.pop("source_refs")
        case["extensions"]["import"].pop("locator")
    assert before == after


def test_jsonl_is_written_with_non_ascii_as_is(tmp_path):
    # README: JSON Lines as json.dumps(record, ensure_ascii=False) writes it.
    source = tmp_path / "samples.jsonl"
    source.write_text('{"input": "caf\u00e9", "ideal": "\u00fc"}\n', encoding="utf-8")
    canonical = plan([source], tmp_path / "c.json", root=ROOT, fmt="openai-evals", source_refs=["samples.jsonl"])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    exported = export([tmp_path / "c.json"], "openai-evals", tmp_path / "out.jsonl")
    assert exported.new_bytes == source.read_bytes()


def test_an_empty_outcome_list_is_kept_by_skill_creator(tmp_path):
    fixture = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "cases": [
            {"id": "m", "input": "x", "coverage_tags": ["boundary"], "expected_outcome": [], "boundary_note": "n"}
        ],
    }
    (tmp_path / "c.json").write_text(json.dumps(fixture), encoding="utf-8")
    evals = json.loads(export([tmp_path / "c.json"], "skill-creator", tmp_path / "evals.json").new_bytes)
    assert evals["evals"][0]["expectations"] == []


def test_a_canonical_file_linked_from_outside_the_root_is_never_read(tmp_path):
    repo, outside = tmp_path / "repo", tmp_path / "outside.json"
    repo.mkdir()
    outside.write_text("[1, 2]", encoding="utf-8")  # read, it would be refused as not canonical
    (repo / "release.json").symlink_to(outside)
    request = ExportRequest(paths=[repo / "release.json"], target="deepeval", dest=repo / "g.json", repo_root=repo)
    with pytest.raises(ImportFailed) as caught:
        plan_export(request)
    assert caught.value.errors[0][1].code == "symlink_outside_repo"
