"""The command line: exit codes, dry runs that write nothing, bad input, every subcommand."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_migrate.cli.app import main

from tests.helpers import CANONICAL, LEGACY

NOT_A_FIXTURE = '{"positive_concepts": {"a": 1}}\n'
BROKEN = '{\n  "schema_version": "prompt-examples/v1",\n  "examples": [}\n'
JSONL = '{"id": "one", "prompt": "Do one thing.", "assertions": []}\n'


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "legacy.json").write_text(LEGACY)
    (evals / "canonical.json").write_text(CANONICAL)
    (evals / "semantic_config.json").write_text(NOT_A_FIXTURE)
    (evals / "output.jsonl").write_text(JSONL)
    (evals / "notes.md").write_text("not read")
    hidden = tmp_path / ".cache"
    hidden.mkdir()
    (hidden / "skipped.json").write_text(BROKEN)
    return tmp_path


def snapshot_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("flags", [["--check"], ["--diff"], ["--check", "--diff"]])
def test_dry_runs_write_nothing(capsys, tree, flags):
    before = snapshot_of(tree)
    code, out, _ = run(capsys, "migrate", *flags, "--repo-root", str(tree), str(tree))
    assert snapshot_of(tree) == before
    assert code == (1 if "--check" in flags else 0)
    assert ("--- a/" in out) == ("--diff" in flags)


def test_write_mode_migrates_renames_jsonl_and_is_idempotent(capsys, tree):
    code, out, err = run(capsys, "migrate", "--repo-root", str(tree), str(tree))
    assert code == 0 and out == ""
    evals = tree / "skills" / "demo" / "evals"
    assert not (evals / "output.jsonl").exists()
    converted = json.loads((evals / "output.json").read_text())
    assert converted["skill"] == "demo" and converted["cases"][0]["input"] == "Do one thing."
    assert json.loads((evals / "legacy.json").read_text())["cases"][0]["id"] == "greets"
    assert (evals / "canonical.json").read_text() == CANONICAL
    assert "Migrated 2 files (2 cases); 1 already canonical (4 files scanned, 1 not a fixture)" in err
    assert run(capsys, "migrate", "--check", "--repo-root", str(tree), str(tree))[0] == 0


def test_write_keeps_the_file_mode(capsys, tree):
    legacy = tree / "skills" / "demo" / "evals" / "legacy.json"
    legacy.chmod(0o640)
    assert run(capsys, "migrate", "--repo-root", str(tree), str(legacy))[0] == 0
    assert legacy.stat().st_mode & 0o777 == 0o640
    assert not list(legacy.parent.glob("*.fixture-migrate.tmp"))


def test_mixed_directory_with_a_broken_file(capsys, tree):
    evals = tree / "skills" / "demo" / "evals"
    (evals / "broken.json").write_text(BROKEN)
    before = snapshot_of(tree)
    code, out, err = run(capsys, "migrate", "--check", "--repo-root", str(tree), str(tree))
    assert code == 2, "an error wins over 'would change'"
    broken = (evals / "broken.json").as_posix()
    assert f"{broken}:3:16: error: invalid JSON" in err
    assert "Would migrate 2 files" in err and "1 error" in err
    assert snapshot_of(tree) == before
    # In write mode the other files are still migrated and the broken one left as it was.
    code, _, err = run(capsys, "migrate", "--repo-root", str(tree), str(tree))
    assert code == 2
    assert (evals / "broken.json").read_text() == BROKEN
    assert json.loads((evals / "legacy.json").read_text())["schema_version"].endswith(".v1")


@pytest.mark.parametrize(
    "content, place, code_name",
    [
        pytest.param(b'{"a": 1,\n "a": 2}', ":2:2:", "duplicate_key", id="duplicate-key"),
        pytest.param(
            b'{"schema_version": "x.v1", "cases": [{"id": "a", "input": "i", "expected": "e"},\n  "b"]}',
            ":2:3:",
            "case_not_object",
            id="non-object-case",
        ),
        pytest.param(b'{"cases": [{"input": "caf\xe9"}]}', ":1:26:", "encoding", id="not-utf8"),
        pytest.param(b"", ":1:1:", "empty", id="empty"),
        pytest.param(b'{"cases": [NaN]}', ":1:12:", "invalid_json", id="nan"),
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(capsys, tmp_path, content, place, code_name):
    bad = tmp_path / "evals" / "bad.json"
    bad.parent.mkdir()
    bad.write_bytes(content)
    code, out, err = run(capsys, "migrate", "--repo-root", str(tmp_path), str(bad))
    assert code == 2
    (line,) = [line for line in err.splitlines() if "error:" in line]
    assert line.startswith(f"{bad.as_posix()}{place} error: ") and f"[{code_name}]" in line
    assert bad.read_bytes() == content


@pytest.mark.parametrize("content", [b'[{"query": "x"}]', b"[1, 2]", b"[]", b'"text"', b"42", b"null"])
def test_json_that_is_not_an_object_is_not_a_fixture(capsys, tmp_path, content):
    other = tmp_path / "data.json"
    other.write_bytes(content)
    code, out, err = run(capsys, "migrate", "--check", "--repo-root", str(tmp_path), str(other))
    assert (code, out, err) == (0, "", "Nothing to migrate (1 file scanned, 1 not a fixture)\n")
    code, out, _ = run(capsys, "detect", "--repo-root", str(tmp_path), str(other))
    assert code == 0 and out == f"{other.as_posix()}: not a fixture\n"
    assert other.read_bytes() == content


def test_a_json_list_of_cases_migrates_as_a_yaml_list_does(capsys, tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "list.json").write_text('[{"id": "a", "user_intent": "p", "expected": "x"}]\n')
    (tmp_path / "evals" / "list.yaml").write_text("- id: a\n  user_intent: p\n  expected: x\n")
    code, out, _ = run(capsys, "detect", "--repo-root", str(tmp_path), str(tmp_path))
    assert code == 0 and out.count(": generic") == 2, out
    assert run(capsys, "migrate", "--repo-root", str(tmp_path), str(tmp_path))[0] == 0
    migrated = json.loads((tmp_path / "evals" / "list.json").read_text())
    assert migrated["cases"] == [{"id": "a", "input": "p", "expected_outcome": "x"}]
    code, out, _ = run(capsys, "normalize", "--repo-root", str(tmp_path), str(tmp_path))
    first, second = json.loads(out)
    assert {key: value for key, value in first.items() if key != "source_file"} == {
        key: value for key, value in second.items() if key != "source_file"
    }


@pytest.mark.parametrize(
    "name, text",
    [
        ("l.yaml", "- id: a\n  prompt: p\n  with_skill_output: o\n"),
        ("multi.yaml", "a: 1\n---\n- id: z\n  prompt: y\n  baseline_output: o\n"),
        ("l.json", '[{"id": "b", "user_intent": "q", "expected": "x"}]\n'),
        ("output/cases.jsonl", '{"id": "c", "prompt": "r"}\n'),
        ("test_cases.py", 'CASES = [{"name": "d", "user_intent": "s", "expected": "x"}]\n'),
        ("e.yaml", "schema_version: prompt-examples/v1\nexamples:\n  - name: e\n    user_intent: t\n"),
    ],
)
def test_normalize_as_migrated_is_normalize_after_migrate_in_every_syntax(capsys, tmp_path, name, text):
    path = tmp_path / "skills" / "demo" / "evals" / name
    path.parent.mkdir(parents=True)
    path.write_text(text)
    root = str(tmp_path)
    code, promised, _ = run(capsys, "normalize", "--as-migrated", "--repo-root", root, root)
    assert code == 0 and json.loads(promised)
    assert run(capsys, "migrate", "--repo-root", root, root)[0] == 0
    assert run(capsys, "normalize", "--repo-root", root, root)[1] == promised


def test_normalize_as_migrated_reports_what_migrate_would_refuse(capsys, tmp_path):
    merged = "schema_version: prompt-examples/v1\nbase: &b\n  user_intent: hi\nexamples:\n  - <<: *b\n    name: A\n"
    (tmp_path / "m.yaml").write_text(merged)
    code, out, err = run(capsys, "normalize", "--as-migrated", "--repo-root", str(tmp_path), str(tmp_path / "m.yaml"))
    assert code == 2 and "m.yaml:5:5: error: member 'user_intent' comes from the merge key" in err
    assert run(capsys, "migrate", "--repo-root", str(tmp_path), str(tmp_path / "m.yaml"))[0] == 2


def test_unreadable_file_is_reported_and_others_continue(capsys, tmp_path):
    (tmp_path / "dangling.json").symlink_to(tmp_path / "gone.json")
    (tmp_path / "legacy.json").write_text(LEGACY)
    code, _, err = run(capsys, "migrate", "--repo-root", str(tmp_path), str(tmp_path))
    assert code == 2
    assert "dangling.json: error: cannot read" in err
    assert json.loads((tmp_path / "legacy.json").read_text())["cases"][0]["input"] == "Say hello."


def test_missing_path_is_an_error(capsys, tmp_path):
    code, _, err = run(capsys, "migrate", "--check", str(tmp_path / "nope"))
    assert code == 2 and "no such file or directory" in err


def test_usage_error_exits_2(capsys):
    assert run(capsys, "migrate", "--no-such-flag")[0] == 2
    assert run(capsys, "normalize", "--output-format", "xml")[0] == 2


def test_normalize_json_and_jsonl(capsys, tree):
    code, out, _ = run(capsys, "normalize", "--repo-root", str(tree), str(tree / "skills"))
    assert code == 0
    cases = json.loads(out)
    assert [(case["id"], case["source_file"].split("/")[-1]) for case in cases] == [
        ("a", "canonical.json"),
        ("greets", "legacy.json"),
        ("one", "output.jsonl"),
    ]
    code, out, _ = run(capsys, "normalize", "--output-format", "jsonl", "--repo-root", str(tree), str(tree / "skills"))
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["a", "greets", "one"]


def test_normalize_as_migrated_is_the_view_after_migrate(capsys, tree):
    legacy = tree / "skills" / "demo" / "evals" / "legacy.json"
    _, out, _ = run(capsys, "normalize", "--as-migrated", "--repo-root", str(tree), str(legacy))
    (case,) = json.loads(out)
    assert (case["source_schema_version"], case["normalized_from"]) == (
        "spec-first.workflow-eval-fixtures.v1",
        "canonical",
    )
    assert case["extensions"] == {"name": "Greets"}
    assert run(capsys, "migrate", "--repo-root", str(tree), str(legacy))[0] == 0
    assert run(capsys, "normalize", "--repo-root", str(tree), str(legacy))[1] == out


def test_validate_exit_codes_and_json(capsys, tree):
    evals = tree / "skills" / "demo" / "evals"
    code, out, _ = run(capsys, "validate", "--no-ref-check", "--repo-root", str(tree), str(evals / "canonical.json"))
    assert (code, out) == (0, "")
    code, out, _ = run(
        capsys, "validate", "--output-format", "json", "--repo-root", str(tree), str(evals / "canonical.json")
    )
    assert code == 1
    assert [e["reason_code"] for e in json.loads(out)] == ["source_ref_missing"]
    (evals.parent / "SKILL.md").write_text("the skill")
    assert run(capsys, "validate", "--repo-root", str(tree), str(evals / "canonical.json"))[0] == 0
    code, out, _ = run(capsys, "validate", "--no-ref-check", "--repo-root", str(tree), str(evals / "legacy.json"))
    assert code == 1
    assert out.splitlines()[0] == (
        "skills/demo/evals/legacy.json:5:5: greets: missing_coverage_tags: case coverage_tags must be a non-empty array"
    )


def test_validate_reports_duplicate_keys_beside_the_references_errors(capsys, tmp_path):
    bad = tmp_path / "dup.json"
    bad.write_text('{"skill": "s", "cases": [{"id": "a", "input": "x", "id": "b"}]}')
    code, out, err = run(capsys, "validate", "--no-ref-check", "--output-format", "json", str(bad))
    assert code == 2
    errors = json.loads(out)
    assert errors[0]["reason_code"] == "duplicate_key" and errors[0]["line"] == 1
    assert {e["id"] for e in errors[1:]} == {"b"}, "the rest is validated as the reference reads it"
    assert "duplicate key 'id'" in err


def test_validate_reports_non_object_cases(capsys, tmp_path):
    # Bad input, exit 2, as `normalize` and `migrate` say (README, "Exit codes"); the
    # reason code is listed with the reference's errors all the same.
    bad = tmp_path / "x.json"
    bad.write_text('{"schema_version": "x.v1", "skill": "s", "cases": [3]}')
    code, out, err = run(capsys, "validate", "--no-ref-check", "--output-format", "json", str(bad))
    assert code == 2
    assert [e["reason_code"] for e in json.loads(out)] == ["case_not_object"]
    assert "case 1 is not an object [case_not_object]" in err


@pytest.mark.parametrize("command", [["validate"], ["normalize"], ["migrate", "--check"]])
def test_a_non_object_case_is_bad_input_in_every_command(capsys, tmp_path, command):
    bad = tmp_path / "x.json"
    bad.write_text('{"schema_version": "prompt-examples/v1", "skill": "s", "examples": ["just a string"]}')
    code, _, err = run(capsys, *command, "--repo-root", str(tmp_path), str(bad))
    assert code == 2 and "[case_not_object]" in err, err


def test_detect_and_adapters(capsys, tree):
    code, out, _ = run(capsys, "detect", str(tree))
    assert code == 0
    lines = {line.rsplit(": ", 1)[0].split("/")[-1]: line.rsplit(": ", 1)[1] for line in out.splitlines()}
    assert lines == {
        "canonical.json": "canonical",
        "legacy.json": "prompt_examples_v1 (family)",
        "semantic_config.json": "not a fixture",
        "output.jsonl": "generic (generic)",  # lines without recorded outputs: the vocabulary maps them
    }
    code, out, _ = run(capsys, "adapters")
    names = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and names[0] == "canonical" and names[-1] == "generic" and "prompt_examples_v1" in names


def test_control_characters_are_escaped_in_diffs_and_messages(capsys, tmp_path):
    evil = tmp_path / "evil.json"
    evil.write_text('{"examples": [{"name": "x", "user_intent": "\\u001b[2J\\u009b31m gone"}]}')
    code, out, err = run(capsys, "migrate", "--diff", "--repo-root", str(tmp_path), str(evil))
    assert code == 0
    assert "\x1b" not in out and "\x9b" not in out
    bad = tmp_path / "\x1b[31mred.json"
    bad.write_text("{")
    code, _, err = run(capsys, "migrate", "--check", str(bad))
    assert code == 2 and "\x1b" not in err and "\\x1b[31mred.json" in err


def test_python_dash_m_and_version():
    done = subprocess.run([sys.executable, "-m", "fixture_migrate", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("fixture-migrate ")


def test_a_json_only_run_imports_no_python_yaml_colour_or_glob_library(tmp_path):
    (tmp_path / "legacy.json").write_text(LEGACY)
    probe = (
        "import sys; from fixture_migrate.cli.app import main; code = main(['migrate', '--check', sys.argv[1]]); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('libcst', 'ruamel', 'rich', 'pathspec')))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, env=env)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_jobs_give_the_same_output_as_one_process(capsys, tmp_path):
    for n in range(70):
        body = LEGACY if n % 3 else CANONICAL.replace('"id": "a"', f'"id": "a{n}"')
        (tmp_path / f"f{n:02d}.json").write_text(body.replace("Greets", f"Greets {n}"))
    for command in (["migrate", "--diff"], ["normalize"], ["normalize", "--output-format", "jsonl"]):
        one = run(capsys, *command, "--jobs", "1", "--repo-root", str(tmp_path), str(tmp_path))
        two = run(capsys, *command, "--jobs", "2", "--repo-root", str(tmp_path), str(tmp_path))
        assert one[:2] == two[:2] and one[1]
    cases = json.loads(run(capsys, "normalize", "--jobs", "2", "--repo-root", str(tmp_path), str(tmp_path))[1])
    assert len(cases) == 70 and cases[1]["id"] == "greets-1"


def test_an_empty_path_or_a_missing_repo_root_is_a_usage_error(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.json").write_text(LEGACY)
    assert run(capsys, "migrate", "")[0] == 2  # "$DIR" unset must not mean "everything here"
    assert run(capsys, "migrate", "--check", "--repo-root", str(tmp_path / "missing"), ".")[0] == 2
    assert (tmp_path / "legacy.json").read_text() == LEGACY


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_printed_diff_applied_with_git_gives_what_migrate_writes(capsys, tmp_path, monkeypatch):
    files = {
        "skills/a/evals/crlf cases.yaml": "schema_version: prompt-examples/v1\r\nexamples:\r\n"
        "  - name: A b  # first\r\n    user_intent: x\r\n",
        "skills/a/evals/bom.json": '\ufeff{"schema_version": "prompt-examples/v1", "examples": '
        '[{"name": "c", "user_intent": "y"}]}\n',
        "skills/a/evals/output/cases.jsonl": '\ufeff{"id": "a", "prompt": "p"}\r\n{"id": "b", "prompt": "q"}\r\n',
        "skills/a/evals/test_cases.py": '\ufeffCASES = [\r\n    {"name": "d", "user_intent": "z", "expected": "e"},\r\n]\r\n',
    }
    trees = {}
    for side in ("applied", "migrated"):
        root = tmp_path / side
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(text.encode("utf-8"))
        trees[side] = root
    monkeypatch.chdir(trees["applied"])
    code, diff, _ = run(capsys, "migrate", "--diff", "--repo-root", ".", ".")
    assert code == 0 and diff.count("+++ ") == 5  # four files, the JSONL as a removal and a creation
    patch = tmp_path / "changes.diff"
    patch.write_bytes(diff.encode("utf-8"))
    subprocess.run(["git", "init", "-q"], check=True)
    subprocess.run(["git", "apply", str(patch)], check=True)
    assert run(capsys, "migrate", "--repo-root", str(trees["migrated"]), str(trees["migrated"]))[0] == 0

    def contents(root):
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and ".git" not in p.parts
        }

    assert contents(trees["applied"]) == contents(trees["migrated"])


def test_diff_headers_name_files_relative_to_the_repo_root(capsys, tmp_path):
    legacy = tmp_path / "repo" / "skills" / "demo" / "evals" / "legacy.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text('{"schema_version": "prompt-examples/v1", "examples": [{"name": "a", "user_intent": "q"}]}\n')
    outside = tmp_path / "elsewhere.json"
    outside.write_text(legacy.read_text())
    root = str(tmp_path / "repo")
    code, out, err = run(capsys, "migrate", "--diff", "--repo-root", root, str(legacy), str(outside))
    headers = [line for line in out.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == [
        "--- a/skills/demo/evals/legacy.json",
        "+++ b/skills/demo/evals/legacy.json",
    ]
    # A file outside the root named by --repo-root is refused, never read (the root rule).
    assert code == 2 and f"{outside}: error: refused: it lies outside the repo root" in err
    assert "[path_outside_repo]" in err


def test_validate_as_migrated_reports_a_repeated_key_once(capsys, tmp_path):
    fixture = tmp_path / "d.json"
    fixture.write_text(
        '{"schema_version": "prompt-examples/v1", "examples": [{"name": "a", "user_intent": "q"}],\n'
        ' "examples": [{"name": "b", "user_intent": "r"}]}\n'
    )
    code, _, err = run(
        capsys, "validate", "--as-migrated", "--no-ref-check", "--repo-root", str(tmp_path), str(fixture)
    )
    assert code == 2
    assert err.count("[duplicate_key]") == 1 and "file errors: 1" in err


def test_a_check_that_plans_no_change_imports_no_other_command_or_check(tmp_path):
    """Start-up: a `migrate --check` of a canonical file loads neither the other commands'
    runs and typer commands (`detect`, `import`, `cache`, `validate`), the public API module, the family machinery of
    `[tool.fixture-migrate.adapters]`, the checks of a planned change, nor the progress bar."""
    (tmp_path / "canonical.json").write_text(CANONICAL)
    probe = (
        "import sys; from fixture_migrate.cli.app import main; "
        "code = main(['migrate', '--check', '-q', '--repo-root', sys.argv[1], sys.argv[1] + '/canonical.json']); "
        "print(code, sorted(m for m in sys.modules if m.startswith('fixture_migrate.')))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, env=env)
    code, loaded = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert code == "0", done.stdout + done.stderr
    for module in (
        "fixture_migrate._api",
        "fixture_migrate.cli.decisions",
        "fixture_migrate.cli.app_exchange",
        "fixture_migrate.cli.app_cache",
        "fixture_migrate.cli.progress",
        "fixture_migrate.migration.reader",
        "fixture_migrate.importing.base",
        "fixture_migrate.adapting.declared",
        "fixture_migrate.contract.new_errors",
        "fixture_migrate.migration.cache",
    ):
        assert repr(module) not in loaded, module


def test_the_app_lists_every_command_in_order_whichever_is_asked_first():
    from fixture_migrate.cli import app as module

    names = [info.name or info.callback.__name__ for info in module.app.registered_commands]
    assert names == [
        "migrate", "normalize", "validate", "detect", "suggest", "import", "export", "consumers", "adapters", "schema"
    ]
    assert [group.name for group in module.app.registered_groups] == ["cache"]
    assert module.app is module._complete()  # completed once
