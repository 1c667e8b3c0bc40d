"""The moved-names model: per fixture file, which names a reader of it reads elsewhere now.

Made from the migration plan (`Engine.plan`, the plan `migrate --diff` shows): a file
`migrate` would change names its moves in `FileResult.moves` (`examples` -> `cases`,
`user_intent` -> `input`, `dispatch_authorization` -> `extensions.dispatch_authorization`,
the legacy `schema_version` -> `extensions.migrated_from`) and its new path
(`cases.jsonl` -> `cases.json`). A file migrated already says the same in its own data:
`extensions.migrated_from` keeps the legacy schema_version and the members under each
`extensions` are the legacy members moved there; the renames of the shared rules
(`fixture_migrate.adapting.case_mapper`) whose canonical member the file has are added,
marked `inferred`. So `consumers` works the same before and after `migrate`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fixture_migrate.adapting.vocabulary import FORBIDDEN, INPUT, WEAK_INPUTS
from fixture_migrate.contract import rules as c
from fixture_migrate.slots import Record

FILE, CASE = "file", "case"
"""The two levels a moved name lives at: the file's payload, or each of its cases."""

RULE_RENAMES: dict[str, str] = {
    **{key: "input" for key in c.INPUT_SOURCES[1:] if key not in c.EXTENSION_COPY_KEYS},
    **{key: "expected_outcome" for key in c.OUTCOME_SOURCES[1:]},
    "negative_signal": "forbidden_signals",
    **{key: "forbidden_signals" for key in FORBIDDEN},
    **{key: "input" for key in INPUT if key not in WEAK_INPUTS},
}
"""The case members the shared rules rename (`CaseMapper.map_case`), and the exact names the
vocabulary reads as forbidden signals (`must_not`, `forbidden`, ...: `adapting.vocabulary.FORBIDDEN`)
and as the input (`prompt`, `query`, ..., the weak names such as `text` aside);
a migrated file no longer holds their legacy name, so for it these are inferred from the rules."""


COMPOSITE_HOMES = ("input", "expected_outcome")
"""The canonical members the shared rules may build as an object from several legacy members
(`expected_decision` and `expected_next_action` -> `expected_outcome: {expected_decision,
expected_next_action}`): each member of such an object is a legacy name that moved into it."""


class Move(Record):
    """One name a reader of a fixture file reads elsewhere: the legacy member `legacy` at
    `level` (`FILE` or `CASE`) now lives at `home` (a dotted path from the same object:
    `input`, `extensions.dispatch_authorization`). `inferred` when the file (migrated
    already) does not show it and the shared rules say it."""

    __slots__ = ("legacy", "home", "level", "inferred")
    __hash__ = Record.value_hash

    def __init__(self, legacy: str, home: str, level: str, inferred: bool = False) -> None:
        self.legacy = legacy
        self.home = home
        self.level = level
        self.inferred = inferred

    @property
    def home_path(self) -> tuple[str, ...]:
        return tuple(self.home.split("."))


class FixtureMoves(Record):
    """What moved in one fixture file.

    `path` is the file (absolute), `relative` its path from the repo root (posix);
    `new_path`/`new_relative` where a migration moves the file (`cases.jsonl` ->
    `cases.json`), else None; `versions` the legacy schema_version strings its payloads
    had; `moves` its `Move`s by legacy name; `migrated` whether the file is migrated
    already (its moves read from its data) rather than planned; `problems` the reason codes
    of the validation errors of a moved file's new data (`missing_coverage_tags`, ...): a new
    file that code reading every file of its folder now reads too; `guessed` when the move
    is inferred (`former_jsonl`), so it counts only once code names the old file; `wrapped`
    whether the migration wraps a bare list in the canonical object (True), keeps an object
    (False), or None when that is not known (a file migrated already, with no legacy version
    to read): only a wrapped list is read as a list by code that reads the whole document.
    """

    __slots__ = ("path", "relative", "new_path", "new_relative", "versions", "moves", "migrated", "problems", "guessed",
                 "wrapped")

    def __init__(
        self,
        path: Path,
        relative: str,
        *,
        new_path: Path | None = None,
        new_relative: str | None = None,
        versions: tuple[str, ...] = (),
        moves: dict[str, Move] | None = None,
        migrated: bool = False,
        problems: tuple[str, ...] = (),
        guessed: bool = False,
        wrapped: bool | None = None,
    ) -> None:
        self.path = path
        self.relative = relative
        self.new_path = new_path
        self.new_relative = new_relative
        self.versions = versions
        self.moves = {} if moves is None else moves
        self.migrated = migrated
        self.problems = problems
        self.guessed = guessed
        self.wrapped = wrapped


def _add(moves: dict[str, Move], move: Move) -> None:
    """Keep one home per legacy name: a member the rules both copy and keep (`intent`, kept
    under `extensions` and copied to `input`) reads best from where its value is kept."""
    found = moves.get(move.legacy)
    if found is None or (move.home == f"extensions.{move.legacy}" and found.home != move.home):
        moves[move.legacy] = move


