"""Round trips with files shaped as the eval tools write them (samples of this project in
`examples/external/`): import -> export gives the source's data back, never a member it
lacked, and export -> import gives the canonical file back byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.exporting.test_pipeline import NATIVE, ROOT, export, native_data, round_trip
from tests.import_helpers import EXAMPLES, corpus_files, plan
from tests.runner import run_cli

# --- promptfoo: a new config gains no member its source lacked ---------------------------

VARS_PROMPTS = EXAMPLES / "promptfoo/vars-prompts/promptfooconfig.yaml"


def _fresh_config(config: Path, tmp_path: Path, fmt: str = "auto") -> tuple[bytes, bytes, Path]:
    """Import `config` (copied with its folder), export it to a new config beside it:
    the canonical bytes, the new config's bytes, and the copy's folder."""
    folder = tmp_path / "suite"
    shutil.copytree(config.parent, folder)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    ref = "vendor/suite/promptfooconfig.yaml"
    canonical = plan([folder / config.name], tmp_path / "c.json", root=ROOT, fmt=fmt, source_refs=[ref])
    (tmp_path / "c.json").write_bytes(canonical.new_bytes)
    fresh = export([tmp_path / "c.json"], "promptfoo", folder / "exported.yaml")
    return canonical.new_bytes, fresh.new_bytes, folder


def test_a_config_whose_tests_carry_their_prompts_gains_no_prompts(tmp_path):
    canonical, fresh, folder = _fresh_config(VARS_PROMPTS, tmp_path)
    exported = native_data(Path("x.yaml"), fresh)
    assert "prompts" not in exported  # a `{{input}}` prompt would change what promptfoo runs
    assert exported == native_data(VARS_PROMPTS)
    (folder / "exported.yaml").write_bytes(fresh)
    ref = "vendor/suite/promptfooconfig.yaml"
    again = plan([folder / "exported.yaml"], tmp_path / "again.json", root=ROOT, source_refs=[ref])
    assert again.new_bytes == canonical


def _configs() -> list[Path]:
    found = [p for p in EXAMPLES.glob("promptfoo/**/promptfooconfig.yaml")]
    found += [p for p in corpus_files("promptfoo", ".yaml") if p.name == "promptfooconfig.yaml"]
    return sorted(found)


@pytest.mark.parametrize("config", _configs(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_a_new_config_has_only_members_of_its_source(config, tmp_path):
    _, fresh, _ = _fresh_config(config, tmp_path)
    source = native_data(config)
    exported = native_data(Path("x.yaml"), fresh)
    assert set(exported) <= set(source)
    for member in ("prompts", "providers", "defaultTest", "description"):
        assert exported.get(member) == source.get(member)


def test_a_native_case_joining_such_a_config_lists_its_input_as_a_loss(tmp_path):
    canonical = json.loads(plan([VARS_PROMPTS], tmp_path / "c.json", root=ROOT).new_bytes)
    canonical["cases"].append(NATIVE["cases"][1])
    (tmp_path / "c.json").write_text(json.dumps(canonical), encoding="utf-8")
    exported = export([tmp_path / "c.json"], "promptfoo", tmp_path / "new.yaml")
    assert "prompts" not in native_data(Path("x.yaml"), exported.new_bytes)
    assert [(loss.case, loss.field, loss.kind) for loss in exported.losses.losses if loss.field == "input"] == [
        ("checks", "input", "metadata")
    ]


def test_a_config_of_native_cases_gets_a_prompt_and_a_provider(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(NATIVE), encoding="utf-8")
    config = native_data(Path("x.yaml"), export([tmp_path / "c.json"], "promptfoo", tmp_path / "new.yaml").new_bytes)
    assert (config["prompts"], config["providers"]) == (["{{input}}"], ["echo"])


# --- skill-creator: evals.json comes back data-equal -------------------------------------

WITH_FILES = EXAMPLES / "skill-creator/with-files/evals.json"


def _evals_variants() -> list[object]:
    data = json.loads(WITH_FILES.read_text(encoding="utf-8"))
    no_skill = {key: value for key, value in data.items() if key != "skill_name"}
    own_trigger = json.loads(json.dumps(data))
    own_trigger["evals"][0]["should_trigger"] = True  # an output eval's own member
    own_original = json.loads(json.dumps(data))
    own_original["evals"][1]["original"] = {"author": "qa", "draft": 3}  # a member named as our bookkeeping
    return [
        pytest.param(data, id="sample"),
        pytest.param(own_original, id="eval-with-original"),
        pytest.param(no_skill, id="no-skill_name"),
        pytest.param(own_trigger, id="eval-with-should_trigger"),
    ]


@pytest.mark.parametrize("data", _evals_variants())
def test_skill_creator_evals_come_back(data, tmp_path):
    source = tmp_path / "skills" / "invoice-checker" / "evals" / "evals.json"
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    canonical, exported, again = round_trip(source, "skill-creator", tmp_path, root=tmp_path)
    assert native_data(source, exported) == data  # nothing gained, nothing lost
    assert exported == source.read_bytes()  # the sample is in the writer's layout
    assert again == canonical


# --- DeepEval: goldens of {input, additional_metadata} are DeepEval's ---------------------

METADATA_GOLDENS = EXAMPLES / "deepeval/metadata-goldens.json"


def test_goldens_with_only_additional_metadata_are_recognized(tmp_path, monkeypatch, capsys):
    assert b"\n\n" in METADATA_GOLDENS.read_bytes()  # blank lines between groups of records
    shutil.copy(METADATA_GOLDENS, tmp_path / "goldens.json")
    run = run_cli(["import", "goldens.json", "--out", "skills/rail/evals/goldens.json"], tmp_path, monkeypatch, capsys)
    assert run.code == 0, run.err  # no --from: recognized by DeepEval's own `additional_metadata`
    data = json.loads((tmp_path / "skills/rail/evals/goldens.json").read_text(encoding="utf-8"))
    assert data["extensions"]["import"]["format"] == "deepeval"
    assert [case["extensions"]["deepeval"]["additional_metadata"]["topic"] for case in data["cases"]] == [
        "departures",
        "accessibility",
        "luggage",
    ]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_metadata_goldens_come_back(suffix, tmp_path):
    goldens = json.loads(METADATA_GOLDENS.read_text(encoding="utf-8"))
    root, source = ROOT, METADATA_GOLDENS
    if suffix == ".jsonl":  # the same goldens as JSON Lines, a blank line between the groups
        root, source = tmp_path, tmp_path / "goldens.jsonl"
        lines = [json.dumps(golden) for golden in goldens]
        source.write_text("\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]) + "\n", encoding="utf-8")
    auto = plan([source], tmp_path / "auto.json", root=root)  # --from auto
    canonical, exported, again = round_trip(source, "deepeval", tmp_path, root=root)
    assert auto.new_bytes == canonical
    assert native_data(source, exported) == goldens
    if suffix == ".json":
        assert again == canonical  # a JSONL source's blank line moves its later #L locators


def test_a_config_without_providers_gains_none(tmp_path):
    # promptfoo takes the providers from its command line (`--providers`) then.
    config = tmp_path / "suite" / "promptfooconfig.yaml"
    config.parent.mkdir()
    config.write_text(
        "description: Branches\nprompts: ['{{prompt}}']\ntests:\n  - vars: {prompt: Where is the nearest branch?}\n",
        encoding="utf-8",
    )
    _, fresh, _ = _fresh_config(config, tmp_path / "run", fmt="promptfoo")
    assert native_data(Path("x.yaml"), fresh) == {
        "description": "Branches",
        "prompts": ["{{prompt}}"],
        "tests": [{"vars": {"prompt": "Where is the nearest branch?"}}],
    }
