"""Hostile and odd input: each is a clear one-line error or a correct result, never a
traceback, never a partial write. Mostly JSON and JSON Lines (the parsers' own
limits); the YAML-tag and Python-import cases at the end need those syntaxes, which
`fixture_migrate.formats` registers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.formats import MAX_DEPTH, MAX_INT_DIGITS, SYNTAX_BY_SUFFIX, limits, load_document, nesting_depth
from fixture_migrate.formats.json_text import parse_spans

from tests.helpers import migrate_sample, plan

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
COMMANDS = [
    ["migrate", "--diff"],
    ["migrate", "--check"],
    ["normalize"],
    ["normalize", "--output-format", "jsonl", "--as-migrated"],
    ["validate"],
    ["validate", "--output-format", "json"],
    ["detect"],
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def legacy(*, ascii_only: bool = True, **case: object) -> str:
    """A prompt-examples/v1 file holding one example with `case`'s members (JSON text;
    with `ascii_only` False, characters JSON allows raw are written raw)."""
    example = {"name": "Hostile", "user_intent": "Say hi.", "expected_posture": "Hi.", **case}
    payload = {"schema_version": "prompt-examples/v1", "skill": "demo", "examples": [example]}
    return json.dumps(payload, indent=2, ensure_ascii=ascii_only)


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": error: " in line]


def message_of(line: str) -> str:
    """An error line without its `(help: ...)` next step: `path:line:col: error: message [code]`."""
    return re.sub(r" \(help: [^()]*\)$", "", line)


# Numbers: every digit kept, nothing turned into a float, odd spellings written as they were.

BIG = "123456789012345678901234567890"
HUGE = "9" * 400


def test_integers_beyond_64_bits_are_written_exactly():
    source = legacy().replace('"Hi."', f'"Hi.", "big": {BIG}, "neg": -{BIG}, "huge": {HUGE}')
    after = migrate_sample(source).after
    for token in (f'"big": {BIG}', f'"neg": -{BIG}', f'"huge": {HUGE}'):
        assert token in after
    assert plan(after).status == "unchanged"


@pytest.mark.parametrize("token", ["-0", "1.50", "1E2", "1e-7", "0.1e+1", "-0.0", "18446744073709551616"])
def test_numbers_are_written_as_they_were_spelled(token):
    after = migrate_sample(legacy().replace('"Hi."', f'"Hi.", "n": [{token}]')).after
    assert f'"n": [{token}]' in after


def test_normalize_and_validate_keep_big_integers_exact(tmp_path, capsys):
    fixture = tmp_path / "cases.json"
    fixture.write_text(legacy(context=[0]).replace('"context": [\n        0', f'"context": [\n        {HUGE}'))
    code, out, _ = run(capsys, "normalize", "--repo-root", str(tmp_path), str(fixture))
    assert code == 0 and json.loads(out)[0]["extensions"]["context"] == [int(HUGE)]
    assert HUGE in out
    code, out, _ = run(capsys, "normalize", "--as-migrated", "--repo-root", str(tmp_path), str(fixture))
    assert code == 0 and HUGE in out
    code, out, _ = run(capsys, "validate", "--output-format", "json", "--repo-root", str(tmp_path), str(fixture))
    assert code == 1 and {e["reason_code"] for e in json.loads(out)} >= {"missing_coverage_tags"}


def test_big_integers_in_jsonl_are_kept(tmp_path, capsys):
    fixture = tmp_path / "evals" / "out.jsonl"
    fixture.parent.mkdir()
    fixture.write_text(f'{{"id": "a", "prompt": "p", "weight": {HUGE}}}\n')
    code, _, err = run(capsys, "migrate", "--repo-root", str(tmp_path), str(fixture))
    assert code == 0, err
    assert f'"weight": {HUGE}' in (tmp_path / "evals" / "out.json").read_text()


@pytest.mark.parametrize(
    "value, message",
    [
        ("NaN", "invalid JSON"),
        ("Infinity", "invalid JSON"),
        ("-Infinity", "invalid JSON"),
        ("1e400", "invalid JSON: number 1e400 is too large for a floating-point value"),
        (f'{HUGE}, "x": NaN', "invalid JSON: NaN is not valid JSON"),
        ("1" + "0" * 5000, "an integer of more than 4300 digits is not supported"),
        (f'{HUGE}, "s": "\\ud800"', "invalid JSON: a \\u escape stands for a lone surrogate"),
    ],
    ids=["nan", "infinity", "minus-infinity", "float-overflow", "nan-after-big-int", "5001-digits", "lone-surrogate"],
)
def test_non_numbers_and_unreadable_numbers_are_refused(tmp_path, capsys, value, message):
    fixture = tmp_path / "cases.json"
    content = legacy().replace('"Hi."', f'"Hi.", "n": {value}')
    fixture.write_text(content)
    code, _, err = run(capsys, "migrate", "--repo-root", str(tmp_path), str(fixture))
    (line,) = error_lines(err)
    code_name = "integer_too_long" if "digits" in message else "invalid_json"
    assert code == 2 and message in line and message_of(line).endswith(f"[{code_name}]")
    assert fixture.read_text() == content


# Nesting: a clear error at a documented limit, whatever the path, never a crash.

DEEP = 100_000


DEEP_YAML = "schema_version: prompt-examples/v1\nexamples:\n  - name: a\n    user_intent: q\n    x: "
DEEP_PY = 'CASES = [{"name": "a", "user_intent": "q", "x": '


def deep_json(depth: int) -> str:
    return legacy().replace('"Hi."', '"Hi.", "deep": ' + "[" * depth + "]" * depth)


@pytest.mark.parametrize(
    "name, content",
    [
        ("cases.json", deep_json(DEEP)),
        ("cases.json", deep_json(DEEP).replace('"deep": [', f'"big": {HUGE}, "deep": [')),  # stdlib fallback path
        ("cases.json", "[" * DEEP + "]" * DEEP),
        ("cases.json", '{"a": ' * DEEP + "1" + "}" * DEEP),
        ("cases.jsonl", '{"id": "a", "prompt": "p"}\n{"id": "b", "x": ' + "[" * DEEP + "]" * DEEP + "}\n"),
        ("cases.json", deep_json(MAX_DEPTH)),
        ("cases.yaml", DEEP_YAML + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n"),
        ("cases.py", DEEP_PY + "[" * 150 + "]" * 150 + "}]\n"),
        ("cases.py", DEEP_PY + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}]\n"),
    ],
    ids=[
        "arrays",
        "arrays-with-big-int",
        "top-level-array",
        "objects",
        "jsonl",
        "just-over-the-limit",
        "yaml",
        "python",
        "python-just-over",
    ],
)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda argv: "-".join(argv).replace("--", ""))
def test_deep_nesting_is_an_error_in_every_command(tmp_path, capsys, name, content, command):
    fixture = tmp_path / name
    fixture.write_text(content)
    code, _, err = run(capsys, *command, "--repo-root", str(tmp_path), str(fixture))
    (line,) = error_lines(err)
    assert code == 2
    assert message_of(line).endswith(f"nesting deeper than {MAX_DEPTH} levels is not supported [too_deep]")
    assert re.search(r":\d+:\d+: error: ", line), "the error names the line and column"
    assert fixture.read_text() == content


def test_deep_nesting_is_an_error_for_the_installed_command_too(tmp_path):
    fixture = tmp_path / "cases.json"
    fixture.write_text(deep_json(DEEP))
    done = subprocess.run(
        [sys.executable, "-m", "fixture_migrate", "migrate", str(fixture)], capture_output=True, text=True, env=ENV
    )
    assert done.returncode == 2 and "[too_deep]" in done.stderr and "Traceback" not in done.stderr


def test_nesting_up_to_the_limit_is_migrated():
    source = deep_json(MAX_DEPTH - 5)
    migrated = migrate_sample(source)
    assert "[" * (MAX_DEPTH - 5) in migrated.after
    assert plan(migrated.after).status == "unchanged"


def test_a_migration_that_would_nest_past_the_limit_is_refused():
    # The member moves under `extensions`, one level deeper than the limit allows.
    result = plan(deep_json(MAX_DEPTH - 3))
    assert result.status == "error" and result.error is not None
    assert (result.error.code, result.error.message) == (
        "too_deep",
        f"refused: the migrated file would nest deeper than {MAX_DEPTH} levels",
    )


def test_the_span_parser_and_the_depth_count_are_iterative():
    text = "[" * DEEP + "]" * DEEP
    node, depth = parse_spans(text), 0
    while node.children:
        node, depth = node.children[0], depth + 1
    assert depth == DEEP - 1
    nested: list = []
    for _ in range(DEEP):
        nested = [nested]
    assert nesting_depth(nested) == MAX_DEPTH + 1, "counted level by level, up to one past the limit"
    assert nesting_depth([[1], {"a": [{}]}]) == 4 and nesting_depth("x") == 0


def test_a_syntax_whose_parser_recurses_too_deep_gets_an_error(monkeypatch):
    from fixture_migrate.formats import json_format

    def recurse(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(json_format, "read", recurse)
    result = plan('{"cases": []}')
    assert result.status == "error" and result.error is not None and result.error.code == "too_deep"


# Size: a documented limit, refused before anything is read, memory bounded.


PEAK = """
import sys
from fixture_migrate.cli.app import main
code = main(sys.argv[1:])
status = open("/proc/self/status").read()
print(next(line for line in status.splitlines() if line.startswith("VmHWM:")))
sys.exit(code)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc")
def test_a_200_mb_file_is_refused_with_bounded_memory(tmp_path):
    fixture = tmp_path / "huge.json"
    with open(fixture, "wb") as handle:
        handle.write(b'{"schema_version": "prompt-examples/v1", "examples": [], "pad": "')
        block = b"x" * (1 << 20)
        for _ in range(200):
            handle.write(block)
        handle.write(b'"}\n')
    size = fixture.stat().st_size
    done = subprocess.run(
        [sys.executable, "-c", PEAK, "migrate", str(fixture)], capture_output=True, text=True, env=ENV
    )
    assert done.returncode == 2
    assert f"error: file is {size:,} bytes, over the 16,777,216-byte limit (16 MiB): not read" in done.stderr
    peak_kib = int(done.stdout.split()[-2])  # "VmHWM:  51234 kB": the process's own high-water mark
    assert peak_kib < 100 * 1024, f"peak memory {peak_kib} KiB for a file refused unread"


