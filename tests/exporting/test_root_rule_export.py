"""`export` under the root rule when the canonical file itself points outside the root: its
`source_refs` and kept promptfoo references are data a hostile repository writes, so no
file, folder or glob they name outside the root is opened, listed or read (the case is
then exported from its fields, and a reference that names nothing beside DEST is a loss)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.import_helpers import EXAMPLES
from tests.runner import run_cli


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A repository whose canonical file says it came from a promptfoo config outside the
    root (`../outside/...`), beside a copy of that config and its files out there."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLES / "promptfoo", outside)
    shutil.copytree(EXAMPLES / "promptfoo", root / "pf")
    return root


def _import_then_point_outside(root: Path, monkeypatch, capsys, spelling: str) -> Path:
    done = run_cli(["import", "pf/promptfooconfig.yaml", "--skill", "s", "--out", "evals/pf.json"], root, monkeypatch, capsys)
    assert done.code == 0, done
    text = (root / "evals/pf.json").read_text()
    outside = str(root.parent / "outside") + "/" if spelling == "absolute" else "../outside/"
    data = json.loads(text.replace('"pf/', '"' + outside))
    kept = data["extensions"]["promptfoo"]
    kept["tests"] = [f"file://{outside}tests/*.yaml", f"file://{outside}**/*.csv", *kept.get("tests", [])]
    (root / "evals/hostile.json").write_text(json.dumps(data, indent=2) + "\n")
    return root / "evals/hostile.json"


@pytest.mark.parametrize("spelling", ["dotdot", "absolute"])
def test_export_opens_nothing_a_canonical_file_names_outside_the_root(hostile, monkeypatch, capsys, spelling):
    """The kept config's files were read from outside the root (opened from `/` down) to
    tell an edited case from its record, and the kept `file://` globs were walked there."""
    _import_then_point_outside(hostile, monkeypatch, capsys, spelling)
    outside = str(hostile.parent / "outside")
    touched: list[str] = []

    def audit(event: str, args: tuple) -> None:
        if event in ("open", "os.scandir", "os.listdir") and args and isinstance(args[0], (str, bytes, Path)):
            name = str(args[0])
            if name == "outside" or name.startswith(outside) or "../outside" in name:
                touched.append(f"{event} {name}")

    args = ["export", "evals/hostile.json", "--to", "promptfoo", "--out", "out/promptfooconfig.yaml"]
    monkeypatch.chdir(hostile)
    capsys.readouterr()
    from fixture_migrate.cli.app import main

    watching = True

    def hook(event: str, args: tuple) -> None:
        if watching:
            audit(event, args)

    sys.addaudithook(hook)  # audit hooks cannot be removed: this one stops watching below
    try:
        code = main(args)
    finally:
        watching = False
    err = capsys.readouterr().err
    assert code == 0, err
    assert touched == []
    assert (hostile / "out/promptfooconfig.yaml").is_file()
    assert "file://" in err and "dropped" in err  # the references out there are losses
