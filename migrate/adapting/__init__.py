"""Adapters and how they are found: the adapter protocol (`protocol`), the case mapper
that turns legacy cases into v1 cases (`case_mapper`), the pyproject-declared field
mappings (`declared`), and the registry of built-in and plugin adapters (`registry`).
The adapters themselves live in `fixture_migrate.adapters`, one module per format."""
