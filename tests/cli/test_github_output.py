"""`--output-format github` with hostile values: a fixture can hold any text, and the
Actions runner reads a workflow command from any line that starts with `::` after
white space, and a legacy one from `##[` anywhere in a line (a `##[stop-commands]x`
there would silence every annotation after it). Whatever a JSON, YAML or Python
fixture (or its file name) holds, the only commands in the output are the tool's own.
"""

from __future__ import annotations

import io
import re

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.cli.output import GithubStream, WorkflowCommand, inert_line, write_github_diff

HOSTILE = [
    "::error file=README.md,line=1::forged annotation",
    "::stop-commands::pwned",
    "##[error]forged log error",
    "::add-mask::secret",
    "  ::warning::indented",
    "\u00a0::notice::after a no-break space",
    "text ##[stop-commands]mid-line",
    "::endgroup::",
]

OWN = re.compile(
    r"^::(error|warning|notice) [^:]*::|^::group::|^::endgroup::$|^::stop-commands::[0-9a-f]{32}$|^::[0-9a-f]{32}::$"
)


def runner_reads(line: str) -> bool:
    """Whether the Actions runner would read `line` as a workflow command (either form)."""
    return line.lstrip().startswith("::") or "##[" in line


def forged(text: str) -> list[str]:
    """Lines of `text` the runner would read as commands that are not the tool's own."""
    lines = re.split(r"\r\n|\r|\n", text)
    return [line for line in lines if runner_reads(line) and not OWN.match(line)]


def yaml_fixture(value: str) -> str:
    body = "\n".join(f"      {line}" for line in value.splitlines())
    return (
        "schema_version: prompt-examples/v1\nskill: demo\nexamples:\n"
        f"  - name: Hostile\n    user_intent: |\n{body}\n    expected_posture: ok\n"
    )


def python_fixture(value: str) -> str:
    return f'CASES = [\n    {{"name": "Hostile", "user_intent": """\n{value}\n""", "expected": "x"}},\n]\n'


def json_fixture(value: str) -> str:
    import json

    payload = {
        "schema_version": "prompt-examples/v1",
        "skill": "demo",
        "examples": [{"name": value, "user_intent": value, "expected_posture": value}],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


@pytest.fixture
def hostile_tree(tmp_path):
    root = tmp_path / "repo"
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    text = "\n".join(HOSTILE)
    (evals / "hostile.yaml").write_text(yaml_fixture(text))
    (evals / "hostile.py").write_text(python_fixture(text))
    (evals / "hostile.json").write_text(json_fixture(text))
    (evals / "##[error]name.json").write_text(json_fixture("plain"))
    return root


@pytest.mark.parametrize(
    "argv",
    [
        ["migrate", "--check", "--diff"],
        ["migrate", "--diff", "-v"],
        ["migrate", "--check"],
        ["validate"],
        ["detect", "-v"],
    ],
    ids=["check-diff", "diff-verbose", "check", "validate", "detect"],
)
def test_no_hostile_value_becomes_a_workflow_command(hostile_tree, capsys, monkeypatch, argv):
    monkeypatch.chdir(hostile_tree)  # names relative to the walk: a name starts a line
    main([*argv, "--output-format", "github", "--repo-root", str(hostile_tree), "."])
    out, err = capsys.readouterr()
    assert "hostile" in out + err, "the hostile files were read"
    assert forged(out) == [] and forged(err) == []
    assert "##[" not in out + err


def test_the_diffs_are_folded_and_fenced_and_the_real_annotations_follow(hostile_tree, capsys):
    code = main(
        [
            "migrate",
            "--check",
            "--diff",
            "--output-format",
            "github",
            "--repo-root",
            str(hostile_tree),
            str(hostile_tree),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    lines = out.splitlines()
    groups = [i for i, line in enumerate(lines) if line.startswith("::group::")]
    assert len(groups) == 4
    for start in groups:
        token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[start + 1]).group(1)
        end = lines.index(f"::{token}::", start)
        assert lines[end + 1] == "::endgroup::"
        body = "\n".join(lines[start + 2 : end])
        assert token not in body.lower() and body.startswith("--- a/")
        assert forged(body) == []
        assert lines[end + 2].startswith("::error file=skills/demo/evals/"), "each file's annotation follows its diff"
    assert len(set(re.findall(r"(?m)^::stop-commands::(\w+)", out))) == 4, "a new token per diff"


def test_hostile_text_is_still_readable_once_made_inert():
    assert inert_line("  ::error::x") == "  \\x3a:error::x"
    assert inert_line("a ##[error] b") == "a #\\x23[error] b"
    assert inert_line("###[") == "##\\x23["
    assert inert_line("plain: text :: here") == "plain: text :: here"


def test_the_stream_splits_lines_where_the_runner_does_and_keeps_its_own_commands():
    sink = io.StringIO()
    stream = GithubStream(sink)
    stream.write("ok\r::error::a\rb\n::war")
    stream.write("ning::c\n")
    stream.write(WorkflowCommand("::error file=x::real\n"))
    stream.write("tail ##[x")
    stream.flush()
    assert sink.getvalue() == "ok\r\\x3a:error::a\rb\n\\x3a:warning::c\n::error file=x::real\ntail #\\x23[x"


def test_a_token_found_in_the_diff_is_never_used(monkeypatch):
    import secrets

    tokens = iter(["a" * 32, "b" * 32])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(tokens))
    sink = io.StringIO()
    write_github_diff(sink, f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{'A' * 32}\n+y\n", "x")
    assert "::stop-commands::" + "b" * 32 in sink.getvalue()


CONFIGS = [
    'repo-root = "nonexist\\n{value}"\n',  # a value quoted back in the error
    '"{value}" = 1\n',  # an unknown key named in the error
    'exclude = 3\nskill = "{value}"\n',
]


@pytest.mark.parametrize("template", CONFIGS)
@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("where", ["flag", "env"])
def test_config_errors_in_github_mode_forge_nothing(tmp_path, capsys, monkeypatch, template, value, where):
    """A hostile pyproject: every line the tool prints, its config errors included, goes
    through the same inert-line path as the report."""
    (tmp_path / ".git").mkdir()
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    (tmp_path / "pyproject.toml").write_text("[tool.fixture-migrate]\n" + template.format(value=escaped))
    monkeypatch.chdir(tmp_path)
    argv = ["migrate", "--check", "--diff"]
    if where == "flag":
        argv += ["--output-format", "github"]
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    else:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2
    assert forged(captured.out) == [] and forged(captured.err) == [], captured.err


@pytest.mark.parametrize("value", HOSTILE)
def test_usage_errors_quoting_a_value_forge_nothing(tmp_path, capsys, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    code = main(["migrate", "--output-format", "github", "--jobs", "\n" + value])
    captured = capsys.readouterr()
    assert code == 2
    assert forged(captured.out) == [] and forged(captured.err) == [], captured.err
