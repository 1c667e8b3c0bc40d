"""`locate.member_paths`, the paths of one reason code's member in many cases at once, is
`member_path` case by case, for every reason code and any data."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fixture_migrate.contract import rules as c
from fixture_migrate.migration.locate import member_path, member_paths

_KEYS = st.sampled_from(["id", "name", "input", "coverage_tags", "skill", "source_refs", "cases", "x"])
_DATA = st.recursive(
    st.one_of(st.none(), st.integers(0, 2), st.sampled_from(["", "s", "skills/a.md"])),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)
_CASE = st.lists(st.one_of(_KEYS, st.integers(-1, 3)), max_size=3).map(tuple)
_CODES = st.sampled_from([*c.REFERENCE_REASON_CODES, *c.EXTRA_REASON_CODES, "other"])


@given(data=_DATA, cases=st.lists(_CASE, max_size=6), code=_CODES, message=st.sampled_from(["", "skills/a.md"]))
def test_member_paths_is_member_path_case_by_case(data, cases, code, message):
    error = {"reason_code": code, "message": message}
    assert member_paths(data, cases, error) == [member_path(data, case, error) for case in cases]


def test_the_ids_of_cases_and_what_stands_for_a_missing_one():
    data = {"cases": [{"id": "a"}, {"name": "b"}, {"input": "x"}, "text"]}
    cases = [("cases", 0), ("cases", 1), ("cases", 2), ("cases", 3), ("cases", 9)]
    error = {"reason_code": c.DUPLICATE_CASE_ID}
    assert member_paths(data, cases, error) == [
        ("cases", 0, "id"),
        ("cases", 1, "name"),
        ("cases", 2),
        ("cases", 3),
        ("cases", 9),
    ]
