"""normalize_payload: one test per rule of the reference normalizer (DESIGN.md, "Normalized case")."""

import pytest
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import normalize_payload


def one(case, **file):
    """The single normalized case of a file holding `case` under `cases`."""
    payload = {"schema_version": "legacy.v1", **file, "cases": [case]}
    (result,) = normalize_payload(payload, source_file=file.pop("_path", "skills/demo/evals/x.json"))
    return result


def test_key_order_is_the_references():
    result = one({"id": "a"})
    assert list(result) == list(c.NORMALIZED_KEYS)


@pytest.mark.parametrize(
    "payload, ids",
    [
        pytest.param({"cases": [{"id": "c"}], "examples": [{"id": "e"}]}, ["c"], id="cases-first"),
        pytest.param(
            {"cases": "not a list", "examples": [{"id": "e"}]}, ["e"], id="examples-when-cases-is-not-an-array"
        ),
        pytest.param({"should_trigger": [{"text": "x"}]}, [], id="neither"),
    ],
)
def test_cases_come_from_cases_else_examples_else_none(payload, ids):
    assert [case["id"] for case in normalize_payload(payload, source_file=None)] == ids


@pytest.mark.parametrize(
    "file_skill, caller, path, expected",
    [
        pytest.param("own", "caller", "skills/path-skill/evals/x.json", "own", id="file-skill"),
        pytest.param("", "caller", "skills/path-skill/evals/x.json", "caller", id="blank-file-skill-caller"),
        pytest.param(None, None, "skills/path-skill/evals/x.json", "path-skill", id="path"),
        pytest.param(None, None, "other/path-skill/evals/x.json", None, id="no-skills-prefix"),
        pytest.param(None, None, None, None, id="no-path"),
        pytest.param([], None, "skills/p/x.json", [], id="empty-array-is-truthy-in-js"),
    ],
)
def test_skill(file_skill, caller, path, expected):
    payload = {"cases": [{"id": "a"}]}
    if file_skill is not None:
        payload["skill"] = file_skill
    (result,) = normalize_payload(payload, source_file=path, skill=caller)
    assert result["skill"] == expected


@pytest.mark.parametrize(
    "case, index, expected",
    [
        pytest.param({"id": " spaced ", "name": "N"}, 0, " spaced ", id="id-kept-untrimmed"),
        pytest.param({"id": "  ", "name": "  Hello, World! 42  "}, 0, "hello-world-42", id="blank-id-slug-of-name"),
        pytest.param({"name": "--Ünïcode Name--"}, 0, "n-code-name", id="non-ascii-runs-become-dashes"),
        pytest.param({"id": 7, "name": None}, 2, "case-3", id="non-string-id-case-n"),
        pytest.param({"name": "!!!"}, 0, "", id="slug-may-be-empty"),
    ],
)
def test_id(case, index, expected):
    cases = [{"id": f"x{i}"} for i in range(index)] + [case]
    result = normalize_payload({"cases": cases}, source_file=None)[index]
    assert result["id"] == expected


@pytest.mark.parametrize(
    "case, expected",
    [
        pytest.param({"input": "i", "user_intent": "u"}, "i", id="input"),
        pytest.param({"input": " \t", "user_intent": "u"}, "u", id="blank-input-user-intent"),
        pytest.param({"input_shape": "s", "intent": "t"}, "s", id="input-shape-before-intent"),
        pytest.param({"intent": "t"}, "t", id="intent"),
        pytest.param({"input": 5, "intent": ["t"]}, "", id="non-strings-give-empty"),
        pytest.param({"input": "\ufeff"}, "", id="bom-is-js-whitespace"),
        pytest.param({"input": "\x1c"}, "\x1c", id="file-separator-is-not-js-whitespace"),
    ],
)
def test_input(case, expected):
    assert one(case)["input"] == expected


@pytest.mark.parametrize(
    "case, expected",
    [
        pytest.param({"expected_outcome": None, "expected": "e"}, None, id="present-null-wins"),
        pytest.param({"expected": ["a"], "expected_posture": "p"}, ["a"], id="expected"),
        pytest.param({"expected_posture": "p", "expected_signal": "s"}, "p", id="posture"),
        pytest.param({"expected_signal": "s"}, "s", id="signal"),
        pytest.param(
            {"expected_next_action": "n", "expected_output": "o", "expected_decision": "d"},
            {"expected_decision": "d", "expected_output": "o", "expected_next_action": "n"},
            id="decision-object",
        ),
        pytest.param({"expected_failure": None}, {"expected_failure": None}, id="failure-object-with-null"),
        pytest.param({"expected_next_action": "n"}, None, id="next-action-alone-is-nothing"),
        pytest.param({}, None, id="none"),
    ],
)
def test_expected_outcome(case, expected):
    assert one(case)["expected_outcome"] == expected


