"""The engine: walks paths, plans each file's migration, checks it, and applies it.

Per file, data flows one way (DESIGN.md, "Architecture"): read the bytes, parse
them (`migrate.formats`), ask the registry which adapter claims each payload,
let the adapter build the canonical target tree, render it as edits of the
original text, then check the result before anything is written: the output
must parse, conserve every leaf, normalize compatibly with the reference's view
of the input, add no validation error, and be stable (migrating it again
changes nothing). A plan that fails a check is an error for that file; the
other files go on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from migrate import contract as c
from migrate.adapter import Adapter, Context
from migrate.compatibility import compatibility_violations
from migrate.conservation import missing_leaves
from migrate.errors import FixtureError, MappingError
from migrate.formats import DEFAULT_PY_NAMES, MAX_DEPTH, Document, Unit, integer_too_long, load_document, syntax_of
from migrate.normalize import NormalizedCase, normalize_payload
from migrate.plan import Node, Src, count_extension_moves, count_moves, is_unchanged, materialize
from migrate.record import Record
from migrate.registry import Registry, migration_registry
from migrate.validate import CaseIdRegistry, RefChecker, ValidationError, make_error, validate_case, validate_cases
from migrate.writes import (
    TEMP_SUFFIX,
    HardLinks,
    check_new,
    check_writable,
    read_fixture,
    resolve_target,
    write_atomic,
    write_new,
)

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
"""Directory names a walk never enters, besides hidden ones (`.git`, `.venv`, ...)."""


def find_repo_root(start: Path) -> Path:
    """The nearest directory at or above `start` holding `.git`, else `start` itself."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def relative_source(path: Path, root: Path) -> str:
    """The POSIX path of `path` relative to `root`, as the reference's `source_file` (`../` when outside)."""
    full = os.path.abspath(path)
    base = os.path.abspath(root)
    if full.startswith(base + os.sep):
        return full[len(base) + 1 :].replace(os.sep, "/")
    return Path(os.path.relpath(full, base)).as_posix()


def diff_name(path: Path, root: Path) -> str:
    """The name of `path` in a diff header: relative to the repo `root`, as git writes it, so
    the diff applies from there (`git apply`, `patch -p1`); as given when outside the root."""
    relative = relative_source(path, root)
    return Path(path).as_posix() if relative.startswith("../") else relative


class Options(Record):
    """Settings of one run: `repo_root` (absolute), the caller's `skill` for files without one,
    `py_names` the names a bare case list in a Python module is a fixture under (`--py-name`)."""

    __slots__ = ("repo_root", "skill", "py_names")

    def __init__(self, repo_root: Path, skill: str | None = None, py_names: tuple[str, ...] = DEFAULT_PY_NAMES) -> None:
        self.repo_root = repo_root
        self.skill = skill
        self.py_names = py_names

    def context(self, path: Path) -> Context:
        return Context(source_file=relative_source(path, self.repo_root), skill=self.skill)


class FileResult(Record):
    """What happened to one file.

    `status` is one of "changed" (a migration is planned or was written),
    "unchanged", "not_fixture", "error". `adapters` names the adapter of each
    fixture payload; `new_path` is set when the migration moves the file (JSONL);
    `old_bytes`/`new_bytes` hold the file before and after a planned change; `cases`
    counts the cases of a changed file, `moved` the source values placed elsewhere,
    `to_extensions` per adapter the fields a change moves under `extensions`.
    """

    __slots__ = (
        "path",
        "status",
        "adapters",
        "error",
        "new_path",
        "old_bytes",
        "new_bytes",
        "cases",
        "moved",
        "first_changed_line",
        "to_extensions",
    )

    def __init__(
        self,
        path: Path,
        status: str,
        adapters: list[str] | None = None,
        error: FixtureError | None = None,
        new_path: Path | None = None,
        old_bytes: bytes | None = None,
        new_bytes: bytes | None = None,
        cases: int = 0,
        moved: int = 0,
        first_changed_line: int = 1,
        to_extensions: dict[str, int] | None = None,
    ) -> None:
        self.path = path
        self.status = status
        self.adapters = [] if adapters is None else adapters
        self.error = error
        self.new_path = new_path
        self.old_bytes = old_bytes
        self.new_bytes = new_bytes
        self.cases = cases
        self.moved = moved
        self.first_changed_line = first_changed_line
        self.to_extensions = {} if to_extensions is None else to_extensions


