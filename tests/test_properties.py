"""Property tests (hypothesis): generated payloads in the shape of every legacy family keep
DESIGN.md's invariants, and arbitrary bytes never end in an uncaught exception.

The shapes follow the families' adapter docstrings and the field tables of the corpus
README: each family's case and file members (each one optional), random extra members
(their names drawn partly from the names the mapping treats specially, so collisions
are tried), unicode text, nesting, lone strings where the contract takes arrays, and
the file written in a random JSON style. For each migration:

- it is not refused (the mapping handles every such payload);
- conservation: the migrated file holds every leaf of the original;
- compatibility: it normalizes as the reference normalizes the original;
- no new validation errors, and idempotence: migrating it again changes nothing.

Example counts are modest by default (profile `ci`); `HYPOTHESIS_PROFILE=long` runs
many more (see tests/conftest.py).
"""

from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.cli.commands import MigrateMode, run_migrate, run_normalize, run_validate
from fixture_migrate.cli.decisions import run_detect
from fixture_migrate.cli.report import Report
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.compatibility import compatibility_violations
from fixture_migrate.contract.conservation import missing_leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import CaseIdRegistry, RefChecker, validate_case
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import BOM, Unit, load_document
from fixture_migrate.formats.json_format import parse_json
from fixture_migrate.migration.engine import Engine, Options, reference_cases
from hypothesis import HealthCheck, assume, example, given, note, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

ROOT = Path("/repo")

# Values --------------------------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
BLANKISH = st.sampled_from(["", " ", "\t\n", "\u3000", "\ufeff"])
WORD = st.one_of(TEXT, BLANKISH, st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True))
TAG = st.one_of(st.from_regex(r"[a-z0-9][a-z0-9-]{0,8}", fullmatch=True), st.sampled_from(c.BUCKETS), WORD)
REF = st.one_of(
    st.sampled_from(["skills/demo/SKILL.md", "docs/a.md#part", ".claude/x.md", "../x.md", "/abs", "http://x"]),
    WORD,
)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    WORD,
)
JSON = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(WORD, inner, max_size=3)),
    max_leaves=8,
)


def lone_or_list(item: st.SearchStrategy) -> st.SearchStrategy:
    """The contract reads a lone string as a one-element array: both shapes occur."""
    return st.one_of(st.lists(item, max_size=3), item, st.none())


KIND = {
    "text": st.one_of(WORD, st.just(None), SCALAR),
    "id": st.one_of(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), WORD),
    "tags": lone_or_list(TAG),
    "refs": lone_or_list(REF),
    "signals": lone_or_list(WORD),
    "outcome": st.one_of(WORD, st.lists(WORD, max_size=3), st.dictionaries(WORD, WORD, max_size=3), st.none(), JSON),
    "authority": st.one_of(st.sampled_from(c.SOURCE_REF_AUTHORITIES), WORD, st.none()),
    "any": JSON,
}

FIELD_KIND = {
    "id": "id",
    "case_id": "id",
    "coverage_tags": "tags",
    "quality_buckets": "tags",
    "source_refs": "refs",
    "input_refs": "refs",
    "input_files": "refs",
    "forbidden_signals": "signals",
    "negative_signal": "signals",
    "must_not": "signals",
    "must_route_away": "signals",
    "context_snippets": "signals",
    "source_ref_authority": "authority",
    **dict.fromkeys(c.OUTCOME_SOURCES + c.OUTCOME_OBJECT_KEYS + ("expected_result", "expected_boundary"), "outcome"),
    **dict.fromkeys(
        ("assertions", "recorded_output", "baseline_risks", "with_skill_expectations", "objective_assertions")
        + ("missing_evidence", "deterministic_assertions", "required_fields", "case_contract", "execution_kind")
        + ("dispatch_authorization", "threshold_result", "metadata", "human_review"),
        "any",
    ),
}

# Families: (schema_version, case-list key, case members, file members) ------------------

