"""fixture-migrate: rewrites legacy eval-fixture files into the canonical
`spec-first.workflow-eval-fixtures.v1` shape, keeping every local field."""

__version__ = "0.1.0"
