"""Configuration: the `[tool.fixture-migrate]` table of a `pyproject.toml`, merged with flags.

The table is looked up once per run. Without `--config FILE`, the nearest
`pyproject.toml` at or above the current directory that holds a
`[tool.fixture-migrate]` table is used (files without one are passed over, as
ruff passes over a `pyproject.toml` without `[tool.ruff]`). Keys are the long
flag names without `--`; an unknown key is an error naming it. Precedence, from
strongest: a flag given on the command line, the subcommand's table
(`[tool.fixture-migrate.migrate]`, ...), the top-level table, the built-in default.

Top-level keys:

- `include`, `exclude`: lists of globs selecting the files a directory walk
  yields (paths relative to the directory of the configuration file; `*` and
  `?` stay within one path segment, `**` spans any number; a glob without `/`
  matches a name at any depth; a glob matching a directory matches all below it).
- `extend-exclude`: more globs to leave out, added to `exclude` (as ruff's); the
  command line's `--exclude` replaces `exclude`, `--extend-exclude` adds to both.
- `respect-gitignore` (default true): walks leave out what `.gitignore` files (and
  `.git/info/exclude`) ignore, as git would; a file named on the command line is
  always processed.
- `force-exclude`: apply `include`/`exclude` to files named on the command line
  too (pre-commit names every staged file), and skip named files of a type
  fixture-migrate does not read instead of reporting them.
- `repo-root`: the repository root (relative to the configuration file).
- `skill`: a skill name for every file, or a table of glob to skill name (the
  first glob in table order that matches a file gives its skill).
- `adapters`: reserved for the tables of field-mapping adapters.

`tomllib` is imported only when a `pyproject.toml` mentions fixture-migrate at
all, so a run without configuration pays no parsing cost.

(Some 560 lines, over the ~500 the project aims for: every key of the table, its check
and its merge with the command-line flags are kept in one place, so one file says what
a configuration can do.)
"""

from __future__ import annotations

import os

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from fixture_migrate.adapting.protocol import Context
from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import DEFAULT_PY_NAMES, syntax_of
from fixture_migrate.migration.engine import Options
from fixture_migrate.files.ignore import GitIgnore
from fixture_migrate.files.paths import find_repo_root, relative_source, root_for_paths
from fixture_migrate.files.walk import iter_files
from fixture_migrate.slots import Record

NEWLINE = b"\n"
TABLE = "fixture-migrate"
"""The key under `[tool]` that holds fixture-migrate's configuration."""

TOP_LEVEL_KEYS: dict[str, str] = {
    "include": "globs",
    "exclude": "globs",
    "extend-exclude": "globs",
    "respect-gitignore": "bool",
    "force-exclude": "bool",
    "repo-root": "path",
    "skill": "skill",
    "py-name": "names",
    "adapters": "reserved",
}
"""Top-level keys and the kind of value each takes (besides the subcommand tables)."""

OUTPUT_FORMATS: dict[str, tuple[str, ...]] = {
    "migrate": ("text", "json", "github"),
    "normalize": ("json", "jsonl"),
    "validate": ("text", "json", "github"),
    "detect": ("text", "json", "github"),
    "consumers": ("text", "json", "github"),
}

COMMAND_KEYS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "migrate": {
        "check": "bool",
        "diff": "bool",
        "jobs": "jobs",
        "no-cache": "bool",
        "include-pinned": "bool",
        "quiet": "bool",
        "verbose": "bool",
    },
    "normalize": {"as-migrated": "bool", "jobs": "jobs", "quiet": "bool", "verbose": "bool"},
    "validate": {
        "no-ref-check": "bool",
        "as-migrated": "bool",
        "readiness": "bool",
        "jobs": "jobs",
        "quiet": "bool",
        "verbose": "bool",
    },
    "detect": {"quiet": "bool", "verbose": "bool"},
    "suggest": {"quiet": "bool", "verbose": "bool"},
    "consumers": {"fix": "bool", "diff": "bool", "quiet": "bool", "verbose": "bool"},
}
"""Per subcommand, the keys its table accepts: a kind, or the tuple of allowed strings."""
for _command, _formats in OUTPUT_FORMATS.items():
    COMMAND_KEYS[_command]["output-format"] = _formats


class ConfigError(Exception):
    """A configuration file that cannot be used: unreadable, bad TOML, an unknown key or
    a value of the wrong type. The message names the file (and line where known) and the key."""