def test_decision_object_key_order_is_the_references():
    result = one({"expected_next_action": "n", "expected_decision": "d"})
    assert list(result["expected_outcome"]) == ["expected_decision", "expected_next_action"]


def test_forbidden_signals_union_unique_non_blank():
    case = {"forbidden_signals": ["a", " ", 3, "b"], "negative_signal": ["b", "c", "a"]}
    assert one(case)["forbidden_signals"] == ["a", "b", "c"]


@pytest.mark.parametrize(
    "value, expected",
    [
        pytest.param("lone", ["lone"], id="lone-string"),
        pytest.param("  ", [], id="blank-string"),
        pytest.param(None, [], id="null"),
        pytest.param(["x", "", "y", None], ["x", "y"], id="array"),
    ],
)
def test_string_arrays(value, expected):
    assert one({"coverage_tags": value})["coverage_tags"] == expected


def test_file_refs_and_tags_are_inherited_then_extended():
    result = one(
        {"source_refs": ["b.md", "a.md"], "coverage_tags": "boundary"},
        source_refs=["a.md"],
        coverage_tags=["trigger", "boundary"],
    )
    assert result["source_refs"] == ["a.md", "b.md"]
    assert result["coverage_tags"] == ["trigger", "boundary"]
    assert result["coverage_basis"] == "declared_coverage_tags"


@pytest.mark.parametrize(
    "case_authority, file_authority, expected",
    [
        pytest.param("historical", "advisory", "historical", id="case"),
        pytest.param("", "advisory", "advisory", id="blank-case-file"),
        pytest.param(None, None, "source", id="default"),
        pytest.param(None, 0, "source", id="falsy-file-default"),
        pytest.param("bogus", None, "bogus", id="invalid-kept"),
    ],
)
def test_source_ref_authority(case_authority, file_authority, expected):
    case = {"id": "a"} if case_authority is None else {"id": "a", "source_ref_authority": case_authority}
    file = {} if file_authority is None else {"source_ref_authority": file_authority}
    assert one(case, **file)["source_ref_authority"] == expected


@pytest.mark.parametrize("note, expected", [("keep", "keep"), ("  ", ""), (["x"], ""), (None, "")])
def test_boundary_note(note, expected):
    assert one({"boundary_note": note})["boundary_note"] == expected


def test_extensions_copy_the_reference_keys_over_own():
    case = {"extensions": {"name": "old", "mine": 1}, "name": "new", "graphify_required": False, "must_find": "x"}
    assert one(case)["extensions"] == {"name": "new", "mine": 1, "graphify_required": False}


@pytest.mark.parametrize(
    "value, expected",
    [
        pytest.param("ab", {"0": "a", "1": "b"}, id="string-spreads-its-characters"),
        pytest.param(["x"], {"0": "x"}, id="array-spreads-its-indices"),
        pytest.param(5, {}, id="number-spreads-nothing"),
    ],
)
def test_extensions_spread_like_javascript(value, expected):
    assert one({"extensions": value})["extensions"] == expected


def test_source_fields():
    legacy = one({"id": "a"}, _path="skills/s/evals/x.json")
    assert (legacy["source_file"], legacy["source_schema_version"], legacy["normalized_from"]) == (
        "skills/s/evals/x.json",
        "legacy.v1",
        "legacy_adapter",
    )
    (canonical,) = normalize_payload({"schema_version": c.CANONICAL_SCHEMA_VERSION, "cases": [{}]}, source_file=None)
    assert (canonical["source_schema_version"], canonical["normalized_from"]) == (
        c.CANONICAL_SCHEMA_VERSION,
        "canonical",
    )
    (unversioned,) = normalize_payload({"cases": [{}]}, source_file=None)
    assert unversioned["source_schema_version"] is None
    assert unversioned["coverage_basis"] == "missing_coverage_tags"


def test_non_object_cases_are_skipped_but_counted():
    result = normalize_payload({"cases": [None, "x", {}]}, source_file=None)
    assert [case["id"] for case in result] == ["case-3"]


def test_non_object_payload_has_no_cases():
    assert normalize_payload(["not", "a", "payload"], source_file=None) == []
