"""The console script's entry point: it points at `fixture_migrate.cli.entry:main`, which is
the app's `main` and tunes the collector before the command line is imported."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

from fixture_migrate.cli import GC_THRESHOLD
from fixture_migrate.cli.app import main


def test_the_console_script_runs_the_apps_main() -> None:
    (point,) = [point for point in entry_points(group="console_scripts") if point.name == "fixture-migrate"]
    assert point.value == "fixture_migrate.cli.entry:main"
    assert point.load() is main


def test_the_entry_point_sets_the_threshold_before_the_app_is_imported() -> None:
    # In a fresh process: the threshold in force when the app first imports typer.
    probe = (
        "import builtins, gc, sys\n"
        "real = builtins.__import__\n"
        "seen = []\n"
        "def spy(name, *args, **kwargs):\n"
        "    if name == 'typer' and not seen:\n"
        "        seen.append(gc.get_threshold())\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = spy\n"
        "import fixture_migrate.cli.entry\n"
        "print(seen[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == f"{GC_THRESHOLD}\n"
    assert GC_THRESHOLD != (700, 10, 10)  # not the interpreter's default


def test_python_dash_m_runs_the_same_main() -> None:
    done = subprocess.run([sys.executable, "-m", "fixture_migrate", "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("fixture-migrate ")


def test_ctrl_c_while_the_app_is_imported_is_one_line_and_130() -> None:
    # In a fresh process, Ctrl-C arriving as typer is imported (before `main` handles it).
    probe = (
        "import builtins\n"
        "real = builtins.__import__\n"
        "def spy(name, *args, **kwargs):\n"
        "    if name == 'typer':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = spy\n"
        "import fixture_migrate.cli.entry\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "fixture-migrate: interrupted\n")


def test_an_interrupted_read_only_command_says_it_changes_no_file(tmp_path, capsys, monkeypatch) -> None:
    import os
    import signal

    from fixture_migrate.cli import commands

    def interrupted(*args: object, **kwargs: object) -> int:
        os.kill(os.getpid(), signal.SIGINT)
        raise AssertionError("the handler raises first")

    (tmp_path / "a.json").write_text("{}")
    monkeypatch.setattr(commands, "run_validate", interrupted)
    assert main(["validate", "--repo-root", str(tmp_path), str(tmp_path)]) == 130
    assert capsys.readouterr().err == "fixture-migrate: interrupted (this command changes no file)\n"