def iter_files(paths: Iterable[Path]) -> Iterator[tuple[Path, FixtureError | None]]:
    """Each file to process, in a stable order, with an error for a path that does not exist.

    A directory is walked recursively for the suffixes `migrate.formats` reads, in
    sorted order, skipping hidden and `SKIPPED_DIRS` directories and never following
    a symlinked directory. A file named directly is yielded whatever its suffix.
    """
    paths = list(paths)
    # One walk never meets a file twice; only overlapping arguments need remembering
    # (and a long walk is not held in memory without need).
    seen: set[Path] | None = set() if len(paths) > 1 else None
    for path in paths:
        if path.is_dir():
            for found in _walk(path):
                if seen is None or found not in seen:
                    if seen is not None:
                        seen.add(found)
                    yield found, None
        elif path.exists() or path.is_symlink():
            if seen is None or path not in seen:
                if seen is not None:
                    seen.add(path)
                yield path, None
        else:
            yield path, FixtureError("no such file or directory", code="io")


def _walk(root: Path) -> Iterator[Path]:
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(filenames):
            if syntax_of(Path(name)) is not None and not name.endswith(TEMP_SUFFIX):
                yield Path(directory) / name


def read_document(path: Path, *, duplicates: str = "refuse", py_names: tuple[str, ...] | None = None) -> Document:
    """The parsed `Document` of a file; raises `FixtureError` for I/O, encoding and syntax errors.

    `duplicates` is "refuse" (a repeated key is an error) or "last" (the last one wins);
    `py_names` as for `load_document`. Only a regular file of at most
    `migrate.writes.MAX_FILE_BYTES` is read.
    """
    return load_document(path, read_fixture(path), duplicates=duplicates, py_names=py_names)


def _place(error: FixtureError, document: Document, unit: int) -> FixtureError:
    """`error` with the line and column of its payload path, when it is a `MappingError`."""
    if isinstance(error, MappingError) and error.line is None:
        where = document.locate(unit, error.path)
        if where is not None:
            error.line, error.column = where
    return error


def unexpected(exc: Exception) -> FixtureError:
    """The error reported for one file when processing it raised something unforeseen:
    a bug, or a limit of the interpreter, it stops that file only, never the run."""
    if isinstance(exc, RecursionError):
        return FixtureError("nesting too deep to process", code="too_deep")
    if isinstance(exc, ValueError) and "int_max_str_digits" in str(exc):
        return integer_too_long()
    return FixtureError(f"internal error: {type(exc).__name__}: {exc}", code="internal")


def reference_cases(unit: Unit, context: Context) -> list[NormalizedCase]:
    """The reference's normalized view of one payload (bare case lists have none)."""
    if unit.shape != "payload":
        return []
    return normalize_payload(unit.data, source_file=context.source_file, skill=context.skill)


def migrated_cases(unit: Unit, adapter: Adapter, context: Context, target: Node | None = None) -> list[NormalizedCase]:
    """The normalized view of a payload as migrated, naming its source schema_version (the
    compatibility check compares it with the reference's view of the source)."""
    target = adapter.to_canonical(unit, context) if target is None else target
    payload = materialize(target, unit.data)
    version = unit.data.get("schema_version") if isinstance(unit.data, dict) else None
    return normalize_payload(
        payload,
        source_file=context.source_file,
        skill=context.skill,
        schema_version=version if c.js_truthy(version) else None,
        normalized_from="canonical" if version == c.CANONICAL_SCHEMA_VERSION else "legacy_adapter",
    )


def _shown_leaf(leaf: Any) -> str:
    if isinstance(leaf, str):
        return repr(leaf)
    kind, value = leaf
    return "an object" if (kind, value) == ("object", "fillable") else repr(value)


def first_changed_line(old: bytes, new: bytes) -> int:
    """The 1-based line of `old` where a change to `new` begins (where every diff's first
    hunk starts changing lines)."""
    a, b = old.split(b"\n"), new.split(b"\n")
    for index, (before, after) in enumerate(zip(a, b, strict=False)):
        if before != after:
            return index + 1
    return min(len(a), len(b))


