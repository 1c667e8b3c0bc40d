"""The files a `migrate` run leaves unmigrated, grouped by family with one way forward each
(DESIGN.md, "Claiming a file": a fixture it cannot place is named, never skipped in
silence), so a bulk run over a repository prints a few lines a reviewer can act on, not
one per file; `-v` still names every file with its own reason."""

from __future__ import annotations

from typing import Any

from fixture_migrate.migration.status import Status

SHOWN = 5
"""Paths a group lists in its line (`-v` names every file)."""


class Group:
    """Files left unmigrated for one reason: `status` (`OTHER_TOOL` or `UNCLAIMED`), the
    claim `rule`, the `family` (records' members) or the `import_from` format, the first
    file's `reason`, and the `paths` as shown."""

    __slots__ = ("status", "rule", "family", "import_from", "reason", "paths")

    def __init__(self, status: Status, rule: str, family: str | None, import_from: str | None, reason: str) -> None:
        self.status = status
        self.rule = rule
        self.family = family
        self.import_from = import_from
        self.reason = reason
        self.paths: list[str] = []

    @property
    def way_forward(self) -> str:
        """What brings the group's files in, in one sentence."""
        first = self.paths[0]
        if self.status is Status.OTHER_TOOL:
            return f"`fixture-migrate import --from {self.import_from} PATH` makes a canonical file of each"
        if self.rule == "outside_territory":
            # Not `include`: it also narrows the walk to what it names.
            return (
                f"they lie outside fixture territory: declare the family with the table "
                f"`fixture-migrate suggest {' '.join(self.paths[:SHOWN])}` drafts (its `files` globs), "
                "or move them into an evals/ folder"
            )
        return f"{self.reason}; `fixture-migrate suggest {first}` drafts an adapter table"

    def line(self, *, verbose: bool) -> str:
        """The group's line: how many files, of what, the way forward, and (unless `verbose`,
        where each file has its own line) the first paths."""
        n = len(self.paths)
        files = f"{n} file{'s' if n != 1 else ''}"
        if self.status is Status.OTHER_TOOL:
            head = f"left for import: {files} of {self.import_from}"
        else:
            head = f"not migrated: {files} of a local family {self.family or ''}".rstrip()
        text = f"{head}: {self.way_forward}"
        if not verbose:
            shown = ", ".join(self.paths[:SHOWN])
            more = f", and {n - SHOWN} more (-v names each)" if n > SHOWN else ""
            text += f" ({shown}{more})"
        return text

    def record(self) -> dict[str, Any]:
        """The group as JSON output holds it."""
        return {
            "status": self.status,
            "rule": self.rule,
            "family": self.family,
            "import_from": self.import_from,
            "files": list(self.paths),
            "way_forward": self.way_forward,
        }


class NotMigrated:
    """Collects a run's unmigrated files (`add`) into `Group`s, in order of first file."""

    def __init__(self) -> None:
        self.groups: dict[tuple[Any, ...], Group] = {}

    def add(self, result: Any, shown: str) -> None:
        """Note the file `shown` of a `FileResult` whose status is `OTHER_TOOL` or `UNCLAIMED`."""
        if result.status is Status.OTHER_TOOL:
            key: tuple[Any, ...] = (Status.OTHER_TOOL, result.import_from)
        else:
            key = (Status.UNCLAIMED, result.rule, result.family or result.reason)
        group = self.groups.get(key)
        if group is None:
            group = Group(result.status, result.rule, result.family, result.import_from, result.reason)
            self.groups[key] = group
        group.paths.append(shown)

    @property
    def families(self) -> int:
        """How many local families (groups of unclaimed files) the run leaves unmigrated."""
        return sum(1 for group in self.groups.values() if group.status is Status.UNCLAIMED)

    def lines(self, *, verbose: bool) -> list[str]:
        """One line per group: files left for import first, then local families."""
        ordered = sorted(self.groups.values(), key=lambda g: g.status is not Status.OTHER_TOOL)
        return [group.line(verbose=verbose) for group in ordered]

    def records(self) -> list[dict[str, Any]]:
        """The groups as JSON output holds them."""
        return [group.record() for group in self.groups.values()]
