"""The public API's implementation; import it from `fixture_migrate`, never from here.

Each function is a thin shell over the pipelines, as the command line uses them:
the migration engine (`fixture_migrate.migration`), the read side behind
`normalize` and `validate` (`fixture_migrate.migration.reader`), the import and
export pipelines (`fixture_migrate.importing.pipeline`,
`fixture_migrate.exporting.pipeline`) and the configuration
(`fixture_migrate.config`). Errors are raised as `MigrationError`, statuses are
`Status` members (the engine's own enum, `fixture_migrate.migration.status`), and
nothing here prints.

(Some 730 lines, over the ~500 the project aims for: one public function per verb,
each with its doctest, kept together so the API reads in one place.)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from fixture_migrate.errors import FixtureError, line_col
from fixture_migrate.migration.status import Status

PathLike = Union[str, "os.PathLike[str]"]

DEFAULT_TEXT_PATH = "fixture.json"
"""The file name `migrate_text` assumes when none is given: its suffix says JSON."""


class MigrationError(FixtureError):
    """A file that cannot be read, migrated, normalized, validated or imported.

    `path` names the file (None for text given without one), `line` and `column` are
    1-based and None where unknown, `code` is the reason code (`invalid_json`,
    `duplicate_key`, `conservation`, `io`, ...: the codes the command line prints in
    brackets), `message` one line. `str(error)` reads `path:line:column: message [code]`.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message, code=code, line=line, column=column)
        self.path = path

    @classmethod
    def of(cls, error: FixtureError, path: Path | None) -> MigrationError:
        """`error` as a `MigrationError` about `path` (itself when it is one already)."""
        if isinstance(error, MigrationError):
            return error
        return cls(error.message, code=error.code, path=path, line=error.line, column=error.column)

    def __str__(self) -> str:
        place = "" if self.path is None else Path(self.path).as_posix()
        for part in (self.line, self.column):
            if part is None:
                break
            place += f":{part}"
        text = f"{self.message} [{self.code}]"
        return f"{place}: {text}" if place else text


def _encoded(text: str | bytes, path: Path | None) -> bytes:
    """`text` as UTF-8 bytes; a `str` holding a character UTF-8 cannot hold (a lone
    surrogate, as `json.loads` makes of `"\\ud800"`) raises `MigrationError` (`encoding`)
    at its line and column."""
    if not isinstance(text, str):
        return bytes(text)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line, column = line_col(text, exc.start)
        raise MigrationError(
            f"not encodable as UTF-8: {_character(text[exc.start])} (a lone surrogate)",
            code="encoding",
            path=path,
            line=line,
            column=column,
        ) from None


def _character(char: str) -> str:
    return f"U+{ord(char):04X}"


def _file_names(*paths: Any) -> None:
    """Raise `MigrationError` (`encoding`) for a path no file can have: one holding a
    character the file system encoding cannot hold (a lone surrogate other than the
    `surrogateescape` ones of undecodable bytes)."""
    for path in paths:
        if path is None:
            continue
        text = os.fspath(path)
        if isinstance(text, bytes):
            continue
        try:
            os.fsencode(text)
        except UnicodeEncodeError as exc:
            raise MigrationError(
                f"the path {text.encode('ascii', 'backslashreplace').decode()!s} cannot name a file: "
                f"{_character(text[exc.start])} at character {exc.start + 1} (a lone surrogate)",
                code="encoding",
            ) from None


