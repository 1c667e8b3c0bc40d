"""The shortcuts of the checks a planned change passes agree with the checks spelled out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.new_errors import adds_validation_errors
from fixture_migrate.contract.validate import CaseIdRegistry, RefChecker, validate_case
from hypothesis import given
from hypothesis import strategies as st


def _error_keys(cases: list[dict[str, Any]]) -> set[tuple[int, str]]:
    checker, ids = RefChecker(Path("."), check_exists=False), CaseIdRegistry()
    keys: set[tuple[int, str]] = set()
    for index, case in enumerate(cases):
        keys.update((index, error["reason_code"]) for error in validate_case(case, checker))
        if ids.check(case) is not None:
            keys.add((index, c.DUPLICATE_CASE_ID))
    return keys


_SCALARS = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 1.0, "", " ", "x", "trigger", "Bad Tag"]))
_VALUES = st.one_of(
    _SCALARS, st.lists(_SCALARS, max_size=3), st.dictionaries(st.sampled_from("ab"), _SCALARS, max_size=2)
)
_CASES = st.fixed_dictionaries(
    {
        "skill": st.sampled_from(["s", "", None, 1]),
        "id": st.sampled_from(["a", "b", "", None, 1, True]),
        "input": _VALUES,
        "coverage_tags": st.one_of(st.just(["trigger"]), st.just(["boundary", "expected"]), _VALUES),
        "source_refs": st.one_of(st.just(["skills/s/SKILL.md"]), st.just(["/abs", "http://x"]), _VALUES),
        "source_ref_authority": st.sampled_from(["source", "advisory", "bogus", None, 1]),
        "expected_outcome": _VALUES,
        "boundary_note": _VALUES,
        "forbidden_signals": _VALUES,
    }
)


@given(st.lists(_CASES, max_size=4), st.data())
def test_adds_validation_errors_is_the_subset_test(before, data):
    # After: each case kept, or some of its validated members replaced.
    after = []
    for case in before:
        changed = dict(case)
        for key in data.draw(st.lists(st.sampled_from(sorted(case)), max_size=2)):
            changed[key] = data.draw(_VALUES)
        after.append(changed)
    after += data.draw(st.lists(_CASES, max_size=2))
    expected = not _error_keys(after) <= _error_keys(before)
    assert adds_validation_errors(before, after) == expected


def test_the_ref_checker_is_shared_and_renewed_before_it_grows_past_its_bound(monkeypatch):
    from fixture_migrate.contract import new_errors

    monkeypatch.setattr(new_errors, "_CHECKER_ENTRIES", 4)
    monkeypatch.setattr(new_errors, "_CHECKER", [])
    first = new_errors._checker()
    assert new_errors._checker() is first
    for ref in ("a.md", "b.md"):
        first.problems(ref, False)  # an answer in each of its two caches
    assert first.held() == 4 and new_errors._checker() is first  # at the bound: kept
    first.problems("c.md", False)
    renewed = new_errors._checker()
    assert renewed is not first and renewed.held() == 0 and renewed.check_exists is False