class Glob(Record):
    """One glob of the configuration, compiled; `text` as written."""

    __slots__ = ("text", "regex")
    __hash__ = Record.value_hash

    def __init__(self, text: str, regex: re.Pattern[str]) -> None:
        self.text = text
        self.regex = regex

    def matches(self, relative: str) -> bool:
        """True when the POSIX path `relative` (to the configuration's directory) or one of
        its parent directories matches."""
        return self.regex.match(relative) is not None


def compile_glob(pattern: str) -> Glob:
    """A `Glob` for `pattern`: `*` and `?` within a segment, `**` across segments, `[...]`
    classes (`[!...]` negated); no `/` in it means "at any depth"; a match of a directory
    covers everything under it. Raises `ValueError` for an empty pattern."""
    text = pattern.strip()
    body = text.removeprefix("./").strip("/")
    if not body:
        raise ValueError("empty glob")
    out = [] if "/" in body else ["(?:.*/)?"]
    i = 0
    while i < len(body):
        char = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if body.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in body[i + 2 :]:
            end = body.index("]", i + 2)
            inner = body[i + 1 : end]
            negate = inner.startswith("!")
            inner = re.escape(inner[1:] if negate else inner).replace("\\-", "-")
            out.append(f"[{'^' if negate else ''}{inner}]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return Glob(text, re.compile("".join(out) + "(?:/.*)?\\Z"))


class Selection(Record):
    """Which files a run processes, from `include`/`exclude`/`force-exclude`.

    `base` is the absolute directory globs are relative to. Files outside it are not
    filtered. `include` None means every file a walk finds.
    """

    __slots__ = ("base", "include", "exclude", "force_exclude", "respect_gitignore")
    __hash__ = Record.value_hash

    def __init__(
        self,
        base: Path,
        include: tuple[Glob, ...] | None = None,
        exclude: tuple[Glob, ...] = (),
        force_exclude: bool = False,
        respect_gitignore: bool = True,
    ) -> None:
        self.base = base
        self.include = include
        self.exclude = exclude
        self.force_exclude = force_exclude
        self.respect_gitignore = respect_gitignore

    def relative(self, path: Path) -> str | None:
        """`path` relative to `base` as a POSIX string, or None when it is outside."""
        rel = relative_source(path, self.base)
        return None if rel == ".." or rel.startswith("../") else rel

    def selects(self, path: Path, *, named: bool) -> bool:
        """True when the run processes `path`. A walked file must match `include` (if set)
        and no `exclude`; a file named on the command line is always processed unless
        `force_exclude`, which also skips named files of a type fixture-migrate does not read."""
        if named and not self.force_exclude:
            return True
        if named and syntax_of(path) is None:
            return False
        if self.include is None and not self.exclude:
            return True
        rel = self.relative(path)
        if rel is None:
            return True
        if self.include is not None and not any(glob.matches(rel) for glob in self.include):
            return False
        return not any(glob.matches(rel) for glob in self.exclude)


class ConfiguredOptions(Options):
    """Engine `Options` plus what the configuration adds: a per-path skill mapping and the
    file `selection`. `skill` (from `--skill`) wins over `skills`."""

    __slots__ = ("skills", "selection", "config_path", "families", "root_given")

    def __init__(
        self,
        repo_root: Path,
        skill: str | None = None,
        py_names: tuple[str, ...] = DEFAULT_PY_NAMES,
        skills: tuple[tuple[Glob, str], ...] = (),
        selection: Selection | None = None,
        config_path: Path | None = None,
        families: tuple[tuple[str, Any], ...] = (),
        root_given: bool = False,
    ) -> None:
        super().__init__(repo_root, skill, py_names)
        self.root_given = root_given  # check named paths against the root: see `files.root.check_inside`
        self.skills = skills
        self.selection = selection
        self.config_path = config_path
        self.families = families

    def skill_for(self, path: Path) -> str | None:
        """The caller's skill for `path`: `--skill`, else the first matching `skill` glob."""
        if self.skill is not None or not self.skills or self.selection is None:
            return self.skill
        rel = self.selection.relative(path)
        if rel is None:
            return None
        return next((name for glob, name in self.skills if glob.matches(rel)), None)

    def context(self, path: Path) -> Context:
        return Context(source_file=relative_source(path, self.repo_root), skill=self.skill_for(path))


def iter_selected(paths: Iterable[Path], options: Options) -> Iterator[tuple[Path, FixtureError | None]]:
    """`walk.iter_files` over `paths`, keeping only the files `options.selection` selects
    (all of them for plain `Options`). A path that does not exist still yields its error."""
    selection = getattr(options, "selection", None)
    if selection is None:
        yield from iter_files(paths, ignore=GitIgnore(options.repo_root), root=options.repo_root)
        return
    ignore = GitIgnore(options.repo_root) if selection.respect_gitignore else None
    paths = list(paths)

    def admits(target: Path) -> bool:
        return selection.selects(target, named=False)

    # As in `iter_files`: only overlapping arguments need remembering what was met.
    seen: set[Path] | None = set() if len(paths) > 1 else None
    for path in paths:
        named = not path.is_dir()
        given = getattr(options, "root_given", False)
        for found, error in iter_files([path], ignore=ignore, admits=admits, root=options.repo_root, root_given=given):
            if seen is not None:
                if found in seen:
                    continue
                seen.add(found)
            if error is not None or selection.selects(found, named=named):
                yield found, error


class Settings(Record):
    """What one subcommand runs with after merging flags, configuration and defaults.

    `values` maps option names (as the typer parameters: `output_format`, `no_ref_check`)
    to their merged values; `options` are the engine options; `config_path` the file read.
    """

    __slots__ = ("values", "options", "config_path", "paths")

    def __init__(
        self,
        values: dict[str, Any],
        options: ConfiguredOptions,
        config_path: Path | None = None,
        paths: list[Path] | None = None,
    ) -> None:
        self.values = values
        self.options = options
        self.config_path = config_path
        self.paths = [] if paths is None else paths


def find_config(start: Path) -> Path | None:
    """The nearest `pyproject.toml` at or above `start` holding a `[tool.fixture-migrate]`
    table, else None. Raises `ConfigError` when a candidate cannot be read or parsed."""
    found = _find_config(start)
    return None if found is None else found[0]


def _find_config(start: Path) -> tuple[Path, bytes, dict[str, Any]] | None:
    """`find_config`, with the file's bytes and table (read and parsed once)."""
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if not candidate.is_file():
            continue
        raw = _read(candidate)
        # Cheap test first: most pyproject.toml files never mention us, and tomllib costs
        # a few milliseconds to import and parse.
        if TABLE.encode() in raw:
            table = _table(candidate, raw)
            if table is not None:
                return candidate, raw, table
    return None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _table(path: Path, raw: bytes) -> dict[str, Any] | None:
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    tool = data.get("tool")
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    return table


def read_config(path: Path) -> dict[str, Any]:
    """The `[tool.fixture-migrate]` table of the TOML file `path`, checked for unknown keys
    and value types. Raises `ConfigError` naming the file, the key and the fix."""
    raw = _read(path)
    table = _table(path, raw)
    if table is None:
        raise ConfigError(f"{path}: no [tool.{TABLE}] table; add one, or name another file with --config")
    _check(path, raw, table)
    return table


def _where(path: Path, raw: bytes, key: str) -> str:
    """`file:line` of the first line that assigns `key`, or `file` when it cannot be found."""
    pattern = re.compile(rb"^\s*[\"']?" + re.escape(key.encode()) + rb"[\"']?\s*=", re.MULTILINE)
    match = pattern.search(raw)
    if match is None:
        pattern = re.compile(rb"^\s*\[[^\]]*\b" + re.escape(key.encode()) + rb"[\"']?\s*\]", re.MULTILINE)
        match = pattern.search(raw)
    if match is None:
        return str(path)
    return f"{path}:{raw.count(NEWLINE, 0, match.start()) + 1}"


def _unknown(path: Path, raw: bytes, key: str, section: str, known: Iterable[str]) -> ConfigError:
    known = sorted(known)
    import difflib  # only an unknown key needs suggestions

    close = difflib.get_close_matches(key, known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return ConfigError(
        f"{_where(path, raw, key)}: unknown key {key!r} in [{section}]; {hint}known keys: {', '.join(known)}"
    )


def _check(path: Path, raw: bytes, table: dict[str, Any]) -> None:
    section = f"tool.{TABLE}"
    for key, value in table.items():
        if key in COMMAND_KEYS:
            if not isinstance(value, dict):
                raise ConfigError(f"{_where(path, raw, key)}: [{section}.{key}] must be a table")
            for sub, sub_value in value.items():
                kind = COMMAND_KEYS[key].get(sub)
                if kind is None:
                    raise _unknown(path, raw, sub, f"{section}.{key}", COMMAND_KEYS[key])
                _check_value(path, raw, f"{section}.{key}", sub, sub_value, kind)
            continue
        kind = TOP_LEVEL_KEYS.get(key)
        if kind is None:
            raise _unknown(path, raw, key, section, [*TOP_LEVEL_KEYS, *COMMAND_KEYS])
        _check_value(path, raw, section, key, value, kind)


def _check_value(path: Path, raw: bytes, section: str, key: str, value: Any, kind: str | tuple[str, ...]) -> None:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{_where(path, raw, key)}: [{section}] {key} must be {expected}, not {value!r}")

    if isinstance(kind, tuple):
        if value not in kind:
            raise bad("one of " + ", ".join(repr(choice) for choice in kind))
    elif kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
    elif kind == "names":
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(item, str) and item.isidentifier() for item in value)
        ):
            raise bad("a list of Python names")
    elif kind == "jobs":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise bad("a whole number of worker processes, 1 or more")
    elif kind == "path":
        if not isinstance(value, str) or not value.strip():
            raise bad("a path string")
    elif kind == "globs":
        if not isinstance(value, list) or not all(isinstance(item, str) and item.strip("./ ") for item in value):
            raise bad("a list of glob strings")
    elif kind == "skill":
        if isinstance(value, str) and value.strip():
            return
        if isinstance(value, dict) and value and all(isinstance(v, str) and v.strip() for v in value.values()):
            return
        raise bad('a skill name, or a table of glob = "skill name"')
    elif kind == "reserved":
        if not isinstance(value, dict):
            raise bad("a table")