def planned_moves(plan_moves: list[tuple[tuple[Any, ...], tuple[Any, ...]]]) -> dict[str, Move]:
    """The `Move`s of a planned change, from `FileResult.moves`: a member of the payload
    (path `(key,)`) is a file-level move; a member of a case (`(..., index, key)`) a
    case-level one, its home the target path after the case's index. Deeper moves (inside a
    member's value) are not names a reader reads, and are left out."""
    moves: dict[str, Move] = {}
    for source, target in plan_moves:
        if not source or not isinstance(source[-1], str):
            continue
        if len(source) == 1:
            home = target
            level = FILE
        elif isinstance(source[-2], int):
            last = max((i for i, key in enumerate(target) if isinstance(key, int)), default=None)
            if last is None:
                continue
            home = target[last + 1 :]
            level = CASE
        else:
            continue
        if not home or not all(isinstance(key, str) for key in home) or home == (source[-1],):
            continue
        _add(moves, Move(source[-1], ".".join(home), level))
    return moves


def wraps_list(plan_moves: list[tuple[tuple[Any, ...], tuple[Any, ...]]]) -> bool:
    """Whether a planned change (`FileResult.moves`) moves the whole document (a bare list of
    cases) under a member (`cases`)."""
    return any(source == () for source, _ in plan_moves)


def migrated_moves(units: list[Any]) -> tuple[tuple[str, ...], dict[str, Move]]:
    """`(legacy versions, moves)` of a migrated canonical file, from its payloads' data:
    `extensions.migrated_from` names the legacy schema_version and says the file was migrated,
    so each member under a file's or case's `extensions` is a legacy member moved there
    (`<key>__legacy` ones aside; without it those are the file's own, as in a file written
    canonical, and `committed_moves` asks git what the file was instead); the rules'
    renames (`RULE_RENAMES`, `examples` -> `cases`) are added, `inferred`, where the file has
    their canonical member, and so is each member of an `input` or `expected_outcome` object
    (`COMPOSITE_HOMES`) that the case does not also hold."""
    versions: list[str] = []
    moves: dict[str, Move] = {}
    for data in units:
        if not isinstance(data, dict) or data.get("schema_version") != c.CANONICAL_SCHEMA_VERSION:
            continue
        extensions = data.get("extensions")
        extensions = extensions if isinstance(extensions, dict) else {}
        origin = extensions.get("migrated_from")
        migrated = isinstance(origin, str) and bool(origin)
        if migrated:
            if origin not in versions:
                versions.append(origin)
            _add(moves, Move("schema_version", "extensions.migrated_from", FILE))
        for key in extensions if migrated else ():  # a file written canonical keeps its own there
            if key != "migrated_from" and "__legacy" not in key:
                _add(moves, Move(key, f"extensions.{key}", FILE))
        cases = data.get("cases")
        if isinstance(cases, list):
            _add(moves, Move("examples", "cases", FILE, inferred=True))
            for case in cases:
                if not isinstance(case, dict):
                    continue
                own = case.get("extensions") if migrated else None
                for key in own if isinstance(own, dict) else ():
                    if "__legacy" not in key:
                        _add(moves, Move(key, f"extensions.{key}", CASE))
                for legacy, home in RULE_RENAMES.items():
                    if home in case and legacy not in case:
                        _add(moves, Move(legacy, home, CASE, inferred=True))
                for home in COMPOSITE_HOMES if migrated else ():  # a file written so means its own
                    parts = case.get(home)
                    for key in parts if isinstance(parts, dict) else ():
                        if isinstance(key, str) and key not in case:
                            _add(moves, Move(key, f"{home}.{key}", CASE, inferred=True))
    return tuple(versions), moves


def says_migrated(units: list[Any]) -> bool:
    """Whether the canonical payloads `units` show a migration (`extensions.migrated_from`).
    A file that does not may have been written canonical: its inferred moves are guesses."""
    return any(
        isinstance(data, dict) and isinstance(data.get("extensions"), dict) and bool(data["extensions"].get("migrated_from"))
        for data in units
    )


def legacy_versions(units: list[Any]) -> tuple[str, ...]:
    """The schema_version strings of the legacy payloads among `units` (a planned change's source)."""
    found: list[str] = []
    for data in units:
        version = data.get("schema_version") if isinstance(data, dict) else None
        if isinstance(version, str) and version and version != c.CANONICAL_SCHEMA_VERSION and version not in found:
            found.append(version)
    return tuple(found)


def former_jsonl(path: Path, units: list[Any]) -> Path | None:
    """The JSON Lines file a canonical `<stem>.json` was migrated from (`<stem>.jsonl` beside
    it, DESIGN "Syntax stays"), when that file is gone and `units` (the file's payloads) are
    canonical with cases and no file-level `extensions` (JSON Lines has no envelope to keep,
    so what it becomes has none; a migrated JSON file keeps `extensions.migrated_from`);
    else None."""
    if path.suffix != ".json" or len(units) != 1:
        return None
    data = units[0]
    if not isinstance(data, dict) or data.get("schema_version") != c.CANONICAL_SCHEMA_VERSION:
        return None
    if not isinstance(data.get("cases"), list) or "extensions" in data:
        return None  # a JSON Lines file has no envelope: what it becomes has no file extensions
    former = path.with_suffix(".jsonl")
    return None if os.path.lexists(former) else former


def validation_problems(units: list[Any], relative: str, skill: str | None = None) -> tuple[str, ...]:
    """The reason codes (sorted, each once) of the validation errors of the payloads `units`
    of the file at `relative`, source refs not checked (`contract.validate`)."""
    from fixture_migrate.contract.normalize import normalize_payload
    from fixture_migrate.contract.validate import RefChecker, validate_cases

    cases = [case for data in units for case in normalize_payload(data, source_file=relative, skill=skill)]
    errors = validate_cases(cases, RefChecker(Path("."), check_exists=False))
    return tuple(sorted({error["reason_code"] for error in errors}))
