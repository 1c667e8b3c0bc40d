"""Where fixtures live: fixture territory, the sandboxes inside it, and the files that are
never a local family's fixture (DESIGN.md, "Claiming a file: where decides whether").

**Fixture territory** is where a repository keeps its eval fixtures:

- a folder named `evals`, `eval`, `evaluations` or `evaluation` at any depth (a skill's
  `evals/` folder is the contract's home; `tests/evals/` and a top-level `evals/` are
  named the same way), or whose name's first word is one of these (`eval_data/`,
  `evaluation_data/`, `evals-v2/`), or whose name starts with `golden`;
- a file named like one: `evals.*` / `eval.*`, `*eval*cases*`, `*eval*set*`,
  `*trigger*cases*`, `*trigger*queries*`, `*routing*cases*`, `golden*`, `*.eval.*`,
  `*-evals.*` / `*_evals.*`, `*-eval.*` / `*_eval.*`;
- and every configured `include` (or `[tool.fixture-migrate.skill]` glob).

A `skill` key is never evidence of territory: a script's test inputs name skills too.
Outside territory, a *case file* (a name with the word `cases`: `cases.json`,
`plugin-test-cases.yaml`; not in a folder of code's test data such as `fixtures/`)
migrates only with the full evidence of eval cases (every record an input and an
expected outcome, or trigger lists).

**Sandboxes** inside territory are an eval's data, not fixtures: a folder below the
territory folder named `workspace(s)`, `iteration-<n>`, `outputs`, `runs`, `results`,
`templates`, `charts`, `node_modules`, `snapshots`, `__snapshots__`, `seeds`,
`mocks`, `cassettes` or `recordings` (the data an eval runs against), or
one holding its own project (`package.json`, `pyproject.toml`, `setup.py`,
`Chart.yaml`, `Cargo.toml`, `go.mod`) or that is a Python package (`__init__.py`: an
`evals` package of code, whose data files its code reads). A walk skips what cannot be parsed there, with
the reason, and never claims a local family there.

**Never a local family's fixture**, whatever the above says (`ruled_out`): a well-known
configuration (`package.json`, `tsconfig*.json`, anything under `.github/`, ...), a
JSON Schema, a file under `docs/validation/` or `docs/plans/` (the contract's non-source
paths), a generated report (`generated_at`, `command`) or a run's results (records
carrying `actual`, `passed`, `score`, `output`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

TERRITORY_FOLDERS = frozenset({"evals", "eval", "evaluations", "evaluation"})
"""Folder names that make what lies below them fixture territory (`golden*` too)."""

TERRITORY_FILES = (
    "evals.*",
    "eval.*",
    "golden.*",
    "goldens.*",
)
"""File names (globs, lower case) that make a file fixture territory wherever it lies;
`territory_file` also takes names by their words (`routing-eval-cases.json`)."""

EVAL_WORDS = frozenset({"eval", "evals", "evaluation", "evaluations"})
GOLDEN_WORDS = frozenset({"golden", "goldens"})
SET_WORDS = frozenset({"set", "sets", "cases", "dataset", "datasets", "data", "queries", "examples", "suite"})
"""The words of a file or folder name that make it fixture territory: an eval word, or a
golden word followed by a set word (`golden_set`, `goldens`), or `trigger`/`routing`
followed by `cases`/`queries` (`trigger-cases`)."""

SANDBOX_FOLDERS = frozenset(
    {
        "workspace",
        "workspaces",
        "outputs",
        "runs",
        "results",
        "templates",
        "charts",
        "node_modules",
        "snapshots",
        "__snapshots__",
        "seeds",
        "seed_data",
        "mocks",
        "mock",
        "mock_data",
        "cassettes",
        "recordings",
        "fixtures",
        "__fixtures__",
        "testdata",
        "locales",
        "i18n",
        "transcripts",
        "reports",
        "prompt_templates",
    }
)
"""Folder names below a territory folder that hold an eval's data, not fixtures."""

_ITERATION = re.compile(r"iteration[-_]?\d+")

PROJECT_MARKERS = ("package.json", "pyproject.toml", "setup.py", "Chart.yaml", "Cargo.toml", "go.mod", "__init__.py")
"""Files that make a folder below a territory folder a project of its own, or a package
of code whose data files code reads (a sandbox)."""

