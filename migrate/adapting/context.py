"""Where a local family may be migrated: the fixture context of a file (DESIGN.md,
"Claiming a file").

Field names alone are not enough evidence: test vectors, datasets read by code,
i18n catalogs and generated reports carry `input`/`expected`, `prompt`/`answer` or
`positive`/`negative` too. A local family (`generic`, `case_list`,
`output_cases_jsonl`, the trigger-list shapes) is migrated only when its records carry
the evidence of eval cases (`fixture_migrate.adapting.evidence`) *and* the file has
fixture context:

- it lies in a folder named `evals` or `eval` (a skill's `evals/` folder is the
  contract's home for fixtures), or
- it matches a configured `include` or `[tool.fixture-migrate.skill]` glob, or
- the file or its records name a skill (a non-empty `skill` or `skill_name`).

(A family declared in pyproject.toml or by a plugin is claimed before any of this.)

Never, whatever the above says, when the file is

- a well-known configuration (`package.json`, `tsconfig*.json`, `docker-compose.yml`,
  anything under `.github/`, ...) or a JSON Schema (`type` + `properties`, `$defs`,
  `definitions`);
- under `docs/validation/` or `docs/plans/` (the contract's non-source paths);
- a generated report or a run's results: a top-level `generated_at` or `command`, or
  records carrying result fields (`actual`, `passed`, `score`, `output`, ...).

A file with the evidence and no context is left byte-identical and named as
*unclaimed*, with the reason; one the rules above rule out is not a fixture.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path, PurePosixPath
from typing import Any

from fixture_migrate.adapting.evidence import case_list
from fixture_migrate.contract import rules as c

FIXTURE_FOLDERS = frozenset({"evals", "eval"})
"""Folder names that give a file fixture context."""

WELL_KNOWN_CONFIGS = (
    "package.json",
    "package-lock.json",
    "tsconfig*.json",
    "jsconfig*.json",
    "composer.json",
    "deno.json",
    "lerna.json",
    "nx.json",
    "angular.json",
    "turbo.json",
    "vercel.json",
    "firebase.json",
    "renovate.json",
    "manifest.json",
    "app.json",
    "babel.config.json",
    ".babelrc*",
    ".eslintrc*",
    ".prettierrc*",
    "*.schema.json",
    "docker-compose*.yml",
    "docker-compose*.yaml",
    "compose.yml",
    "compose.yaml",
    "openapi*.yaml",
    "openapi*.yml",
    "openapi*.json",
    "swagger*.json",
    "swagger*.yaml",
    "labeler.yml",
    "labeler.yaml",
    "dependabot.yml",
    "codecov.yml",
    "mkdocs.yml",
    "action.yml",
    "action.yaml",
    ".pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
    "Chart.yaml",
    "environment.yml",
    "pyproject.toml",
)
"""File names (globs) of configurations other tools own."""

NON_SOURCE_PATHS = ("docs/validation/", "docs/plans/")
"""The contract's non-source paths: what lies there is never a fixture to rewrite."""

REPORT_KEYS = frozenset({"generated_at", "command"})
"""Top-level members of a generated report."""

RESULT_FIELDS = frozenset({"actual", "passed", "score", "output"})
"""Record members of a run's results."""


def _relative(path: Path, root: Path | None) -> PurePosixPath:
    absolute = Path(os.path.abspath(path))
    if root is not None:
        try:
            return PurePosixPath(absolute.relative_to(Path(os.path.abspath(root))).as_posix())
        except ValueError:
            pass
    return PurePosixPath(absolute.as_posix())


def _records(data: Any) -> list[dict[str, Any]]:
    """The objects of a payload's case list (`fixture_migrate.adapting.evidence.case_list`)."""
    found = case_list(data)
    return [] if found is None else [r for r in found[1] if isinstance(r, dict)]


def ruled_out(path: Path | None, data: Any, root: Path | None = None) -> str | None:
    """Why the file `path` holding `data` is never a local family's fixture, or None."""
    if path is not None:
        rel = _relative(path, root)
        if any(fnmatch.fnmatchcase(rel.name, glob) for glob in WELL_KNOWN_CONFIGS):
            return f"a well-known configuration file ({rel.name})"
        if ".github" in rel.parts[:-1]:
            return "a file under .github/ (a tool's configuration)"
        text = rel.as_posix()
        for prefix in NON_SOURCE_PATHS:
            if text.startswith(prefix) or f"/{prefix}" in text:
                return f"under {prefix} (documentation, not a fixture source)"
    if isinstance(data, dict):
        if "$schema" in data:
            return "a document declaring `$schema` (a JSON Schema or a tool's configuration)"
        if "type" in data and "properties" in data or "$defs" in data or "definitions" in data:
            return "a JSON Schema (type and properties, $defs or definitions)"
        found = sorted(REPORT_KEYS.intersection(data))
        if found:
            return f"a generated report ({', '.join(found)})"
    for record in _records(data):
        found = sorted(RESULT_FIELDS.intersection(record))
        if found:
            return f"a run's results (records carry {', '.join(found)})"
    return None


def in_fixture_folder(path: Path, root: Path | None = None) -> bool:
    """True when `path` lies in a folder named `evals` or `eval`."""
    return any(part in FIXTURE_FOLDERS for part in _relative(path, root).parts[:-1])


def names_skill(data: Any) -> bool:
    """True when the payload or every one of its records names a skill."""
    keys = ("skill", "skill_name")
    if isinstance(data, dict) and any(c.is_non_empty_string(data.get(k)) for k in keys):
        return True
    records = _records(data)
    return bool(records) and all(any(c.is_non_empty_string(r.get(k)) for k in keys) for r in records)


def fixture_context(path: Path | None, data: Any, *, root: Path | None = None, included: bool = False) -> str | None:
    """What gives the file `path` holding `data` fixture context (one phrase), or None."""
    if path is None:
        return "given directly"
    if in_fixture_folder(path, root):
        return "in an evals folder"
    if included:
        return "under a configured include"
    if names_skill(data):
        return "names its skill"
    return None


NO_CONTEXT = (
    "it lies outside an `evals`/`eval` folder and any configured include and names no skill "
    "(it may be data read by code: declare its family to migrate it)"
)
"""The reason given for a file with the evidence but no fixture context."""
