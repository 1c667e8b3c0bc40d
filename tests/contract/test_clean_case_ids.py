"""clean_case_ids: a proof that every case of a payload is valid, against normalize + validate."""

from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import RefChecker, clean_case_ids, validate_case
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import property_examples

SOURCE = "skills/demo/evals/x.json"


@pytest.fixture(scope="module")
def refs(tmp_path_factory: pytest.TempPathFactory) -> RefChecker:
    """Refs under a root where `README.md` and `skills/demo/SKILL.md` exist, and nothing else."""
    root = tmp_path_factory.mktemp("root")
    (root / "README.md").write_text("x")
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text("x")
    return RefChecker(root)


def _slow(payload: Any, refs: RefChecker, skill: str | None = None) -> tuple[list[dict[str, Any]], list[Any]]:
    cases = normalize_payload(payload, source_file=SOURCE, skill=skill)
    return cases, [error for case in cases for error in validate_case(case, refs)]


def _agrees(payload: Any, refs: RefChecker, skill: str | None = None) -> tuple[str, list[str]] | None:
    """`clean_case_ids` of `payload`, asserted to be what normalizing and validating say;
    None where it proves only the first cases valid (as many as it says: asserted too)."""
    clean = clean_case_ids(payload, refs, source_file=SOURCE, skill=skill)
    cases, errors = _slow(payload, refs, skill)
    if clean.__class__ is int:
        entries = payload.get("cases") if isinstance(payload, dict) else None
        assert clean == 0 or all(entry.__class__ is dict for entry in entries[:clean])
        assert clean <= len(cases)
        assert [error for case in cases[:clean] for error in validate_case(case, refs)] == []
        return None
    if clean is not None:
        assert errors == []
        assert clean[1] == [case["id"] for case in cases]
        assert all(case["skill"] == clean[0] for case in cases)
        assert clean[0].__class__ is str and all(case_id.__class__ is str for case_id in clean[1])
    return clean


def _valid(**case: Any) -> dict[str, Any]:
    base = {"id": "a", "input": "do it", "expected_outcome": "done", "coverage_tags": ["trigger"]}
    base.update(case)
    return {k: v for k, v in base.items() if v is not ...}


def _payload(*cases: Any, **file: Any) -> dict[str, Any]:
    base = {"schema_version": c.CANONICAL_SCHEMA_VERSION, "skill": "demo", "source_refs": ["README.md"]}
    base.update(file)
    base["cases"] = list(cases)
    return {k: v for k, v in base.items() if v is not ...}


def test_a_valid_file_gives_its_skill_and_ids(refs):
    payload = _payload(_valid(), _valid(id=None, name="Second Case"), _valid(id=...), _valid(id=" b"))
    assert _agrees(payload, refs) == ("demo", ["a", "second-case", "case-3", " b"])
    payload = _payload(_valid(id="", name=""), _valid(id=" ", name=" "), _valid(id=None, name=None))
    assert _agrees(payload, refs) == ("demo", ["case-1", "case-2", "case-3"])


def test_the_skill_comes_from_the_caller_or_the_path(refs):
    assert _agrees(_payload(_valid(), skill=...), refs, skill="given") == ("given", ["a"])
    assert _agrees(_payload(_valid(), skill=""), refs) == ("demo", ["a"])  # `skills/demo/...`


@pytest.mark.parametrize(
    ("case", "file"),
    [
        ({"input": " "}, {}),  # missing_input
        ({"input": ..., "intent": "from intent"}, {}),  # another input source: not followed
        ({"coverage_tags": []}, {}),  # missing_coverage_tags
        ({"coverage_tags": ["Bad Tag"]}, {}),  # invalid_coverage_tag
        ({"coverage_tags": ["trigger", ""]}, {}),  # a tag `string_array` drops: not followed
        ({"coverage_tags": "trigger"}, {}),  # a lone tag: not followed
        ({}, {"source_refs": ...}),  # missing_source_refs
        ({"source_refs": ["missing.md"]}, {"source_refs": ...}),  # source_ref_missing
        ({"source_refs": ["docs/plans/README.md"]}, {}),  # source_ref_not_source_authority
        ({"source_refs": ["../out.md"], "source_ref_authority": "advisory"}, {}),  # outside the repo
        ({"source_refs": ["/abs.md"]}, {}),  # invalid_source_ref
        ({"source_ref_authority": "bogus"}, {}),  # invalid_source_ref_authority
        ({"expected_outcome": " "}, {}),  # missing_expected_outcome
        ({"expected_outcome": ..., "coverage_tags": ["boundary"], "boundary_note": "n"}, {}),  # not followed
        ({"id": None, "name": "!!!"}, {}),  # an empty slug: missing_id
        ({"id": 1}, {}),  # an id that is not a string: not followed
        ({}, {"skill": 5}),  # a skill that is not a string
        ({}, {"coverage_tags": ["Bad Tag"]}),  # a file tag every case inherits
    ],
)
def test_anything_not_proven_valid_is_none(refs, case, file):
    assert _agrees(_payload(_valid(**case), **file), refs) is None