SHARED_FILE = ("skill", "description", "source_refs", "source_ref_authority", "coverage_tags")
FAMILIES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "spec-prd-evals.v1": (
        "cases",
        ("id", "intent", "input_shape", "case_type", "quality_buckets", "expected", "must_not", "coverage_tags"),
        SHARED_FILE + ("case_contract",),
    ),
    "prompt-examples/v1": (
        "examples",
        ("id", "name", "user_intent", "expected_posture", "boundary_note", "negative_signal")
        + ("context_snippets", "source_note", "coverage_tags"),
        SHARED_FILE,
    ),
    c.CANONICAL_SCHEMA_VERSION: (
        "cases",
        ("id", "input", "coverage_tags", "expected_outcome", "boundary_note", "forbidden_signals", "source_refs"),
        SHARED_FILE,
    ),
    "spec-first.spec-write-tasks-boundary-cases.v1": (
        "cases",
        ("id", "input", "context", "expected_decision", "expected_next_action", "dispatch_authorization")
        + ("boundary_note", "forbidden_signals", "coverage_tags"),
        SHARED_FILE,
    ),
    "using-spec-first-routing-cases/v1": (
        "cases",
        ("id", "name", "user_intent", "expected_outcome", "boundary_note", "public_workflow_required")
        + ("expected_entrypoint", "graphify_required", "artifact_expected", "dispatch_decision", "fallback_reason")
        + ("coverage_tags",),
        SHARED_FILE,
    ),
    "spec-first.spec-write-tasks-output-quality-cases.v1": (
        "cases",
        ("id", "input", "input_files", "baseline_risks", "with_skill_expectations", "objective_assertions")
        + ("deterministic_assertions", "missing_evidence", "evidence_status", "expected_outcome", "source_refs"),
        SHARED_FILE,
    ),
    "spec-first.skill-audit-security-cases.v1": (
        "cases",
        ("id", "input", "expected_signal", "boundary_note", "forbidden_signals", "coverage_tags"),
        SHARED_FILE,
    ),
    "spec-first.skill-audit-trigger-cases.v1": (
        "cases",
        ("id", "input", "expected_signal", "boundary_note", "forbidden_signals", "coverage_tags"),
        SHARED_FILE,
    ),
    "spec-first.spec-write-tasks-expected-behavior-cases.v1": (
        "cases",
        ("id", "input", "expected_decision", "expected_output", "coverage_tags"),
        SHARED_FILE,
    ),
    "spec-first.spec-graph-bootstrap-expected-behavior-cases.v1": (
        "cases",
        ("id", "input", "expected_decision", "expected_output"),
        ("description",),
    ),
    "spec-first.agent-native-architecture-eval-examples.v1": (
        "examples",
        ("id", "user_intent", "expected_posture", "forbidden_signals", "source_refs", "coverage_tags"),
        ("skill", "source_ref_authority"),
    ),
    "team-standards-output-evals/v1": (
        "cases",
        ("id", "case_id", "case_type", "input", "input_refs", "required_fields", "must_not", "must_route_away")
        + ("threshold_result", "expected_outcome", "coverage_tags", "source_refs"),
        ("coverage_tags", "source_refs"),
    ),
    "team-standards-trigger-evals/v1": (
        "cases",
        ("id", "case_id", "case_type", "prompt", "input", "expected_mode", "expected_result", "expected_outcome")
        + ("reason_code", "boundary_note", "coverage_tags", "source_refs"),
        ("coverage_tags", "source_refs"),
    ),
    "spec-first.skill-audit-eval-cases.v1": ("cases", ("id", "input", "expected", "coverage_tags"), SHARED_FILE),
    "spec-first.skill-audit-boundary-cases.v1": ("cases", ("id", "input", "expected", "coverage_tags"), SHARED_FILE),
    "spec-first.spec-write-tasks-failure-cases.v1": (
        "cases",
        ("id", "input", "context", "expected_failure", "expected_next_action", "coverage_tags"),
        SHARED_FILE,
    ),
    "spec-first.spec-write-tasks-trigger-cases.v1": (
        "cases",
        ("id", "input", "context", "expected_decision", "expected_next_action", "coverage_tags"),
        SHARED_FILE,
    ),
    "spec-first.spec-graph-bootstrap-boundary-cases.v1": (
        "cases",
        ("id", "input", "context", "expected_boundary", "expected_decision"),
        (),
    ),
    "spec-first.spec-graph-bootstrap-failure-cases.v1": (
        "cases",
        ("id", "input", "context", "expected_failure", "expected_next_action"),
        (),
    ),
    "spec-first.spec-graph-bootstrap-trigger-cases.v1": (
        "cases",
        ("id", "input", "context", "expected_decision", "expected_next_action"),
        (),
    ),
    "spec-app-consistency-audit-recorded-output-fixtures.v1": (
        "cases",
        ("id", "input", "input_summary", "recorded_output", "assertions", "expected_outcome", "coverage_tags"),
        SHARED_FILE + ("execution_kind",),
    ),
    "spec-first.spec-plan-output-quality-cases.v1": (
        "cases",
        ("id", "input", "input_files", "baseline_risks", "with_skill_expectations", "objective_assertions")
        + ("missing_evidence", "evidence_status", "expected_outcome"),
        SHARED_FILE,
    ),
    "spec-first.spec-write-skill-trigger-cases.v1": (
        "cases",
        ("id", "case_id", "case_type", "prompt", "input", "expected_mode", "expected_result", "expected_outcome")
        + ("reason_code", "boundary_note", "forbidden_signals", "coverage_tags"),
        SHARED_FILE,
    ),
    "some-local-family/v3": ("cases", ("id", "name", "input", "expected", "notes"), SHARED_FILE),  # generic
}

