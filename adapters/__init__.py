"""fixture-migrate's built-in adapters: one module per legacy or external format.

Each module's name is its registry name and holds one `ADAPTER`; the list of
built-ins, in detection order, is `fixture_migrate.claiming.registry.BUILTIN_ADAPTERS`.
"""