def test_a_case_that_is_not_an_object_is_none(refs):
    assert _agrees(_payload(_valid(), "text"), refs) is None
    assert clean_case_ids(_payload(_valid(), "text"), refs, source_file=SOURCE) == 1
    assert clean_case_ids(["not", "a", "payload"], refs, source_file=SOURCE) == 0


def test_the_cases_before_the_first_unproven_one_are_counted(refs):
    payload = _payload(_valid(), _valid(id="b"), _valid(id="c", input=""), _valid(id="d"))
    assert clean_case_ids(payload, refs, source_file=SOURCE) == 2
    assert clean_case_ids(_payload(_valid(), skill=5), refs, source_file=SOURCE) == 0


def test_expected_outcome_from_its_other_sources(refs):
    payload = _payload(
        _valid(expected_outcome=..., expected="from expected"),
        _valid(expected_outcome=..., expected_decision="accept", id="b"),
        _valid(expected_outcome={"nested": ["", "x"]}, id="c"),
    )
    assert _agrees(payload, refs) == ("demo", ["a", "b", "c"])


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.sampled_from([0, 1, "", " ", "\u3000", "x", " x", "trigger", "Bad Tag", "Name!"])
)
_TAGS = st.one_of(
    st.just(["trigger"]),
    st.just(["boundary", "expected"]),
    st.lists(st.sampled_from(["trigger", "expected", "boundary", "edge", "", "Bad Tag", 1]), max_size=3),
    _SCALARS,
)
_REFS = st.one_of(
    st.just(["README.md"]),
    st.lists(
        st.sampled_from(
            ["README.md", "skills/demo/SKILL.md#top", "missing.md", "docs/plans/x.md", "../out", "/abs", "", 1]
        ),
        max_size=3,
    ),
    _SCALARS,
)
_MAYBE = st.sampled_from([...]) | _SCALARS
_CASE = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "id": st.sampled_from(["a", "b", " a", "", " ", 1, None]),
            "name": st.sampled_from(["A name", "!!!", "", 2]),
            "input": st.sampled_from(["do it", "", " ", 1]),
            "intent": st.sampled_from(["from intent", ""]),
            "expected_outcome": st.one_of(_SCALARS, st.just({"a": [" ", "y"]}), st.just([])),
            "expected": _SCALARS,
            "expected_failure": _SCALARS,
            "boundary_note": _SCALARS,
            "forbidden_signals": st.one_of(_SCALARS, st.just(["never"])),
            "coverage_tags": _TAGS,
            "source_refs": _REFS,
            "source_ref_authority": st.sampled_from(["source", "advisory", "historical", "bogus", "", None, 1]),
        },
    ),
    _SCALARS,
)
_PAYLOAD = st.fixed_dictionaries(
    {"cases": st.lists(_CASE, max_size=4)},
    optional={
        "skill": st.sampled_from(["demo", "", None, 5, " "]),
        "coverage_tags": _TAGS,
        "source_refs": _REFS,
        "source_ref_authority": st.sampled_from(["source", "advisory", "bogus", "", None, 0]),
    },
)


@settings(max_examples=property_examples(2000))
@given(_PAYLOAD, st.sampled_from([None, "given"]))
def test_a_proof_is_always_what_normalize_and_validate_say(refs, payload, skill):
    _agrees(payload, refs, skill)


_VALID_CASE = st.fixed_dictionaries(
    {"input": st.sampled_from(["do it", " do it"]), "coverage_tags": st.sampled_from([["edge"], ["trigger"]])},
    optional={
        "id": st.sampled_from(["a", "b", " c", "", " ", None]),
        "name": st.sampled_from(["A name", "x", "", " ", None]),
        "expected_outcome": st.sampled_from(["done", {"a": "y"}]),
        "source_refs": st.sampled_from([["skills/demo/SKILL.md"], []]),
        "source_ref_authority": st.sampled_from(["source", "advisory", ""]),
    },
).filter(lambda case: "trigger" not in case["coverage_tags"] or "expected_outcome" in case)


