"""The evidence that a payload of no known family holds eval cases (DESIGN.md, "Claiming a file").

A local family is migrated in place only when its records carry the evidence of eval
cases: each record has an input-like member *and* an expected-like member (names from
`fixture_migrate.adapting.vocabulary`, after the reference's own), or the payload holds
trigger lists (lists of queries under `should_trigger`, `positive`, `near_miss`, ...).
An `id` and a `cases` key are not evidence: a list of mutation specs or a generated
report has both.

A payload that looks like a fixture (a case list whose records carry an id, an input or
an expected outcome) but lacks that evidence is a *candidate*: it is left as it is and
named in the output with what is missing, so a user can declare its family
(`fixture-migrate suggest`).
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.contract import rules as c
from fixture_migrate.formats import Unit
from fixture_migrate.slots import Record

CASE_LIST_KEYS = ("cases", "examples")
"""The reference's case lists, in its order of preference."""


class Evidence(Record):
    """Why a payload holds eval cases: `kind` "cases" (a case list under `key`, None for a
    bare list) or "trigger_lists" (`keys`); `reason` one line for reports."""

    __slots__ = ("kind", "key", "keys", "reason")

    def __init__(self, kind: str, reason: str, key: str | None = None, keys: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.reason = reason
        self.key = key
        self.keys = keys


def case_list(data: Any) -> tuple[str | None, list[Any]] | None:
    """`(key, records)` of a payload's case list (`cases`, else `examples`), or `(None, data)`
    for a bare list; None when there is none."""
    if isinstance(data, list):
        return None, data
    if isinstance(data, dict):
        for key in CASE_LIST_KEYS:
            if isinstance(data.get(key), list):
                return key, data[key]
    return None


def record_list(data: Any) -> tuple[str | None, list[Any]] | None:
    """`(key, records)` of the list of records a payload holds: its case list (`case_list`:
    `cases`, else `examples`, else a bare list), else the top-level member (of any name
    but a trigger list's) holding a non-empty list of objects, the one whose records most
    often carry an input (`vocabulary.record_input`) when several do; None when it holds
    none with an input."""
    found = case_list(data)
    if found is not None or not isinstance(data, dict):
        return found
    best, best_count = None, 0
    for key, value in data.items():
        if key in v.TRIGGER_LISTS or not isinstance(value, list) or not value:
            continue
        if not all(isinstance(record, dict) for record in value):
            continue
        count = sum(1 for record in value if v.record_input(record) is not None)
        if count > best_count:
            best, best_count = key, count
    return None if best is None else (best, data[best])


def is_message_list(records: list[Any]) -> bool:
    """True for a list of chat messages (`{role, content}` / `{role, text}` records): one
    conversation, not a list of cases."""
    return bool(records) and all(
        isinstance(r, dict) and "role" in r and ("content" in r or "text" in r) for r in records
    )


def input_records(records: list[Any], roles: v.FamilyRoles | None = None) -> tuple[bool, str]:
    """Whether `records` are cases by their inputs (fixture territory's rule): objects that
    are not one chat conversation, most of them (more than half) carrying an input
    (`vocabulary.record_input` under the family's roles; a weak input name such as `text`
    or `message`, or free text found by value shape, counts only beside an expected-like
    field); and a sentence saying which
    members held the input, or what is missing. A record that is not an object is not
    counted: migrating the list reports it in place (`case_not_object`)."""
    if not records:
        return False, "the list is empty"
    objects = [record for record in records if isinstance(record, dict)]
    if not objects:
        return False, "no record is an object"
    if is_message_list(objects):
        return False, "the records are chat messages (role, content): one conversation, not cases"
    roles = roles if roles is not None else v.family_roles(objects)
    names: dict[str, None] = {}
    count = 0
    for record in objects:  # a case that is not an object is the migration's error to report, in place
        key = v.record_input(record, roles)
        if key is None:
            continue
        weak = key in v.WEAK_INPUTS or roles.reasons.get(key, ("", ""))[1].startswith("value shape")
        if weak and not _has_expectation(record, roles):
            continue  # `text`, `message`, free text alone: data as often as cases
        count += 1
        names.setdefault(key, None)
    if count * 2 <= len(objects):
        return False, f"{len(objects) - count} of {len(objects)} records carry no input-like field ({_hint(v.INPUT)})"
    share = "" if count == len(objects) else f" ({count} of {len(objects)} records)"
    return True, f"records carry an input ({', '.join(names)}){share}"


_EXPECTING = frozenset({"expected_outcome", "forbidden_signals", "polarity", "boundary_note"})


def _has_expectation(record: dict[str, Any], roles: v.FamilyRoles) -> bool:
    """True when `record` says what is expected of it: an expected-like member by the
    vocabulary's names or the family's roles (`expected_route` by pattern), non-empty."""
    if v.expected_field(record) is not None:
        return True
    return any(
        roles.reasons.get(key, ("",))[0] in _EXPECTING and value not in (None, "", [], {})
        for key, value in record.items()
    )


def _names(keys: set[str]) -> str:
    return ", ".join(sorted(keys)) or "-"


def records_evidence(records: list[Any]) -> tuple[bool, str]:
    """Whether every record is an object with an input-like and an expected-like member,
    and a sentence saying which members showed it (or what is missing, and where)."""
    if not records:
        return False, "the case list is empty"
    if not any(isinstance(record, dict) for record in records):
        return False, "no record is an object"
    inputs: set[str] = set()
    expected: set[str] = set()
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            continue  # a case that is not an object is the migration's error to report, in place
        found_input = v.input_field(record)
        found_expected = v.expected_field(record)
        if found_input is None and found_expected is None:
            return (
                False,
                f"record {number} has no input-like field ({_hint(v.INPUT)}) and no expected-like field ({_hint(v.EXPECTED)})",
            )
        if found_input is None:
            return False, f"record {number} has no input-like field ({_hint(v.INPUT)})"
        if found_expected is None:
            return False, f"record {number} has no expected-like field ({_hint(v.EXPECTED)}, a trigger polarity)"
        inputs.add(found_input)
        expected.add(found_expected)
    return True, f"records carry input ({_names(inputs)}) and expected outcome ({_names(expected)})"


def canonical_records(records: list[Any]) -> bool:
    """True when every record is already a canonical case: an object with an `id` and an
    `input`, and no member the contract's case does not hold (a migrated list read again)."""
    return bool(records) and all(
        isinstance(r, dict) and "id" in r and "input" in r and set(r) <= set(c.CASE_KEYS) for r in records
    )


def _hint(names: tuple[str, ...]) -> str:
    return ", ".join(names[:4]) + ", ..."


_last: tuple[Any, Any, tuple[Evidence | None, str]] | None = None
"""The last unit asked about, its data and its evidence: the claim (`claims`), its reason
(`explain`) and the migration (`to_canonical`) each ask for one unit in a row, and on a
long case list the walk costs more than parsing the file."""


def evidence(unit: Unit) -> tuple[Evidence | None, str]:
    """The evidence that `unit` holds eval cases of a local family, or None and why not."""
    global _last
    last = _last
    if last is not None and last[0] is unit and last[1] is unit.data:
        return last[2]
    found = _evidence(unit.data)
    _last = (unit, unit.data, found)
    return found


def _evidence(data: Any) -> tuple[Evidence | None, str]:
    if isinstance(data, dict) and "$schema" in data:
        return None, "a document declaring `$schema` (a JSON Schema or a tool's configuration)"
    found = case_list(data)
    if found is not None:
        key, records = found
        ok, why = records_evidence(records)
        where = f"`{key}`" if key else "the bare list"
        if ok:
            return Evidence("cases", f"{where}: {why}", key=key), ""
        return None, f"{where}: {why}"
    if isinstance(data, dict):
        lists = v.trigger_lists(data)
        if lists:
            return Evidence(
                "trigger_lists", "trigger lists " + ", ".join(f"`{k}`" for k in lists), keys=tuple(lists)
            ), ""
    return None, "no case list (`cases`, `examples`) and no trigger lists"


def looks_like_fixture(unit: Unit) -> bool:
    """True when `unit` looks like a fixture without the evidence to migrate it: a case list
    of objects that carry an id, an input-like or an expected-like member; a payload with
    a `schema_version` and a case list; a bare list of records with an input and an id;
    or a trigger-list key holding a list."""
    data = unit.data
    if isinstance(data, dict) and "$schema" in data:
        return False
    found = case_list(data)
    if found is not None:
        key, records = found
        if key is not None and isinstance(data, dict) and c.is_non_empty_string(data.get("schema_version")):
            return bool(records)
        if not records or not all(isinstance(r, dict) for r in records):
            return False
        if key is None:
            # A bare list has no envelope saying what it is: only records with an input and
            # an id or an expectation look like cases (a list of messages does not).
            return all(v.input_field(r) and ("id" in r or v.expected_field(r)) for r in records)
        markers = {"id", *v.INPUT_LIKE, *v.EXPECTED_LIKE, *v.POLARITY}
        return all(not markers.isdisjoint(r) for r in records)
    if isinstance(data, dict):
        return any(k in v.TRIGGER_LISTS and isinstance(data[k], list) and data[k] for k in data)
    return False
