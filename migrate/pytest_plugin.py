"""A pytest plugin that fails the test run while a fixture file is not canonical or not valid.

Off unless enabled, with `pytest --fixtures-check` or in the pytest configuration:

```toml
[tool.pytest.ini_options]
fixtures_check = true
fixtures_check_paths = ["skills"]   # default: the rootdir
```

Each fixture file under `fixtures_check_paths` (selected as `fixture-migrate migrate`
selects files, `[tool.fixture-migrate]` include/exclude included) becomes one test item,
`<file>::fixtures_check`, marked `fixtures_check`. It fails when the file would be
rewritten by `fixture-migrate migrate` (reason `not_canonical`), cannot be read or
migrated (the error's reason code), or has validation errors (the reference's reason
codes, duplicate ids counted across all the files), each reported as
`file:line:column: reason_code: message`. Files that are not fixtures are not collected.

A thin client of the public API (`fixture_migrate.__all__`), imported only when enabled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ITEM_NAME = "fixtures_check"
NOT_CANONICAL = "not_canonical"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fixture-migrate")
    group.addoption(
        "--fixtures-check",
        action="store_true",
        default=False,
        help="fail on eval fixtures that are not canonical v1 or do not validate (fixture-migrate)",
    )
    parser.addini("fixtures_check", type="bool", default=False, help="enable the fixture-migrate fixtures check")
    parser.addini(
        "fixtures_check_paths",
        type="paths",
        default=[],
        help="files or directories the fixtures check reads (default: the rootdir)",
    )


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("fixtures_check") or config.getini("fixtures_check"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{ITEM_NAME}: a fixture file checked by fixture-migrate")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _enabled(config):
        return
    import fixture_migrate

    root = config.rootpath
    paths = config.getini("fixtures_check_paths") or [root]
    checked = _Checked(root)
    for path in fixture_migrate.fixture_files(*paths, repo_root=root):
        plan = fixture_migrate.plan_file(path, repo_root=root)
        if plan.status is fixture_migrate.Status.NOT_FIXTURE:
            continue
        file = FixtureFile.from_parent(session, path=path)
        item = FixtureItem.from_parent(file, name=ITEM_NAME)
        item.plan, item.checked = plan, checked
        item.add_marker(ITEM_NAME)
        checked.files.append(path)
        items.append(item)


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


class _Checked:
    """The validation errors of every collected file, found once (duplicate case ids are
    counted across files), by `source_file`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[Path] = []
        self._errors: dict[str | None, list[dict[str, Any]]] | None = None

    def errors_of(self, path: Path) -> list[dict[str, Any]]:
        import fixture_migrate

        if self._errors is None:
            self._errors = {}
            readable = [file for file in self.files if _readable(file, self.root)]
            for error in fixture_migrate.validate(readable, repo_root=self.root):
                self._errors.setdefault(error.get("source_file"), []).append(error)
        return self._errors.get(_shown(path, self.root), [])


def _readable(path: Path, root: Path) -> bool:
    import fixture_migrate

    return fixture_migrate.plan_file(path, repo_root=root).status is not fixture_migrate.Status.ERROR


class FixturesCheckFailed(Exception):
    """The problems of one fixture file, one `file:line:column: code: message` line each."""


class FixtureFile(pytest.File):
    """A fixture file, the parent of its one `FixtureItem` (made at collection's end)."""

    def collect(self) -> list[pytest.Item]:
        return []


class FixtureItem(pytest.Item):
    """One fixture file: canonical and valid, or a failure naming each problem."""

    plan: Any
    checked: _Checked

    def runtest(self) -> None:
        import fixture_migrate

        Status = fixture_migrate.Status
        shown = _shown(self.path, self.checked.root)
        problems: list[str] = []
        plan = self.plan
        if plan.status is Status.ERROR:
            error = plan.error
            problems.append(_line(shown, error.line, error.column, error.code, error.message))
        else:
            if plan.status is Status.CHANGED:
                message = f"not canonical: `fixture-migrate migrate {shown}` rewrites it ({', '.join(plan.adapters)})"
                problems.append(_line(shown, plan.line, None, NOT_CANONICAL, message))
            for error in self.checked.errors_of(self.path):
                where = _line(shown, error.get("line"), error.get("column"), error["reason_code"], "")
                problems.append(f"{where}{error.get('id') or '-'}: {error['message']}")
        if problems:
            raise FixturesCheckFailed("\n".join(problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, FixturesCheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"fixtures check: {_shown(self.path, self.checked.root)}"


def _line(shown: str, line: int | None, column: int | None, code: str, message: str) -> str:
    place = shown
    if line is not None:
        place += f":{line}"
        if column is not None:
            place += f":{column}"
    return f"{place}: {code}: {message}"
