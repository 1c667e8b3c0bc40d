"""skill_audit_trigger_cases_v1: `cases` of `input`, `expected_signal`,
`forbidden_signals`, `boundary_note`, `coverage_tags`.

`expected_signal` becomes `expected_outcome`; a stray member goes under `extensions`.
"""

import orjson
import pytest

from tests.helpers import check_migration, migrate_sample

ADAPTER = "skill_audit_trigger_cases_v1"

# The whole file on one line, ", "/": " spacing, no final newline.
ONE_LINE = (
    '{"schema_version": "spec-first.skill-audit-trigger-cases.v1", "skill": "chess-coach", '
    '"source_refs": ["skills/chess-coach/SKILL.md"], "cases": [{"id": "opening-help", '
    '"input": "Which opening suits a beginner?", "coverage_tags": ["trigger"], '
    '"expected_signal": "Triggers: an opening question.", "elo_band": [800, 1200]}]}'
)

# One line with no spaces at all, no skill (inferred from the path), two cases.
TIGHT_NO_SKILL = (
    '{"schema_version":"spec-first.skill-audit-trigger-cases.v1","cases":['
    '{"id":"draughts","input":"Teach me draughts.","expected_signal":"Does not trigger.",'
    '"forbidden_signals":["explains castling"],"variant":"international"},'
    '{"id":"endgame","input":"King and rook versus king?","expected_signal":["triggers","mate plan"]}]}\n'
)

SAMPLES = [
    pytest.param(ONE_LINE, "skills/chess-coach/evals/trigger-review-cases.json", id="one-line-no-final-newline"),
    pytest.param(TIGHT_NO_SKILL, "skills/chess-coach/evals/trigger-review-cases.json", id="tight-no-skill"),
]


@pytest.mark.parametrize(("source", "path"), SAMPLES)
def test_migrates(source, path, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff, path=path)


def test_stays_on_one_line():
    for source, *_ in (param.values for param in SAMPLES):
        after = migrate_sample(source).after
        assert after.rstrip("\n").count("\n") == 0
        assert after.endswith("\n") == source.endswith("\n")


def test_stray_and_outcome():
    data = orjson.loads(migrate_sample(TIGHT_NO_SKILL, SAMPLES[1].values[1]).after)
    assert data["skill"] == "chess-coach"
    draughts, endgame = data["cases"]
    assert draughts["expected_outcome"] == "Does not trigger."
    assert draughts["extensions"] == {"variant": "international"}
    assert endgame["expected_outcome"] == ["triggers", "mate plan"]
