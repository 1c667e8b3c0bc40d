"""What `consumers` finds, and the rule of which code counts as a consumer.

A `Finding` is one read (or write, or declaration) of a moved name in consumer code,
at a place of a source file, with the legacy name, its new home, the access pattern
and either the `Edit` `--fix` makes or the advice a person needs. `References` is
the consumer rule: a string in code names a migrated fixture file when it is the
file's path (or ends with it at a `/`; leading `./` and `../` parts, a path relative to
the code's own folder, are left out first), its base name, a path ending with its path or
with its last three parts (`.agents/skills/x/evals/cases.json`: a projected copy), its
folder (a path with a `/`), a glob that matches it (a string with `*`, `?` or `[`, or an f-string or template
with its holes taken as `*`), or one of its legacy `schema_version` strings.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fixture_migrate.slots import Record

if TYPE_CHECKING:
    from fixture_migrate.consumers.moves import FixtureMoves, Move

FIX, PERSON = "fix", "person"
"""Who changes a finding: `--fix`, or a person (the finding's `advice` says what to change)."""


class Edit(Record):
    """Replace the characters `start:end` of a source text with `text`."""

    __slots__ = ("start", "end", "text")
    __hash__ = Record.value_hash

    def __init__(self, start: int, end: int, text: str) -> None:
        self.start = start
        self.end = end
        self.text = text


class Finding(Record):
    """One site of consumer code that reads a moved name (or names a moved file, or writes
    a legacy shape).

    `line` and `column` are 1-based (the column counts characters); `legacy` is the
    legacy name, `home` its new home (`input`, `extensions.migrated_from`, a new path);
    `pattern` the access pattern (`subscript`, `get`, `member`, `schema_version`, `path`,
    `destructuring`, `object_literal`, `field_list`, `in_test`, `writer`, `schema`, ...);
    `who` is `FIX` or `PERSON`; `edit` the rewrite `--fix` makes (with `FIX`);
    `advice` what a person changes; `fixtures` the fixture files (relative) the code reads.
    """

    __slots__ = ("path", "line", "column", "legacy", "home", "pattern", "who", "edit", "advice", "fixtures")

    def __init__(
        self,
        path: str,
        line: int,
        column: int,
        legacy: str,
        home: str,
        pattern: str,
        who: str,
        edit: Edit | None = None,
        advice: str = "",
        fixtures: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.legacy = legacy
        self.home = home
        self.pattern = pattern
        self.who = who
        self.edit = edit
        self.advice = advice
        self.fixtures = fixtures

    def as_dict(self) -> dict[str, object]:
        """The finding as the JSON output prints it."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "legacy": self.legacy,
            "home": self.home,
            "pattern": self.pattern,
            "fix": self.who == FIX,
            "advice": self.advice,
            "fixtures": list(self.fixtures),
        }

    def text(self) -> str:
        """`path:line:col: pattern: legacy -> home (fix | person: advice)`."""
        who = "--fix rewrites it" if self.who == FIX else f"for a person: {self.advice}"
        return f"{self.path}:{self.line}:{self.column}: {self.pattern}: `{self.legacy}` -> `{self.home}` ({who})"


_GLOB = frozenset("*?[")


def _normal(value: str) -> str:
    value = value.replace("\\", "/").strip()
    # `./x` and `../../x` name `x` relative to the code's own folder (`require`, `__dirname`):
    # what follows them is a path that ends with the fixture's, as any other spelling is read.
    while value.startswith(("./", "../")):
        value = value[2:] if value.startswith("./") else value[3:]
    return value.rstrip("/")


def _particular(glob: str) -> bool:
    """Whether the glob `glob` has a literal part that names something in particular: a run of
    three or more letters, digits or `_`/`-` between its wildcards other than a final suffix
    (`evals/*.json`, `*_cases.json` do; `*`, `*.json`, `*-*`, `*/*.*` do not)."""
    runs = [run for run in re.split(r"[*?\[\]]+", glob) if run]
    if runs and runs[-1].startswith(".") and "/" not in runs[-1]:
        runs = runs[:-1]  # the suffix
    return any(len(re.sub(r"[^\w-]", "", run).strip("-_")) >= 3 for run in runs)


def _names_path(value: str, relative: str) -> bool:
    if not value:
        return False
    if any(ch in _GLOB for ch in value):
        if not _particular(value):
            return False  # `*`, `**/*`, `*.json`, a template `${a}-${b}`: names nothing in particular
        return fnmatch.fnmatchcase(relative, value) or fnmatch.fnmatchcase(relative, "*/" + value.lstrip("/"))
    if relative == value or relative.endswith("/" + value):
        return "/" in value or "." in value  # a path, or a base name with its suffix
    if value.endswith("/" + relative):
        return True  # a copy of the tree under another folder (`.agents/skills/...`)
    tail = relative.split("/")[-3:]
    if len(tail) == 3 and value.split("/")[-3:] == tail and "." in tail[-1]:
        return True  # the same skill folder, evals folder and file under another root
    if "/" in value:
        folder = relative.rsplit("/", 1)[0] if "/" in relative else ""
        return folder == value or folder.endswith("/" + value)
    return False


class References:
    """Which fixture files a string of code names (see the module docstring); built once
    per run from the moved-names model."""

    def __init__(self, fixtures: Sequence[FixtureMoves]) -> None:
        self.fixtures = list(fixtures)
        self.by_version: dict[str, set[int]] = {}
        for index, fixture in enumerate(self.fixtures):
            for version in fixture.versions:
                self.by_version.setdefault(version, set()).add(index)
        self._memo: dict[str, frozenset[int]] = {}
        self.named_old: set[int] = set()  # the moved files whose old path code names
        self.used: set[int] = set()  # the files one of whose moved names code reads

    def counted(self) -> int:
        """How many fixture files have moved names: a guessed one counts once code uses it."""
        return sum(1 for i, f in enumerate(self.fixtures) if not f.guessed or i in self.named_old or i in self.used)

    def named(self, value: str) -> frozenset[int]:
        """The indices of the fixture files `value` names (empty: none)."""
        found = self._memo.get(value)
        if found is not None:
            return found
        hits: set[int] = set(self.by_version.get(value, ()))
        normal = _normal(value)
        if 3 <= len(normal) <= 400 and "\n" not in normal:
            for index, fixture in enumerate(self.fixtures):
                if _names_path(normal, fixture.relative) or (
                    fixture.new_relative is not None and _names_path(normal, fixture.new_relative)
                ):
                    hits.add(index)
        found = self._memo[value] = frozenset(hits)
        return found

    def moved_file(self, value: str) -> FixtureMoves | None:
        """The fixture file whose old path `value` names when a migration moves that file
        (`cases.jsonl` -> `cases.json`), else None."""
        normal = _normal(value)
        if any(ch in _GLOB for ch in normal):
            return None
        for index, fixture in enumerate(self.fixtures):
            old = fixture.relative
            if fixture.new_relative is not None and (normal == old or old.endswith("/" + normal)) and "." in normal:
                self.named_old.add(index)
                return fixture  # the file itself (its path, or its base name), not its folder
        return None

    def wrapped(self, labels: Iterable[int]) -> bool:
        """Whether the files `labels` may be bare lists the migration wraps in the canonical
        object: none of them is known to be an object already."""
        return all(self.fixtures[index].wrapped is not False for index in labels)

    def versions(self, labels: Iterable[int]) -> set[str]:
        return {version for index in labels for version in self.fixtures[index].versions}

    @staticmethod
    def checks_version(value: str | None, versions: set[str]) -> bool:
        """Whether the string `value`, in a statement reading `schema_version`, checks for one of
        the legacy `versions`: it is one, or a part of one (`toContain('spec-plan-output-quality')`,
        `"spec-plan" in data["schema_version"]`) of four or more characters that the canonical
        version does not hold (so the check would fail on migrated data)."""
        if value is None:
            return False
        if value in versions:
            return True
        from fixture_migrate.contract.rules import CANONICAL_SCHEMA_VERSION

        return len(value) >= 4 and value not in CANONICAL_SCHEMA_VERSION and any(value in v for v in versions)

    def move(self, labels: Iterable[int], key: str) -> Move | None | bool:
        """The move of `key` in the files `labels`: a `Move`, None when none of them moves
        it, or False when they move it to different homes (a person decides)."""
        found = None
        for index in labels:
            move = self.fixtures[index].moves.get(key)
            if move is None:
                continue
            if found is not None and found.home != move.home:
                return False
            found = move
            self.used.add(index)  # a guessed file counts once code reads one of its names
        return found

    def field_list(self, labels: frozenset[int], names: list[str]) -> tuple[str, str, str] | None:
        """For a literal list of field `names` in code reading the files `labels` (a loop
        reads them one by one): `(first moved name, its home, advice for a person)`, or
        None when none of them moved."""
        moved = [(name, self.move(labels, name)) for name in names]
        moved = [(name, move) for name, move in moved if move]
        if not moved:
            return None
        homes = ", ".join(f"`{name}` -> `{move.home}`" for name, move in moved)
        return moved[0][0], moved[0][1].home, f"a list of field names read one by one: {homes}"

    def file_findings(self) -> list[Finding]:
        """One finding (for a person) per file the migration moves (`cases.jsonl` -> `cases.json`;
        a guessed move once code names the old file, so after the code was scanned) whose new
        data does not validate: a new file in its folder, which code that reads every
        fixture of the folder (a walk, a glob over `evals/`) reads too, named by no string."""
        found = []
        for index, fixture in enumerate(self.fixtures):
            if fixture.new_relative is None or not fixture.problems:
                continue
            if fixture.guessed and index not in self.named_old:
                continue  # a canonical file that may never have been JSON Lines
            found.append(
                Finding(
                    fixture.new_relative, 1, 1, fixture.relative, fixture.new_relative, "new_file", PERSON,
                    advice=f"a new file in `{fixture.new_relative.rsplit('/', 1)[0] if '/' in fixture.new_relative else '.'}`"
                    f" whose cases do not validate ({', '.join(fixture.problems)}; `fixture-migrate validate` places "
                    "them): code that reads every fixture of the folder reads it too; add what is missing",
                    fixtures=(fixture.relative,),
                )
            )
        return found

    def relatives(self, labels: Iterable[int]) -> tuple[str, ...]:
        return tuple(sorted({self.fixtures[index].relative for index in labels}))


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with `edits` made; they must not overlap (raises ValueError)."""
    ordered = sorted(edits, key=lambda edit: (edit.start, edit.end))
    parts: list[str] = []
    at = 0
    for edit in ordered:
        if edit.start < at:
            raise ValueError("overlapping edits")
        parts.append(text[at : edit.start])
        parts.append(edit.text)
        at = edit.end
    parts.append(text[at:])
    return "".join(parts)


def innermost(edits: list[Edit]) -> list[Edit]:
    """The edits of `edits` that hold no other one (innermost first: a rewrite of an inner
    read changes its outer read's receiver; the next pass rewrites the outer one)."""
    # An edit holds another (a different one: equal edits are one read reported twice) when
    # some other edit starts at or after it and ends at or before it. Sorted by (start, end),
    # that is an earlier one with the same start, or a later one ending at or before its end:
    # one sort and one backward sweep, not every edit against every other.
    unique = sorted(set(edits), key=lambda e: (e.start, e.end, e.text))
    holds: set[Edit] = set()
    lowest_end = None  # the smallest end among the edits after the current one
    for index in range(len(unique) - 1, -1, -1):
        edit = unique[index]
        if (index > 0 and unique[index - 1].start == edit.start) or (lowest_end is not None and lowest_end <= edit.end):
            holds.add(edit)
        lowest_end = edit.end if lowest_end is None else min(lowest_end, edit.end)
    kept = [edit for edit in edits if edit not in holds]
    # Two equal spans (one read reported twice) and partial overlaps: keep the first.
    result: list[Edit] = []
    for edit in sorted(kept, key=lambda e: (e.start, e.end)):
        if result and edit.start < result[-1].end:
            continue
        result.append(edit)
    return result


def line_column(text: str, offset: int, starts: list[int] | None = None) -> tuple[int, int]:
    """1-based `(line, column)` of the character `offset` of `text`."""
    from bisect import bisect_right

    if starts is None:
        starts = line_starts(text)
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts. A line ends with `\\n`, `\\r\\n` or a lone
    `\\r`, as libcst's positions (and Python's tokenizer) count lines: edits placed by them
    land on the right characters in a module with CR or mixed line endings."""
    if "\r" not in text:
        starts = [0]
        index = text.find("\n")
        while index != -1:
            starts.append(index + 1)
            index = text.find("\n", index + 1)
        return starts
    import re

    return [0, *(match.end() for match in re.finditer(r"\r\n?|\n", text))]
