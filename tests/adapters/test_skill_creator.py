"""skill_creator: skill-creator output evals and trigger sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.import_helpers import EXAMPLES, EXTERNAL, check_import, corpus_files, plan, refused, requires_external

EVALS = EXAMPLES / "skill-creator" / "evals" / "evals.json"
TRIGGERS = EXAMPLES / "skill-creator" / "evals" / "trigger-evals.json"
ROOT = EXAMPLES.parents[1]


def test_imports_evals_and_trigger_set(tmp_path, snapshot_json):
    text = check_import([EVALS, TRIGGERS], tmp_path / "release-notes.json", root=ROOT, skill=None)
    assert text == snapshot_json
    data = json.loads(text)
    assert data["skill"] == "release-notes"  # skill_name, no --skill given
    named, numbered, positive, negative = data["cases"]
    assert named["id"] == "weekly-notes-from-merged-prs"
    assert named["expected_outcome"]["expectations"][1] == "Leaves out internal refactors."
    assert numbered["id"] == "eval-1" and list(numbered["expected_outcome"]) == ["assertions"]
    assert positive["expected_outcome"] == "The skill triggers."
    assert (negative["id"], negative["coverage_tags"]) == ("trigger-7", ["trigger", "should-not-trigger", "boundary"])
    assert negative["extensions"]["skill_creator"]["should_trigger"] is False


def test_skill_option_wins_over_skill_name(tmp_path):
    data = json.loads(plan([EVALS], tmp_path / "o.json", root=ROOT, skill="notes").new_bytes)
    assert data["skill"] == "notes"
    assert (
        data["extensions"]["skill_creator"]["files"]["examples/external/skill-creator/evals/evals.json"]["skill_name"]
        == "release-notes"
    )


def test_wrapped_trigger_set_keeps_its_wrapper(tmp_path):
    source = tmp_path / "eval_set.json"
    source.write_text(
        json.dumps({"skill_name": "x", "queries": [{"id": "T01", "query": "Do it", "should_trigger": True}]}),
        encoding="utf-8",
    )
    data = json.loads(plan([source], tmp_path / "o.json", root=tmp_path, skill=None).new_bytes)
    assert data["cases"][0]["id"] == "T01"
    assert data["extensions"]["skill_creator"]["files"] == {"eval_set.json": {"skill_name": "x"}}


def test_conflicting_duplicate_queries_are_reported(tmp_path):
    source = tmp_path / "trigger-evals.json"
    items = [{"query": "Clean up Xcode", "should_trigger": True}, {"query": "Clean up Xcode", "should_trigger": False}]
    source.write_text(json.dumps(items), encoding="utf-8")
    result = plan([source], tmp_path / "o.json", root=tmp_path)
    assert [case["id"][-2:] for case in json.loads(result.new_bytes)["cases"]][1] == "-2"
    assert any("listed both as should_trigger true and false" in note for note in result.notes)


@pytest.mark.parametrize(
    "payload, reason",
    [
        pytest.param(
            {"should_trigger": ["xcode"], "should_not_trigger": ["cpu"]}, "keyword trigger list", id="keywords"
        ),
        pytest.param({"evals": [{"id": 1, "type": "script", "target": "a.sh"}]}, "no `prompt`", id="script-checks"),
        pytest.param({"skill_name": "x", "queries": []}, "no queries", id="no-queries"),
    ],
)
def test_look_alikes_are_refused(tmp_path, payload, reason):
    source = tmp_path / "evals.json"
    source.write_text(json.dumps(payload), encoding="utf-8")
    ((_, code, message),) = refused([source], tmp_path / "o.json", root=tmp_path, skill="x")
    assert code == "refused" and reason in message


def _corpus_jobs() -> list[object]:
    jobs = [pytest.param(path, id=path.name) for path in corpus_files("skill_creator", ".json")]
    return jobs or [pytest.param(None, id="absent")]


@requires_external("skill_creator")
@pytest.mark.parametrize("source", _corpus_jobs())
def test_corpus_samples_import(source: Path, tmp_path):
    own = json.loads(source.read_text(encoding="utf-8"))
    has_name = isinstance(own, dict) and "skill_name" in own
    text = check_import([source], tmp_path / "imported.json", root=EXTERNAL, skill=None if has_name else "demo")
    data = json.loads(text)
    assert data["coverage_tags"] == ["skill-creator"]
    if has_name:
        assert data["skill"] == own["skill_name"]
    assert len({case["id"] for case in data["cases"]}) == len(data["cases"])


BARE = EXAMPLES / "skill-creator" / "bare" / "evals.json"


def test_a_bare_evals_array_is_read(tmp_path):
    text = check_import([BARE], tmp_path / "notes.json", root=ROOT, skill="release-notes")
    data = json.loads(text)
    assert [case["id"] for case in data["cases"]] == ["eval-1", "eval-2"]
    assert data["extensions"]["skill_creator"]["bare"] == ["examples/external/skill-creator/bare/evals.json"]
    assert data["cases"][1]["extensions"]["skill_creator"]["files"] == ["evals/files/notes-v2.md"]


def test_a_field_error_names_the_members_the_records_have(tmp_path):
    errors = refused([BARE], tmp_path / "o.json", root=ROOT, skill="x", fmt="skill-creator", fields={"query": "promt"})
    ((_, code, message),) = errors
    assert code == "usage"
    assert "no record read has a top-level `promt` member (the records' members: `id`, `prompt`" in message
    ((_, code, message),) = refused(
        [BARE], tmp_path / "o.json", root=ROOT, skill="x", fmt="skill-creator", fields={"query": "prompt"}
    )
    assert "has no `prompt`" in message and "--field query=prompt renamed `prompt` to `query`" in message