GENERIC_FAMILY = "some-local-family/v3"

SPECIAL_NAMES = (
    list(c.FILE_KEYS + c.CASE_KEYS + c.INPUT_SOURCES + c.OUTCOME_SOURCES + c.OUTCOME_OBJECT_KEYS)
    + list(c.EXTENSION_COPY_KEYS + c.FORBIDDEN_SOURCES)
    + ["examples", "migrated_from", "migrated_from__legacy", "name__legacy", "prompt", "must_not", "expected_result"]
)
EXTRA_NAME = st.one_of(st.sampled_from(SPECIAL_NAMES), TEXT)


@st.composite
def members(draw: st.DrawFn, names: tuple[str, ...]) -> dict[str, Any]:
    """A random subset of `names`, each with a value of its kind, plus random extra members."""
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names))) if names else []
    out: dict[str, Any] = {}
    for name in chosen:
        out[name] = draw(KIND[FIELD_KIND.get(name, "text")])
    for name in draw(st.lists(EXTRA_NAME, max_size=3)):
        out.setdefault(name, draw(JSON))
    if draw(st.booleans()):
        out.setdefault("extensions", draw(st.dictionaries(st.one_of(st.sampled_from(SPECIAL_NAMES), WORD), JSON)))
    keys = list(out)
    order = draw(st.permutations(keys))
    return {key: out[key] for key in order}


@st.composite
def family_payload(draw: st.DrawFn, version: str) -> dict[str, Any]:
    case_key, case_names, file_names = FAMILIES[version]
    payload = draw(members(file_names))
    payload.pop("cases", None)
    payload.pop("examples", None)
    payload["schema_version"] = version
    payload[case_key] = draw(st.lists(members(case_names), max_size=4))
    if version == GENERIC_FAMILY:
        from fixture_migrate.claiming.territory import RESULT_FIELDS

        # A local family is migrated only on evidence: an input and an expected outcome in
        # every case (the other members stay random). A record carrying a member of a run's
        # results (`verdict`, `score`, ...) makes a results file, never a fixture
        # (`claiming.territory`): not these invariants' input.
        cases = payload[case_key] or [{}]
        payload[case_key] = [
            {
                **{key: value for key, value in case.items() if key not in RESULT_FIELDS},
                "input": case["input"] if c.is_non_empty_string(case.get("input")) else "go",
                "expected": case.get("expected"),
            }
            for case in cases
        ]
    if draw(st.integers(0, 9)) == 0:  # both lists: the reference reads `cases` first
        other = "examples" if case_key == "cases" else "cases"
        payload[other] = draw(st.one_of(st.lists(members(case_names), max_size=2), JSON))
    order = draw(st.permutations(list(payload)))
    return {key: payload[key] for key in order}


