"""Files no parser can read, met in a directory walk (DESIGN.md, "Claiming a file").

Something no parser can read can't be shown to be a fixture. In a walk, such a file is
*skipped* (reported with its reason and counted, the run goes on) unless it lies where
fixtures live: in a skill's `evals/` folder (`skills/<name>/evals/...`, the contract's
home for fixtures) but not in a sandbox there (`fixture_migrate.claiming.territory`:
an eval's workspace or project tree), or under a configured `include`. There, or named
on the command line, it stays an error (exit 2).

What is plainly something else is said so: a Git LFS pointer (the content was never
checked out), JSON with comments (JSONC, as editors' and dev containers' settings
are), a template (Jinja `{{ ... }}` / `{% ... %}` markup in a `.json` file).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from fixture_migrate.errors import FixtureError
from fixture_migrate.files.reads import read_head

UNREADABLE = frozenset(
    {
        "invalid_json",
        "invalid_yaml",
        "invalid_python",
        "duplicate_key",
        "empty",
        "encoding",
        "not_a_literal",
        "too_deep",
        "integer_too_long",
        "too_large",
        "yaml_unsupported",
        "yaml_merge",
    }
)
"""Error codes of a file that cannot be read or parsed (as opposed to one that can't be migrated)."""

LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_TEMPLATE = rb"\{\{.*?\}\}|\{%.*?%\}"  # compiled on first use (`re` keeps it): most runs meet no error


def in_skill_evals(path: Path, repo_root: Path) -> bool:
    """True when `path` lies in a skill's `evals/` folder: `.../skills/<name>/evals/...`
    (judged on its absolute path, so a repo root set inside a skill changes nothing)."""
    parts = Path(os.path.abspath(path)).parts[:-1]
    return any(parts[i] == "skills" and parts[i + 2] == "evals" for i in range(len(parts) - 2))


def _strip_comments(text: str) -> tuple[str, bool]:
    """`text` with JSON-with-comments comments blanked out, and whether it had any."""
    out: list[str] = []
    i, n, found = 0, len(text), False
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
        elif ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i, found = end, True
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i, found = end, True
        else:
            out.append(ch)
            i += 1
    return "".join(out), found


def recognize(path: Path, raw: bytes | None = None, *, root: Path | None = None) -> str | None:
    """What an unparseable file plainly is, in a few words, or None. Without `raw`, its
    first MiB is read (`read_head`: under the root rule with `root`; a pipe or device is
    never read, as it could block)."""
    if raw is None:
        try:
            raw = read_head(path, 1 << 20, root=root)
        except FixtureError:
            return None
    if raw.startswith(LFS_POINTER):
        return "a Git LFS pointer (the file's content is not checked out)"
    if path.suffix in (".json", ".jsonl"):
        if re.search(_TEMPLATE, raw, re.S):
            return "a template ({{ ... }} / {% ... %} markup), not JSON"
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None
        stripped, had_comments = _strip_comments(text)
        if had_comments:
            import json

            try:
                json.loads(re.sub(r",(\s*[}\]])", r"\1", stripped))
            except ValueError:
                return None
            return "JSON with comments (JSONC), which JSON readers refuse"
    return None


def described(path: Path, error: FixtureError, *, root: Path | None = None) -> FixtureError:
    """`error` with what the file plainly is in front of its message, when it is recognized
    (`root`: the repo root, whose root rule the read follows)."""
    if error.code not in UNREADABLE:
        return error
    what = _recognized(path, error, root)
    if what is None:
        return error
    return FixtureError(f"{what}: {error.message}", code=error.code, line=error.line, column=error.column)


def skip_reason(path: Path, error: FixtureError, *, named: bool, repo_root: Path, options: Any) -> str | None:
    """The reason a walked file that cannot be read is skipped, or None when it stays an
    error: named on the command line, in a skill's `evals/` folder, under `include`, or
    failing for another reason than being unreadable."""
    if named or error.code not in UNREADABLE:
        return None
    if in_skill_evals(path, repo_root):
        from fixture_migrate.claiming.territory import sandbox

        where = sandbox(path, repo_root)
        if where is None:
            return None
        return f"{where} ({error.message} [{error.code}])"
    selection = getattr(options, "selection", None)
    if selection is not None and selection.include is not None:
        rel = selection.relative(path)
        if rel is not None and any(glob.matches(rel) for glob in selection.include):
            return None
    what = _recognized(path, error, repo_root)
    return what or f"{error.message} [{error.code}]"


def _recognized(path: Path, error: FixtureError, root: Path | None) -> str | None:
    """`recognize` for a file `error` was met reading; a file refused as over its size
    limit is said to be not read, and is not (no pointer or template is that large)."""
    return None if error.code == "too_large" else recognize(path, root=root)
