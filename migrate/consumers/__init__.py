"""`fixture-migrate consumers`: the code that reads the fixtures keeps working after a migration.

See `fixture_migrate.consumers.run` for the pipeline, `moves` for the moved-names model,
`findings` for the consumer rule, `python_code` and `script_code` for the two languages.
"""
