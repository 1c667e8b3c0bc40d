"""The `consumers` pipeline: the moved-names model, the walk over code, the findings, the fix.

`fixture_moves` plans every fixture file (`Engine.plan`, writing nothing) and makes the
model of what moved in each (`fixture_migrate.consumers.moves`); `code_files` lists the
Python, JavaScript and TypeScript files under PATHS; `scan_file` finds the consumer
sites of one file; `fix_file` rewrites what `--fix` can, pass after pass (an inner read
rewritten changes its outer read's receiver) until nothing is left to rewrite, and
checks that the result parses and that a second run would change nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from fixture_migrate.consumers.findings import FIX, Finding, References, apply_edits, innermost
from fixture_migrate.consumers.moves import FixtureMoves, legacy_versions, migrated_moves, planned_moves
from fixture_migrate.errors import FixtureError
from fixture_migrate.migration.engine import Engine
from fixture_migrate.files.ignore import GitIgnore
from fixture_migrate.files.paths import relative_source
from fixture_migrate.files.walk import SKIPPED_DIRS
from fixture_migrate.files.reads import read_fixture

PYTHON_SUFFIXES = frozenset({".py"})
SCRIPT_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"})
CODE_SUFFIXES = PYTHON_SUFFIXES | SCRIPT_SUFFIXES
MAX_CODE_BYTES = 4 * 1024 * 1024
"""A source file larger than this is no hand-written consumer (a bundle): not read."""
MAX_PASSES = 8


def fixture_moves(engine: Engine, files: Iterable[Path]) -> tuple[list[FixtureMoves], list[tuple[Path, FixtureError]]]:
    """The moved-names model of the fixture `files` (planned by `engine`, nothing written),
    and the files that could not be planned with their error. A file `migrate` would change
    gives its planned moves; a canonical file migrated already gives the moves its
    `extensions` keep; any other file has nothing to say and is left out."""
    from fixture_migrate.formats import load_document

    found: list[FixtureMoves] = []
    errors: list[tuple[Path, FixtureError]] = []
    root = engine.options.repo_root
    for path in files:
        result = engine.plan(path)
        if result.status == "error":
            assert result.error is not None
            errors.append((path, result.error))
            continue
        relative = relative_source(path, root)
        if result.status == "changed":
            assert result.old_bytes is not None
            document = load_document(path, result.old_bytes, py_names=engine.options.py_names)
            new_path = result.new_path
            found.append(
                FixtureMoves(
                    path,
                    relative,
                    new_path=new_path,
                    new_relative=None if new_path is None else relative_source(new_path, root),
                    versions=legacy_versions([unit.data for unit in document.units]),
                    moves=planned_moves(result.moves),
                )
            )
        elif result.status == "unchanged":
            try:
                document = load_document(path, engine.read(path), py_names=engine.options.py_names)
            except FixtureError as error:
                errors.append((path, error))
                continue
            versions, moves = migrated_moves([unit.data for unit in document.units])
            if versions:
                found.append(FixtureMoves(path, relative, versions=versions, moves=moves, migrated=True))
    return found, errors


def targets_inside(paths: Iterable[Path], root: Path) -> tuple[list[Path], list[tuple[Path, FixtureError]]]:
    """The named `paths` that may be read and rewritten, and the refused ones with their
    error: the root rule (`files.root.check_inside`: lexically outside the root is
    `path_outside_repo`; leading out through a symlink is `symlink_outside_repo`), and a
    path that does not exist (`io`). The codemod writes only inside the root."""
    from fixture_migrate.files.root import check_inside

    ok: list[Path] = []
    refused: list[tuple[Path, FixtureError]] = []
    real_root = os.path.realpath(root)
    for path in paths:
        try:
            check_inside(path, root)
            if not os.path.lexists(path):
                raise FixtureError("no such file or directory", code="io")
            real = os.path.realpath(path)
            if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
                raise FixtureError(
                    "refused: it leads outside the repo root through a symlink; not followed",
                    code="symlink_outside_repo",
                )
        except FixtureError as error:
            refused.append((path, error))
            continue
        ok.append(path)
    return ok, refused


def code_files(paths: Iterable[Path], root: Path) -> Iterator[Path]:
    """The Python, JavaScript and TypeScript files under `paths`, in sorted order: a walk
    skips hidden directories, `node_modules` and the like, and what `.gitignore` ignores;
    a file named directly is yielded when its suffix is one of `CODE_SUFFIXES` too (a
    fixture, a text file or a script without a suffix, named so, is no code this reads:
    reading it as JavaScript would rewrite whatever happened to parse)."""
    ignore = GitIgnore(root)
    for path in paths:
        if not path.is_dir():
            if path.suffix in CODE_SUFFIXES and path.is_file():
                yield path
            continue
        for directory, dirs, names in os.walk(path):
            here = Path(directory)
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".")
                and d not in SKIPPED_DIRS
                and not (here / d).is_symlink()
                and not ignore.ignored(here / d, is_dir=True)
            )
            for name in sorted(names):
                file = here / name
                if file.suffix in CODE_SUFFIXES and not file.is_symlink() and not ignore.ignored(file, is_dir=False):
                    yield file


def _language(path: Path) -> str:
    return "python" if path.suffix in PYTHON_SUFFIXES else "script"


def read_code(path: Path, root: Path) -> tuple[bytes, str]:
    """The bytes of the source file `path` (bounded, under the root rule) and its text.
    Raises `FixtureError` when it cannot be read or is not UTF-8 (a Python module whose
    coding cookie names another encoding included: read as UTF-8 and rewritten so, its
    edited literals would mean other strings to Python)."""
    raw = read_fixture(path, limit=MAX_CODE_BYTES, root=root)
    if _language(path) == "python" and b"coding" in raw[:4096]:
        from fixture_migrate.formats.python_format import PythonSource

        try:
            encoding = PythonSource(raw).encoding
        except FixtureError as error:
            raise FixtureError(error.message, code="io") from None
        if encoding != "utf-8":
            raise FixtureError(
                f"its coding cookie declares {encoding}: only UTF-8 code is read and rewritten", code="io"
            )
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FixtureError(f"not UTF-8: {exc.reason} at byte {exc.start}", code="io") from None


def find_in_text(path: Path, text: str, refs: References, root: Path) -> list[Finding]:
    """The findings of one source text; raises `FixtureError` (code `invalid_code`) when it
    does not parse."""
    relative = relative_source(path, root)
    if _language(path) == "python":
        import libcst

        from fixture_migrate.consumers import python_code
        from fixture_migrate.formats.python_format import CST_MAX, _refuse_deep_brackets

        if len(text) > CST_MAX:
            # libcst's tree takes some 800 MiB per MiB of text: a 4 MiB module would need
            # 3 GB. The ceiling `migrate` reads with libcst, said so, never a silent skip.
            raise FixtureError(
                f"a Python module over {CST_MAX >> 10} KiB is not read (libcst's syntax tree of it "
                "would take some 400 MiB or more)",
                code="too_large",
            )

        try:
            # libcst's native parser overflows its stack on a few thousand nested brackets
            # (the process dies): deeper text never reaches it, as `migrate` reads Python.
            _refuse_deep_brackets(text)
        except FixtureError as error:
            code = "invalid_code" if error.code == "invalid_python" else error.code
            raise FixtureError(error.message, code=code, line=error.line, column=error.column) from None
        try:
            return python_code.find(relative, text, refs)
        except libcst.ParserSyntaxError as exc:
            raise FixtureError(
                f"does not parse as Python: {exc.message}", code="invalid_code", line=exc.raw_line, column=exc.raw_column + 1
            ) from None
        except RecursionError:
            raise FixtureError("nesting too deep to read", code="too_deep") from None
    from fixture_migrate.consumers import script_code

    return script_code.find(relative, text, refs, typescript=path.suffix in {".ts", ".mts", ".cts", ".tsx"},
                            tsx=path.suffix == ".tsx")


def fixed_text(path: Path, text: str, refs: References, root: Path) -> tuple[str, list[Finding]]:
    """`text` with every `--fix` rewrite made, and the findings of the original text.

    Rewrites are applied innermost first, pass after pass, until a pass finds none (at most
    `MAX_PASSES`). Raises `FixtureError` (code `internal`) when the result does not parse
    or a further run would change it again."""
    findings = find_in_text(path, text, refs, root)
    current = text
    edits = [f.edit for f in findings if f.who == FIX and f.edit is not None]
    passes = 0
    while edits:
        passes += 1
        if passes > MAX_PASSES:
            raise FixtureError("internal error: the rewrite does not settle; the file was left as it was", code="internal")
        current = apply_edits(current, innermost(edits))
        try:
            again = find_in_text(path, current, refs, root)
        except FixtureError as error:
            raise FixtureError(
                f"internal error: the rewritten code does not parse ({error.message}); the file was left as it was",
                code="internal",
            ) from None
        edits = [f.edit for f in again if f.who == FIX and f.edit is not None]
    return current, findings


def scan_file(path: Path, refs: References, root: Path) -> list[Finding]:
    """The findings of the source file `path`; raises `FixtureError` when it cannot be read."""
    _, text = read_code(path, root)
    return find_in_text(path, text, refs, root)
