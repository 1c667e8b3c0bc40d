"""The "no new validation errors" check of every migration (DESIGN.md, "Migration
semantics"): the migrated file's validation errors are a subset of the legacy file's,
case by case. A migration may fix errors, never add them."""

from __future__ import annotations

from operator import itemgetter
from pathlib import Path
from typing import Any

from fixture_migrate.contract.normalize import NormalizedCase
from fixture_migrate.contract.rules import js_string
from fixture_migrate.contract.validate import RefChecker, validate_case

_VALIDATED = (
    "skill",
    "id",
    "input",
    "coverage_tags",
    "source_refs",
    "source_ref_authority",
    "expected_outcome",
    "boundary_note",
    "forbidden_signals",
)
"""The members of a normalized case that `validate_case` reads (with `check_exists` off, its
reason codes are a function of these values alone)."""


def _same(a: Any, b: Any) -> bool:
    """`a == b` with the types equal too, at every level (`1 == True` in Python, not in JSON)."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(value, b[key]) for key, value in a.items())
    return a == b


def _same_validated(case: NormalizedCase, old: NormalizedCase) -> bool:
    """Whether the members `validate_case` reads are the same in both cases (see `_same`)."""
    try:
        values, old_values = _VALUES(case), _VALUES(old)
    except KeyError:  # not built by `normalize_payload`: a member is missing
        get, get_old = case.get, old.get
        values, old_values = tuple(map(get, _VALIDATED)), tuple(map(get_old, _VALIDATED))
    # Compared in C first: `==` holds when the values are the same, and seldom fails to
    # tell otherwise (it also equates `1`, `1.0` and `True`, which the loop tells apart).
    if values != old_values:
        return False
    for a, b in zip(values, old_values):
        kind = a.__class__
        if kind is not b.__class__:
            return False
        if kind is str or a is None:
            continue
        if kind is list:
            # Normalized arrays hold strings: equal lists of them are the same.
            if a and not (set(map(type, a)) == _STR_ONLY == set(map(type, b))) and not _same(a, b):
                return False
        elif not _same(a, b):
            return False
    return True


_VALUES = itemgetter(*_VALIDATED)
_STR_ONLY = {str}


def _id_key(case: NormalizedCase) -> str:
    """The key of `CaseIdRegistry.check`: the reference's `${skill}:${id}`."""
    skill, case_id = case.get("skill"), case.get("id")
    if skill.__class__ is str and case_id.__class__ is str:
        return f"{skill}:{case_id}"
    return f"{js_string(skill)}:{js_string(case_id)}"


_CHECKER: list[RefChecker] = []
_CHECKER_ENTRIES = 4096


def _checker() -> RefChecker:
    """The `RefChecker` of these checks: one per process, never looking at the file system
    (so its answers hold under any root); made again once its caches hold `_CHECKER_ENTRIES`
    refs, so that its memory stays bounded over a run of any size."""
    if not _CHECKER or _CHECKER[0].held() > _CHECKER_ENTRIES:
        _CHECKER[:] = [RefChecker(Path("."), check_exists=False)]
    return _CHECKER[0]


def adds_validation_errors(before: list[NormalizedCase], after: list[NormalizedCase]) -> bool:
    """Whether `after` has a validation error `before` has not, at the same case position:
    every `(position, reason code)` of `after` among those of `before` (duplicate ids within
    each list included, keyed as `CaseIdRegistry` keys them), without validating a case whose
    validated members are the same on both sides (its reason codes are the same)."""
    checker = _checker()
    ids_before: set[str] = set()
    ids_after: set[str] = set()
    for index, case in enumerate(after):
        old = before[index] if index < len(before) else None
        duplicate_before = False
        if old is not None:
            key = _id_key(old)
            duplicate_before = key in ids_before
            ids_before.add(key)
        key = _id_key(case)
        if key in ids_after and not duplicate_before:
            return True
        ids_after.add(key)
        if old is not None and _same_validated(case, old):
            continue
        codes = {error["reason_code"] for error in validate_case(case, checker)}
        if not codes:
            continue
        if old is None or not codes <= {error["reason_code"] for error in validate_case(old, checker)}:
            return True
    return False
