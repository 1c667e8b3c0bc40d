"""The command line, a thin client: `app` parses options (typer), `commands` runs them,
`report` owns the exit code, `output` prints each output format, `progress` the bar."""

GC_THRESHOLD = (20_000, 20, 20)
"""The collector's thresholds in a run of the tool (`gc.set_threshold`): a run allocates many
short-lived containers and keeps few, and collecting the youngest generation every 700
allocations costs more than it frees. Set by `fixture_migrate.cli.entry` before the
command line is imported, and again by `fixture_migrate.cli.app.main`."""
