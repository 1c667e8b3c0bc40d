"""Running the `fixture-migrate` command line in tests: in process, or as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_migrate.cli.app import main

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    """What one run printed and returned."""

    code: int
    out: str
    err: str


def run_cli(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run `fixture-migrate ARGS` in process from `cwd` (no colour, no progress: output is captured)."""
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = main(args)
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def run_process(args: list[str], cwd: Path, env: dict[str, str] | None = None, **kwargs: object) -> Run:
    """Run `python -m fixture_migrate ARGS` as a subprocess from `cwd`, stdout and stderr piped."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "fixture_migrate", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )
    return Run(done.returncode, done.stdout, done.stderr)


def write_files(root: Path, files: dict[str, str]) -> None:
    """Create `files` (relative path to text) under `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
