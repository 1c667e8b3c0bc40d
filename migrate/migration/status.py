"""What a migration does to one file: `Status`, the one name for a file's outcome.

The engine gives each file a `Status` (`fixture_migrate.migration.engine.FileResult.status`),
a run adds the outcomes only a walk over a tree has (`SKIPPED`, `PINNED`:
`fixture_migrate.migration.run`), and the command line and the public API
(`fixture_migrate.Status`, this very class) say the same words. A claim's decision about
one payload is another idea, with its own name (`fixture_migrate.claiming.rules.Verdict`).
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What a migration does to one file.

    A `StrEnum`: each member equals its value (`Status.CHANGED == "changed"`), the word
    the command line's `--output-format json` prints.
    """

    CHANGED = "changed"
    """A migration is planned (or was written)."""
    UNCHANGED = "unchanged"
    """A fixture already canonical: its bytes stay."""
    NOT_FIXTURE = "not_fixture"
    """No adapter claims the file; it is left alone."""
    ERROR = "error"
    """The file cannot be read or migrated; its error (`Plan.error`, `FileResult.error`) says why."""
    OTHER_TOOL = "other_tool"
    """Another eval tool's file, left alone for `import --from <import_from>`."""
    UNCLAIMED = "unclaimed"
    """Looks like a fixture of a local family, without the evidence to migrate it: left
    alone and named, with what is missing (`fixture-migrate suggest` drafts a table)."""
    SKIPPED = "skipped"
    """A walked file no parser can read, outside the places fixtures live (a run's report
    sets it; a plan of a single file is an error instead)."""
    PINNED = "pinned"
    """A planned change a run leaves undone because another tracked file pins the file's
    bytes (its digest or size); `--include-pinned` migrates it (a run over a tree sets it)."""
