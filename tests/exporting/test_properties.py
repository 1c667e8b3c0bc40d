"""Round-trip properties of import and export, per format (hypothesis).

For random records of each format, written in the export's layout:
- export -> import -> export on the native file: importing it and exporting the
  canonical file gives the native bytes back;
- import -> export -> import on the canonical file: importing that export gives the
  canonical bytes back.
Member order is random too: the import records it where the export would differ.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.exporting.native import render
from fixture_migrate.exporting.pipeline import ExportRequest, plan_export
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.import_helpers import plan

ROOT = Path(__file__).resolve().parents[2]
PROPERTY = settings(suppress_health_check=[HealthCheck.too_slow])
"""The profile of tests/conftest.py decides how many examples (`ci`: 40; `long`: 3000)."""

LETTERS = st.characters(whitelist_categories=("Lu", "Ll", "Nd"), max_codepoint=0x2FFF)
TEXT = st.builds(
    lambda head, tail: head + tail,
    LETTERS,
    st.text(st.characters(whitelist_categories=("L", "N", "P", "S"), max_codepoint=0x2FFF) | st.just(" "), max_size=20),
)
"""A non-blank string that starts with a letter or digit (a valid case input)."""
SCALAR = st.none() | st.booleans() | st.integers(-1000, 1000) | TEXT
JSON = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6
)
EXTRA_KEYS = st.sampled_from(["note", "topic", "level", "source", "x-tag"])
MESSAGES = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]), "content": TEXT}),
    min_size=1,
    max_size=3,
)


@st.composite
def shuffled(draw: Any, record: dict[str, Any]) -> dict[str, Any]:
    """`record` with its members in a random order."""
    keys = draw(st.permutations(list(record)))
    return {key: record[key] for key in keys}


@st.composite
def with_extras(draw: Any, base: dict[str, Any]) -> dict[str, Any]:
    extras = draw(st.dictionaries(EXTRA_KEYS, JSON, max_size=2))
    return draw(shuffled({**base, **extras}))


def openai_sample() -> Any:
    return st.fixed_dictionaries(
        {"input": TEXT | MESSAGES}, optional={"ideal": TEXT | st.lists(TEXT, min_size=1, max_size=3)}
    ).flatmap(with_extras)


def inspect_sample() -> Any:
    return st.fixed_dictionaries(
        {"input": TEXT | MESSAGES, "target": TEXT | st.lists(TEXT, min_size=1, max_size=2)},
        optional={"id": TEXT | st.integers(0, 50), "metadata": st.dictionaries(TEXT, SCALAR, max_size=2)},
    ).flatmap(with_extras)


def inspect_row(columns: list[str]) -> Any:
    return st.fixed_dictionaries({column: TEXT for column in columns})


def langsmith_example() -> Any:
    return st.fixed_dictionaries(
        {"inputs": st.fixed_dictionaries({"question": TEXT}, optional={"context": JSON})},
        optional={
            "id": st.uuids().map(str),
            "outputs": st.none() | st.dictionaries(TEXT, JSON, min_size=1, max_size=2),
            "metadata": st.dictionaries(TEXT, SCALAR, max_size=2),
            "split": TEXT | st.lists(TEXT, max_size=2),
        },
    ).flatmap(with_extras)


def deepeval_golden() -> Any:
    return (
        st.fixed_dictionaries(
            {"input": TEXT},
            optional={
                "expected_output": st.none() | TEXT,
                "context": st.none() | st.lists(TEXT, max_size=2),
                "retrieval_context": st.none() | st.lists(TEXT, max_size=2),
                "name": TEXT,
                "additional_metadata": st.dictionaries(TEXT, SCALAR, max_size=2),
                "comments": TEXT,
            },
        )
        .filter(lambda g: len(g) > 1)
        .flatmap(with_extras)
    )


def skill_creator_eval() -> Any:
    return st.fixed_dictionaries(
        {"id": st.integers(0, 30), "prompt": TEXT},
        optional={
            "expected_output": TEXT,
            "files": st.lists(TEXT, max_size=2),
            "expectations": st.lists(TEXT, max_size=3),
        },
    ).flatmap(with_extras)


def trigger_item() -> Any:
    return st.fixed_dictionaries({"query": TEXT, "should_trigger": st.booleans()}, optional={"id": TEXT}).flatmap(
        shuffled
    )


ASSERTION = st.fixed_dictionaries(
    {"type": st.sampled_from(["icontains", "not-icontains", "equals", "contains"]), "value": TEXT}
)


def promptfoo_test() -> Any:
    return st.fixed_dictionaries(
        {"vars": st.fixed_dictionaries({"input": TEXT}, optional={"topic": TEXT})},
        optional={
            "description": TEXT,
            "assert": st.lists(ASSERTION, min_size=1, max_size=3),
            "metadata": st.dictionaries(st.sampled_from(["team", "level"]), TEXT, max_size=2),
        },
    ).flatmap(shuffled)


def check_round_trips(fmt: str, name: str, native: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        source = base / name
        source.write_bytes(native)
        ref = f"vendor/{name}"
        canonical = plan([source], base / "c.json", root=ROOT, fmt=fmt, source_refs=[ref])
        (base / "c.json").write_bytes(canonical.new_bytes)
        dest = base / "out" / name
        exported = plan_export(ExportRequest(paths=[base / "c.json"], target=fmt, dest=dest, repo_root=ROOT))
        assert exported.new_bytes == native
        assert not exported.losses
        dest.parent.mkdir()
        dest.write_bytes(exported.new_bytes)
        again = plan([dest], base / "again.json", root=ROOT, fmt=fmt, source_refs=[ref])
        assert again.new_bytes == canonical.new_bytes


@pytest.mark.parametrize(
    ("fmt", "name", "record"),
    [
        ("openai-evals", "samples.jsonl", openai_sample),
        ("inspect", "dataset.jsonl", inspect_sample),
        ("langsmith", "examples.jsonl", langsmith_example),
        ("deepeval", "goldens.json", deepeval_golden),
        ("skill-creator", "trigger-evals.json", trigger_item),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
@PROPERTY
@given(data=st.data())
def test_a_list_of_records_round_trips(fmt, name, record, data):
    # A file that is a plain list of records (JSON array or JSON Lines, by its suffix).
    records = data.draw(st.lists(record(), min_size=1, max_size=4))
    check_round_trips(fmt, name, render(Path(name).suffix[1:], records))


@PROPERTY
@given(
    st.lists(st.sampled_from(["label", "note"]), unique=True).flatmap(
        lambda extra: st.lists(inspect_row(["id", "input", "target", *extra]), min_size=1, max_size=4)
    )
)
def test_inspect_csv_round_trips(rows):
    check_round_trips("inspect", "dataset.csv", render("csv", rows))


@PROPERTY
@given(st.lists(skill_creator_eval(), min_size=1, max_size=4), st.none() | TEXT)
def test_skill_creator_evals_round_trip(evals, notes):
    document: dict[str, Any] = {"skill_name": "demo", "evals": evals}
    if notes is not None:
        document["notes"] = notes
    check_round_trips("skill-creator", "evals.json", render("json", document))


@PROPERTY
@given(st.lists(promptfoo_test(), min_size=1, max_size=4), st.none() | TEXT)
def test_promptfoo_config_round_trips(tests, description):
    config: dict[str, Any] = {} if description is None else {"description": description}
    config.update(prompts=["{{input}}"], providers=["echo"], tests=tests)
    check_round_trips("promptfoo", "promptfooconfig.yaml", render("yaml", config))


def test_the_writer_layout_is_json_dumps():
    # The JSON Lines layout the round trips rely on is Python's own default.
    record = {"input": "é", "ideal": ["a", "b"]}
    assert render("jsonl", [record]) == (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