@st.composite
def yao_payload(draw: st.DrawFn) -> dict[str, Any]:
    payload = draw(members(("skill", "coverage_tags", "source_refs", "recommended_threshold")))
    for key in ("cases", "examples", "extensions"):
        payload.pop(key, None)
    entry = st.one_of(WORD, st.fixed_dictionaries({"text": WORD}, optional={"family": WORD, "note": JSON}), JSON)
    for key in draw(st.lists(st.sampled_from(["should_trigger", "should_not_trigger", "near_neighbor"]), unique=True)):
        payload[key] = draw(st.lists(entry, max_size=3))
    payload["schema_version"] = "yao.semantic-trigger-cases.v1"
    return payload


def yaml_text(payload: Any, variant: int) -> bytes:
    """`payload` dumped by ruamel.yaml (block style; `variant` 1 indents sequences)."""
    from ruamel.yaml import YAML

    dumper = YAML(typ="rt")
    dumper.width = 4096
    if variant:
        dumper.indent(mapping=2, sequence=4, offset=2)
    buffer = io.StringIO()
    dumper.dump(payload, buffer)
    return buffer.getvalue().encode("utf-8")


def python_text(payload: Any) -> bytes:
    """`payload` as a Python module binding it to `FIXTURE`, as a literal."""
    return f"import pytest\n\n# The fixture.\nFIXTURE = {payload!r}\n".encode()


