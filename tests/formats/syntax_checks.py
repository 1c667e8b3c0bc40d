"""Checks the YAML and Python syntax tests share: a migration sample's three assertions,
and the corpus files converted to another syntax."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixture_migrate.adapting.protocol import Context
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.conservation import missing_leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import RefChecker, validate_cases
from fixture_migrate.formats import load_document
from fixture_migrate.migration.engine import Engine, Options, reference_cases

from tests.helpers import SPEC_FIRST, Migrated, migrate_sample, plan


def _errors(cases: list[dict[str, Any]]) -> set[tuple[str, Any]]:
    return {(e["reason_code"], e["id"]) for e in validate_cases(cases, RefChecker(Path("."), check_exists=False))}


def units(path: str, source: str | bytes) -> list[Any]:
    """The unit data of a sample, read as its suffix says."""
    raw = source.encode("utf-8") if isinstance(source, str) else source
    return [unit.data for unit in load_document(Path(path), raw).units]


def check_syntax_migration(
    source: str | bytes, adapters: list[str], snapshot_text: Any, snapshot_diff: Any, path: str
) -> Migrated:
    """The three assertions every migration sample gets, for a YAML or Python sample:

    1. the migrated text and its diff match their snapshots;
    2. a second run changes nothing;
    3. the output re-reads as canonical v1 (a bare case list: canonical cases), keeps
       every leaf of the source (conservation), and validates with no error the
       legacy file did not have.
    """
    migrated = migrate_sample(source, path)
    assert migrated.result.adapters == adapters
    assert migrated.after == snapshot_text
    assert migrated.diff == snapshot_diff

    again = plan(migrated.after, path)
    assert again.status == "unchanged", again.error and again.error.message

    raw = source.encode("utf-8") if isinstance(source, str) else source
    before = load_document(Path(path), raw).units
    after_raw = migrated.result.new_bytes
    assert after_raw is not None
    after = load_document(Path(path), after_raw).units
    assert not missing_leaves([unit.data for unit in before], [unit.data for unit in after])
    for old, new in zip(before, after, strict=True):
        data = new.data if new.shape == "payload" else {"schema_version": c.CANONICAL_SCHEMA_VERSION, "cases": new.data}
        assert data["schema_version"] == c.CANONICAL_SCHEMA_VERSION
        after_cases = normalize_payload(data, source_file=path)
        assert after_cases, "the migrated file yields no case"
        before_cases = reference_cases(old, Context(source_file=path))
        if before_cases:
            assert _errors(after_cases) <= _errors(before_cases)
    return migrated


def corpus_entries() -> list[Path]:
    """The spec-first corpus entries (empty where the corpus is absent)."""
    if not SPEC_FIRST.is_dir():
        return []
    return sorted(entry for entry in SPEC_FIRST.iterdir() if entry.is_dir())


def corpus_source(entry: Path) -> tuple[Path, Path, bytes, Any]:
    """`(root, relative path, bytes, data)` of a corpus entry's legacy file (a JSON Lines
    file's data is its list of lines)."""
    root = entry / "input"
    (found,) = [path for path in root.rglob("*") if path.is_file()]
    raw = found.read_bytes()
    relative = found.relative_to(root)
    if relative.suffix == ".jsonl":
        data = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    else:
        data = json.loads(raw)
    return root, relative, raw, data


def migrated_units(root: Path, relative: Path, raw: bytes) -> tuple[str, list[Any], list[Any]]:
    """`(status, unit data after migrating, normalized reference view)` of a file planned
    in memory as `root/relative`; asserts that migrating the result changes nothing."""
    engine = Engine(Options(repo_root=root))
    path = root / relative
    result = engine.plan_bytes(path, raw)
    assert result.status != "error", result.error and result.error.message
    out = result.new_bytes if result.status == "changed" else raw
    assert out is not None
    new_path = result.new_path or path
    again = engine.plan_bytes(new_path, out)
    assert again.status in ("unchanged", "not_fixture", "unclaimed", "other_tool"), again.error and again.error.message
    document = load_document(path, raw)
    context = engine.options.context(path)
    view = [reference_cases(unit, context) for unit in document.units]
    return result.status, [unit.data for unit in load_document(new_path, out).units], view


def without_source_file(views: list[Any]) -> list[Any]:
    """Normalized views with `source_file` left out (the converted file has another suffix)."""
    return [[{k: v for k, v in case.items() if k != "source_file"} for case in cases] for cases in views]


def legacy_payloads() -> Any:
    """A hypothesis strategy of legacy payloads: cases with the members adapters read,
    members with no canonical home, and scalars YAML readers disagree on."""
    from hypothesis import strategies as st

    keys = st.sampled_from(
        ["name", "user_intent", "intent", "input_shape", "expected", "expected_posture", "negative_signal"]
        + ["forbidden_signals", "coverage_tags", "id", "must_not", "notes", "extensions", "yes", "0755", "a b", "#c"]
    )
    text = st.text(st.characters(blacklist_characters="\x85\u2028\u2029", blacklist_categories=("Cs",)), max_size=20)
    tricky = st.sampled_from(["yes", "no", "on", "0755", "1e3", "2024-01-02", "~", "null", "- x", "a: b", "#x", "é"])
    floats = st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: "e" not in repr(f))
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), floats, text, tricky)
    values = st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
        max_leaves=8,
    )
    versions = st.sampled_from(["prompt-examples/v1", "spec-prd-evals.v1", "local/v9", c.CANONICAL_SCHEMA_VERSION])
    return st.fixed_dictionaries(
        {
            "schema_version": versions,
            "examples": st.lists(st.dictionaries(keys, values, max_size=6), min_size=1, max_size=3),
        },
        optional={"owner": values, "skill": st.sampled_from(["demo", ""])},
    )


def outcome(path: str, raw: bytes) -> tuple[str, Any]:
    """`("error", code)` or `("ok", unit data after migrating)` of a file planned in memory
    under `/repo`; asserts that migrating the result changes nothing."""
    root = Path("/repo")
    engine = Engine(Options(repo_root=root))
    result = engine.plan_bytes(root / path, raw)
    if result.status == "error":
        assert result.error is not None
        return "error", result.error.code
    out = result.new_bytes if result.status == "changed" else raw
    assert out is not None
    again = engine.plan_bytes(root / path, out)
    assert again.status in ("unchanged", "not_fixture", "unclaimed", "other_tool"), again.error and again.error.message
    return "ok", [unit.data for unit in load_document(root / path, out).units]
