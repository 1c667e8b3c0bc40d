"""fixture-migrate's built-in adapters: one module per legacy or external format.

Each module's name is its registry name and holds one `ADAPTER`; the list of
built-ins, in detection order, is `migrate.registry.BUILTIN_ADAPTERS`.
"""