@st.composite
def json_text(draw: st.DrawFn, payload: Any) -> bytes:
    """`payload` as JSON text in a random style: indent, separators, escapes, CRLF, BOM."""
    indent = draw(st.sampled_from([None, 2, 4, "\t", 1]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", " : ")]))
    text = json.dumps(payload, indent=indent, separators=separators, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        text += "\n"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")  # json.dumps writes no raw newline inside strings
    raw = text.encode("utf-8")
    return BOM + raw if draw(st.booleans()) else raw


# The invariants ------------------------------------------------------------------------


def _error_keys(cases: list[dict[str, Any]]) -> set[tuple[int, str]]:
    """`(case position, reason code)` of each validation error: by position, as a migration
    may write an id the reference left empty."""
    checker, ids = RefChecker(ROOT, check_exists=False), CaseIdRegistry()
    keys = set()
    for index, case in enumerate(cases):
        keys.update((index, error["reason_code"]) for error in validate_case(case, checker))
        if ids.check(case) is not None:
            keys.add((index, c.DUPLICATE_CASE_ID))
    return keys


def _case_lists(document: Any) -> list[Any]:
    """Every case of a document, as the mapping reads them (`cases`, else `examples`)."""
    found: list[Any] = []
    for unit in document.units:
        if unit.shape == "case_list":
            found.extend(unit.data)
        elif isinstance(unit.data, dict):
            key = next((k for k in ("cases", "examples") if isinstance(unit.data.get(k), list)), None)
            found.extend(unit.data[key] if key else [])
    return found


def _note(data: bytes) -> None:
    """Show `data` with a failing example (outside a hypothesis test, the assertion says enough)."""
    try:
        note(data.decode("utf-8", "replace"))
    except InvalidArgument:
        pass


def assert_invariants(raw: bytes, path: str, *, legacy: bool) -> None:
    engine = Engine(Options(repo_root=ROOT))
    _note(raw)
    try:
        load_document(ROOT / path, raw)
    except FixtureError as error:
        # A reader may refuse what its syntax cannot hold faithfully (YAML's explicit `?`
        # keys, say); every generated JSON text must be read.
        assert not path.endswith(".json"), f"unreadable: {error.message} [{error.code}]"
        assert engine.plan_bytes(ROOT / path, raw).status == "error"
        return
    result = engine.plan_bytes(ROOT / path, raw)
    if result.status == "error":
        assert result.error is not None
        # Refused by design: a non-object `extensions` cannot take moved members without
        # losing one, and a case that is not an object is bad input.
        allowed = {"extensions_not_object"}
        if any(not isinstance(case, dict) for case in _case_lists(load_document(ROOT / path, raw))):
            allowed.add("case_not_object")
        assert result.error.code in allowed, f"refused: {result.error.message} [{result.error.code}]"
        return
    assert result.status in ("changed", "unchanged")
    if legacy:
        assert result.status == "changed", "a legacy file always changes (its schema_version does)"
    if result.status == "unchanged":
        return
    assert result.new_bytes is not None
    _note(result.new_bytes)
    document = load_document(ROOT / path, raw)
    new_path = (result.new_path or result.path).relative_to(ROOT).as_posix()
    (new,) = [unit.data for unit in load_document(ROOT / new_path, result.new_bytes).units]
    assert new["schema_version"] == c.CANONICAL_SCHEMA_VERSION
    old = [unit.data for unit in document.units]
    context = Context(source_file=path)
    assert not missing_leaves(old, [new]), "conservation"
    before = reference_cases(document.units[0], context)
    after = normalize_payload(new, source_file=path)
    assert compatibility_violations(before, after) == [], "compatibility"
    if before:
        assert _error_keys(after) <= _error_keys(before), "no new validation errors"
    again = engine.plan_bytes(ROOT / new_path, result.new_bytes)
    assert again.status == "unchanged", f"idempotence: {again.status} {again.error and again.error.message}"


PATH = "skills/demo/evals/cases.json"


def test_every_family_is_generated():
    from fixture_migrate.claiming.registry import default_registry

    claimed = set()
    for version, (case_key, _, _) in FAMILIES.items():
        cases = [{"input": "go", "expected": "done"}] if version == GENERIC_FAMILY else []
        unit = Unit({"schema_version": version, case_key: cases})
        claimed.add(default_registry().detect(unit).name)  # type: ignore[union-attr]
    claimed.update({"yao_semantic_trigger_cases_v1", "output_cases_jsonl"})  # generated below
    # `case_list` (a bare list bound to a name in Python) has the YAML/Python property tests
    # of tests/formats; external formats are read by `import`, never migrated.
    migrated = {a.name for a in default_registry() if a.kind != "external" and a.name != "case_list"}
    assert claimed == migrated


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), version=st.sampled_from(sorted(FAMILIES)))
def test_family_payloads_keep_the_invariants(data, version):
    payload = data.draw(family_payload(version))
    raw = data.draw(json_text(payload))
    assert_invariants(raw, PATH, legacy=version != c.CANONICAL_SCHEMA_VERSION)


YAML_TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x85\u2028\u2029"), max_size=20)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), version=st.sampled_from(sorted(FAMILIES)), syntax=st.sampled_from(["yaml", "python"]))
def test_family_payloads_as_yaml_and_python_keep_the_invariants(data, version, syntax):
    payload = data.draw(family_payload(version))
    # YAML has no way to write U+0085, U+2028 or U+2029 so that every reader keeps them.
    assume(syntax != "yaml" or not re.search("[\x85\u2028\u2029]", json.dumps(payload, ensure_ascii=False)))
    if syntax == "yaml":
        raw, path = yaml_text(payload, data.draw(st.integers(0, 1))), PATH.replace(".json", ".yaml")
    else:
        raw, path = python_text(payload), PATH.replace("cases.json", "test_cases.py")
    assert_invariants(raw, path, legacy=version != c.CANONICAL_SCHEMA_VERSION)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_yao_trigger_sets_keep_the_invariants(data):
    raw = data.draw(json_text(data.draw(yao_payload())))
    assert_invariants(raw, PATH, legacy=True)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    lines=st.lists(
        members(("id", "prompt", "baseline_output", "with_skill_output", "assertions", "metadata", "human_review")),
        min_size=1,
        max_size=4,
    ),
    crlf=st.booleans(),
)
def test_jsonl_output_cases_keep_the_invariants(lines, crlf):
    from fixture_migrate.claiming.territory import RESULT_FIELDS

    for line in lines:
        # A record carrying a member of a run's results (`model_answer`, `score`, ...) is a
        # results file, never a fixture (`claiming.territory`): not these invariants' input.
        for name in RESULT_FIELDS & line.keys():
            del line[name]
        line.setdefault("id", "x")
        line.setdefault("prompt", "p")
    newline = "\r\n" if crlf else "\n"
    raw = "".join(json.dumps(line, ensure_ascii=False) + newline for line in lines).encode("utf-8")
    # Records that also carry another eval tool's signature (DeepEval's `input` and
    # `context`, say) are that tool's, left to `import` by design: not these invariants' input.
    planned = Engine(Options(repo_root=ROOT)).plan_bytes(ROOT / "skills/demo/evals/output.jsonl", raw)
    assume(planned.status != "other_tool")
    assert_invariants(raw, "skills/demo/evals/output.jsonl", legacy=True)