@settings(max_examples=property_examples(500))
@given(st.lists(_VALID_CASE, max_size=5))
def test_every_valid_file_is_proven(refs, cases):
    payload = _payload(*cases)
    clean = _agrees(payload, refs)
    assert clean is not None
    assert clean[1] == [case["id"] for case in normalize_payload(payload, source_file=SOURCE)]


def test_check_file_gives_the_same_either_way(tmp_path, monkeypatch):
    """`check_file` through the proof and through normalizing gives the same record."""
    import json

    from fixture_migrate.config import Options
    from fixture_migrate.migration.engine import Engine
    from fixture_migrate.migration.reader import Reader
    from fixture_migrate.migration.validation import check_file

    folder = tmp_path / "skills" / "demo" / "evals"
    folder.mkdir(parents=True)
    (tmp_path / "README.md").write_text("x")
    files = {
        "clean.json": _payload(_valid(), _valid(id="b"), _valid(id="a")),
        "empty.json": _payload(),
        "error.json": _payload(_valid(), _valid(input="")),
        "legacy.json": {"skill": "demo", "examples": [{"name": "One", "prompt": "p", "expected": "e"}]},
    }
    for name, payload in files.items():
        (folder / name).write_text(json.dumps(payload, indent=2))
    (folder / "lines.jsonl").write_text("\n".join(json.dumps(_valid(id=i)) for i in "xy") + "\n")

    def records(proof: bool) -> list[tuple[Any, ...]]:
        reader = Reader(Engine(Options(repo_root=tmp_path)))
        refs = RefChecker(tmp_path)
        if not proof:
            monkeypatch.setattr(reader, "clean_case_ids", lambda loaded, refs: 0)
        found = []
        for path in sorted(folder.iterdir()):
            checked = check_file(reader, path, refs)
            places = [checked.dup_places[i] for i in range(len(checked.ids))] if checked.dup_places else None
            found.append(
                (path.name, checked.keys, checked.ids, checked.shared, checked.owners, checked.errors, places)
            )
        return found

    calls = []
    original = Reader.clean_case_ids

    def counted(self: Reader, loaded: Any, refs: RefChecker) -> Any:
        result = original(self, loaded, refs)
        calls.append(result.__class__ is not int)
        return result

    monkeypatch.setattr(Reader, "clean_case_ids", counted)
    with_proof = records(True)
    assert calls.count(True) >= 2  # the clean and the empty file went the proof's way
    monkeypatch.setattr(Reader, "clean_case_ids", original)
    assert with_proof == records(False)
    assert with_proof[0][2] == ["a", "b", "a"] and with_proof[0][3] == ("demo", "skills/demo/evals/clean.json")


def test_where_proofs_mostly_fail_only_some_files_are_tried(monkeypatch):
    """A run whose files all have errors pays for a proof on about one file in 16 after
    the first 32; once files are proven again, every file is tried again."""
    from fixture_migrate.migration import reader as reader_module
    from fixture_migrate.migration.reader import Reader

    outcome = {"value": 0}
    tried = []

    def proven(self: Reader, loaded: Any, refs: Any) -> Any:
        tried.append(outcome["value"])
        return outcome["value"]

    monkeypatch.setattr(Reader, "_proven", proven)
    reader = Reader(engine=None)  # type: ignore[arg-type]
    warm_up, sample = reader_module._PROOF_WARM_UP, reader_module._PROOF_SAMPLE

    answers = [reader.clean_case_ids(None, None) for _ in range(warm_up + 16 * sample)]  # type: ignore[arg-type]
    assert answers == [0] * len(answers)
    assert len(tried) == warm_up + 16  # every file of the warm-up, then one in 16

    outcome["value"] = (0, "demo", "x.json", ["a"])
    answers = [reader.clean_case_ids(None, None) for _ in range(40 * sample)]  # type: ignore[arg-type]
    assert answers[-1] == outcome["value"]
    recovered = tried[-warm_up:]
    assert all(value == outcome["value"] for value in recovered)
    assert answers[-warm_up:] == [outcome["value"]] * warm_up  # every file tried again