def test_the_size_limit_applies_to_every_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 100)
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_text('{"schema_version": "prompt-examples/v1", "examples": []}')
    large.write_text(legacy())
    for command in COMMANDS:
        code, _, err = run(capsys, *command, "--repo-root", str(tmp_path), str(small), str(large))
        (line,) = error_lines(err)
        assert code == 2 and line.startswith(f"{large.as_posix()}: error: file is ") and "[too_large]" in line


# Empty files.


@pytest.mark.parametrize(
    "content",
    [b"", b"   \n\t\r\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf \n"],
    ids=["empty", "whitespace", "bom-only", "bom-and-whitespace"],
)
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda argv: "-".join(argv).replace("--", ""))
def test_empty_files_are_a_one_line_error(tmp_path, capsys, content, suffix, command):
    fixture = tmp_path / f"empty{suffix}"
    fixture.write_bytes(content)
    code, _, err = run(capsys, *command, "--repo-root", str(tmp_path), str(fixture))
    (line,) = error_lines(err)
    assert code == 2 and message_of(line) == f"{fixture.as_posix()}:1:1: error: empty file: no JSON " + (
        "value [empty]" if suffix == ".json" else "lines [empty]"
    )
    assert fixture.read_bytes() == content


@pytest.mark.parametrize(
    "content, code_name",
    [
        (b"\xff\xfe{\x00}\x00", "encoding"),
        (b'{"cases": [{"id": "caf\xc3"}]}', "encoding"),
        (b"\x00\x01\x02", "invalid_json"),
        (b'{"cases": "\x1b[2J"}', "invalid_json"),
    ],
    ids=["utf-16", "truncated-utf-8", "binary", "raw-escape-in-string"],
)
def test_binary_and_mis_encoded_files_are_a_one_line_error(tmp_path, capsys, content, code_name):
    fixture = tmp_path / "bad.json"
    fixture.write_bytes(content)
    code, out, err = run(capsys, "migrate", "--diff", "--repo-root", str(tmp_path), str(fixture))
    (line,) = error_lines(err)
    assert code == 2 and message_of(line).endswith(f"[{code_name}]") and not UNSAFE.search(out + err)


