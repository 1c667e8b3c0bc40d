"""`fixture-migrate consumers --fix` against hostile files and timings: line endings other
than LF, files that are not code (by their suffix), encodings other than UTF-8, hard links,
files that change between the read and the write, and consumer code that names its fixture
relative to itself. A rewrite never touches a file outside the root, nor one that is not
code it read as its own language, and never changes what the code reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import fixture_migrate
from fixture_migrate.cli.app import main

LEGACY = {
    "schema_version": "prompt-examples/v1",
    "skill": "a",
    "examples": [{"name": "First", "user_intent": "do it", "gr\u00f6\u00dfe": "L"}],
}
FIXTURE = "skills/a/evals/examples.json"
PY = (
    "import json\n"
    "from pathlib import Path\n"
    'FIXTURE = Path(ROOT) / "skills/a/evals/examples.json"\n'
    "\n"
    "\n"
    "def run():\n"
    "    data = json.loads(FIXTURE.read_text())\n"
    '    return data["examples"][0]["user_intent"]\n'
)


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "skills/a/evals").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / FIXTURE).write_text(json.dumps(LEGACY, indent=2) + "\n")
    (root / "tools").mkdir()
    return root


def _run_python(source: bytes, root: Path) -> object:
    namespace: dict[str, object] = {"ROOT": str(root)}
    exec(compile(source, "consumer.py", "exec"), namespace)
    return namespace["run"]()  # type: ignore[operator]


def _fix(root: Path, *paths: str) -> int:
    """`consumers --fix` over the fixtures and the files `paths` named, else the whole root."""
    named = [str(root / p) for p in paths] or [str(root)]
    return main(["consumers", "--fix", "--repo-root", str(root), str(root / "skills"), *named])


# --- line endings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ending",
    [
        pytest.param(lambda text: text.replace("\n", "\r"), id="cr-only"),
        pytest.param(lambda text: text.replace("\n", "\r", 3), id="cr-then-lf"),
        pytest.param(lambda text: text.replace("\n", "\r\n", 4).replace("\n", "\r", 2), id="crlf-cr-lf"),
    ],
)
def test_python_with_lone_cr_line_endings_is_rewritten_at_the_right_place(tmp_path, capsys, ending):
    """libcst counts a lone CR as a line end; the edits were placed by LF lines only, so a
    CR-only module crashed the whole run (IndexError) and a mixed one was edited at the
    wrong characters."""
    root = _repo(tmp_path)
    source = ending(PY).encode()
    (root / "tools/c.py").write_bytes(source)
    (root / "tools/other.py").write_text(PY)
    assert _fix(root) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "internal error" not in err
    fixed = (root / "tools/c.py").read_bytes()
    assert b'"cases"' in fixed and _run_python(fixed, root) == "do it"
    # Every line ending outside the rewritten read is kept, byte for byte.
    assert fixed.count(b"\r") == source.count(b"\r") and fixed.count(b"\n") == source.count(b"\n")
    assert (root / "tools/other.py").read_text() != PY  # the run went on to the other file


def test_a_cr_only_script_is_reported_at_its_own_line(tmp_path, capsys):
    root = _repo(tmp_path)
    js = f'const data = require("./{FIXTURE}");\r\rconsole.log(data.examples[0].user_intent);\r'
    (root / "tools/c.js").write_bytes(js.encode())
    assert main(["consumers", "--repo-root", str(root), str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("tools/c.js:3:13: member: `user_intent`"), lines
