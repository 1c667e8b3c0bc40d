"""Characters that reorder what a reader sees are printed escaped everywhere: every
character of Unicode's Bidi_Control set (U+061C, U+200E/F, U+202A-202E, U+2066-2069)
and the other reordering format characters (U+206A-206F, U+FFF9-FFFB), in diffs,
messages, file names and JSON output."""

from __future__ import annotations

import json
import unicodedata

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.cli.jsontext import dump_json
from fixture_migrate.files.diff import REORDERING, escape_json, escape_text, render_diff

BIDI_CONTROL = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
"""Unicode's Bidi_Control property (PropList.txt), all twelve."""

OTHER_REORDERING = [*range(0x206A, 0x2070), *range(0xFFF9, 0xFFFC)]


def test_the_set_is_every_explicit_bidi_formatting_character():
    # The embeddings, overrides, isolates and their terminators, by their bidi class:
    # every one of them is in Bidi_Control, so none can be missing from the list.
    explicit = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
    found = {c for c in range(0x110000) if unicodedata.bidirectional(chr(c)) in explicit}
    assert found <= set(BIDI_CONTROL)
    assert len(BIDI_CONTROL) == 12


@pytest.mark.parametrize("code", BIDI_CONTROL + OTHER_REORDERING, ids=lambda c: f"U+{c:04X}")
def test_each_reordering_character_is_escaped(code):
    char = chr(code)
    assert escape_text(f"a{char}b") == f"a\\u{code:04x}b"
    assert escape_json(f'"a{char}b"') == f'"a\\u{code:04x}b"'
    assert char not in dump_json({"v": f"a{char}b"})
    assert json.loads(dump_json({"v": f"a{char}b"})) == {"v": f"a{char}b"}, "the value is unchanged"
    assert char not in render_diff(f"x{char}\n", "y\n", "f.json", "f.json")


def test_joiners_stay_as_they_are():
    for char in ("\u200c", "\u200d"):  # scripts and emoji need them; they reorder nothing
        assert escape_text(char) == char


def test_arabic_letter_mark_in_a_fixture_its_name_and_messages(tmp_path, capsys):
    alm = "\u061c"
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    fixture = evals / f"a{alm}b.json"
    payload = {
        "schema_version": "prompt-examples/v1",
        "skill": "demo",
        "examples": [{"name": f"x{alm}y", "user_intent": f"hi {alm} there", "expected_posture": "ok"}],
    }
    fixture.write_text(json.dumps(payload, ensure_ascii=False))
    for argv in (["migrate", "--diff", "-v"], ["validate", "-v"], ["normalize", "-v"], ["detect"]):
        main([*argv, "--repo-root", str(tmp_path), str(fixture)])
        out, err = capsys.readouterr()
        assert alm not in out and alm not in err, argv
    main(["migrate", "--diff", "--repo-root", str(tmp_path), str(fixture)])
    out = capsys.readouterr().out
    assert '"a/skills/demo/evals/a\\330\\234b.json"' in out, "the diff header quotes the name as git does"
    assert "hi \\u061c there" in out


def test_the_class_holds_what_it_says():
    import re

    pattern = re.compile(f"[{REORDERING}]")
    assert all(pattern.match(chr(c)) for c in BIDI_CONTROL + OTHER_REORDERING)


INVISIBLE_CHARS = [0x180E, 0x200B, *range(0x2060, 0x2065), 0xFEFF, 0xE0000, 0xE0001, 0xE0041, 0xE007F]


@pytest.mark.parametrize("code", INVISIBLE_CHARS, ids=lambda c: f"U+{c:04X}")
def test_each_invisible_character_is_escaped_and_json_stays_valid(code):
    """Zero-width, word-joiner, BOM and tag characters show nothing, so they could hide a
    difference or a message: escaped in text, diffs and JSON output; a JSON value is unchanged."""
    char = chr(code)
    shown = f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    assert escape_text(f"a{char}b") == f"a{shown}b"
    assert char not in render_diff(f"x{char}\n", "y\n", f"f{char}.json", "f.json")
    dumped = dump_json({"v": f"a{char}b"})
    assert char not in dumped
    assert json.loads(dumped) == {"v": f"a{char}b"}
    assert json.loads(escape_json(json.dumps(f"a{char}b", ensure_ascii=False))) == f"a{char}b"


@pytest.mark.parametrize("code", [0x200C, 0x200D])
def test_the_joiners_scripts_and_emoji_need_stay_raw(code):
    assert escape_text(f"a{chr(code)}b") == f"a{chr(code)}b"


def test_a_hidden_tag_message_in_a_file_name_is_shown_in_messages(tmp_path, capsys):
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "rm -rf")
    bad = tmp_path / f"bad{hidden}\u200b\ufeff.json"
    bad.write_text("{")
    assert main(["validate", "--repo-root", str(tmp_path), str(bad)]) == 2
    err = capsys.readouterr().err
    assert not any(0xE0000 <= ord(c) <= 0xE007F or c in "\u200b\ufeff" for c in err)
    assert "\\U000e0072" in err and "\\u200b" in err and "\\ufeff" in err


def test_every_character_escape_json_rewrites_is_found_by_dump_json():
    from fixture_migrate.cli.jsontext import _UNSAFE_LEADS
    from fixture_migrate.files.diff import _UNSAFE

    for code in range(0x110000):
        if 0xD800 <= code < 0xE000 or not _UNSAFE.match(chr(code)) or code < 0x20:
            continue
        encoded = chr(code).encode()
        assert any(encoded.startswith(lead) or lead.startswith(encoded) for lead in _UNSAFE_LEADS), f"U+{code:04X}"
