"""`fixture_migrate.importing.readers`: import sources read once, records located, errors placed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_migrate.importing.readers import (
    SourceError,
    is_lfs_pointer,
    json_pointer,
    read_source,
    syntax_for,
)


def read(name: str, text: str | bytes):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return read_source(Path(name), f"evals/{name}", raw)


@pytest.mark.parametrize(
    ("name", "syntax"),
    [
        ("a.json", "json"),
        ("a.JSONL", "jsonl"),
        ("a.ndjson", "jsonl"),
        ("a.yml", "yaml"),
        ("a.csv", "csv"),
        ("a.txt", None),
    ],
)
def test_syntax_for(name, syntax):
    assert syntax_for(Path(name)) == syntax


def test_json_pointer_escapes():
    assert json_pointer(("evals", 3, "a/b~c")) == "/evals/3/a~1b~0c"
    assert json_pointer(()) == ""


def test_jsonl_records_are_located_by_line():
    source = read("s.jsonl", '{"input": "a"}\n\n{"input": "b"}\n')
    records = source.records()
    assert [r.data for r in records] == [{"input": "a"}, {"input": "b"}]
    assert [r.locator for r in records] == ["L1", "L3"]
    assert records[1].ref == "evals/s.jsonl#L3"


def test_json_records_are_located_by_pointer():
    source = read("s.json", '{"evals": [{"q": 1}, {"q": 2}]}')
    assert [r.locator for r in source.records(("evals",))] == ["/evals/0", "/evals/1"]
    with pytest.raises(SourceError) as caught:
        read("t.json", '{"evals": 3}').records(("evals",))
    assert caught.value.code == "not_a_list"


def test_csv_cells_stay_strings():
    source = read("s.csv", "input,expected\nhello,1\n")
    assert source.data == [{"input": "hello", "expected": "1"}]
    assert source.records()[0].locator == "L2"


def test_yaml_is_read_as_plain_data_positions_kept():
    source = read("s.yaml", "evals:\n  - input: hi\n    when: 2024-01-01\n")
    assert source.data == {"evals": [{"input": "hi", "when": "2024-01-01"}]}
    assert source.locate(("evals", 0, "input")) is not None


def test_lfs_pointers_are_refused():
    pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n"
    assert is_lfs_pointer(pointer)
    with pytest.raises(SourceError) as caught:
        read("s.jsonl", pointer)
    assert caught.value.code == "lfs_pointer"


@pytest.mark.parametrize(
    ("name", "text", "code"),
    [
        pytest.param("s.json", '{"a": ', "invalid_json", id="json"),
        pytest.param("s.md", "# notes", "unsupported", id="suffix"),
    ],
)
def test_errors_name_the_file(name, text, code):
    with pytest.raises(SourceError) as caught:
        read(name, text)
    assert caught.value.code == code


def test_field_renames_apply_to_records():
    source = read("s.jsonl", '{"question": "a"}\n')
    source.fields = {"question": "input"}
    assert source.records()[0].data == {"input": "a"}
    assert source.renamed == {"question"}
