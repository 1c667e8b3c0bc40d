"""The command line, a thin client: `app` parses options (typer), `commands` runs them,
`report` owns the exit code, `output` prints each output format, `progress` the bar."""
