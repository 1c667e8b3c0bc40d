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
import subprocess
from collections.abc import Iterable, Iterator
from typing import Any
from pathlib import Path

from fixture_migrate.consumers.findings import FIX, Finding, References, apply_edits, innermost
from fixture_migrate.consumers.moves import (
    FixtureMoves,
    former_jsonl,
    legacy_versions,
    migrated_moves,
    planned_moves,
    says_migrated,
    wraps_list,
    validation_problems,
)
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
    committed: dict[str, tuple[str, str]] | None = None  # read from git at the first canonical file
    history: dict[str, tuple[str, str]] | None = None  # likewise, the commits that changed files
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
            moves = planned_moves(result.moves)
            problems: tuple[str, ...] = ()
            if result.new_bytes is not None:  # what the planned file itself shows, as after `migrate`
                planned = load_document(new_path or path, result.new_bytes, py_names=engine.options.py_names)
                units = [unit.data for unit in planned.units]
                for key, move in migrated_moves(units)[1].items():
                    moves.setdefault(key, move)
                if new_path is not None:
                    problems = validation_problems(units, relative_source(new_path, root), engine.options.skill)
            found.append(
                FixtureMoves(
                    path,
                    relative,
                    new_path=new_path,
                    new_relative=None if new_path is None else relative_source(new_path, root),
                    versions=legacy_versions([unit.data for unit in document.units]),
                    moves=moves,
                    problems=problems,
                    wrapped=wraps_list(result.moves),
                )
            )
        elif result.status == "unchanged":
            try:
                document = load_document(path, engine.read(path), py_names=engine.options.py_names)
            except FixtureError as error:
                errors.append((path, error))
                continue
            units = [unit.data for unit in document.units]
            if committed is None:
                committed = committed_versions(root)
            earlier = committed_moves(engine, path, relative, units, committed)
            if earlier is None and relative not in committed and not says_migrated(units):
                if history is None:
                    history = history_versions(root)
                earlier = committed_moves(engine, path, relative, units, history)
            if earlier is not None:
                found.append(earlier)
                continue
            versions, moves = migrated_moves(units)
            former = former_jsonl(path, units)
            if former is not None:  # migrated from JSON Lines: code may still name the old file
                found.append(
                    FixtureMoves(
                        former,
                        relative_source(former, root),
                        new_path=path,
                        new_relative=relative,
                        versions=versions,
                        moves=moves,
                        migrated=True,
                        problems=validation_problems(units, relative, engine.options.skill),
                        guessed=not versions,
                    )
                )
            elif versions or moves:
                found.append(FixtureMoves(path, relative, versions=versions, moves=moves, migrated=True,
                                          guessed=not says_migrated(units)))
    return found, errors


def committed_versions(root: Path) -> dict[str, tuple[str, str]]:
    """For each fixture-like file under `root` that differs from the last commit (`git status`):
    its path from the root -> (the committed path from the root, the same as a git object
    name `HEAD:<path>`). A `<stem>.json` that is new beside a `<stem>.jsonl` removed since the
    commit maps to the `.jsonl` (a migration moved it). Empty outside a git work tree."""
    def git(*args: str) -> bytes | None:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    status = git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", ".")
    if top is None or status is None:
        return {}
    top_path = Path(os.fsdecode(top.strip()))
    try:
        prefix = Path(os.path.realpath(root)).relative_to(os.path.realpath(top_path)).as_posix()
    except ValueError:
        return {}
    prefix = "" if prefix == "." else prefix + "/"
    modified: set[str] = set()
    deleted: set[str] = set()
    added: set[str] = set()
    for entry in status.split(b"\0"):
        if len(entry) < 4:
            continue
        code, name = entry[:2].decode("ascii", "replace"), os.fsdecode(entry[3:])
        if not name.startswith(prefix):
            continue
        name = name[len(prefix):]
        if "D" in code:
            deleted.add(name)
        elif code in ("??", "A ", "AM"):
            added.add(name)
        elif "M" in code:
            modified.add(name)
    found = {name: (name, f"HEAD:{prefix}{name}") for name in modified}
    for name in added:
        if name.endswith(".json") and name[:-5] + ".jsonl" in deleted:
            former = name[:-5] + ".jsonl"
            found[name] = (former, f"HEAD:{prefix}{former}")
    return found