def _error_keys(cases: list[NormalizedCase]) -> set[tuple[int, str]]:
    """`(case position, reason code)` of each validation error of `cases`.

    Keyed by position, not by id: a migration may write an id the reference left
    empty (a `name` whose slug is empty becomes `case-<n>`), and the errors the case
    still has must compare equal before and after.
    """
    checker = RefChecker(Path("."), check_exists=False)
    ids = CaseIdRegistry()
    keys: set[tuple[int, str]] = set()
    for index, case in enumerate(cases):
        keys.update((index, error["reason_code"]) for error in validate_case(case, checker))
        if ids.check(case) is not None:
            keys.add((index, c.DUPLICATE_CASE_ID))
    return keys


class Engine:
    """Plans and applies migrations, and reads fixtures for `normalize` and `validate`.

    `options` holds the run's settings; `registry` the adapters (the built-ins by default).
    """

    def __init__(self, options: Options, registry: Registry | None = None) -> None:
        self.options = options
        self.registry = registry or migration_registry()
        self.hard_links = HardLinks(options.repo_root)

    def detect(self, document: Document) -> list[Adapter | None]:
        """The adapter claiming each unit of `document` (None: not a fixture)."""
        return [self.registry.detect(unit) for unit in document.units]

    def plan(self, path: Path) -> FileResult:
        """Read `path` and work out its migration, checked, without writing anything.

        Errors of the file are returned in the result (status "error"), not raised. A
        symlink leading outside the repo root is refused, as `migrate.writes` refuses it.
        """
        try:
            resolve_target(path, self.options.repo_root)
            raw = read_fixture(path)
        except FixtureError as error:
            return FileResult(path, "error", error=error)
        return self.plan_bytes(path, raw)

    def plan_bytes(self, path: Path, raw: bytes) -> FileResult:
        """`plan` for bytes already read; `path` names the file (its suffix picks the syntax).

        A bug met while planning (any exception besides `FixtureError`) is reported as an
        `internal` error of this file, so one file cannot stop a bulk run.
        """
        try:
            return self._plan(path, raw)
        except FixtureError as error:
            return FileResult(path, "error", error=error)
        except Exception as exc:  # noqa: BLE001 - reported per file, never swallowed silently
            return FileResult(path, "error", error=unexpected(exc))

    def _plan(self, path: Path, raw: bytes) -> FileResult:
        document = load_document(path, raw, py_names=self.options.py_names)
        adapters = self.detect(document)
        if all(adapter is None for adapter in adapters):
            return FileResult(path, "not_fixture")
        context = self.options.context(path)
        targets: list[Node] = []
        result = FileResult(path, "unchanged", adapters=[a.name for a in adapters if a is not None])
        for index, (unit, adapter) in enumerate(zip(document.units, adapters, strict=True)):
            if adapter is None:
                targets.append(Src(()))
                continue
            try:
                target = adapter.to_canonical(unit, context)
            except MappingError as error:
                raise _place(error, document, index) from None
            targets.append(target)
            result.moved += count_moves(target)
            moved_in = count_extension_moves(target)
            if moved_in:
                result.to_extensions[adapter.name] = result.to_extensions.get(adapter.name, 0) + moved_in
        if all(is_unchanged(target) for target in targets) and document.output_path == path:
            return result
        new_bytes = document.render(targets)
        if new_bytes == document.raw and document.output_path == path:
            return result  # the edits write back what is there (a bare case list already canonical)
        new_units = self._check(document, adapters, new_bytes, context)
        result.status = "changed"
        result.cases = sum(len(data.get("cases") or []) for data in new_units if isinstance(data, dict))
        result.old_bytes, result.new_bytes = document.raw, new_bytes
        result.first_changed_line = first_changed_line(document.raw, new_bytes)
        if document.output_path != path:
            # As `apply` will: the new name must lead inside the repo and be free.
            check_new(self._new_target(document.output_path), new_bytes)
            result.new_path = document.output_path
        return result

    def _new_target(self, new_path: Path) -> Path:
        """Where a file a migration creates (`x.json` for `x.jsonl`) is written; raises
        `FixtureError` when that name is a symlink leading outside the repo root."""
        try:
            return resolve_target(new_path, self.options.repo_root)
        except FixtureError as error:
            raise FixtureError(
                f"refused: {new_path.name}, which it would become, is a symlink (or lies in a "
                "symlinked directory) leading outside the repo root; not followed",
                code=error.code,
            ) from None

    def _check(
        self,
        document: Document,
        adapters: list[Adapter | None],
        new_bytes: bytes,
        context: Context,
    ) -> list[Any]:
        """The unit data of the rendered migration, after refusing one that loses a leaf,
        breaks compatibility, adds a validation error, or would change on a second run."""
        try:
            new_units = document.reparse(new_bytes)
        except FixtureError as error:
            if error.code == "too_deep":
                message = f"refused: the migrated file would nest deeper than {MAX_DEPTH} levels"
                raise FixtureError(message, code="too_deep") from None
            raise FixtureError(
                f"internal error: the migrated text does not parse ({error.message})", code="internal"
            ) from None
        old_units = [unit.data for unit in document.units]
        missing = missing_leaves(old_units, new_units)
        if missing:
            sample = ", ".join(_shown_leaf(leaf) for leaf in list(missing)[:3])
            raise FixtureError(
                f"refused: the migration would lose {sum(missing.values())} value(s): {sample}", code="conservation"
            )
        for unit, adapter, data in zip(document.units, adapters, new_units, strict=True):
            if adapter is None:
                continue
            new_unit = Unit(data)
            again = self.registry.detect(new_unit)
            if again is None or not is_unchanged(again.to_canonical(new_unit, context)):
                raise FixtureError("internal error: migrating the result again would change it", code="internal")
            before = reference_cases(unit, context)
            after = normalize_payload(data, source_file=context.source_file, skill=context.skill)
            problems = compatibility_violations(before, after)
            if problems:
                raise FixtureError(f"internal error: {problems[0]}", code="internal")
            if before and not _error_keys(after) <= _error_keys(before):
                raise FixtureError("internal error: the migration would add validation errors", code="internal")
        return new_units

    def apply(self, result: FileResult) -> None:
        """Write a planned change (status "changed"); raises `FixtureError` when it cannot.

        The file is replaced atomically (`migrate.writes.write_atomic`) unless its bytes
        changed since it was planned. A JSONL file's migration is created beside it
        (`write_new`, never over an existing file) and the original is removed only
        then, and only if it is unchanged; a rerun after an interruption between the
        two finds the new file in place and just removes the original.
        """
        assert result.new_bytes is not None and result.old_bytes is not None
        root = self.options.repo_root
        if result.new_path is None:
            write_atomic(
                result.path, result.new_bytes, original=result.old_bytes, root=root, hard_links=self.hard_links
            )
            return
        if os.path.islink(result.path):
            raise FixtureError(
                f"refused: it is a symlink, which cannot become {result.new_path.name}; migrate the file it points to",
                code="symlink_rename",
            )
        source = resolve_target(result.path, root)
        check_writable(source)
        if read_fixture(source) != result.old_bytes:
            raise FixtureError(
                "refused: the file changed while it was being migrated; left as it is now, run again",
                code="changed_meanwhile",
            )
        write_new(self._new_target(result.new_path), result.new_bytes, mode_from=source)
        try:
            os.unlink(source)
        except OSError as exc:
            raise FixtureError(
                f"wrote {result.new_path.name} but cannot remove the original: {exc.strerror}", code="io"
            ) from None


