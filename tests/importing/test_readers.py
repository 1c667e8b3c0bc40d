"""`fixture_migrate.importing.readers`: import sources read once, records located, errors placed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import MAX_NODES, load_document
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
        ("a.py", None),
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


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("1e3", "1e3"),
        ("0755", "0755"),
        ("0x1F", "0x1F"),
        ("yes", "yes"),
        ("~", None),
        ("2024-01-01", "2024-01-01"),
        (".inf", ".inf"),
        ("12", 12),
        ("1.5", 1.5),
        ("true", True),
        ("!!str 12", "12"),
        ("!custom text", "text"),
    ],
)
def test_migrate_and_import_read_a_yaml_scalar_alike(scalar, value):
    text = f"cases:\n  - id: a\n    input: {scalar}\n"
    fixture = load_document(Path("cases.yaml"), text.encode()).units[0].data
    source = read("cases.yaml", text)
    assert source.data == fixture
    assert source.data["cases"][0]["input"] == value
    assert type(source.data["cases"][0]["input"]) is type(value)


def test_migrate_and_import_read_yaml_keys_merges_and_tags_alike():
    text = "1.0: a\n~: b\nbase: &b {p: 1}\ny: *b\nz:\n  <<: *b\n  q: 2\ntagged: !thing {x: 1}\n"
    fixture = load_document(Path("cases.yaml"), text.encode()).units[0].data
    source = read("cases.yaml", text)
    assert source.data == fixture == {
        "1.0": "a",
        "~": "b",
        "base": {"p": 1},
        "y": {"p": 1},
        "z": {"p": 1, "q": 2},
        "tagged": {"x": 1},
    }
    assert list(source.data["z"]) == list(fixture["z"]) == ["p", "q"]
    assert source.data["y"] is not source.data["base"]  # an alias's value is a copy of its own
    assert source.locate(("y",)) == (4, 4)
    assert source.locate(("z", "q")) == (7, 6)
    assert source.locate(("z", "p")) == (6, 3)  # merged in: placed at the mapping that merges it


@pytest.mark.parametrize(
    ("text", "code", "place"),
    [
        pytest.param("a: 1\na: 2\n", "duplicate_key", (2, 1), id="duplicate-key"),
        pytest.param("1: a\n'1': b\n", "duplicate_key", (2, 1), id="duplicate-key-as-text"),
        pytest.param("a: 1\n---\nb: 2\n", "invalid_yaml", (2, 1), id="two-documents"),
        pytest.param("", "empty", (1, 1), id="empty"),
        pytest.param("a: [1\n", "invalid_yaml", (2, 1), id="syntax"),
    ],
)
def test_yaml_read_errors_are_placed(text, code, place):
    with pytest.raises(SourceError) as caught:
        read("s.yaml", text)
    assert (caught.value.code, (caught.value.line, caught.value.column)) == (code, place)


def test_yaml_aliases_are_bounded():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in "bcdef":
        previous = lines[-1][lines[-1].index("&") + 1]
        lines.append(f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 10) + "]")
    lines.append("g: [*f, *f]")
    assert 2 * 10**6 > MAX_NODES
    with pytest.raises(SourceError) as caught:
        read("s.yaml", "\n".join(lines) + "\n")
    assert caught.value.code == "too_large"


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


@pytest.mark.parametrize("where", ["value", "key-map"])
def test_yaml_alias_amplification_of_text_is_refused_on_import(where):
    """`import` reads YAML with its own loader: the same guard on expanded text applies."""
    big = "x" * (64 * 1024)
    if where == "value":
        lines = [f"- {{q: &big {big}}}"] + ["- {q: *big}"] * 300
    else:
        lines = [f"- &big {{q: {big}}}"] + ["- *big"] * 300
    with pytest.raises(FixtureError) as caught:
        read("bomb.yaml", "\n".join(lines) + "\n")
    assert caught.value.code == "too_large" and "characters of text" in caught.value.message


def test_yaml_with_a_few_aliases_of_long_text_is_imported():
    big = "x" * (64 * 1024)
    read("ok.yaml", "\n".join([f"- {{q: &big {big}}}"] + ["- {q: *big}"] * 20) + "\n")
