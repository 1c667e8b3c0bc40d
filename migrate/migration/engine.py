"""The engine: walks paths, plans each file's migration, checks it, and applies it.

Per file, data flows one way (DESIGN.md, "Architecture"): read the bytes, parse
them (`fixture_migrate.formats`), ask the registry which adapter claims each payload,
let the adapter build the canonical target tree, render it as edits of the
original text, then check the result before anything is written: the output
must parse, conserve every leaf, normalize compatibly with the reference's view
of the input, add no validation error, and be stable (migrating it again
changes nothing). A plan that fails a check is an error for that file; the
other files go on.

Some 560 lines, over the ~500 the project aims for: planning a file, its checks and
applying the change share `FileResult` and read best together.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixture_migrate.claiming.territory import forget_places, place_facts
from fixture_migrate.claiming.rules import Claim, Verdict, decide, at_home, is_local, proven_unchanged, python_records
from fixture_migrate.adapting.protocol import Adapter, Context
from fixture_migrate.claiming.registry import Registry, migration_registry
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import NormalizedCase, normalize_payload
from fixture_migrate.errors import FixtureError, MappingError
from fixture_migrate.formats import (
    DEFAULT_PY_NAMES,
    MAX_DEPTH,
    Document,
    Unit,
    integer_too_long,
    load_document,
)
from fixture_migrate.formats.target import Node, Src, count_extension_moves, is_unchanged, materialize, moved_paths
from fixture_migrate.files.hard_links import HardLinks
from fixture_migrate.files.moves import move_file
from fixture_migrate.files.paths import relative_source
from fixture_migrate.files.reads import RunReads
from fixture_migrate.files.root import lstat_held, pin_root, resolve_target
from fixture_migrate.files.writes import check_new, write_atomic
from fixture_migrate.migration.status import Status
from fixture_migrate.migration.unreadable import in_skill_evals
from fixture_migrate.slots import Record

if TYPE_CHECKING:
    from fixture_migrate.migration.cache import Cache

"""Directory names a walk never enters, besides hidden ones (`.git`, `.venv`, ...)."""


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

    `status` is a `Status` (`fixture_migrate.migration.status`): `CHANGED` (a migration
    is planned or was written), `UNCHANGED`, `NOT_FIXTURE`, `OTHER_TOOL` (another eval
    tool's file, left to `import --from <import_from>`), `UNCLAIMED` (looks like a fixture
    of a local family without the evidence to migrate it) or `ERROR`; a run also sets
    `SKIPPED` and `PINNED` (`fixture_migrate.migration.run`). `reason` says why, in one line (the
    claim's reason, or what is missing). `adapters` names the adapter of each
    fixture payload; `new_path` is set when the migration moves the file (JSONL);
    `old_bytes`/`new_bytes` hold the file before and after a planned change; `cases`
    counts the cases of a changed file, `to_extensions` per adapter the fields a change
    moves under `extensions`; `encoding` is the one its bytes are in (UTF-8, or a Python
    module's coding cookie's); `cache_entry` the file's path relative to the repo root and
    the digest of its bytes, when the run keeps a cache (`fixture_migrate.migration.cache`)
    and has a verdict to remember; `digest` the digest the outcome is of (16 bytes: its
    bytes and the place facts its verdict read, `cache.entry_digest`), planned or taken
    from the cache, when the run keeps one (the inputs of a run's record,
    `fixture_migrate.migration.replay`); `rule` and `family` the claim rule that left a
    file unmigrated and its local family
    (`fixture_migrate.claiming.rules.Claim`), by which reports group such files.
    `moves` the `(source path, target path)` of each value a planned change places under
    another name (`fixture_migrate.formats.target.moved_paths`), what a reader of the file
    reads elsewhere afterwards (`fixture_migrate.consumers`).
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
        "first_changed_line",
        "encoding",
        "to_extensions",
        "reason",
        "import_from",
        "cache_entry",
        "rule",
        "family",
        "moves",
        "fingerprint",
        "digest",
    )

    def __init__(
        self,
        path: Path,
        status: Status,
        adapters: list[str] | None = None,
        error: FixtureError | None = None,
        new_path: Path | None = None,
        old_bytes: bytes | None = None,
        new_bytes: bytes | None = None,
        cases: int = 0,
        first_changed_line: int = 1,
        encoding: str = "utf-8",
        to_extensions: dict[str, int] | None = None,
        reason: str = "",
        import_from: str | None = None,
        cache_entry: tuple[str, bytes] | None = None,
        rule: str = "",
        family: str | None = None,
        moves: list[tuple[tuple[Any, ...], tuple[Any, ...]]] | None = None,
    ) -> None:
        self.path = path
        self.rule = rule
        self.family = family
        self.reason = reason
        self.import_from = import_from
        self.status = status
        self.adapters = [] if adapters is None else adapters
        self.error = error
        self.new_path = new_path
        self.old_bytes = old_bytes
        self.new_bytes = new_bytes
        self.cases = cases
        self.first_changed_line = first_changed_line
        self.encoding = encoding
        self.to_extensions = {} if to_extensions is None else to_extensions
        self.cache_entry = cache_entry
        self.moves = [] if moves is None else moves
        self.fingerprint: tuple[int, str, str] | None = None  # of `old_bytes`, set by a run that checks pins
        self.digest: bytes | None = None


def fingerprint(data: bytes) -> tuple[int, str, str]:
    """`(size, sha1 hex, sha256 hex)` of a file's bytes: what a repository pins a file by
    (`fixture_migrate.consumers.pins`)."""
    import hashlib

    return len(data), hashlib.sha1(data).hexdigest(), hashlib.sha256(data).hexdigest()


def place_error(error: FixtureError, document: Document, unit: int) -> FixtureError:
    """`error` with the line and column of its payload path, when it is a `MappingError`."""
    if isinstance(error, MappingError) and error.line is None:
        where = document.locate(unit, error.path)
        if where is not None:
            error.line, error.column = where
    return error


def _climbs(path: Path) -> bool:
    """Whether the path `path` has a `..` component."""
    text = os.fspath(path)
    return ".." in text and ".." in text.replace(os.sep, "/").split("/")


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


_LINES = re.compile(rb"\r\n|\r|\n")


def first_changed_line(old: bytes, new: bytes) -> int:
    """The 1-based line of `old` where a change to `new` begins (where every diff's first
    hunk starts changing lines)."""
    # The lines before the last `\n` ahead of the first differing byte are the same on both
    # sides (a `\n` ends a line break either way, `\n` or `\r\n`): count them in C. Without a
    # `\r` about, the next line is the first that differs; else lines are compared from there.
    low, high = 0, min(len(old), len(new))
    while low < high:  # the length of the common prefix, by halving (each compare is a memcmp)
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    start = old.rfind(b"\n", 0, low) + 1
    if b"\r" in old[:start]:
        skipped = len(_LINES.split(old[:start])) - 1
    else:
        skipped = old.count(b"\n", 0, start)
    if low < len(old) and low < len(new) and b"\r" not in old[start : low + 1] and b"\r" not in new[start : low + 1]:
        return skipped + 1  # the line at `start` holds the first difference, on both sides
    a, b = _LINES.split(old[start:]), _LINES.split(new[start:])
    for index, (before, after) in enumerate(zip(a, b, strict=False)):
        if before != after:
            return skipped + index + 1
    return skipped + min(len(a), len(b))


def unclaimed_result(path: Path, claims: list[Claim], leftover: str | None = None) -> FileResult:
    """The result of a file no adapter claims: another tool's file, an unclaimed local
    family (named with what is missing), or not a fixture. `leftover` names the records a
    Python module in an evals folder binds under a name that is no fixture name."""
    for verdict, status in ((Verdict.OTHER_TOOL, Status.OTHER_TOOL), (Verdict.UNCLAIMED, Status.UNCLAIMED)):
        found = [claim for claim in claims if claim.status == verdict]
        if found:
            first = found[0]
            return FileResult(
                path, status, reason=first.reason, import_from=first.import_from, rule=first.rule, family=first.family
            )
    if leftover is not None:
        return FileResult(path, Status.UNCLAIMED, reason=leftover, rule="python_leftover")
    reason = claims[0].reason if claims else "no payload in it"
    return FileResult(path, Status.NOT_FIXTURE, reason=reason)


class Engine:
    """Plans and applies migrations, and reads fixtures for `normalize` and `validate`.

    `options` holds the run's settings; `registry` the adapters (the built-ins by default).
    `keep_moves` False leaves `FileResult.moves` empty, for the runs that never read them
    (the `migrate` run of `fixture_migrate.migration.run`; only `fixture_migrate.consumers`
    reads them): listing them walks the whole target tree of every change.
    """

    def __init__(
        self,
        options: Options,
        registry: Registry | None = None,
        cache: Cache | None = None,
        *,
        reuse_changes: bool = False,
        keep_moves: bool = True,
    ) -> None:
        self.options = options
        self.registry = registry or migration_registry()
        families = getattr(options, "families", ())
        if families:
            from fixture_migrate.adapting.families import declared_families

            self.declared = declared_families(families, options.selection.base, options.config_path)
        else:
            self.declared = []
        self.hard_links = HardLinks(options.repo_root)
        pin_root(options.repo_root)
        forget_places()  # the folders a previous run stat'ed may have changed since
        self.cache = cache
        self.reuse_changes = reuse_changes
        self._reads = RunReads(options.repo_root, root_given=getattr(options, "root_given", False))
        # When set, `plan` gives it the bytes of each file it reads (`root.last_beneath` says
        # how they were read): a run learns from them what it would read the file again for
        # (`fixture_migrate.migration.run.MigrationRun`: the index of pinned files).
        self.on_read: Callable[[bytes], object] | None = None
        self.keep_moves = keep_moves

    def detect(self, document: Document) -> list[Adapter | None]:
        """The adapter claiming each unit of `document` (None: not a fixture)."""
        return [claim.adapter for claim in self.decide(document)]

    def decide(self, document: Document) -> list[Claim]:
        """The claim for each unit of `document` (`fixture_migrate.claiming.rules`).

        A Python dict literal holding a non-literal was left out of the units; it is an
        error (`not_a_literal`, raised here) only when a known family would claim it,
        else it is the module's own data, not a fixture."""
        for label, error, partial in getattr(document, "refused", ()):
            unit = Unit(partial, label=label)
            adapter = self.registry.detect(unit)
            if adapter is not None and not is_local(adapter, unit):
                raise error
        asked: list[bool] = []

        def included() -> bool:  # worked out once, and only when a rule asks (most files: never)
            if not asked:
                asked.append(self._included(document.path))
            return asked[0]

        return [
            decide(
                self.registry,
                unit,
                syntax=document.syntax,
                path=document.path,
                declared=self.declared,
                root=self.options.repo_root,
                included=included,
            )
            for unit in document.units
        ]

    def leftover(self, document: Document) -> str | None:
        """For a Python module in a skill's evals folder with no fixture payload: which module-level
        name binds records (`TEST_CASES = [...]`), said with the way to bring it in; else None."""
        if document.units or document.syntax != "python" or document.path is None:
            return None
        if not in_skill_evals(document.path, self.options.repo_root):
            return None  # an `evals` package of code elsewhere binds data of its own
        found = python_records(document.raw)
        if found is None:
            return None
        return f"in an evals folder, {found}, but it is no fixture name (pass `--py-name NAME` or declare its family)"

    def _included(self, path: Path | None) -> bool:
        """True when `path` matches a configured `include` or `skill` glob (fixture context for a
        local family)."""
        selection = getattr(self.options, "selection", None)
        if path is None or selection is None:
            return False
        rel = selection.relative(path)
        if rel is None:
            return False
        if selection.include and any(glob.matches(rel) for glob in selection.include):
            return True
        # A `[tool.fixture-migrate.skill]` glob maps the file to a skill: declared too.
        return any(glob.matches(rel) for glob, _ in getattr(self.options, "skills", ()))

    def read(self, path: Path) -> bytes:
        """The bytes of `path`: a regular file within its syntax's size limit
        (`fixture_migrate.formats.limits.limit_for`), read under the root rule
        (`fixture_migrate.files.reads.read_fixture`). Raises `FixtureError`."""
        return self._reads.read(path)

    def plan(self, path: Path) -> FileResult:
        """Read `path` and work out its migration, checked, without writing anything.

        Errors of the file are returned in the result (status `ERROR`), not raised. A
        symlink leading outside the repo root is refused, as `fixture_migrate.files.root` refuses it.

        With a cache, a file whose bytes (and path) a verdict is cached for takes that
        verdict, without its bytes; a `CHANGED` verdict only with `reuse_changes` (a run
        that neither writes nor shows diffs). Any other file is planned, and its digest
        returned in `cache_entry` for the run to remember.
        """
        try:
            raw = self.read(path)
        except FixtureError as error:
            return FileResult(path, Status.ERROR, error=error)
        if self.on_read is not None:
            self.on_read(raw)
        if self.cache is None:
            return self.plan_bytes(path, raw)
        entry = (relative_source(path, self.options.repo_root), self._entry_digest(path, raw))
        found = self._cached(path, entry, raw)
        if found is not None:
            return found
        result = self.plan_bytes(path, raw)
        result.cache_entry = entry
        result.digest = entry[1]
        return result

    def cached(self, path: Path) -> FileResult | None:
        """The cached verdict of `path` (its bytes read and hashed here, or read earlier in
        this run: see `note_read`), or None when the file must be planned: no cache, no entry
        for its path, other bytes, a change this run must plan, or a file that cannot be read
        (`plan` reports why)."""
        if self.cache is None:
            return None
        relative = relative_source(path, self.options.repo_root)
        entries = self.cache.entries
        if relative not in entries:
            return None
        # Its bytes read in this run already (`note_read`) and the entry's: no second read if
        # the file is still the one read (its `identity`: not written or replaced since), but
        # for a change (whose pin check needs the bytes' fingerprint). Not for a path with a
        # `..`: its relative path is worked out from its spelling, and after a symlinked
        # folder `..` leads elsewhere (the read decides there).
        if entries.seen(relative) and not _climbs(path):
            try:
                info = lstat_held(path)
            except OSError:
                info = None
            hit = None if info is None else entries.seen_entry(relative, self.cache.identity(info))
            if hit is not None and hit[1] != Status.CHANGED:
                found = self._found(path, hit, b"")
                if found is not None:
                    found.digest = bytes.fromhex(hit[0])
                return found
        try:
            raw = self.read(path)
        except FixtureError:
            return None
        return self._cached(path, (relative, self._entry_digest(path, raw)), raw)

    def _entry_digest(self, path: Path | str, raw: bytes, *, link: bool | None = None) -> bytes:
        """The digest the cache entry of the file `path` with the bytes `raw` is of: the
        bytes' digest, with what else of the file system its verdict reads
        (`fixture_migrate.claiming.territory.place_facts`; `link`: whether `path` is a
        symlink, None to look)."""
        assert self.cache is not None
        facts = place_facts(path, self.options.repo_root, link=link)
        content = self.cache.digest(raw)
        return content if not facts else self.cache.entry_digest(content, facts)

    def note_read(self, relative: str, data: bytes, info: os.stat_result) -> bool:
        """Learn from a read made for another purpose in this run (the pin index's): `data`
        are the bytes of the file at `relative` (POSIX, from the repo root), read in one call
        that opens below the root and follows no symlink, along that very path; `info` the
        `fstat` of the file read. When the cache's entry of that path is of those bytes, and
        they are within the file's size limit, `cached` takes its verdict without reading the
        file again, as long as the file's identity is still `info`'s. True when those bytes
        are also known to hold nothing that could pin a file (the caller need not look: see
        `note_pins_nothing`)."""
        cache = self.cache
        if cache is None or relative not in cache.entries:
            return False
        if len(data) > self._reads.limit(relative).bytes:
            return False  # `read` would refuse it now: the file is planned, and the error said
        # Read at its own path through no symlink: not a symlink itself.
        found = self._entry_digest(os.path.join(self.options.repo_root, relative), data, link=False)
        cache.entries.see(relative, found, cache.identity(info))
        return cache.pins_nothing(relative)

    def note_pins_nothing(self, relative: str) -> None:
        """Learn that the bytes of the file at `relative`, just given to `note_read`, hold
        nothing that could pin a file: the cache remembers it with their verdict."""
        if self.cache is not None:
            self.cache.learn_pins_nothing(relative)

    def _cached(self, path: Path, entry: tuple[str, bytes], raw: bytes) -> FileResult | None:
        assert self.cache is not None
        hit = self.cache.get(*entry)
        if hit is None:
            return None
        found = self._found(path, hit, raw)
        if found is not None:
            found.digest = entry[1]
        return found

    def _found(self, path: Path, hit: list[Any], raw: bytes) -> FileResult | None:
        """The result of `path` from its cache entry `hit`, of the bytes `raw` (which only a
        change's fingerprint needs); None for a change this run must plan."""
        if hit[1] == Status.CHANGED and not self.reuse_changes:
            return None
        _, status, adapters, cases, line, to_extensions, reason, _ = hit
        found = FileResult(
            path,
            Status(status),
            adapters=adapters,
            cases=cases,
            first_changed_line=line,
            to_extensions=to_extensions,
            reason=reason,
        )  # no `cache_entry`: nothing new to remember
        if status == Status.CHANGED:
            found.fingerprint = fingerprint(raw)  # a pin added since the verdict still keeps the file
        return found

    def plan_bytes(self, path: Path, raw: bytes) -> FileResult:
        """`plan` for bytes already read; `path` names the file (its suffix picks the syntax).

        A bug met while planning (any exception besides `FixtureError`) is reported as an
        `internal` error of this file, so one file cannot stop a bulk run.
        """
        try:
            return self._plan(path, raw)
        except FixtureError as error:
            return FileResult(path, Status.ERROR, error=error)
        except Exception as exc:  # noqa: BLE001 - reported per file, never swallowed silently
            return FileResult(path, Status.ERROR, error=unexpected(exc))

    def _plan(self, path: Path, raw: bytes) -> FileResult:
        document = load_document(path, raw, py_names=self.options.py_names)
        if (proven := proven_unchanged(self.registry, document)) is not None:  # no claim rule, mapper or check
            names = [claim.adapter.name for claim in proven]  # type: ignore[union-attr]
            return FileResult(path, Status.UNCHANGED, names, reason="; ".join(claim.reason for claim in proven))
        claims = self.decide(document)
        adapters = [claim.adapter for claim in claims]
        if all(adapter is None for adapter in adapters):
            return unclaimed_result(path, claims, self.leftover(document))
        context = self.options.context(path)
        targets: list[Node] = []
        result = FileResult(path, Status.UNCHANGED, adapters=[a.name for a in adapters if a is not None])
        result.reason = "; ".join(claim.reason for claim in claims if claim.adapter is not None)
        for index, (unit, adapter) in enumerate(zip(document.units, adapters, strict=True)):
            if adapter is None:
                targets.append(Src(()))
                continue
            try:
                target = adapter.to_canonical(unit, context)
            except MappingError as error:
                raise place_error(error, document, index) from None
            targets.append(target)
            moved_in = 0 if is_unchanged(target) else count_extension_moves(target)
            if moved_in:
                result.to_extensions[adapter.name] = result.to_extensions.get(adapter.name, 0) + moved_in
        if all(is_unchanged(target) for target in targets) and document.output_path == path:
            return result
        new_bytes = document.render(targets)
        if new_bytes == document.raw and document.output_path == path:
            return result  # the edits write back what is there (a bare case list already canonical)
        new_units = self._check(document, adapters, new_bytes, context)
        result.status = Status.CHANGED
        if self.keep_moves:
            result.moves = [move for target in targets for move in moved_paths(target)]
        result.cases = sum(len(data.get("cases") or []) for data in new_units if isinstance(data, dict))
        result.old_bytes, result.new_bytes = document.raw, new_bytes
        result.first_changed_line = first_changed_line(document.raw, new_bytes)
        result.encoding = getattr(document, "encoding", "utf-8")
        if document.output_path != path:
            # As `apply` will: the new name must lead inside the repo and be free.
            check_new(self._new_target(document.output_path), new_bytes, root=self.options.repo_root)
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
        # The checks are imported by the runs that plan a change, not by every run.
        from fixture_migrate.contract.compatibility import compatibility_violations
        from fixture_migrate.contract.conservation import missing_leaves
        from fixture_migrate.contract.new_errors import adds_validation_errors

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
            # A second run: the canonical fast path where the key sets prove the mapping
            # changes nothing (`claiming.rules.at_home`, the test `proven_unchanged` makes per unit
            # for `_plan`), else the mapper.
            again = self.registry.detect(new_unit)
            if again is None or not (at_home(again, new_unit) or is_unchanged(again.to_canonical(new_unit, context))):
                raise FixtureError("internal error: migrating the result again would change it", code="internal")
            before = reference_cases(unit, context)
            after = normalize_payload(data, source_file=context.source_file, skill=context.skill)
            problems = compatibility_violations(before, after)
            if problems:
                raise FixtureError(f"internal error: {problems[0]}", code="internal")
            if before and adds_validation_errors(before, after):
                raise FixtureError("internal error: the migration would add validation errors", code="internal")
        return new_units

    def apply(self, result: FileResult) -> None:
        """Write a planned change (status `CHANGED`); raises `FixtureError` when it cannot.

        The file is replaced atomically (`fixture_migrate.files.writes.write_atomic`)
        unless its bytes changed since it was planned. A JSONL file's migration is created
        beside it and the original removed (`fixture_migrate.files.moves.move_file`:
        never over an existing file; the original is checked again right before and right
        after its removal, and kept when it changed); a rerun after an interruption
        between the two finds the new file in place and just removes the original.
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
        move_file(
            result.path,
            result.old_bytes,
            self._new_target(result.new_path),
            result.new_bytes,
            root=root,
            hard_links=self.hard_links,
        )