HISTORY_COMMITS = 500
"""How far back `history_versions` looks for the commit that made a file canonical."""


def history_versions(root: Path) -> dict[str, tuple[str, str]]:
    """For each file under `root` that one of the last `HISTORY_COMMITS` commits changed:
    its path from the root -> (its path before that commit, the git object name
    `<commit>^:<path>` of that version). The newest such commit counts; a `<stem>.json` it
    added beside a `<stem>.jsonl` it removed maps to the `.jsonl`; a file it only added has no
    earlier version. One `git log` per run, not one per file. Empty outside git."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-prefix"], capture_output=True, timeout=60)
        done = subprocess.run(
            ["git", "-C", str(root), "log", f"-n{HISTORY_COMMITS}", "--no-renames", "--name-status", "-z",
             "--format=%x01%H", "--", "."],
            capture_output=True, timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if top.returncode != 0 or done.returncode != 0:
        return {}
    prefix = os.fsdecode(top.stdout.strip())
    found: dict[str, tuple[str, str]] = {}
    seen: set[str] = set()
    for block in done.stdout.split(b"\x01")[1:]:
        parts = [part for part in block.split(b"\0") if part.strip()]
        if not parts:
            continue
        commit = parts[0].strip().decode("ascii", "replace")
        changes = [(parts[k].strip().decode("ascii", "replace"), os.fsdecode(parts[k + 1]))
                   for k in range(1, len(parts) - 1, 2)]
        deleted = {name for code, name in changes if code.startswith("D")}
        for code, name in changes:
            if not name.startswith(prefix) or name in seen:
                continue
            seen.add(name)
            relative = name[len(prefix):]
            if code.startswith("M"):
                found[relative] = (relative, f"{commit}^:{name}")
            elif code.startswith("A") and name.endswith(".json") and name[:-5] + ".jsonl" in deleted:
                found[relative] = (relative[:-5] + ".jsonl", f"{commit}^:{name[:-5]}.jsonl")
    return found


def committed_moves(
    engine: Engine, path: Path, relative: str, units: list[Any], committed: dict[str, tuple[str, str]]
) -> FixtureMoves | None:
    """The moves of a canonical file that git holds in a legacy shape (`migrate` ran and is not
    committed yet: `committed_versions`; or a commit made the file canonical:
    `history_versions`): planned from those bytes, as before `migrate`, so
    what the data cannot tell (a member a local family kept under `extensions`, a JSON Lines
    file's old name) is known. None when git has no such version."""
    entry = committed.get(relative)
    if entry is None:
        return None
    former, name = entry
    try:
        done = subprocess.run(["git", "-C", str(engine.options.repo_root), "show", name], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    root = engine.options.repo_root
    old_path = root / former
    planned = engine.plan_bytes(old_path, done.stdout)
    if planned.status != "changed":
        return None
    from fixture_migrate.formats import load_document

    try:
        old = load_document(old_path, done.stdout, py_names=engine.options.py_names)
    except FixtureError:
        return None
    moves = planned_moves(planned.moves)
    for key, move in migrated_moves(units)[1].items():
        moves.setdefault(key, move)
    moved = former != relative
    return FixtureMoves(
        old_path,
        former,
        new_path=path if moved else None,
        new_relative=relative if moved else None,
        versions=legacy_versions([unit.data for unit in old.units]),
        moves=moves,
        migrated=True,
        problems=validation_problems(units, relative, engine.options.skill) if moved else (),
        wrapped=wraps_list(planned.moves),
    )


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
            if error.code in ("too_large", "too_deep"):
                # The rewrite is well formed but past a reading limit: said as such, no bug.
                raise FixtureError(
                    f"its rewrite would be past a reading limit ({error.message}); the file was left as it was",
                    code=error.code,
                ) from None
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
