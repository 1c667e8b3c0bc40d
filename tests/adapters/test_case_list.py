"""case_list: a bare list of case dicts bound to a name in a Python module (`CASES = [...]`).

The list stays a list (code may parametrize over it): each case is mapped by the
reference's rules (explicit `id`, renames, a `prompt` fills an empty `input`, the
rest under the case's `extensions`); nothing else is written. `normalize` and
`validate` read the list as a v1 payload with the inferred skill.
"""

from pathlib import Path

import pytest
from fixture_migrate.adapters.case_list import ADAPTER as CASE_LIST
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.conservation import missing_leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.formats import Unit, load_document
from fixture_migrate.formats.target import materialize

from tests.helpers import assert_untouched, migrate_sample, plan

ADAPTER = "case_list"
PATH = "skills/tea-sommelier/evals/test_cases.py"

# A test module: the list sits among code and comments, which stay.
PARAMETRIZED = """\
import pytest

# Steeping questions; keep in sync with the prompt.
CASES = [
    {"name": "Green Tea: Steep Time", "user_intent": "How long to steep sencha?", "expected": "about one minute"},
    {"prompt": "Water for oolong?", "expected_signal": "90 C", "tempo": 3},  # prompt fills input
]


@pytest.mark.parametrize("case", CASES)
def test_case(case):
    assert case["input"]
"""

# A tuple under FIXTURE, ids already explicit, one member without a canonical home.
TUPLE = """\
FIXTURE = (
    {"id": "a", "input": "hi", "coverage_tags": ["trigger"], "owner": "tea-team"},
)
"""

CANONICAL = """\
CASES = [
    {"id": "a", "input": "hi", "coverage_tags": ["trigger"], "extensions": {"owner": "tea-team"}},
]
"""

SAMPLES = [
    pytest.param(PARAMETRIZED, id="parametrized-list"),
    pytest.param(TUPLE, id="tuple-under-fixture"),
]


def _units(text: str) -> list[Unit]:
    return load_document(Path(PATH), text.encode()).units


@pytest.mark.parametrize("source", SAMPLES)
def test_migrates(source, snapshot_text, snapshot_diff):
    """The three assertions: snapshots, a stable second run, every leaf kept and cases read."""
    migrated = migrate_sample(source, PATH)
    assert migrated.result.adapters == [ADAPTER]
    assert migrated.after == snapshot_text
    assert migrated.diff == snapshot_diff

    again = plan(migrated.after, PATH)
    assert again.status == "unchanged", again.error and again.error.message

    before, after = _units(source), _units(migrated.after)
    assert [unit.shape for unit in after] == ["case_list"]
    assert not missing_leaves([unit.data for unit in before], [unit.data for unit in after])
    payload = materialize(CASE_LIST.to_canonical(after[0], Context(source_file=PATH)), after[0].data)
    cases = normalize_payload(payload, source_file=PATH)
    assert [case["skill"] for case in cases] == ["tea-sommelier"] * len(after[0].data)
    assert all(case["input"] for case in cases)


def test_code_and_comments_stay():
    after = migrate_sample(PARAMETRIZED, PATH).after
    assert after.startswith("import pytest\n\n# Steeping questions; keep in sync with the prompt.\nCASES = [\n")
    assert "# prompt fills input" in after
    assert after.endswith('@pytest.mark.parametrize("case", CASES)\ndef test_case(case):\n    assert case["input"]\n')


def test_canonical_list_stays_untouched():
    assert_untouched(CANONICAL, PATH)


def test_claims_only_bound_lists_of_objects():
    assert CASE_LIST.claims(Unit([{"id": "a"}], shape="case_list", binding="CASES"))
    assert not CASE_LIST.claims(Unit([{"id": "a"}], shape="case_list"))  # JSON Lines: output_cases_jsonl's
    assert not CASE_LIST.claims(Unit([{"id": "a"}, 3], shape="case_list", binding="CASES"))
    assert not CASE_LIST.claims(Unit({"cases": []}, binding="CASES"))


def test_the_payload_read_around_the_list():
    unit = Unit([{"name": "One", "user_intent": "hi"}], shape="case_list", binding="CASES")
    payload = materialize(CASE_LIST.to_canonical(unit, Context(source_file=PATH)), unit.data)
    assert payload["schema_version"] == c.CANONICAL_SCHEMA_VERSION
    assert payload["skill"] == "tea-sommelier"
    assert payload["cases"] == [{"id": "one", "input": "hi", "extensions": {"name": "One"}}]
    outside = materialize(CASE_LIST.to_canonical(unit, Context(source_file="x.py")), unit.data)
    assert "skill" not in outside
