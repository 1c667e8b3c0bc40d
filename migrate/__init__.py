"""fixture-migrate: rewrites legacy eval-fixture files into the canonical
`spec-first.workflow-eval-fixtures.v1` shape, keeping every local field.

The public API is what `__all__` names; every other module of the package is internal
and may change between releases:

- `migrate_text(text, *, path, repo_root, skill) -> bytes`: a fixture's canonical bytes;
- `plan_file(path, ...) -> Plan` (a `Status`, the new bytes, a diff) without writing, and
  `migrate_file(path, ...) -> Plan` writing as `fixture-migrate migrate` writes;
- `normalize(payload_or_path, ...)` and `validate(payload_or_paths, ...)`: the reference
  normalizer's cases and reason codes;
- `load(path, text=None)`: the payloads of a file in any syntax read (JSON, JSON Lines,
  YAML, Python); `fixture_files(*paths)`: the files a run selects;
- `find_consumers(*paths, ...)`: the code that reads the fixtures a migration moves names in,
  each read with its new home (and with `fix=True`, rewritten);
- `import_file(sources, dest, ...)`: a file of another eval tool as a canonical file;
- `Adapter`, `FamilyAdapter`, `Context`: the protocol an adapter plugin implements;
- `MigrationError`: raised with `path`, `line`, `column` and the reason `code`.

Names are loaded on first use, so `import fixture_migrate` costs next to nothing and a
run over JSON files never imports the YAML and Python readers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    # migrating
    "migrate_text",
    "migrate_file",
    "plan_file",
    "Plan",
    "Status",
    "MigrationError",
    # the contract's views
    "normalize",
    "validate",
    # reading
    "load",
    "fixture_files",
    # other eval tools
    "import_file",
    "export_file",
    # the code that reads the fixtures
    "find_consumers",
    # plugins
    "Adapter",
    "FamilyAdapter",
    "Context",
]

_HOMES = {
    "migrate_text": "fixture_migrate._api",
    "migrate_file": "fixture_migrate._api",
    "plan_file": "fixture_migrate._api",
    "Plan": "fixture_migrate._api",
    "Status": "fixture_migrate._api",
    "MigrationError": "fixture_migrate._api",
    "normalize": "fixture_migrate._api",
    "validate": "fixture_migrate._api",
    "load": "fixture_migrate._api",
    "fixture_files": "fixture_migrate._api",
    "import_file": "fixture_migrate._api",
    "export_file": "fixture_migrate._api",
    "find_consumers": "fixture_migrate._api",
    "Adapter": "fixture_migrate.adapting.protocol",
    "FamilyAdapter": "fixture_migrate.adapting.protocol",
    "Context": "fixture_migrate.adapting.protocol",
}
"""Where each public name is defined; imported from there on first use (PEP 562)."""

if TYPE_CHECKING:  # for type checkers and IDEs; at run time `__getattr__` loads them
    from fixture_migrate._api import (
        MigrationError,
        find_consumers,
        Plan,
        Status,
        export_file,
        fixture_files,
        import_file,
        load,
        migrate_file,
        migrate_text,
        normalize,
        plan_file,
        validate,
    )
    from fixture_migrate.adapting.protocol import Adapter, Context, FamilyAdapter


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fixture_migrate' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