def _option_name(key: str) -> str:
    return key.replace("-", "_")


def _families(tables: Any, base: Path, path: Path | None) -> tuple[tuple[str, Any, tuple[Glob, ...]], ...]:
    """`(name, table, globs)` of each adapter table with `files` (a family `migrate` claims
    in place, `fixture_migrate.adapting.families`); raises `ConfigError` for a bad table."""
    if not isinstance(tables, dict):
        return ()
    found = []
    for name, table in tables.items():
        if isinstance(table, dict) and "files" in table:
            files = table["files"]
            globs = (
                tuple(compile_glob(g) for g in files if isinstance(g, str) and g.strip())
                if isinstance(files, list)
                else ()
            )
            found.append((name, table, globs))
    if not found:
        return ()  # and the family machinery is not even imported
    from fixture_migrate.adapting.declared import MappedAdapterError
    from fixture_migrate.adapting.families import declared_families

    try:
        declared_families(found, base, path)  # checks each table
    except MappedAdapterError as error:
        raise ConfigError(f"{path}: {error.message}") from None
    return tuple(found)


def _globs(values: Any) -> list[str]:
    """The globs of a repeatable, comma-separated option (empty when not given)."""
    return [part.strip() for value in values or () for part in str(value).split(",") if part.strip()]


def _symlink_out(base: Path, glob: str, root: Path) -> str | None:
    """The first folder of the literal head of `glob` (the parts before one with `*`, `?` or
    `[`) that is a symlink leading outside the real `root`, as written; else None."""
    real_root = os.path.realpath(root)
    parts = [part for part in glob.replace("\\", "/").split("/") if part not in ("", ".")]
    here = os.path.abspath(base)
    for index, part in enumerate(parts[:-1]):
        if any(ch in part for ch in "*?["):
            break
        here = os.path.normpath(os.path.join(here, part))
        if os.path.islink(here):
            real = os.path.realpath(here)
            if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
                return "/".join(parts[: index + 1])
    return None


