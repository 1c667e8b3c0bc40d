"""`fixture_migrate.formats`: each syntax module is imported only when a file of that syntax is read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PROBE = """\
import sys
from fixture_migrate.cli.app import main
code = main(["migrate", "--check", sys.argv[1], "--repo-root", sys.argv[2]])
loaded = sorted({name.split(".")[0] for name in sys.modules} & {"ruamel", "libcst"})
print(code, ",".join(loaded) or "-")
"""

LEGACY = {"schema_version": "prompt-examples/v1", "examples": [{"name": "A", "user_intent": "hi"}]}


@pytest.mark.parametrize(
    ("name", "text", "loaded"),
    [
        pytest.param("cases.json", json.dumps(LEGACY), "-", id="json-imports-neither"),
        pytest.param("cases.yaml", "schema_version: prompt-examples/v1\nexamples: []\n", "ruamel", id="yaml"),
        pytest.param("test_cases.py", f"FIXTURE = {LEGACY!r}\n", "libcst", id="python"),
    ],
)
def test_syntax_libraries_load_only_when_needed(tmp_path: Path, name: str, text: str, loaded: str) -> None:
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(target), str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", loaded]  # exit 1: the legacy sample would change