# Arbitrary bytes -----------------------------------------------------------------------

LEGACY_SAMPLE = json.dumps(
    {
        "schema_version": "prompt-examples/v1",
        "examples": [{"name": "A b", "user_intent": "x", "expected_posture": ["y"], "negative_signal": "z"}],
    },
    indent=2,
).encode()


@st.composite
def mutated(draw: st.DrawFn, base: bytes) -> bytes:
    """`base` with a few random bytes replaced, inserted or deleted."""
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        what = draw(st.sampled_from(["replace", "insert", "delete"]))
        byte = draw(st.sampled_from(b'{}[]",:\\0 \n\xff\xc3-e.tfn' + bytes(range(0, 256, 37))))
        if what == "insert" or at == len(data):
            data.insert(at, byte)
        elif what == "replace":
            data[at] = byte
        else:
            del data[at]
    return bytes(data)


FILE_BYTES = st.one_of(
    st.binary(max_size=200),
    mutated(LEGACY_SAMPLE),
    mutated(b'{"id": "a", "prompt": "p", "x": [1, 2]}\n{"id": "b", "prompt": "q"}\n'),
    st.builds(lambda text: text.encode("utf-8", "surrogatepass"), st.text(max_size=100)),
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(raw=FILE_BYTES, suffix=st.sampled_from([".json", ".jsonl"]))
@example(raw=b"\xef\xbb\xbf", suffix=".json")
@example(raw=b'{"cases": [{"extensions": 1, "x": 2}]}', suffix=".json")
@example(raw=b"[" * 5000, suffix=".jsonl")
def test_arbitrary_bytes_end_in_an_exit_code_and_a_message(raw, suffix):
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        fixture = root / f"cases{suffix}"
        fixture.write_bytes(raw)
        options = Options(repo_root=root)
        planned = Engine(options).plan(fixture)
        runs = [
            lambda out, report: run_migrate([root], options, MigrateMode(check=True), out=out, report=report),
            lambda out, report: run_normalize(
                [root], options, output_format="json", as_migrated=True, out=out, report=report
            ),
            lambda out, report: run_validate(
                [root], options, check_refs=True, output_format="text", as_migrated=False, out=out, report=report
            ),
            lambda out, report: run_detect([root], options, out=out, report=report),
            lambda out, report: run_migrate([root], options, MigrateMode(), out=out, report=report),
        ]
        for command in runs:
            out, err = io.StringIO(), io.StringIO()
            code = command(out, Report(err=err))
            assert code in (0, 1, 2)
            if code == 2:
                assert ": error: " in err.getvalue(), "exit 2 always says why"
        migrated = planned.new_path or fixture
        if planned.status == "changed":
            assert migrated.read_bytes() == planned.new_bytes
        else:
            assert fixture.read_bytes() == raw, "a file that is not migrated is left byte for byte"
        leftovers = [p.name for p in root.iterdir() if p.name not in (fixture.name, migrated.name)]
        assert leftovers == []


@given(raw=st.binary(max_size=64))
def test_arbitrary_bytes_through_the_command_line(raw):
    from fixture_migrate.cli.app import main

    with tempfile.TemporaryDirectory() as directory:
        fixture = Path(directory) / "cases.json"
        fixture.write_bytes(raw)
        assert main(["validate", "--no-ref-check", "--repo-root", directory, str(fixture)]) in (0, 1, 2)


# Regressions the property tests found (each was refused, "would lose 1 value(s)") ------


def test_yao_set_with_an_empty_list_keeps_it_under_extensions():
    source = (
        '{"schema_version": "yao.semantic-trigger-cases.v1", "skill": "bike-repair", '
        '"should_trigger": ["True my wheel."], "near_neighbor": []}\n'
    )
    result = Engine(Options(repo_root=ROOT)).plan_bytes(ROOT / PATH, source.encode())
    assert result.status == "changed", result.error and result.error.message
    data = parse_json(result.new_bytes or b"")
    assert [case["id"] for case in data["cases"]] == ["should-trigger-1"]
    assert data["extensions"] == {"migrated_from": "yao.semantic-trigger-cases.v1", "near_neighbor": []}


@pytest.mark.parametrize(
    "source",
    [
        b'{"should_trigger": [], "should_not_trigger": [], "schema_version": "yao.semantic-trigger-cases.v1"}',
        b'{"should_trigger": [{}], "schema_version": "yao.semantic-trigger-cases.v1"}',
    ],
    ids=["every-list-empty", "empty-entry"],
)
def test_yao_sets_with_empty_parts_migrate(source):
    assert_invariants(source, PATH, legacy=True)


@pytest.mark.parametrize(
    "source, path",
    [
        pytest.param(
            b'{"schema_version": "prompt-examples/v1", "examples": [{"name": "A", "user_intent": "x", "extensions": null}]}',
            PATH,
            id="legacy-case",
        ),
        pytest.param(b'{"extensions": null, "schema_version": "prompt-examples/v1", "examples": []}', PATH, id="file"),
        pytest.param(b'{"extensions": null, "id": "x", "prompt": "p"}\n', "skills/demo/evals/o.jsonl", id="jsonl"),
        pytest.param(
            b'{"schema_version": "spec-first.workflow-eval-fixtures.v1", "cases": [{"id": "a", "user_intent": "x", "extensions": null}]}',
            PATH,
            id="canonical-rename",
        ),
    ],
)
def test_a_null_extensions_is_kept(source, path):
    # Regression: the null was dropped where members had to move, so the file was refused.
    assert_invariants(source, path, legacy=b"workflow-eval-fixtures" not in source)
    result = Engine(Options(repo_root=ROOT)).plan_bytes(ROOT / path, source)
    assert b'"extensions": null' in (result.new_bytes or b"")


def test_an_id_written_where_the_reference_has_none_is_not_a_new_error():
    # Regression: `name` ":" slugs to "", so the reference's id is empty and the migration
    # writes `case-1`; its other errors were keyed by id and looked new, so it was refused.
    source = (
        b'{"schema_version": "prompt-examples/v1", "examples": [{"user_intent": "", "expected_posture": "", '
        b'"id": "", "boundary_note": "", "name": ":"}]}'
    )
    assert_invariants(source, PATH, legacy=True)
    result = Engine(Options(repo_root=ROOT)).plan_bytes(ROOT / PATH, source)
    assert parse_json(result.new_bytes or b"")["cases"][0]["id"] == "case-1"