class LoadedFile(Record):
    """A file read for `normalize`, `validate` or `detect`: its document and adapters, or its
    error; `duplicate` a repeated key, read as JSON.parse reads it (the last one wins)."""

    __slots__ = ("path", "document", "adapters", "error", "duplicate")

    def __init__(
        self,
        path: Path,
        document: Document | None = None,
        adapters: list[Adapter | None] | None = None,
        error: FixtureError | None = None,
        duplicate: FixtureError | None = None,
    ) -> None:
        self.path = path
        self.document = document
        self.adapters = [] if adapters is None else adapters
        self.error = error
        self.duplicate = duplicate


class Reader:
    """Reads fixtures for the read-only commands, with the engine's registry and options."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def load(self, path: Path, *, last_duplicate_wins: bool = False) -> LoadedFile:
        """Read and detect one file. With `last_duplicate_wins`, a JSON file with a repeated
        key is read as the reference reads it (the last one wins) and the repeat is kept
        in `duplicate`, so validation can report it beside the reference's errors. A symlink
        leading outside the repo root is refused, as `migrate` refuses it. Errors, foreseen
        or not, are in the result: one file never stops the run."""
        try:
            return self._load(path, last_duplicate_wins)
        except Exception as exc:  # noqa: BLE001 - reported per file
            return LoadedFile(path, error=unexpected(exc))

    def _load(self, path: Path, last_duplicate_wins: bool) -> LoadedFile:
        py_names = self.engine.options.py_names
        try:
            resolve_target(path, self.engine.options.repo_root)
            document = read_document(path, py_names=py_names)
        except FixtureError as error:
            if error.code != "duplicate_key" or not last_duplicate_wins:
                return LoadedFile(path, error=error)
            try:
                document = read_document(path, duplicates="last", py_names=py_names)
            except FixtureError:
                return LoadedFile(path, error=error)
            return LoadedFile(path, document, self.engine.detect(document), duplicate=error)
        return LoadedFile(path, document, self.engine.detect(document))

    def cases(
        self, loaded: LoadedFile, *, as_migrated: bool = False, origins: list[CaseOrigin] | None = None
    ) -> list[NormalizedCase]:
        """The normalized cases of a loaded file: the reference's view of each payload,
        or with `as_migrated` (and for bare case lists, which the reference cannot read)
        the view of its migration. Raises `FixtureError` for a mapping failure, or for
        anything unforeseen (`unexpected`), so the caller reports it for this file.

        With `origins`, one `CaseOrigin` per returned case is appended to it: where the
        case is in the file (None for a case a migration makes from other data)."""
        try:
            return self._cases(loaded, as_migrated, origins)
        except FixtureError:
            raise
        except Exception as exc:  # noqa: BLE001 - the caller reports it for this file
            raise unexpected(exc) from None

    def _cases(self, loaded: LoadedFile, as_migrated: bool, origins: list[CaseOrigin] | None) -> list[NormalizedCase]:
        assert loaded.document is not None
        if not as_migrated:
            return self._read_cases(loaded, loaded, origins)
        # As `normalize` reads the file once `migrate` has run: the planned bytes read back,
        # under the new name when the file moves (JSONL). A file `migrate` would refuse has
        # only its refusal; one read despite a repeated key (reported already) has none.
        if loaded.duplicate is not None:
            return []
        planned = self.engine.plan_bytes(loaded.path, loaded.document.raw)
        if planned.error is not None:
            raise planned.error
        if planned.status != "changed":
            return self._read_cases(loaded, loaded, origins)
        assert planned.new_bytes is not None
        path = planned.new_path or loaded.path
        document = load_document(path, planned.new_bytes, py_names=self.engine.options.py_names)
        return self._read_cases(LoadedFile(path, document, self.engine.detect(document)), loaded, origins)

    def _read_cases(
        self, file: LoadedFile, placed_in: LoadedFile, origins: list[CaseOrigin] | None
    ) -> list[NormalizedCase]:
        """The normalized cases of `file`: the reference's view of each payload, the view of
        its migration for a bare case list (which the reference cannot read). `origins` get
        the places of the cases in `placed_in` (the file on disk), where they line up."""
        assert file.document is not None
        context = self.engine.options.context(file.path)
        cases: list[NormalizedCase] = []
        for index, (unit, adapter) in enumerate(zip(file.document.units, file.adapters, strict=True)):
            if adapter is None:
                continue
            if unit.shape != "payload":
                try:
                    found = migrated_cases(unit, adapter, context)
                except FixtureError as error:
                    raise _place(error, file.document, index) from None
            else:
                found = reference_cases(unit, context)
            cases.extend(found)
            if origins is not None:
                origins.extend(_case_origins(placed_in, index, len(found)))
        return cases

    def non_object_cases(self, loaded: LoadedFile) -> list[tuple[int, tuple[int, int] | None]]:
        """`(case number, place)` of each case that is not an object, over the file's payloads."""
        assert loaded.document is not None
        found = []
        for index, (unit, adapter) in enumerate(zip(loaded.document.units, loaded.adapters, strict=True)):
            if adapter is None or unit.shape != "payload":
                continue
            data = unit.data
            key = next((k for k in ("cases", "examples") if isinstance(data.get(k), list)), None)
            if key is None:
                continue
            for i, entry in enumerate(data[key]):
                if not isinstance(entry, dict):
                    found.append((i + 1, loaded.document.locate(index, (key, i))))
        return found