def test_a_named_pipe_in_a_walk_is_refused_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "cases.json").write_text(legacy())
    done = subprocess.run(
        [sys.executable, "-m", "fixture_migrate", "migrate", "--repo-root", str(tmp_path), str(tmp_path)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert done.returncode == 2 and "pipe.json: error: not a regular file" in done.stderr
    assert json.loads((tmp_path / "cases.json").read_text())["schema_version"].endswith(".v1")


# Terminal safety: control characters, ANSI escapes and bidi overrides are printed escaped.

EVIL = "\u001b[2J\u001b]0;owned\u0007\u009b31m\u202egnp.exe\u2028\u0000\r"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda argv: "-".join(argv).replace("--", ""))
def test_no_command_prints_a_raw_control_character(tmp_path, capsys, command):
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    payload = {
        "schema_version": "prompt-examples/v1",
        EVIL + "key": EVIL,
        "source_refs": [EVIL + ".md"],
        "examples": [
            {"name": EVIL, "user_intent": EVIL, "expected_posture": [EVIL], EVIL: {EVIL: EVIL}},
            {"id": EVIL, "coverage_tags": [EVIL], "expected_outcome": EVIL},
        ],
    }
    (evals / "cases.json").write_text(json.dumps(payload, ensure_ascii=False))
    (evals / "lines.jsonl").write_text(json.dumps({"id": EVIL, "prompt": EVIL}, ensure_ascii=False) + "\n")
    (evals / ("bad" + EVIL.replace("\u0000", "") + ".json")).write_text('{"a": 1, "a\\u001b[31m": 2, "a": 3}')
    (evals / "dup.json").write_text('{"cases": [], "\\u001b[31m": 1, "\\u001b[31m": 2}')
    code, out, err = run(capsys, *command, "--repo-root", str(tmp_path), str(tmp_path))
    assert code in (0, 1, 2)
    assert not UNSAFE.search(out), UNSAFE.findall(out)
    assert not UNSAFE.search(err), UNSAFE.findall(err)
    assert "\\x1b[2J" in out + err or "\\u001b[2J" in out + err, "the escape is shown, not dropped"


def test_the_diff_of_a_hostile_fixture_escapes_every_line(tmp_path, capsys):
    fixture = tmp_path / "cases.json"
    fixture.write_text(legacy(ascii_only=False, note="a\u009b31mb\u202ec"), encoding="utf-8")
    assert "\u009b" in fixture.read_text(encoding="utf-8"), "raw in the file"
    code, out, _ = run(capsys, "migrate", "--diff", "--repo-root", str(tmp_path), str(fixture))
    assert code == 0 and '"note": "a\\x9b31mb\\u202ec"' in out and not UNSAFE.search(out)


# Paths: spaces, non-ASCII names, names starting with `-`, names that are not UTF-8.


@pytest.mark.parametrize(
    "name", ["with space.json", "ünïcødé-名前.json", "-dash.json", "--double.json", "new\nline.json"]
)
def test_odd_file_names_are_migrated_and_named_safely(tmp_path, capsys, name):
    fixture = tmp_path / name
    fixture.write_text(legacy())
    code, _, err = run(capsys, "migrate", "--repo-root", str(tmp_path), "--", str(fixture))
    assert code == 0, err
    assert json.loads(fixture.read_text())["schema_version"].endswith(".v1")
    assert not UNSAFE.search(err) and name.replace("\n", "\\x0a") in err


def test_a_dash_name_in_a_walk_is_a_file_not_an_option(tmp_path, capsys):
    (tmp_path / "-v.json").write_text(legacy())
    (tmp_path / "--check.json").write_text(legacy())
    code, _, err = run(capsys, "migrate", "--repo-root", str(tmp_path), str(tmp_path))
    assert code == 0 and "Migrated 2 files" in err


def test_a_dash_name_given_directly_needs_the_usual_separator(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-x.json").write_text(legacy())
    assert run(capsys, "migrate", "--check", "-x.json")[0] == 2, "without `--` it is an unknown option"
    assert run(capsys, "migrate", "--check", "--", "-x.json")[0] == 1
    assert run(capsys, "migrate", "--check", "./-x.json")[0] == 1


def test_a_file_name_that_is_not_utf8_is_processed_and_printed_escaped(tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9.json"
    with open(name, "wb") as handle:
        handle.write(legacy().encode())
    done = subprocess.run(
        [sys.executable, "-m", "fixture_migrate", "migrate", "--repo-root", str(tmp_path), str(tmp_path)],
        capture_output=True,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    assert b"caf\\udce9.json" in done.stderr
    with open(name, "rb") as handle:
        assert b"spec-first.workflow-eval-fixtures.v1" in handle.read()


# YAML and Python: no object is ever constructed from a tag, no module is ever run.

needs_yaml = pytest.mark.skipif(".yaml" not in SYNTAX_BY_SUFFIX, reason="YAML support is not registered yet")
needs_python = pytest.mark.skipif(".py" not in SYNTAX_BY_SUFFIX, reason="Python fixture support is not registered yet")


@needs_yaml
@pytest.mark.parametrize(
    "tagged",
    [
        "!!python/object/apply:os.system ['touch {marker}']",
        "!!python/object/new:os.system ['touch {marker}']",
        "!!python/name:os.system",
        "!!python/module:os",
        "!custom {{a: 1}}",
    ],
)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda argv: "-".join(argv).replace("--", ""))
def test_yaml_tags_never_construct_objects(tmp_path, capsys, tagged, command):
    marker = tmp_path / "PWNED"
    fixture = tmp_path / "cases.yaml"
    fixture.write_text(
        "schema_version: prompt-examples/v1\nskill: demo\nexamples:\n"
        f"  - name: Tagged\n    user_intent: Say hi.\n    payload: {tagged.format(marker=marker)}\n"
    )
    code, out, err = run(capsys, *command, "--repo-root", str(tmp_path), str(fixture))
    assert code in (0, 1, 2) and "Traceback" not in err
    assert not marker.exists()
    assert all(message_of(line).endswith("]") for line in error_lines(err))


@needs_python
@pytest.mark.parametrize("command", COMMANDS, ids=lambda argv: "-".join(argv).replace("--", ""))
def test_python_fixture_modules_are_never_imported_or_run(tmp_path, capsys, command):
    marker = tmp_path / "PWNED"
    fixture = tmp_path / "fixtures.py"
    fixture.write_text(
        f"import os\nos.system('touch {marker}')\nopen({str(marker)!r}, 'w').close()\n"
        "FIXTURE = {'schema_version': 'prompt-examples/v1', 'skill': 'demo',\n"
        f"           'examples': [{{'name': __import__('os').system('touch {marker}'), 'user_intent': 'x'}}]}}\n"
    )
    before = set(sys.modules)
    code, out, err = run(capsys, *command, "--repo-root", str(tmp_path), str(fixture))
    assert code in (0, 1, 2) and "Traceback" not in err
    assert not marker.exists() and "fixtures" not in set(sys.modules) - before


def test_load_document_never_sees_a_python_or_yaml_file_as_json(tmp_path):
    # Until their syntaxes land, such files are unsupported, not parsed as something else.
    for name in ("cases.yaml", "fixtures.py"):
        if Path(name).suffix not in SYNTAX_BY_SUFFIX:
            with pytest.raises(Exception) as caught:
                load_document(tmp_path / name, b"x: 1")
            assert getattr(caught.value, "code", None) == "unsupported"


LEGACY_JSON = (
    '{"schema_version": "prompt-examples/v1", "skill": "s", "examples": [{"name": "a", "user_intent": "q"}]}\n'
)


@pytest.mark.parametrize("command", [["migrate", "--check"], ["detect"], ["validate", "--no-ref-check"], ["normalize"]])
def test_unreadable_python_and_yaml_stop_only_their_own_file(tmp_path, capsys, command):
    # In a skill's evals/ folder, where fixtures live, a file that cannot be read is an error
    # (elsewhere a walk skips it: test_unreadable_walked_files_outside_evals_are_skipped).
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "deep.py").write_text("CASES = " + "[" * 2000 + "]" * 2000 + "\n")  # crashed libcst's parser
    (evals / "hex.py").write_text('CASES = [{"name": "a", "user_intent": "q", "x": 0x' + "f" * 4000 + "}]\n")
    (evals / "big.yaml").write_text(
        "schema_version: prompt-examples/v1\nexamples:\n  - name: a\n    user_intent: q\n    x: " + "1" * 4301 + "\n"
    )
    (evals / "decimal.py").write_text('CASES = [{"name": "a", "user_intent": "q", "x": ' + "9" * 5000 + "}]\n")
    (evals / "escape.py").write_text('CASES = [{"name": "a", "user_intent": "\\N{NOT A NAME}"}]\n')
    (evals / "good.json").write_text(LEGACY_JSON)
    code, out, err = run(capsys, *command, "--repo-root", str(tmp_path), str(tmp_path))
    assert code == 2
    lines = error_lines(err)
    assert any(line.startswith(f"{(evals / 'deep.py').as_posix()}:1:") and "[invalid_python]" in line for line in lines)
    assert any(f"{(evals / 'hex.py').as_posix()}:1:" in line and "[integer_too_long]" in line for line in lines)
    assert any(f"{(evals / 'big.yaml').as_posix()}:5:8:" in line and "[integer_too_long]" in line for line in lines)
    assert any(f"{(evals / 'decimal.py').as_posix()}:1:49:" in line and "[integer_too_long]" in line for line in lines)
    assert any(
        f"{(evals / 'escape.py').as_posix()}:1:39:" in line
        and "unknown Unicode character name [invalid_python]" in line
        for line in lines
    )
    assert "good.json" in out + err  # the readable file was still processed


@pytest.mark.parametrize("command", [["migrate", "--check"], ["detect"]])
def test_unreadable_walked_files_outside_evals_are_skipped(tmp_path, capsys, command):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "malformed.json").write_text('{"a": ')
    (tmp_path / "tests" / "empty.jsonl").write_text("")
    (tmp_path / "samples.jsonl").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 12\n")
    (tmp_path / "devcontainer.json").write_text('{\n  // editor settings\n  "name": "x",\n}\n')
    (tmp_path / "good.json").write_text(LEGACY_JSON)
    code, out, err = run(capsys, *command, "--repo-root", str(tmp_path), "-v", str(tmp_path))
    assert code == (1 if "--check" in command else 0)
    assert "Git LFS pointer" in out + err and "JSON with comments" in out + err
    if command[0] == "migrate":
        assert "4 skipped as unreadable" in err
    named = run(capsys, *command, "--repo-root", str(tmp_path), str(tmp_path / "samples.jsonl"))
    assert named[0] == 2 and "a Git LFS pointer" in named[2]


@pytest.mark.parametrize("command", [["migrate", "--check"], ["normalize"], ["validate", "--output-format", "json"]])
def test_a_lone_surrogate_escape_is_a_placed_error_in_every_syntax(tmp_path, capsys, command):
    tmp_path = tmp_path / "skills" / "demo" / "evals"  # where a file that cannot be read is an error
    tmp_path.mkdir(parents=True)
    (tmp_path / "s.py").write_text('CASES = [\n    {"name": "a\\ud800", "user_intent": "q"},\n]\n')
    (tmp_path / "s.yaml").write_text('schema_version: prompt-examples/v1\nexamples:\n  - name: "\\ud800"\n')
    (tmp_path / "s.json").write_text('{"cases": [{"id": "\\ud800"}]}')
    (tmp_path / "good.json").write_text(LEGACY_JSON)
    code, out, err = run(capsys, *command, "--repo-root", str(tmp_path), str(tmp_path))
    assert code == 2 and "Traceback" not in err and "internal" not in err
    lines = error_lines(err)
    assert any(f"{(tmp_path / 's.py').as_posix()}:2:14:" in line and "[invalid_python]" in line for line in lines)
    assert any(f"{(tmp_path / 's.yaml').as_posix()}:3:11:" in line and "[invalid_yaml]" in line for line in lines)
    assert any(f"{(tmp_path / 's.json').as_posix()}:" in line and "[invalid_json]" in line for line in lines)
    assert "good.json" in out + err  # the readable file was still processed


@pytest.mark.parametrize(
    "literal, accepted",
    [
        ("9" * MAX_INT_DIGITS, True),
        ("_".join("9" * MAX_INT_DIGITS), True),
        (hex(10**MAX_INT_DIGITS - 1), True),
        ("9" * (MAX_INT_DIGITS + 1), False),
        (hex(10**MAX_INT_DIGITS), False),
    ],
    ids=["4300-digits", "4300-digits-with-separators", "hex-of-4300-digits", "4301-digits", "hex-of-4301-digits"],
)
def test_python_integers_are_limited_by_their_decimal_digits(literal, accepted):
    source = f'CASES = [{{"name": "a", "user_intent": "q", "n": {literal}, "expected": "e"}}]\n'
    result = plan(source, "skills/s/evals/test_cases.py")
    if accepted:
        assert result.status == "changed", result.error and result.error.message
    else:
        assert result.status == "error" and result.error is not None and result.error.code == "integer_too_long"
        assert (result.error.line, result.error.column) == (1, 49)
