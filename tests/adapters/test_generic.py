"""generic: any other payload with a `cases` or `examples` list, under an unknown
`schema_version` or none at all.

The reference's own mapping applies (renames such as `intent`/`user_intent` ->
`input`, `expected_signal`/`expected` -> `expected_outcome`, `negative_signal` ->
`forbidden_signals`, `examples` -> `cases`, ids from `name` or `case-<n>`); every
other member goes under `extensions`, an unknown schema_version under
`extensions.migrated_from`. Reports name the adapter `generic`.
"""

import io
from pathlib import Path

import orjson
import pytest
from fixture_migrate.cli.commands import MigrateMode, run_migrate
from fixture_migrate.cli.report import Report
from fixture_migrate.migration.engine import Options

from tests.helpers import check_migration, migrate_sample, plan

ADAPTER = "generic"

UNKNOWN_VERSION = """\
{
  "schema_version": "acme.tea-tasting.v3",
  "owner": "tea-team",
  "examples": [
    {"name": "Green Tea: Steep Time", "intent": "How long to steep sencha?", "expected_signal": "about one minute", "negative_signal": ["boiling water"], "score_hint": 0.5}
  ]
}
"""

# No schema_version at all; 4-space indent; file-level stray after the case list.
NO_VERSION = """\
{
    "cases": [
        {
            "user_intent": "Tune my violin to A 442.",
            "expected": null,
            "tempo": 90
        }
    ],
    "notes": ["draft", "unreviewed"]
}
"""

SAMPLES = [
    pytest.param(UNKNOWN_VERSION, "skills/tea-sommelier/evals/examples.json", id="unknown-schema-version"),
    pytest.param(NO_VERSION, "skills/violin-tuner/evals/cases.json", id="no-schema-version"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_unknown_version_is_kept():
    data = orjson.loads(migrate_sample(UNKNOWN_VERSION, "skills/tea-sommelier/evals/examples.json").after)
    assert data["extensions"] == {"migrated_from": "acme.tea-tasting.v3", "owner": "tea-team"}
    case = data["cases"][0]
    assert case["id"] == "green-tea-steep-time"
    assert case["input"] == "How long to steep sencha?"
    assert case["expected_outcome"] == "about one minute"
    assert case["forbidden_signals"] == ["boiling water"]
    assert case["extensions"] == {
        "name": "Green Tea: Steep Time",
        "intent": "How long to steep sencha?",
        "score_hint": 0.5,
    }


def test_no_version_gets_one():
    data = orjson.loads(migrate_sample(NO_VERSION, "skills/violin-tuner/evals/cases.json").after)
    assert data["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    assert data["skill"] == "violin-tuner"
    assert data["extensions"] == {"notes": ["draft", "unreviewed"]}
    assert data["cases"] == [
        {"id": "case-1", "input": "Tune my violin to A 442.", "expected_outcome": None, "extensions": {"tempo": 90}}
    ]


def test_report_names_generic(tmp_path):
    for source, path in ((param.values[0], param.values[1]) for param in SAMPLES):
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run_migrate(
        [tmp_path / "skills"], Options(repo_root=tmp_path), MigrateMode(check=True), out=out, report=Report(err=err)
    )
    assert code == 1
    lines = err.getvalue().splitlines()
    for path in ("skills/tea-sommelier/evals/examples.json", "skills/violin-tuner/evals/cases.json"):
        assert f"would migrate {Path(tmp_path, path).as_posix()} (generic)" in lines
    assert (tmp_path / "skills/violin-tuner/evals/cases.json").read_text(encoding="utf-8") == NO_VERSION


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", '
            '"examples": [{"id": "x", "name": "Ada"}]}',
            id="json-schema-examples",
        ),
        pytest.param('{"compilerOptions": {"strict": true}, "cases": []}', id="empty-cases-in-a-config"),
        pytest.param('{"title": "People", "examples": [{"name": "Ada"}, {"name": "Grace"}]}', id="examples-not-cases"),
    ],
)
def test_lists_that_are_not_eval_cases_are_not_fixtures(source):
    assert plan(source, "config/settings.json").status == "not_fixture"
