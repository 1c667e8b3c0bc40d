"""Python modules are read as Python reads them and written back as they were stored:
the encoding a PEP 263 coding cookie (or a byte order mark) names, universal newlines
for parsing, and every byte outside the edited literal kept, line endings included
(lone CR, CRLF, mixed). A character the encoding cannot hold never becomes mojibake.
"""

from __future__ import annotations

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats.python_format import PythonSource

from tests.helpers import plan

CASES = 'CASES = [\n    {"name": "Caf\u00e9 order", "user_intent": "Order a caf\u00e9.", "expected": "ok"},\n]\n'
MIGRATED_LITERAL = (
    '{"id": "caf-order", "input": "Order a caf\u00e9.", "expected_outcome": "ok", '
    '"extensions": {"name": "Caf\u00e9 order"}}'
)
PATH = "skills/demo/evals/test_cases.py"


def reads_as(raw: bytes) -> dict:
    """What Python itself makes of the module's bytes."""
    namespace: dict = {}
    exec(compile(raw, "m.py", "exec"), namespace)
    return namespace


def migrated(raw: bytes, path: str = PATH) -> bytes:
    result = plan(raw, path)
    assert result.status == "changed", result.error and result.error.message
    assert result.new_bytes is not None
    return result.new_bytes


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "lone-cr"])
def test_each_line_ending_is_read_and_kept(newline):
    source = ("# header comment" + newline + CASES.replace("\n", newline)).encode("utf-8")
    new = migrated(source)
    assert reads_as(new)["CASES"][0]["input"] == "Order a caf\u00e9."
    endings = {
        "\n": new.count(b"\n") - new.count(b"\r\n"),
        "\r\n": new.count(b"\r\n"),
        "\r": new.count(b"\r") - new.count(b"\r\n"),
    }
    assert endings[newline] > 0 and sum(endings.values()) == endings[newline], "one line ending, the file's own"
    assert plan(new, PATH).status == "unchanged"


def test_mixed_line_endings_stay_byte_for_byte_outside_the_literal():
    head = b"import os\r\n\r\n# kept as it is\r"
    tail = b"\n\ndef test():\r\n    pass\r\n"
    source = head + CASES.encode("utf-8") + tail
    new = migrated(source)
    assert new.startswith(head) and new.endswith(tail)


@pytest.mark.parametrize(
    "cookie", ["# -*- coding: latin-1 -*-", "# vim: set fileencoding=iso-8859-15 :", "# coding=cp1252"]
)
def test_a_coding_cookie_is_read_and_the_module_written_back_in_it(cookie):
    encoding = cookie.split("coding")[1].strip(":= -*").split()[0]
    source = (cookie + "\n" + CASES).encode(encoding)
    new = migrated(source)
    assert new.startswith(cookie.encode()) and MIGRATED_LITERAL.encode(encoding) in new
    assert reads_as(new)["CASES"][0]["extensions"]["name"] == "Caf\u00e9 order"
    with pytest.raises(UnicodeDecodeError):
        new.decode("utf-8")  # still latin-1 bytes, not UTF-8 mojibake


def test_a_new_value_the_encoding_cannot_hold_is_written_as_an_escape(tmp_path, capsys):
    folder = tmp_path / "skills" / "caf\u00e9\u20ac" / "evals"  # the skill the migration writes comes from here
    folder.mkdir(parents=True)
    module = folder / "m.py"
    module.write_bytes(
        b"# -*- coding: latin-1 -*-\n"
        b'FIXTURE = {"schema_version": "prompt-examples/v1", "examples": [{"name": "A", "user_intent": "hi"}]}\n'
    )
    assert main(["migrate", "--repo-root", str(tmp_path), str(module)]) == 0, capsys.readouterr().err
    new = module.read_bytes()
    assert b'"skill": "caf\xe9\\u20ac"' in new, "latin-1 holds the \u00e9 itself; the euro sign gets an escape"
    assert reads_as(new)["FIXTURE"]["skill"] == "caf\u00e9\u20ac"


def test_the_diff_of_a_latin1_module_shows_its_text(tmp_path, capsys):
    module = tmp_path / "m.py"
    module.write_bytes(("# coding: latin-1\n" + CASES).encode("latin-1"))
    assert main(["migrate", "--diff", "--repo-root", str(tmp_path), str(module)]) == 0
    out = capsys.readouterr().out
    assert '-    {"name": "Caf\u00e9 order"' in out and "+    " + MIGRATED_LITERAL in out