WELL_KNOWN_CONFIGS = (
    "package.json",
    "package-lock.json",
    "tsconfig*.json",
    "jsconfig*.json",
    "composer.json",
    "deno.json",
    "lerna.json",
    "nx.json",
    "angular.json",
    "turbo.json",
    "vercel.json",
    "firebase.json",
    "renovate.json",
    "manifest.json",
    "app.json",
    "babel.config.json",
    ".babelrc*",
    ".eslintrc*",
    ".prettierrc*",
    "*.schema.json",
    "docker-compose*.yml",
    "docker-compose*.yaml",
    "compose.yml",
    "compose.yaml",
    "openapi*.yaml",
    "openapi*.yml",
    "openapi*.json",
    "swagger*.json",
    "swagger*.yaml",
    "labeler.yml",
    "labeler.yaml",
    "dependabot.yml",
    "codecov.yml",
    "mkdocs.yml",
    "action.yml",
    "action.yaml",
    ".pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
    "Chart.yaml",
    "values*.yaml",
    "environment.yml",
    "pyproject.toml",
)
"""File names (globs) of configurations other tools own."""

NON_SOURCE_PATHS = ("docs/validation/", "docs/plans/")
"""The contract's non-source paths: what lies there is never a fixture to rewrite."""

REPORT_KEYS = frozenset({"generated_at", "command"})
"""Top-level members of a generated report."""

RESULT_FIELDS = frozenset(
    {"actual", "passed", "score", "output", "grade", "verdict", "correct", "prediction", "predicted", "model_answer"}
)
"""Record members of a run's results."""


def relative(path: Path, root: Path | None) -> PurePosixPath:
    """`path` relative to `root` (lexically, after `os.path.abspath`), as a POSIX path; the
    absolute path when it lies outside `root` or no root is given."""
    absolute = Path(os.path.abspath(path))
    if root is not None:
        try:
            return PurePosixPath(absolute.relative_to(Path(os.path.abspath(root))).as_posix())
        except ValueError:
            pass
    return PurePosixPath(absolute.as_posix())


def _words(name: str) -> list[str]:
    return [w for w in _FIRST_WORD.split(name.lower()) if w]


def _named_territory(words: list[str]) -> bool:
    """True when a name's `words` make it fixture territory (`EVAL_WORDS`, ...)."""
    if not words:
        return False
    if words[0] in EVAL_WORDS and not (len(words) > 1 and words[1].isdigit()):
        return True  # `eval-0/` is a skill-creator run's folder, not a home of fixtures
    if words[0] in GOLDEN_WORDS and (len(words) == 1 or words[1] in SET_WORDS):
        return True
    for a, b in zip(words, words[1:]):
        if a in EVAL_WORDS and b in SET_WORDS:
            return True
        if a in ("trigger", "triggers", "routing") and b in ("cases", "queries"):
            return True
    return False


def territory_folder(name: str) -> bool:
    """True when a folder named `name` is a territory folder: `evals`, `eval`,
    `evaluation(s)`, a name whose first word is one of these (`eval_data`,
    `evaluation_data`, not `eval-0`), `golden`/`goldens` (or `golden_set`), or a name
    with `eval cases`, `trigger cases`, ... in it."""
    return _named_territory(_words(name))


_FIRST_WORD = re.compile(r"[-_. ]")


def _territory_folders(parts: tuple[str, ...]) -> list[int]:
    """The indexes in `parts` (folders) of the territory folders, outermost first."""
    return [index for index, part in enumerate(parts) if territory_folder(part)]


CASE_FILE_WORD = "cases"
"""A word of a file's name (`cases.json`, `plugin-test-cases.json`) that names a case file."""

CODE_DATA_FOLDERS = frozenset({"fixtures", "__fixtures__", "testdata", "test_data", "test-data", "vectors"})
"""Folders of code's test data: a case file there is a script's input, not an eval fixture."""


def case_file(path: Path | None, root: Path | None = None) -> str | None:
    """Why the file `path` is named as a case file outside territory (`cases.json`,
    `*-test-cases.yaml`), or None; never in a folder of code's test data (`fixtures/`,
    `testdata/`, ...). Such a file migrates only with the full evidence of eval cases."""
    if path is None:
        return None
    rel = relative(path, root)
    words = _FIRST_WORD.split(rel.name.lower().rsplit(".", 1)[0])
    if CASE_FILE_WORD not in words or any(part.lower() in CODE_DATA_FOLDERS for part in rel.parts[:-1]):
        return None
    return f"a case file (`{rel.name}`)"


