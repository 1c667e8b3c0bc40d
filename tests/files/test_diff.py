"""Unified diffs: patience alignment, hunks that apply, escaping, line endings."""

import random
import shutil
import subprocess

import pytest
from fixture_migrate.files.diff import _opcodes, changed_lines, escape_json, escape_lines, escape_text, render_diff, render_move
from hypothesis import given, settings
from hypothesis import strategies as st


def apply_unified(old: str, diff: str) -> str:
    """Apply a diff from render_diff to `old` (LF text), as `patch` would."""
    lines = old.split("\n")
    out: list[str] = []
    position = 0
    body = diff.splitlines()[2:]
    k = 0
    while k < len(body):
        header = body[k]
        assert header.startswith("@@ -")
        start = int(header.split()[1][1:].split(",")[0])
        old_len = header.split()[1].split(",")
        start_index = start - 1 if len(old_len) == 1 or old_len[1] != "0" else start
        out.extend(lines[position:start_index])
        position = start_index
        k += 1
        while k < len(body) and not body[k].startswith("@@"):
            tag, text = body[k][0], body[k][1:]
            if tag in " -":
                assert lines[position] == text
                position += 1
            if tag in " +":
                out.append(text)
            k += 1
    out.extend(lines[position:])
    return "\n".join(out)


def test_equal_texts_have_no_diff():
    assert render_diff("a\n", "a\n", "x", "x") == ""


def test_headers_hunks_and_context():
    old = "".join(f"line {i}\n" for i in range(20))
    new = old.replace("line 10\n", "line ten\n")
    assert render_diff(old, new, "f.json", "f.json") == (
        "--- a/f.json\n+++ b/f.json\n@@ -8,7 +8,7 @@\n"
        " line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n line 12\n line 13\n"
    )


def test_missing_final_newline_is_marked():
    diff = render_diff("a\nb", "a\nc", "f", "f")
    assert diff.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")


def test_crlf_lines_keep_their_ending_and_a_bom_stays_first():
    diff = render_diff("\ufeffa\r\nb\r\n", "\ufeffa\r\nc\r\n", "f", "f")
    assert diff == "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n \ufeffa\r\n-b\r\n+c\r\n"
    assert render_diff("a\rb\n", "a\rc\n", "f", "f").endswith("-a\\x0db\n+a\\x0dc\n")  # a lone CR is escaped


def test_a_name_with_a_space_ends_with_a_tab():
    diff = render_diff("a\n", "b\n", "my evals.json", "my evals.json")
    assert diff.startswith("--- a/my evals.json\t\n+++ b/my evals.json\t\n")


def test_a_name_with_a_control_or_misleading_character_is_quoted_as_git_quotes_it():
    diff = render_diff("a\n", "b\n", "x\ty\u202e\udcff.json", "x\ty\u202e\udcff.json")
    assert diff.startswith('--- "a/x\\ty\\342\\200\\256\\377.json"\n+++ "b/x\\ty\\342\\200\\256\\377.json"\n')


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("patch") is None, reason="git or patch is missing")
@pytest.mark.parametrize("tool", [["git", "apply"], ["patch", "-p1", "-s", "-i"]])
def test_diffs_of_crlf_bom_and_spaced_names_apply(tmp_path, tool):
    files = {
        "my evals.json": ('\ufeff{\r\n  "a": 1\r\n}\r\n', '\ufeff{\r\n  "b": 1\r\n}\r\n'),
        "plain.yaml": ("a: 1\nb: 2\n", "a: 1\nc: 2"),
        'tab\tand "quote".json': ("[1]\n", "[2]\n"),
        "\u202ereversed.json": ("[1]\n", "[2]\n"),
        "not-utf8-\udcff.json": ("[1]\n", "[2]\n"),
    }
    diff = ""
    for name, (old, new) in files.items():
        (tmp_path / name).write_bytes(old.encode("utf-8"))
        diff += render_diff(old, new, name, name)
    (tmp_path / "all.diff").write_bytes(diff.encode("utf-8"))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*tool, "all.diff"], cwd=tmp_path, check=True, capture_output=True)
    for name, (_, new) in files.items():
        assert (tmp_path / name).read_bytes() == new.encode("utf-8")


def test_line_separators_inside_strings_do_not_split_lines():
    diff = render_diff('"a\u2028b"\n', '"a\u2028c"\n', "f", "f")
    assert changed_lines(diff) == 2 and "\\u2028" in diff


def test_control_characters_are_escaped():
    assert escape_text("\x1b[31mred\x07\u202e") == "\\x1b[31mred\\x07\\u202e"
    assert escape_json('"\x9b"') == '"\\u009b"'


@settings(max_examples=300)
@given(st.lists(st.text(alphabet=st.sampled_from("ab\t\n\r\x1b\x85\u2028\u202e\u200b\u200d\ufeffé"), max_size=5), max_size=4))
def test_lines_are_escaped_as_each_line_is(texts):
    assert escape_lines(texts) == "".join(escape_text(text) + "\n" for text in texts)


def test_patience_pairs_moved_blocks_with_themselves():
    cases = [f'  {{"id": "case-{i}", "text": "t{i}"}},\n' for i in range(300)]
    old = "[\n" + "".join(cases) + "]\n"
    new = "[\n" + "".join(c.replace('"text"', '"input"') for c in cases) + "]\n"
    assert changed_lines(render_diff(old, new, "f", "f")) == 600


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["{", "}", "a", "b", "c", "  x", ""]), max_size=40), st.randoms(use_true_random=False))
def test_opcodes_rebuild_the_new_text_and_the_diff_applies(lines, rng: random.Random):
    new = list(lines)
    for _ in range(rng.randint(0, 6)):
        if new and rng.random() < 0.4:
            del new[rng.randrange(len(new))]
        else:
            new.insert(rng.randint(0, len(new)), rng.choice(["a", "z", "{", "  y"]))
    a = [line + "\n" for line in lines]
    b = [line + "\n" for line in new]
    rebuilt = []
    for tag, i1, i2, j1, j2 in _opcodes(a, b):
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        rebuilt.extend(b[j1:j2])
    assert rebuilt == b
    old_text, new_text = "".join(a), "".join(b)
    diff = render_diff(old_text, new_text, "f", "f")
    if diff:
        assert apply_unified(old_text, diff) == new_text


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_move_diff_deletes_the_old_file_and_creates_the_new_with_git_apply(tmp_path):
    old = '{"id": "a"}\n{"id": "b"}'
    new = '{\n  "cases": [\n    {"id": "a"},\n    {"id": "b"}\n  ]\n}\n'
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.jsonl").write_text(old)
    diff = render_move(old, new, "evals/cases.jsonl", "evals/cases.json")
    assert "+++ /dev/null" in diff and "--- /dev/null" in diff
    (tmp_path / "move.diff").write_text(diff)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "move.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert not (tmp_path / "evals" / "cases.jsonl").exists()
    assert (tmp_path / "evals" / "cases.json").read_text() == new