def test_text_the_encoding_cannot_hold_is_a_placed_error():
    source = PythonSource(b"# coding: ascii\nX = 1\n")
    with pytest.raises(FixtureError) as caught:
        source.render([(len("# coding: ascii\nX = "), len("# coding: ascii\nX = 1"), "'\u00e9'")])
    error = caught.value
    assert (error.code, error.line, error.column) == ("encoding", 2, 6)
    assert "'\u00e9' (U+00E9)" in error.message and "ascii" in error.message


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"# coding: latin-1\nX = '\xe9'\n", None),
        (b"# coding: nope\nX = 1\n", "unknown encoding"),
        (b"CASES = [{'name': 'caf\xe9', 'user_intent': 'x', 'expected': 'y'}]\n", "not valid UTF-8"),
        (b"# coding: ascii\nCASES = [{'name': 'caf\xe9', 'user_intent': 'x', 'expected': 'y'}]\n", "not valid ascii"),
    ],
)
def test_undecodable_modules_are_a_placed_error(raw, message):
    if message is None:
        assert PythonSource(raw).text == "# coding: latin-1\nX = '\u00e9'\n"
        return
    with pytest.raises(FixtureError) as caught:
        PythonSource(raw)
    assert caught.value.code == "encoding" and message in caught.value.message
    assert caught.value.line is not None


def test_a_bom_and_crlf_module_untouched_is_returned_as_it_is():
    raw = b"\xef\xbb\xbf# nothing to do\r\nX = 1\r"
    source = PythonSource(raw)
    assert source.bom and source.text == "# nothing to do\nX = 1\n"
    assert source.render([]) == raw


def test_the_codemod_keeps_the_module_encoding():
    import libcst as cst
    from fixture_migrate.migration.codemod import MigrateFixtureLiterals
    from libcst.codemod import CodemodContext

    raw = ("# coding: latin-1\n" + CASES).encode("latin-1")
    tree = cst.parse_module(raw)
    new = MigrateFixtureLiterals(CodemodContext(filename=PATH)).transform_module(tree)
    assert new.encoding in ("latin-1", "iso-8859-1") and MIGRATED_LITERAL in new.code
    assert reads_as(new.bytes)["CASES"][0]["extensions"]["name"] == "Caf\u00e9 order"


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"], ids=["lone-cr", "crlf", "lf"])
@pytest.mark.parametrize("line", [1, 2], ids=["cookie-line-1", "cookie-line-2"])
def test_a_coding_cookie_is_found_whatever_the_line_endings(newline, line):
    """A lone-CR module is one line to `BytesIO.readline`: the cookie is still found on
    line 1 or 2, as Python's tokenizer finds it."""
    lead = "#!/usr/bin/env python" + newline if line == 2 else ""
    raw = (lead + "# -*- coding: latin-1 -*-" + newline + CASES.replace("\n", newline)).encode("latin-1")
    new = migrated(raw)
    assert reads_as(new)["CASES"][0]["input"] == "Order a caf\u00e9."
    assert new.startswith((lead + "# -*- coding: latin-1 -*-" + newline).encode())
    assert b"caf\xe9" in new and b"\xc3\xa9" not in new
    assert new.count(newline.encode()) >= raw.count(newline.encode()) and (newline == "\r\n" or b"\r\n" not in new)


def test_mixed_line_endings_are_kept_where_the_literal_keeps_its_text():
    raw = b"CASES = [\r\n  {'name': 'a',\r 'user_intent': 'x',\n 'expected': 'y'},\r]\n"
    new = migrated(raw)
    assert new.startswith(b"CASES = [\r\n"), "the CRLF after the bracket, untouched by the edit, stays"
    assert new.endswith(b"},\r]\n")
    assert reads_as(new)["CASES"] == [{"id": "a", "input": "x", "expected_outcome": "y", "extensions": {"name": "a"}}]


@pytest.mark.parametrize(
    "lead",
    ["\f", "\f\f", "\f  \f", "X = 1\n\f", "# page\n\f\n"],
    ids=["ff", "two-ff", "ff-spaces-ff", "after-code", "ff-own-line"],
)
def test_a_form_feed_before_a_binding_is_read_and_kept(lead):
    """Python allows form feeds in indentation (a page break); the binding after one is
    still a fixture, and the form feeds stay."""
    raw = (lead + "CASES = [{'name': 'a\f', 'user_intent': 'x',\n\f 'expected': 'y'}]\n").encode()
    new = migrated(raw)
    assert new.startswith((lead + "CASES = [").encode())
    assert reads_as(new)["CASES"] == [{"id": "a", "input": "x", "expected_outcome": "y", "extensions": {"name": "a\f"}}]