def territory_file(name: str) -> bool:
    """True when a file named `name` is fixture territory by its name alone: `evals.*`,
    `eval.*`, `golden.*`, or a stem whose words name it (`routing_eval_cases`,
    `trigger-cases`, `golden_set`, `router.eval`), never by a part of a word
    (`retrieval_settings`, `golden_ratio`)."""
    lowered = name.lower()
    if any(fnmatch.fnmatchcase(lowered, glob) for glob in TERRITORY_FILES):
        return True
    stem = lowered.rsplit(".", 1)[0]
    words = _words(stem)
    return _named_territory(words) or any(w in EVAL_WORDS for w in words[1:])


class Places:
    """Says where a file lies: in fixture territory, in a sandbox there (module docstring).
    Remembers which folders hold a project marker or an `__init__.py`, so a walk stats
    each folder once; the facts are judged on the path relative to the repository root.

    `facts(path, root)` gives, as one text, what of the file system besides the file's
    own path and bytes these judgements read: where a symlinked file leads, and which
    markers the folders on its way hold (`PROJECT_MARKERS`); a verdict cached for a file
    holds only while these are the same (`fixture_migrate.migration.cache`)."""

    def __init__(self) -> None:
        self._markers: dict[str, str | None] = {}
        self._present: dict[str, str] = {}  # folder -> the markers it holds, comma-separated
        self._chains: dict[tuple[str, str], str] = {}  # (folder, root) -> `facts` of its files

    def _marker(self, folder: Path, markers: tuple[str, ...] = PROJECT_MARKERS) -> str | None:
        key = f"{folder}\0{len(markers)}"
        if key not in self._markers:
            self._markers[key] = next((m for m in markers if os.path.isfile(folder / m)), None)
        return self._markers[key]

    def facts(self, path: Path | str, root: Path | None = None, *, link: bool | None = None) -> str:
        """What the judgements of the file `path` read of the file system besides its path
        and bytes, as one text ("" when nothing: no symlink, no marker on its way): the
        target of a symlinked file (`link`: whether `path` is one, None to look), and per
        folder from the root to the file (to its target, for a symlink) the markers of
        `PROJECT_MARKERS` it holds as files."""
        text = os.fspath(path)
        if link is None:
            link = os.path.islink(text)
        target = ""
        if link:
            text = os.path.realpath(text)
            target = relative(Path(text), root).as_posix()
        folder = os.path.dirname(text)
        key = (folder, "" if root is None else os.fspath(root))
        chain = self._chains.get(key)
        if chain is None:
            folders = relative(Path(text), root).parts[:-1]
            base = _base(root)
            found = []
            for index in range(len(folders)):
                place = os.path.join(base, *folders[: index + 1])
                present = self._present.get(place)
                if present is None:
                    present = self._present[place] = ",".join(
                        m for m in PROJECT_MARKERS if os.path.isfile(os.path.join(place, m))
                    )
                if present:
                    found.append(f"{'/'.join(folders[: index + 1])}: {present}")
            chain = self._chains[key] = "; ".join(found)
        return f"{target}\0{chain}" if target or chain else ""

    def _start(self, folders: tuple[str, ...], base: Path) -> int | None:
        """The territory folder that holds the file: the outermost one that is not a Python
        package. A territory folder that is itself a package (`evals/__init__.py`: a
        library of code named `evals`, or a test package) gives no territory: its files
        are its code's data and modules."""
        for index in _territory_folders(folders):
            if self._marker(base.joinpath(*folders[: index + 1]), ("__init__.py",)) is None:
                return index
        return None

    def territory(self, path: Path | None, root: Path | None = None, *, included: bool = False) -> str | None:
        """Why the file `path` lies in fixture territory (one phrase), or None when it does
        not. `included`: the file matches a configured `include` or skill glob."""
        if path is None:
            return "given directly"
        rel = relative(path, root)
        folders = rel.parts[:-1]
        start = self._start(folders, _base(root))
        if start is not None:
            return f"in fixture territory (the `{folders[start]}/` folder)"
        if territory_file(rel.name):
            return f"in fixture territory (a file named `{rel.name}`)"
        if included:
            return "under a configured include"
        return None

    def sandbox(self, path: Path | None, root: Path | None = None) -> str | None:
        """Why `path` lies in a sandbox (one phrase), or None. Only folders *below* the
        territory folder count: the territory folder's own `package.json` is an eval
        harness's, and the fixtures beside it stay fixtures."""
        if path is None:
            return None
        rel = relative(path, root)
        folders = rel.parts[:-1]
        base = _base(root)
        for index, part in enumerate(folders):
            name = part.lower()
            if name in ("workspace", "workspaces") or name.endswith("-workspace") or _ITERATION.fullmatch(name):
                where = "/".join(folders[: index + 1])
                return f"in an eval's sandbox (`{where}/`): data, not fixtures"
        start = self._start(folders, base)
        if start is None:
            return None
        for index in range(start + 1, len(folders)):
            name = folders[index].lower()
            where = "/".join(folders[: index + 1])
            if name in SANDBOX_FOLDERS or _ITERATION.fullmatch(name):
                return f"in an eval's sandbox (`{where}/`): data, not fixtures"
            marker = self._marker(base.joinpath(*folders[: index + 1]))
            if marker is not None:
                return f"in an eval's sandbox (`{where}/` holds its own `{marker}`): data, not fixtures"
        return None


