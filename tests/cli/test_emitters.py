"""The output formats are classes behind one interface (`fixture_migrate.cli.emitters`):
the runs call it and never branch on the format's name."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixture_migrate.cli import emitters, jsontext
from fixture_migrate.cli.output import GithubStream

CLI = Path(emitters.__file__).parent


@pytest.mark.parametrize("module", ["app.py", "app_exchange.py", "commands.py", "decisions.py", "exchange.py"])
def test_the_runs_do_not_branch_on_the_output_format(module: str) -> None:
    source = (CLI / module).read_text(encoding="utf-8")
    assert not re.search(r"(output_format|fmt)\s*[!=]=", source)


def test_each_format_has_its_emitter() -> None:
    assert set(emitters.EMITTERS) == {"text", "json", "jsonl", "github"}
    for name, cls in emitters.EMITTERS.items():
        assert cls.name == name and issubclass(cls, emitters.Emitter)


def test_json_lines_and_json_arrays_of_cases() -> None:
    cases = [{"id": "a"}, {"id": "b"}]
    expected_of = {
        "json": '[\n  {\n    "id": "a"\n  },\n  {\n    "id": "b"\n  }\n]\n',
        "jsonl": '{"id":"a"}\n{"id":"b"}\n',
    }
    for name, expected in expected_of.items():
        out = io.StringIO()
        emit = emitters.emitter_for(name, out=out, root=Path("."))
        emit.cases_begin()
        emit.cases(emit.encode_cases(cases))
        emit.cases_end()
        assert out.getvalue() == expected


def test_an_empty_json_array_of_cases() -> None:
    out = io.StringIO()
    emit = emitters.emitter_for("json", out=out, root=Path("."))
    emit.cases_begin()
    emit.cases_end()
    assert out.getvalue() == "[]\n"


def test_the_github_emitter_annotates_relative_to_the_root(tmp_path: Path) -> None:
    out = io.StringIO()
    emit = emitters.emitter_for("github", out=GithubStream(out), root=tmp_path)  # type: ignore[arg-type]
    emit.unclaimed(tmp_path / "skills" / "a.json", "no evidence")
    assert out.getvalue() == "::warning file=skills/a.json,line=1,title=fixture-migrate::not migrated: no evidence\n"


def test_text_prints_no_annotation_and_json_keeps_the_diff_in_the_record(tmp_path: Path) -> None:
    out = io.StringIO()
    record: dict[str, object] = {}
    emitters.emitter_for("json", out=out, root=tmp_path).diff(tmp_path / "a.json", "--- a\n", record)
    emitters.emitter_for("text", out=out, root=tmp_path).unclaimed(tmp_path / "a.json", "why")
    assert record == {"diff": "--- a\n"} and out.getvalue() == ""


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(alphabet='{},:"\\\n\u2028x', max_size=6),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["schema_version", "id", "x"]), inner, max_size=3),
    max_leaves=12,
)


@given(st.lists(st.dictionaries(st.sampled_from(["schema_version", "id", "x"]), _json_values, max_size=3), max_size=5))
def test_json_lines_is_each_case_on_its_own_line(cases) -> None:
    """The bytes of `json_lines` are those of one `dump_json_bytes` line per case, whatever
    the cases hold (a case's text nesting what separates two cases, cases not led by
    `schema_version`, integers orjson cannot write, characters that are escaped)."""
    expected = b"".join(jsontext.dump_json_bytes(case, indent=None) + b"\n" for case in cases) or b"\n"
    assert jsontext.json_lines(cases) == expected


def test_json_lines_of_normalized_cases_nesting_the_cut() -> None:
    nested = {"schema_version": "v", "id": "a", "extensions": {"k": [{"a": 1}, {"schema_version": "x"}]}}
    plain = {"schema_version": "v", "id": "b"}
    assert jsontext.json_lines([nested, plain]) == (
        b'{"schema_version":"v","id":"a","extensions":{"k":[{"a":1},{"schema_version":"x"}]}}\n'
        b'{"schema_version":"v","id":"b"}\n'
    )
    assert jsontext.json_lines([plain, plain]) == b'{"schema_version":"v","id":"b"}\n' * 2