class CaseOrigin(Record):
    """Where a normalized case (or a validation error) comes from: the file, the unit of its
    document and the payload path of the case (`("cases", 3)`; None where unknown)."""

    __slots__ = ("file", "unit", "case")

    def __init__(self, file: LoadedFile, unit: int | None = None, case: tuple[str | int, ...] | None = None) -> None:
        self.file = file
        self.unit = unit
        self.case = case


def _case_origins(loaded: LoadedFile, index: int, count: int) -> list[CaseOrigin]:
    """The origins of the `count` cases normalized from unit `index`: the object entries of
    its case list in order, when their number is `count`; else unknown."""
    assert loaded.document is not None
    if index >= len(loaded.document.units):
        return [CaseOrigin(loaded) for _ in range(count)]
    data = loaded.document.units[index].data
    if isinstance(data, list):
        paths: list[tuple[str | int, ...]] = [(i,) for i, entry in enumerate(data) if isinstance(entry, dict)]
    else:
        key = next((k for k in ("cases", "examples") if isinstance(data.get(k), list)), None)
        entries = data[key] if key is not None else []
        paths = [(key, i) for i, entry in enumerate(entries) if isinstance(entry, dict)]
    if len(paths) != count:
        return [CaseOrigin(loaded, index) for _ in range(count)]
    return [CaseOrigin(loaded, index, path) for path in paths]