def _base(root: Path | None) -> Path:
    return Path(os.path.abspath(root)) if root is not None else Path("/")


_places = Places()


def forget_places() -> None:
    """Start the process's `Places` afresh: each run (an `Engine`) calls it, so a long-lived
    process (the API, the pytest plugin) never judges a file by folders as they were."""
    global _places
    _places = Places()


def place_facts(path: Path | str, root: Path | None = None, *, link: bool | None = None) -> str:
    """`Places.facts` with the process's `Places` (see `forget_places`)."""
    return _places.facts(path, root, link=link)


def territory(path: Path | None, root: Path | None = None, *, included: bool = False) -> str | None:
    """`Places.territory` with the process's `Places` (the folders it stats are remembered
    for the run: `forget_places` starts each run afresh)."""
    return _places.territory(path, root, included=included)


def sandbox(path: Path | None, root: Path | None = None) -> str | None:
    """`Places.sandbox` with the process's `Places`."""
    return _places.sandbox(path, root)


def ruled_out(path: Path | None, data: Any, root: Path | None = None, records: list[Any] | None = None) -> str | None:
    """Why the file `path` holding `data` (whose records are `records`, when it has any) is
    never a local family's fixture, or None."""
    if path is not None:
        rel = relative(path, root)
        if any(fnmatch.fnmatchcase(rel.name, glob) for glob in WELL_KNOWN_CONFIGS):
            return f"a well-known configuration file ({rel.name})"
        if ".github" in rel.parts[:-1]:
            return "a file under .github/ (a tool's configuration)"
        text = rel.as_posix()
        for prefix in NON_SOURCE_PATHS:
            if text.startswith(prefix) or f"/{prefix}" in text:
                return f"under {prefix} (documentation, not a fixture source)"
    if isinstance(data, dict):
        if "$schema" in data:
            return "a document declaring `$schema` (a JSON Schema or a tool's configuration)"
        if "type" in data and "properties" in data or "$defs" in data or "definitions" in data:
            return "a JSON Schema (type and properties, $defs or definitions)"
        found = sorted(REPORT_KEYS.intersection(data))
        if found:
            return f"a generated report ({', '.join(found)})"
    for record in records or ():
        if isinstance(record, dict):
            found = sorted(RESULT_FIELDS.intersection(record))
            if found:
                return f"a run's results (records carry {', '.join(found)})"
    return None


def in_territory_folder(path: Path, root: Path | None = None) -> bool:
    """True when `path` lies below a territory folder (`evals/`, `eval/`, `golden*/`, ...)."""
    return bool(_territory_folders(relative(path, root).parts[:-1]))


OUTSIDE_TERRITORY = (
    "it lies outside fixture territory (an `evals`/`eval` folder, a file named `evals.*` or "
    "`*eval*cases*`, a configured include): add it to `include` or declare its family "
    "(`fixture-migrate suggest`) to migrate it"
)
"""The reason given for a local family found outside fixture territory."""
