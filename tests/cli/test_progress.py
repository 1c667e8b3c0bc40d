"""The progress bar: on a terminal's stderr for runs over 200 files, never when piped."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys

import pytest
from fixture_migrate.cli.output import make_report
from fixture_migrate.cli.progress import THRESHOLD, wanted
from fixture_migrate.cli.report import Report

from tests.helpers import ROOT
from tests.runner import run_process, write_files

LEGACY = '{"schema_version": "prompt-examples/v1", "examples": [{"name": "A", "user_intent": "x", "expected_posture": "y"}]}\n'


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _many(root, n=THRESHOLD + 1):
    write_files(root, {f"skills/demo/evals/case-{i:03}.json": LEGACY for i in range(n)})


@pytest.mark.parametrize(
    ("total", "err", "quiet", "allowed", "expected"),
    [
        pytest.param(THRESHOLD + 1, _Terminal(), False, True, True, id="long-run-on-terminal"),
        pytest.param(THRESHOLD, _Terminal(), False, True, False, id="at-threshold"),
        pytest.param(THRESHOLD + 1, io.StringIO(), False, True, False, id="piped"),
        pytest.param(THRESHOLD + 1, _Terminal(), True, True, False, id="quiet"),
        pytest.param(THRESHOLD + 1, _Terminal(), False, False, False, id="not-allowed"),
    ],
)
def test_wanted(total, err, quiet, allowed, expected, monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    assert wanted(total, Report(err=err, quiet=quiet, progress=allowed)) is expected


def test_not_with_live_stdout_on_a_terminal(tmp_path):
    assert make_report("text", out=_Terminal(), root=tmp_path, live_stdout=True).progress is False
    assert make_report("text", out=io.StringIO(), root=tmp_path, live_stdout=True).progress is True
    assert make_report("json", out=_Terminal(), root=tmp_path, live_stdout=False).progress is True


def test_bar_on_a_terminal_stderr_and_clean_stdout(tmp_path):
    _many(tmp_path)
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "fixture_migrate", "migrate", "--check", "--output-format", "json", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the pty closes when the process ends
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout = process.stdout.read()
    process.wait(timeout=60)
    os.close(master)
    terminal = b"".join(chunks).decode("utf-8", "replace")
    assert process.returncode == 1
    assert f"/{THRESHOLD + 1}" in terminal and "migrate" in terminal  # the bar's count and label
    assert "\x1b[" in terminal
    n = THRESHOLD + 1
    summary = terminal.rsplit("\x1b[2K", 1)[-1]  # the bar is erased before the summary line
    assert summary.strip() == f"Would migrate {n} files ({n} cases) ({n} files scanned)"
    data = json.loads(stdout)  # stdout holds the JSON document alone
    assert data["summary"]["files_scanned"] == THRESHOLD + 1


def test_no_bar_when_piped(tmp_path):
    _many(tmp_path)
    run = run_process(["migrate", "--check", "."], tmp_path, env={"TERM": "xterm-256color"})
    assert run.code == 1
    assert "\x1b" not in run.err and "\r" not in run.err
    assert f"/{THRESHOLD + 1}" not in run.err
    assert run.err.splitlines()[-1].endswith(f"({THRESHOLD + 1} files scanned)")