def validation_errors(
    reader: Reader,
    files: list[LoadedFile],
    refs: RefChecker,
    *,
    as_migrated: bool = False,
    places: list[CaseOrigin] | None = None,
) -> tuple[list[ValidationError], list[tuple[Path, FixtureError]]]:
    """The validation errors of all `files` (duplicate ids across them), and the files'
    own errors (unreadable, bad syntax), in file order. With `places`, one `CaseOrigin`
    per error is appended to it (the case the error is about, where known)."""
    ids = CaseIdRegistry()
    errors: list[ValidationError] = []
    problems: list[tuple[Path, FixtureError]] = []
    for loaded in files:
        if loaded.error is not None:
            problems.append((loaded.path, loaded.error))
            continue
        source_file = reader.engine.options.context(loaded.path).source_file
        if loaded.duplicate is not None:
            problems.append((loaded.path, loaded.duplicate))
            where = {"line": loaded.duplicate.line, "column": loaded.duplicate.column}
            entry = {"source_file": source_file}
            errors.append(make_error(c.DUPLICATE_KEY, entry, loaded.duplicate.message, **where))
            if places is not None:
                places.append(CaseOrigin(loaded))
        origins: list[CaseOrigin] | None = [] if places is not None else None
        try:
            cases = reader.cases(loaded, as_migrated=as_migrated, origins=origins)
        except FixtureError as error:
            problems.append((loaded.path, error))
            continue
        if places is None or origins is None:
            errors.extend(validate_cases(cases, refs, ids))
        else:
            for case, origin in zip(cases, origins, strict=True):
                found = validate_cases([case], refs, ids)
                errors.extend(found)
                places.extend([origin] * len(found))
        for number, where in reader.non_object_cases(loaded):
            extra = {"line": where[0], "column": where[1]} if where else {}
            entry = {"source_file": source_file, "id": None, "skill": None}
            errors.append(make_error(c.CASE_NOT_OBJECT, entry, f"case {number} is not an object", **extra))
            if places is not None:
                places.append(CaseOrigin(loaded))
    return errors, problems