def _root_paths(command: str, params: Mapping[str, Any]) -> list[Path]:
    """The named paths the root found for `command` must hold: its PATHS and DEST, but not
    an `import` SRC (one outside the root is read when `--source-ref` says how to cite it)."""
    named = [] if command == "import" else list(params.get("paths") or ())
    if params.get("out") is not None:
        named.append(params["out"])
    return [Path(os.fspath(path)) for path in named]


def resolve(
    command: str,
    params: Mapping[str, Any],
    given: Iterable[str],
    *,
    config_file: Path | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Merge the command line with the configuration for `command`.

    `params` are the subcommand's parsed parameters (typer names) and `given` the names
    the user actually passed; `config_file` is `--config` (else the nearest
    `pyproject.toml` with a table is found from `cwd`). A parameter the user did not
    pass takes the subcommand table's value, then the built-in default in `params`.
    Raises `ConfigError` for a bad configuration.
    """
    cwd = Path.cwd() if cwd is None else cwd
    given = set(given)
    path: Path | None = config_file
    table: dict[str, Any] = {}
    named = _root_paths(command, params)
    found_root = None if params.get("repo_root") is not None else root_for_paths(named, cwd)
    start = cwd
    if found_root is not None and config_file is None and found_root != find_repo_root(cwd):
        # The named paths lie outside the current directory's repository: its configuration
        # is not theirs. Found from where they are, as the API finds it for a file.
        start = found_root
    if config_file is not None:
        table = read_config(config_file)
    else:
        found = _find_config(start)
        if found is not None:
            path, raw, table = found
            _check(path, raw, table)
    base = path.resolve().parent if path is not None else cwd.resolve()

    values = dict(params)
    for key, value in table.get(command, {}).items():
        name = _option_name(key)
        if name in values and name not in given:
            values[name] = value

    repo_root = params.get("repo_root")
    if repo_root is not None:
        root = Path(repo_root).resolve()
    elif "repo-root" in table:
        root = (base / table["repo-root"]).resolve()
        if not root.is_dir():
            raise ConfigError(f"{path}: repo-root {table['repo-root']!r} is not a directory ({root})")
        holder = find_repo_root(base)
        if root != holder and not str(root).startswith(str(holder).rstrip(os.sep) + os.sep):
            # The configuration is the repository's data: it may place the root inside the
            # repository that holds it, never widen it past (the root rule would then follow a
            # committed symlink to a file outside the repository). --repo-root is the user's.
            raise ConfigError(
                f"{path}: repo-root {table['repo-root']!r} lies outside the repository that holds this "
                f"configuration ({holder}) [path_outside_repo]; pass --repo-root to choose a wider root"
            )
    else:
        root = found_root if found_root is not None else find_repo_root(cwd)

    skill_value = table.get("skill")
    skills: tuple[tuple[Glob, str], ...] = ()
    default_skill = params.get("skill")
    if isinstance(skill_value, str) and default_skill is None:
        default_skill = skill_value
    elif isinstance(skill_value, dict):
        skills = tuple((compile_glob(glob), name) for glob, name in skill_value.items())

    include = table.get("include")
    for glob in include or ():
        # The root rule for `include` (a glob opens nothing, but one that leads outside would
        # promise files no run may touch): lexically, after `..` is collapsed.
        where = os.path.normpath(os.path.join(os.path.abspath(base), glob))
        top = os.path.abspath(root)
        if os.path.isabs(glob) or not (where == top or where.startswith(top.rstrip(os.sep) + os.sep)):
            raise ConfigError(
                f"{path}: include {glob!r} lies outside the repo root ({top}) [path_outside_repo]; "
                "globs are relative to the configuration's folder and stay inside the root"
            )
        link = _symlink_out(base, glob, root)
        if link is not None:
            raise ConfigError(
                f"{path}: include {glob!r} leads outside the repo root ({top}) through the symlink {link} "
                "[symlink_outside_repo]; walks never follow it, so name the folder it leads to inside the root"
            )
    # As ruff: --exclude replaces the configured `exclude`, --extend-exclude and
    # `extend-exclude` add to it; each flag is repeatable and takes comma-separated globs.
    given_exclude = _globs(params.get("exclude"))
    excludes = given_exclude if given_exclude else list(table.get("exclude", ()))
    excludes += list(table.get("extend-exclude", ())) + _globs(params.get("extend_exclude"))
    selection = Selection(
        base=base,
        include=tuple(compile_glob(glob) for glob in include) if include is not None else None,
        exclude=tuple(compile_glob(glob) for glob in excludes),
        respect_gitignore=bool(table.get("respect-gitignore", True)),
        force_exclude=bool(params.get("force_exclude")) or bool(table.get("force-exclude", False)),
    )
    py_names = params.get("py_name") or table.get("py-name")
    extra = {"py_names": tuple(py_names)} if py_names else {}
    tables = table.get("adapters") or {}
    families = _families(tables, base, path)
    options = ConfiguredOptions(
        repo_root=root,
        skill=default_skill,
        skills=skills,
        selection=selection,
        config_path=path,
        families=families,
        # Named, or found to hold every named path: each is checked against it either way
        # (`files.root.check_inside`), whatever its spelling.
        root_given=True,
        **extra,
    )
    paths = [Path(p) for p in params.get("paths") or ()] or [Path(".")]
    return Settings(values=values, options=options, config_path=path, paths=paths)
