"""fixture-migrate as a libcst codemod, for codebases that run their rewrites through libcst.

`MigrateFixtureLiterals` is a `libcst.codemod.CodemodCommand`: given a module, it
returns the module with its fixture literals migrated, exactly as
`fixture-migrate migrate` would write it (same adapters, same checks). A module it
cannot migrate (a literal holding a call, a migration that would lose a value) is
skipped with the reason (`SkipFile`), never half-written; a module with no
fixture literal is skipped as not a fixture. Used from Python:

    from libcst.codemod import CodemodContext
    MigrateFixtureLiterals(CodemodContext(filename="tests/test_x.py")).transform_module(module)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import libcst as cst
from fixture_migrate.formats import DEFAULT_PY_NAMES
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile


class MigrateFixtureLiterals(CodemodCommand):
    """Rewrites a module's eval-fixture literals as canonical v1 (see the module docstring).

    `repo_root` is what `source_file` and skill inference are relative to (default:
    the current directory), `skill` the skill of literals that name none, `py_names`
    the names a bare case list is a fixture under.
    """

    DESCRIPTION = "Migrate eval-fixture literals to spec-first.workflow-eval-fixtures.v1, keeping every local field."

    def __init__(
        self,
        context: CodemodContext,
        repo_root: str | None = None,
        skill: str | None = None,
        py_names: Sequence[str] | None = None,
    ) -> None:
        super().__init__(context)
        self.repo_root = Path(repo_root or ".").resolve()
        self.skill = skill
        self.py_names = tuple(py_names) if py_names else DEFAULT_PY_NAMES

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument("--repo-root", dest="repo_root", default=None, help="Root source_file is relative to.")
        arg_parser.add_argument("--skill", dest="skill", default=None, help="Skill of literals that name none.")
        arg_parser.add_argument(
            "--py-name", dest="py_names", action="append", default=None, help="Name of a bare case list (repeatable)."
        )

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        from fixture_migrate.migration.engine import Engine, Options
        from fixture_migrate.migration.status import Status

        filename = self.context.filename or "fixture.py"
        path = Path(filename) if Path(filename).is_absolute() else self.repo_root / filename
        engine = Engine(Options(repo_root=self.repo_root, skill=self.skill, py_names=self.py_names))
        result = engine.plan_bytes(path, tree.bytes)  # in the module's own encoding
        if result.status is Status.ERROR:
            assert result.error is not None
            where = f"{result.error.line}:{result.error.column}: " if result.error.line is not None else ""
            raise SkipFile(f"{where}{result.error.message} [{result.error.code}]")
        if result.status is Status.NOT_FIXTURE:
            raise SkipFile("not a fixture")
        if result.status is Status.UNCHANGED:
            return tree
        if result.status is not Status.CHANGED:  # another tool's data, or a local family left unmigrated
            raise SkipFile(f"not migrated: {result.reason}")
        assert result.new_bytes is not None
        return cst.parse_module(result.new_bytes)
