"""The console script's entry point (`fixture-migrate`, and `python -m fixture_migrate`).

Only a process that is a run of the tool imports this module, so it may tune what is the
process's own before the rest of the tool is imported: the collector's thresholds
(`fixture_migrate.cli.GC_THRESHOLD`), which would otherwise collect the youngest
generation every 700 allocations while the command line (typer's modules and this
tool's) is imported. `fixture_migrate.cli.app.main` sets them again, for a caller
that imports the app itself, and freezes what is alive by then.

Ctrl-C while the app is imported (before `main` handles it) ends the run with 130 and
one line, never a traceback.
"""

import gc
import sys

from fixture_migrate.cli import GC_THRESHOLD

gc.set_threshold(*GC_THRESHOLD)

try:
    from fixture_migrate.cli.app import main  # noqa: E402 - after the threshold, on purpose
except KeyboardInterrupt:
    sys.stderr.write("fixture-migrate: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["main"]