def _typed(function: Any) -> Any:
    """`function` raising `MigrationError` (`encoding`) for any encoding or decoding failure
    its arguments cause, where one is not caught and placed before (a value of a payload,
    say: the message names the character and where it is in that value)."""
    import functools

    @functools.wraps(function)
    def typed(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except UnicodeError as exc:
            obj = getattr(exc, "object", None)
            start = getattr(exc, "start", None)
            where = ""
            if isinstance(obj, str) and isinstance(start, int) and start < len(obj):
                line, column = line_col(obj, start)
                shown = obj.encode("ascii", "backslashreplace").decode()[:80]
                where = f": {_character(obj[start])} at {line}:{column} of the value {shown!r}"
            elif isinstance(obj, (bytes, bytearray)) and isinstance(start, int) and start < len(obj):
                where = f": byte 0x{obj[start]:02x} at offset {start}"
            raise MigrationError(f"not encodable or decodable{where} ({type(exc).__name__})", code="encoding") from None

    return typed



@dataclass(frozen=True)
class Plan:
    """What a migration (or an import, or an export) does to one file, planned or done.

    `path` is the file; `status` a `Status`; `adapters` the names of the adapters that
    claim its payloads; `new_path` the name it takes when its syntax must change (a
    JSON Lines file becomes `<stem>.json`), else None; `old_bytes` and `new_bytes` the
    file before and after a change (None unless `status` is `CHANGED`); `cases` the
    number of cases of the migrated file; `line` the first line a change touches;
    `error` a `MigrationError` when `status` is `ERROR`; `losses` (an export's) the values
    the target format cannot hold, one `{file, case, field, kind, where, reason}` each.
    """

    path: Path
    status: Status
    adapters: tuple[str, ...] = ()
    new_path: Path | None = None
    old_bytes: bytes | None = None
    new_bytes: bytes | None = None
    cases: int = 0
    line: int = 1
    error: MigrationError | None = None
    losses: tuple[dict[str, Any], ...] = ()

    @property
    def changed(self) -> bool:
        """True when the migration changes the file (`status` is `CHANGED`)."""
        return self.status is Status.CHANGED

    def diff(self, *, repo_root: PathLike | None = None) -> str:
        """The change as a unified diff (file names relative to `repo_root`, as git writes
        them), or "" when nothing changes."""
        if self.old_bytes is None or self.new_bytes is None:
            return ""
        from fixture_migrate.files.diff import render_file_diff
        from fixture_migrate.files.paths import diff_name

        root = _root(repo_root, self.path)
        new_name = None if self.new_path is None else diff_name(self.new_path, root)
        return render_file_diff(self.old_bytes, self.new_bytes, diff_name(self.path, root), new_name)


def _root(repo_root: PathLike | None, near: Path) -> Path:
    """The repo root: as given, else the nearest directory above `near` holding `.git`."""
    from fixture_migrate.files.paths import find_repo_root

    if repo_root is not None:
        return Path(repo_root).resolve()
    start = Path(near)
    return find_repo_root(start if start.is_dir() else start.parent)


def _root_holding(repo_root: PathLike | None, paths: list[Path]) -> Path:
    """The repo root of a call naming `paths`: `repo_root` as given, else the root found to
    hold them (`files.paths.root_for_paths`, as the command line finds it); where no one
    root holds them, the current directory's, and the paths outside it are refused."""
    from fixture_migrate.files.paths import find_repo_root, root_for_paths

    if repo_root is not None:
        return Path(repo_root).resolve()
    cwd = Path(os.getcwd())
    return root_for_paths(paths, cwd) or find_repo_root(cwd)


def _engine(root: Path, skill: str | None) -> Any:
    """An engine with no configuration: `root`, `skill`, the default fixture names."""
    from fixture_migrate.migration.engine import Engine, Options

    return Engine(Options(repo_root=root, skill=skill))


def _configured(near: Path, repo_root: PathLike | None, skill: str | None) -> Any:
    """An engine for files near `near`, configured as the command line would be from the
    directory of `near`: the nearest `[tool.fixture-migrate]` table above it gives the repo
    root (unless `repo_root` is given), the skill of each path (unless `skill` is given),
    the Python fixture names and the include/exclude globs. Raises `MigrationError`
    (code `config`) for a configuration that cannot be used."""
    from fixture_migrate.config import ConfigError, resolve
    from fixture_migrate.migration.engine import Engine

    start = Path(os.path.abspath(near))
    folder = start if start.is_dir() else start.parent
    if not folder.is_dir():
        folder = Path(os.getcwd())
    # `near` named as the command line names a PATH: the root found holds it, lexically (a
    # symlinked folder on its way does not move the root to where the link leads).
    params: dict[str, Any] = {"repo_root": repo_root, "skill": skill, "paths": [start]}
    try:
        settings = resolve("migrate", params, (), cwd=folder)
    except ConfigError as error:
        raise MigrationError(str(error), code="config") from None
    return Engine(settings.options)


def _plan(result: Any) -> Plan:
    error = None if result.error is None else MigrationError.of(result.error, result.path)
    return Plan(
        path=result.path,
        status=result.status,
        adapters=tuple(result.adapters),
        new_path=result.new_path,
        old_bytes=result.old_bytes,
        new_bytes=result.new_bytes,
        cases=result.cases,
        line=result.first_changed_line,
        error=error,
    )


def migrate_text(
    text: str | bytes,
    *,
    path: PathLike = DEFAULT_TEXT_PATH,
    repo_root: PathLike | None = None,
    skill: str | None = None,
) -> bytes:
    """The canonical v1 bytes of a fixture given as text (`str`, written as UTF-8) or bytes.

    `path` names the file the text would be (its suffix picks the syntax: `.json`,
    `.jsonl`, `.yaml`/`.yml`, `.py`; relative to `repo_root`, it gives `source_file` and
    the `skills/<name>/` skill); `repo_root` defaults to the current directory; `skill`
    is the skill of a fixture that names none. No configuration file is read: the result
    depends on the arguments only. Text that is canonical already, or not a fixture,
    comes back as it is. The migration is checked as `fixture-migrate migrate`
    checks it (every value kept, the reference's view compatible, stable).

    Raises `MigrationError` (with `line`, `column` and `code`) when the text cannot be
    read or its migration is refused.

    >>> import fixture_migrate
    >>> legacy = '{"schema_version": "prompt-examples/v1", "skill": "demo", "examples": [{"name": "Says hi", "user_intent": "greet me"}]}'
    >>> print(fixture_migrate.migrate_text(legacy).decode())
    {"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo", "extensions": {"migrated_from": "prompt-examples/v1"}, "cases": [{"id": "says-hi", "input": "greet me", "extensions": {"name": "Says hi"}}]}
    >>> fixture_migrate.migrate_text('{"cases": [1,')
    Traceback (most recent call last):
      ...
    fixture_migrate.MigrationError: fixture.json:1:14: invalid JSON: unexpected end of data [invalid_json]
    """
    _file_names(path, repo_root)
    name = Path(path)
    raw = _encoded(text, name)
    root = Path(os.getcwd() if repo_root is None else repo_root).resolve()
    full = name if name.is_absolute() else root / name
    result = _engine(root, skill).plan_bytes(full, raw)
    if result.error is not None:
        raise MigrationError.of(result.error, name)
    return result.new_bytes if result.status is Status.CHANGED else raw


def plan_file(path: PathLike, *, repo_root: PathLike | None = None, skill: str | None = None) -> Plan:
    """Plan the migration of the file `path` without writing anything.

    The nearest `[tool.fixture-migrate]` table above the file applies, as it does for
    the command line run from the file's folder (its `repo-root`, `skill` mapping and
    `py-name`); `repo_root` and `skill`, when given, win over it. Without either, the
    repo root is the nearest directory above the file holding `.git` (else the file's
    directory). Errors of the file are not raised: they are in the plan (`status`
    `Status.ERROR`, `error` a `MigrationError`); a configuration that cannot be used
    raises `MigrationError` (code `config`).

    >>> import fixture_migrate, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "cases.json").write_text('{"schema_version": "prompt-examples/v1", "skill": "demo", "examples": [{"name": "Hi", "user_intent": "greet me"}]}')
    >>> plan = fixture_migrate.plan_file(folder / "cases.json")
    >>> plan.status, plan.adapters, plan.cases
    (<Status.CHANGED: 'changed'>, ('prompt_examples_v1',), 1)
    >>> print(plan.diff(repo_root=folder), end="")
    --- a/cases.json
    +++ b/cases.json
    @@ -1 +1 @@
    -{"schema_version": "prompt-examples/v1", "skill": "demo", "examples": [{"name": "Hi", "user_intent": "greet me"}]}
    \\ No newline at end of file
    +{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo", "extensions": {"migrated_from": "prompt-examples/v1"}, "cases": [{"id": "hi", "input": "greet me", "extensions": {"name": "Hi"}}]}
    \\ No newline at end of file
    >>> fixture_migrate.plan_file(folder / "missing.json").status
    <Status.ERROR: 'error'>
    """
    _file_names(path, repo_root)
    file = Path(path)
    return _plan(_configured(file, repo_root, skill).plan(file))


def migrate_file(path: PathLike, *, repo_root: PathLike | None = None, skill: str | None = None) -> Plan:
    """Migrate the file `path` in place, as `fixture-migrate migrate PATH` does; returns its `Plan`.

    The new bytes are written atomically, and never over a file changed since it was
    read; a JSON Lines file becomes `<stem>.json` beside it (`Plan.new_path`). A
    canonical file or one that is not a fixture is left as it is (`Status.UNCHANGED`,
    `Status.NOT_FIXTURE`). Arguments as for `plan_file`.

    Raises `MigrationError` when the file cannot be read, its migration is refused, or
    the write fails; nothing is written then.

    >>> import fixture_migrate, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> file = folder / "cases.json"
    >>> _ = file.write_text('{"schema_version": "prompt-examples/v1", "skill": "demo", "examples": []}\\n')
    >>> fixture_migrate.migrate_file(file).status
    <Status.CHANGED: 'changed'>
    >>> print(file.read_text(), end="")
    {"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo", "extensions": {"migrated_from": "prompt-examples/v1"}, "cases": []}
    >>> fixture_migrate.migrate_file(file).status
    <Status.UNCHANGED: 'unchanged'>
    """
    from fixture_migrate.migration.run import MigrateMode, MigrationRun

    _file_names(path, repo_root)
    file = Path(path)
    engine = _configured(file, repo_root, skill)
    # The run's own steps for one named file (never skipped); pins are the caller's to weigh,
    # as they always were here (no pin index).
    run = MigrationRun(engine, MigrateMode(include_pinned=True), named=(file,))
    outcome = run.settle(engine.plan(file))
    if outcome.error is not None:
        raise MigrationError.of(outcome.error, file)
    return _plan(outcome.result)


def load(path: PathLike, text: str | bytes | None = None) -> list[Any]:
    """The payloads of a fixture file in any syntax fixture-migrate reads, as plain data.

    One payload for a JSON file, one per document of a YAML stream, one per fixture a
    Python module holds (a dict literal, or a case list bound to `CASES`/`FIXTURE`), and
    a JSON Lines file's lines as one list of cases. `text`, when given, is read instead
    of the file (the suffix of `path` still picks the syntax). YAML scalars are read as
    they are written (`1e3`, `0755` stay strings, as in a JSON file).

    Raises `MigrationError` for I/O errors, bad syntax and repeated keys.

    >>> import fixture_migrate
    >>> fixture_migrate.load("cases.yaml", "skill: demo\\ncases:\\n  - id: a\\n    input: 0755\\n")
    [{'skill': 'demo', 'cases': [{'id': 'a', 'input': '0755'}]}]
    """
    from fixture_migrate.formats import load_document
    from fixture_migrate.files.reads import read_fixture

    _file_names(path)
    file = Path(path)
    try:
        if text is None:
            raw = read_fixture(file)
        else:
            raw = _encoded(text, file)
        document = load_document(file, raw)
    except FixtureError as error:
        raise MigrationError.of(error, file) from None
    return [unit.data for unit in document.units]


def _is_payload(value: Any) -> bool:
    return isinstance(value, Mapping)


def _paths(value: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(value, (str, os.PathLike)):
        return [Path(value)]
    return [Path(item) for item in value]


def _reader(paths: list[Path], repo_root: PathLike | None, skill: str | None) -> Any:
    from fixture_migrate.migration.reader import Reader

    return Reader(_configured(paths[0] if paths else Path("."), repo_root, skill))


def normalize(
    payload_or_path: Mapping[str, Any] | PathLike,
    *,
    source_file: str | None = None,
    skill: str | None = None,
    repo_root: PathLike | None = None,
) -> list[dict[str, Any]]:
    """The reference normalizer's flat cases of a payload or of a fixture file.

    A payload (a parsed file, a mapping) is normalized as the reference normalizes it;
    `source_file` is its repo-relative POSIX path (it gives `source_file` and the
    `skills/<name>/` skill), `skill` the caller's skill for files without one. A path is
    read in its syntax (a file that is not a fixture gives `[]`); `repo_root` as for
    `plan_file`. Each case is a dict with the keys the reference writes, in its order
    (`schema_version`, `skill`, `id`, `input`, `expected_outcome`, ...).

    Raises `MigrationError` when the file cannot be read.

    >>> import fixture_migrate
    >>> [case] = fixture_migrate.normalize({"skill": "demo", "cases": [{"name": "Says Hi!", "input": "greet me"}]})
    >>> case["id"], case["input"], case["coverage_basis"], case["extensions"]
    ('says-hi', 'greet me', 'missing_coverage_tags', {'name': 'Says Hi!'})
    """
    from fixture_migrate.contract.normalize import normalize_payload

    if _is_payload(payload_or_path):
        return normalize_payload(dict(payload_or_path), source_file=source_file, skill=skill)
    _file_names(payload_or_path, repo_root)
    path = Path(payload_or_path)  # type: ignore[arg-type]
    reader = _reader([path], repo_root, skill)
    loaded = reader.load(path)
    if loaded.error is not None:
        raise MigrationError.of(loaded.error, path)
    try:
        return reader.cases(loaded)
    except FixtureError as error:
        raise MigrationError.of(error, path) from None


def validate(
    payload_or_paths: Mapping[str, Any] | PathLike | Iterable[PathLike],
    *,
    source_file: str | None = None,
    skill: str | None = None,
    repo_root: PathLike | None = None,
    check_refs: bool = True,
) -> list[dict[str, Any]]:
    """The validation errors of a payload, or of fixture files, with the reference's reason codes.

    A payload (a mapping) is normalized as by `normalize` and validated; a path, or
    several (a directory is walked as `fixture-migrate validate` walks it), is read and
    validated, duplicate case ids counted across all the files (configuration as for
    `plan_file`, its include/exclude globs included). `check_refs` False skips
    the check that each `source_refs` path exists under `repo_root` (which defaults to
    the current directory for a payload, as for `plan_file` for files). Each error is
    `{reason_code, message, skill, id, source_file, ...}`; errors of files also carry
    `line` and `column` (1-based) of the member concerned, where known.

    Raises `MigrationError` for the first file that cannot be read.

    >>> import fixture_migrate
    >>> errors = fixture_migrate.validate({"skill": "demo", "cases": [{"id": "a", "input": "hi", "coverage_tags": ["Bad Tag"]}]}, check_refs=False)
    >>> [error["reason_code"] for error in errors]
    ['invalid_coverage_tag', 'missing_source_refs']
    """
    from fixture_migrate.contract.validate import CaseIdRegistry, RefChecker, validate_cases

    if _is_payload(payload_or_paths):
        root = Path(os.getcwd() if repo_root is None else repo_root).resolve()
        cases = normalize(payload_or_paths, source_file=source_file, skill=skill)  # type: ignore[arg-type]
        return validate_cases(cases, RefChecker(root, check_exists=check_refs), CaseIdRegistry())
    from fixture_migrate.config import iter_selected
    from fixture_migrate.migration.locate import error_place
    from fixture_migrate.migration.reader import LoadedFile, validation_errors

    paths = _paths(payload_or_paths)  # type: ignore[arg-type]
    _file_names(*paths, repo_root)
    reader = _reader(paths, repo_root, skill)
    loaded = []
    for path, problem in iter_selected(paths, reader.engine.options):
        item = LoadedFile(path, error=problem) if problem else reader.load(path, last_duplicate_wins=True)
        if item.error is not None:
            raise MigrationError.of(item.error, path)
        loaded.append(item)
    places: list[Any] = []
    refs = RefChecker(reader.engine.options.repo_root, check_exists=check_refs)
    errors, problems = validation_errors(reader, loaded, refs, places=places)
    for path, problem in problems:
        if problem.code != "duplicate_key":  # reported among the errors, as the reference's JSON.parse reads it
            raise MigrationError.of(problem, path)
    placed = []
    for error, origin in zip(errors, places, strict=True):
        where = error_place(origin, error)
        if where is not None:
            error = {**error, "line": where[0], "column": where[1]}
        placed.append(error)
    return placed


def fixture_files(*paths: PathLike, repo_root: PathLike | None = None) -> list[Path]:
    """The files a run over `paths` reads, as `fixture-migrate migrate PATHS` selects them.

    A directory is walked for the suffixes fixture-migrate reads (hidden directories,
    `node_modules` and virtualenvs skipped, symlinked directories not followed), and the
    `include`/`exclude` globs of the nearest `[tool.fixture-migrate]` table above
    `repo_root` (default: the current directory) apply. Whether a file is a fixture is
    for `plan_file` to say. No path: the current directory. A path the root rule refuses
    (outside the root, or a symlink leading out of it) raises `MigrationError` with its
    code; a file a walk meets that the rule refuses, or a path that does not exist, is
    left out.

    >>> import fixture_migrate, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("a.json", "b.yaml", "notes.txt"):
    ...     _ = (folder / name).write_text("{}")
    >>> [path.name for path in fixture_migrate.fixture_files(folder, repo_root=folder)]
    ['a.json', 'b.yaml']
    """
    from fixture_migrate.config import ConfigError, iter_selected, resolve

    _file_names(*paths, repo_root)
    start = Path(os.getcwd() if repo_root is None else repo_root)
    params: dict[str, Any] = {"paths": [str(p) for p in paths], "repo_root": repo_root}
    try:
        settings = resolve("migrate", params, (), cwd=start)
    except ConfigError as error:
        raise MigrationError(str(error), code="config") from None
    from fixture_migrate.files.root import resolve_target

    named = set(settings.paths)
    found = []
    for path, error in iter_selected(settings.paths, settings.options):
        if error is None:
            try:
                # A file the run would refuse to read is none of the files it reads.
                resolve_target(path, settings.options.repo_root)
            except FixtureError as refused:
                error = refused
        if error is not None and error.code in _ROOT_RULE_CODES and path in named:
            raise MigrationError.of(error, path)
        if error is None:
            found.append(path)
    return found


_ROOT_RULE_CODES = frozenset({"path_outside_repo", "symlink_outside_repo", "symlink_loop"})


def import_file(
    sources: PathLike | Iterable[PathLike],
    dest: PathLike,
    *,
    fmt: str = "auto",
    repo_root: PathLike | None = None,
    skill: str | None = None,
    write: bool = True,
) -> Plan:
    """Import files written for another eval tool into the canonical file `dest`.

    `sources` are one path or several (an OpenAI Evals samples file and its registry
    YAML, say); `fmt` is "auto" (detected from the content) or a format name
    (`openai_evals`, `promptfoo`, `inspect_ai`, `skill_creator`, `deepeval`,
    `langsmith`, a plugin's); `skill` the skill of the new file; `repo_root` as for
    `plan_file` (from `dest`). With `write` False nothing is written. Returns a `Plan`
    for `dest`: `CHANGED` with `new_bytes` when the import writes (or would write) it,
    `UNCHANGED` when `dest` holds the same data already.

    Raises `MigrationError` when a source cannot be read, no format (or more than one)
    claims it, or the result would lose a value or not validate.

    >>> import fixture_migrate, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "samples.jsonl").write_text('{"input": [{"role": "user", "content": "2+2?"}], "ideal": "4"}\\n')
    >>> plan = fixture_migrate.import_file(folder / "samples.jsonl", folder / "imported.json", skill="math", repo_root=folder)
    >>> plan.status, plan.adapters, plan.cases
    (<Status.CHANGED: 'changed'>, ('openai_evals',), 1)
    >>> fixture_migrate.load(folder / "imported.json")[0]["cases"][0]["input"]
    '2+2?'
    """
    from fixture_migrate.importing.pipeline import ImportFailed, ImportRequest, plan_import

    paths = _paths(sources)
    _file_names(*paths, dest, repo_root)
    target = Path(dest)
    root = _root_holding(repo_root, [target])
    request = ImportRequest(sources=paths, dest=target, repo_root=root, fmt=fmt, skill=skill, root_given=True)
    try:
        planned = plan_import(request)
    except ImportFailed as failure:
        where, error = failure.errors[0]
        raise MigrationError.of(error, Path(where)) from None
    status = Status.CHANGED if planned.changed else Status.UNCHANGED
    if planned.changed and write:
        _write_dest(target, planned.new_bytes, planned.old_bytes, root)
    return Plan(
        path=target,
        status=status,
        adapters=(planned.adapter.name,),
        old_bytes=planned.old_bytes if planned.changed else None,
        new_bytes=planned.new_bytes if planned.changed else None,
        cases=planned.cases,
    )


def _write_dest(target: Path, data: bytes, original: bytes | None, root: Path) -> None:
    """Write an import's or an export's DEST as the command line writes it
    (`fixture_migrate.files.writes.write_dest`); raises `MigrationError` about `target`."""
    from fixture_migrate.files.writes import write_dest

    try:
        write_dest(target, data, original=original, root=root)
    except FixtureError as error:
        raise MigrationError.of(error, target) from None


def export_file(
    paths: PathLike | Iterable[PathLike],
    dest: PathLike,
    *,
    to: str,
    repo_root: PathLike | None = None,
    strict: bool = False,
    write: bool = True,
) -> Plan:
    """Export canonical files as the native file `dest` of another eval tool.

    `to` names the tool (`promptfoo`, `inspect`, `openai-evals`, `deepeval`, `langsmith`,
    `skill-creator`); `dest`'s suffix picks the syntax. Cases imported from that tool
    come back as their records; others are mapped, and what the tool cannot hold is in
    the returned `Plan.losses`. With `strict` any loss raises; with `write` False nothing
    is written. `CHANGED` with `new_bytes` when `dest` is (or would be) written,
    `UNCHANGED` when it holds the same data already.

    Raises `MigrationError` for a file that is not canonical, an unknown tool or suffix,
    or (with `strict`) a loss.

    >>> import fixture_migrate, json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> case = {"id": "sum", "input": "2+2?", "coverage_tags": ["expected"], "expected_outcome": "4"}
    >>> fixture = {"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "math", "cases": [case]}
    >>> _ = (folder / "math.json").write_text(json.dumps(fixture))
    >>> plan = fixture_migrate.export_file(folder / "math.json", folder / "samples.jsonl", to="inspect")
    >>> plan.status, plan.cases, plan.losses
    (<Status.CHANGED: 'changed'>, 1, ())
    >>> json.loads((folder / "samples.jsonl").read_text())["target"]
    '4'
    """
    from fixture_migrate.exporting.pipeline import ExportRequest, plan_export
    from fixture_migrate.importing.pipeline import ImportFailed

    files = _paths(paths)
    _file_names(*files, dest, repo_root)
    target = Path(dest)
    root = _root_holding(repo_root, [*files, target])
    try:
        request = ExportRequest(paths=files, target=to, dest=target, repo_root=root, root_given=True)
        planned = plan_export(request)
    except ImportFailed as failure:
        where, error = failure.errors[0]
        raise MigrationError.of(error, Path(where)) from None
    losses = tuple(planned.losses.as_json())
    if strict and losses:
        raise MigrationError(f"{len(losses)} loss(es) exporting to {to}", code="loss", path=target)
    if planned.changed and write:
        _write_dest(target, planned.new_bytes, planned.old_bytes, root)
    return Plan(
        path=target,
        status=Status.CHANGED if planned.changed else Status.UNCHANGED,
        adapters=(planned.adapter.name,),
        old_bytes=planned.old_bytes if planned.changed else None,
        new_bytes=planned.new_bytes if planned.changed else None,
        cases=planned.cases,
        losses=losses,
    )




# The public classes print under the name users import them by (`fixture_migrate.Status`).
for _public in (Status, MigrationError, Plan):
    _public.__module__ = "fixture_migrate"


def find_consumers(*paths: PathLike, repo_root: PathLike | None = None, fix: bool = False) -> list[Any]:
    """The code under `paths` that reads the fixtures a migration changes (or changed), as
    `fixture-migrate consumers` finds it: a list of `Finding`s (`path`, `line`, `column`,
    `legacy`, `home`, `pattern`, `who` "fix" or "person", `advice`, `fixtures`; `as_dict()`
    gives the JSON record). Works before and after `migrate`: the moves come from the plan,
    or from a migrated file's `extensions`.

    With `fix`, each Python, JavaScript or TypeScript file holding a site `--fix` can
    rewrite is rewritten in place (atomic writes inside the repo root), and the findings
    are those of the files before the rewrite. The repo root is `repo_root`, else the
    nearest directory above the first path holding `.git` (or a configuration). Raises
    `MigrationError` for a configuration that cannot be used or a file that cannot be written.
    """
    from fixture_migrate.config import iter_selected
    from fixture_migrate.consumers.findings import FIX, References
    from fixture_migrate.consumers.run import code_files, find_in_text, fixed_text, fixture_moves, read_code
    from fixture_migrate.files.hard_links import HardLinks
    from fixture_migrate.files.writes import write_atomic

    from fixture_migrate.consumers.run import targets_inside

    targets = _paths(paths) if paths else [Path(os.getcwd())]
    _file_names(*targets, repo_root)
    engine = _configured(targets[0], repo_root, None)
    root = engine.options.repo_root
    targets, refused = targets_inside(targets, root)
    if refused:
        raise MigrationError.of(refused[0][1], refused[0][0])
    fixtures = [path for path, error in iter_selected(targets, engine.options) if error is None]
    model, _ = fixture_moves(engine, fixtures)
    refs = References(model)
    hard_links = HardLinks(root)
    found: list[Any] = []
    for path in code_files(targets, root) if model else ():
        try:
            raw, text = read_code(path, root)
            if fix:
                new_text, findings = fixed_text(path, text, refs, root)
                if new_text != text and any(f.who == FIX for f in findings):
                    write_atomic(path, new_text.encode("utf-8"), original=raw, root=root, hard_links=hard_links)
            else:
                findings = find_in_text(path, text, refs, root)
        except FixtureError as error:
            if error.code in ("invalid_code", "io", "too_large", "too_deep", "not_regular"):
                continue
            raise MigrationError.of(error, path) from None
        found.extend(findings)
    if model:
        found.extend(refs.file_findings())
    return found


for _name in (
    "migrate_text", "plan_file", "migrate_file", "load", "normalize", "validate", "fixture_files", "import_file",
    "export_file", "find_consumers",
):  # fmt: skip
    globals()[_name] = _typed(globals()[_name])
