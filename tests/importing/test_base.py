"""`fixture_migrate.importing.base`: the rules every import adapter shares (ids, tags, inputs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_migrate.importing.base import (
    ImportAdapter,
    canonical_json,
    content_id,
    origin_syntax,
    outcome_value,
    own_id,
    render_input,
    render_messages,
    render_vars,
    require_object,
    slug_tag,
    unique_ids,
)
from fixture_migrate.importing.readers import SourceError, read_source


def test_canonical_json_and_content_ids_are_stable():
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()
    assert content_id("case", {"b": 1, "a": 2}) == content_id("case", {"a": 2, "b": 1})
    assert content_id("case", "x").startswith("case-") and len(content_id("case", "x")) == len("case-") + 10


@pytest.mark.parametrize(
    ("value", "expected"),
    [("a", "a"), (0, "0"), (1.5, "1.5"), (True, None), (None, None), ("  ", None), ({"id": 1}, None)],
)
def test_own_id(value, expected):
    assert own_id(value) == expected


@pytest.mark.parametrize(("value", "expected"), [("Hello World", "hello-world"), ("!!", None), ([1], None), (3, "3")])
def test_slug_tag(value, expected):
    assert slug_tag(value) == expected


def test_unique_ids_keep_first_and_avoid_own_ids():
    assert unique_ids(["a", "a", "a-2"]) == ["a", "a-3", "a-2"]
    assert unique_ids(["x", "y"]) == ["x", "y"]


def test_render_messages():
    assert render_messages([{"role": "user", "content": "only"}]) == "only"
    chat = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "q1"},
        {"role": "user", "content": "q2"},
    ]
    assert render_messages(chat) == "q2"
    parts = [{"role": "assistant", "content": [{"type": "text", "text": "a"}, "b"]}, {"role": "system", "content": "c"}]
    assert render_messages(parts) == "a\nb\n\nc"


def test_render_vars():
    assert render_vars({"topic": "tea"}) == "tea"
    assert render_vars({"question": "why?", "n": 2}) == "why?"
    assert render_vars({"n": 2, "tags": ["a"]}) == 'n: 2\ntags: ["a"]'


def test_render_input():
    assert render_input("x") == "x"
    assert render_input([{"role": "user", "content": "hi"}]) == "hi"
    assert render_input(3) is None


def test_outcome_value_keeps_what_it_turns_into_text():
    original: dict = {}
    assert outcome_value(4, original, "ideal") == "4"
    assert original == {"ideal": 4}
    assert outcome_value(["a"], original, "other") == ["a"] and "other" not in original


def test_require_object_names_the_record():
    source = read_source(Path("s.json"), "s.json", b'[{"a": 1}, [1]]')
    assert require_object(source.records()[0]) == {"a": 1}
    with pytest.raises(SourceError) as caught:
        require_object(source.records()[1])
    assert caught.value.code == "record_not_object"
    assert "record /1" in caught.value.message


def test_external_adapters_never_claim_and_refuse_to_migrate():
    class Mine(ImportAdapter):
        name, format = "mine", "mine"

    adapter = Mine()
    assert not adapter.claims(object())
    assert not adapter.name_hint(Path("mine.json"))
    assert adapter.sniff(object()) is None
    with pytest.raises(Exception, match="fixture-migrate import --from mine"):
        adapter.to_canonical(object(), None)


@pytest.mark.parametrize(
    ("source_file", "syntax"),
    [("evals/a.csv", "csv"), ("evals/a.ndjson", "jsonl"), ("evals/a.YML", "yaml"), ("evals/a.py", None), (3, None)],
)
def test_origin_syntax_reads_the_import_suffix_table(source_file, syntax):
    case = {"id": "a", "extensions": {"import": {"source_file": source_file}}}
    assert origin_syntax(case) == syntax


def test_export_steps_are_the_functions_the_adapter_was_given():
    from fixture_migrate.adapters import deepeval

    class Mine(ImportAdapter):
        name, format = "mine", "mine"

    with pytest.raises(NotImplementedError):
        Mine().record_of({}, None)
    with pytest.raises(NotImplementedError):
        Mine().map_case({}, None)
    assert Mine().export_document([{"a": 1}], None) == [{"a": 1}]
    assert deepeval.ADAPTER._export_document is deepeval.export_document
    # Nothing is looked up by name: a module-level `map_case` beside a plugin's class
    # that did not pass it stays out of the export.
    assert deepeval.DeepEvalAdapter()._map_case is None
    with pytest.raises(NotImplementedError):
        deepeval.DeepEvalAdapter().map_case({}, None)


def test_import_adapter_is_the_one_name_and_the_old_one_still_works() -> None:
    from fixture_migrate.importing import base

    assert base.ExternalAdapter is base.ImportAdapter

    class Duck:  # a plugin that does not subclass ImportAdapter but has every member
        name = kind = summary = format = tag = namespace = id_rule = "duck"

        def sniff(self, source):
            return None

        def build(self, sources, job):
            return []

    assert base.is_import_adapter(Duck())
    assert base.is_import_adapter(base.ImportAdapter())
    assert not base.is_import_adapter(object())
    incomplete = Duck()
    Duck.id_rule = property(lambda self: (_ for _ in ()).throw(AttributeError("id_rule")))
    assert not base.is_import_adapter(incomplete)
