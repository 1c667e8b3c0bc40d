"""`.gitignore` rules for directory walks, as git applies them (and ruff and black follow).

A walk skips what git would ignore: the patterns of every `.gitignore` from the
repository root down to the file's directory, and `.git/info/exclude`; a deeper file's
patterns win over a shallower one's, a later pattern over an earlier one, `!` re-includes,
and nothing below an ignored directory comes back (git never looks inside one). A file
named on the command line is never filtered by these rules. As git (2.32 on), a
`.gitignore` that is a symlink is not read, nor one that is no regular file (a pipe).

The patterns are matched by `pathspec`'s `GitIgnoreSpec`, which implements git's
wildmatch rules (anchoring, `**`, directory-only patterns, negation, escapes); this
module only decides which files apply to a path and in which order.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from fixture_migrate.files.paths import absolute


class GitIgnore:
    """The ignore rules under `root` (the repository root), read lazily, one directory at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._root_text = str(self.root).rstrip("/") + "/"
        self._specs: dict[Path, Any] = {}
        self._chains: dict[tuple[str, ...], list[tuple[int, Any]]] = {}

    def _read(self, file: Path, *, dir_fd: int | None = None, follow: bool = False) -> Any:
        """The spec of the rules file `file` (its name in `dir_fd` when given), or None.

        As git (2.32 on) reads a `.gitignore`: never through a symlink (`follow` is for
        `.git/info/exclude`, the repository's own); and only a regular file is read, so a
        pipe in its place is passed over instead of waited on."""
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        if not follow:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(file.name if dir_fd is not None else file, flags, dir_fd=dir_fd)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            with os.fdopen(os.dup(fd), "rb") as stream:
                lines = rule_lines(stream.read())
        except OSError:
            return None
        finally:
            os.close(fd)
        if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            return None
        import pathspec

        try:
            return pathspec.GitIgnoreSpec.from_lines(lines)
        except Exception:  # noqa: BLE001 - git passes over a pattern it cannot read (a lone `!`, say)
            kept = []
            for line in lines:
                try:
                    pathspec.GitIgnoreSpec.from_lines([line])
                except Exception:  # noqa: BLE001
                    continue
                kept.append(line)
            return pathspec.GitIgnoreSpec.from_lines(kept)

    def _spec(self, directory: Path, dir_fd: int | None = None) -> Any:
        if directory not in self._specs:
            spec = self._read(directory / ".gitignore", dir_fd=dir_fd)
            if directory == self.root:
                exclude = self._read(_git_dir(directory) / "info" / "exclude", follow=True)
                spec = [s for s in (exclude, spec) if s is not None] or None
            else:
                spec = [spec] if spec is not None else None
            self._specs[directory] = spec
        return self._specs[directory]

    def _chain(self, directories: tuple[str, ...], dir_fd: int | None = None) -> list[tuple[int, Any]]:
        """`(depth, specs)` of each directory from the root down to `root/directories` (the
        names of the path below the root) that has rules: asked once per directory. `dir_fd`,
        when given, is `root/directories` open (see `has_rules`)."""
        chain = self._chains.get(directories)
        if chain is None:
            chain = []
            directory = self.root
            last = len(directories)
            for depth in range(last + 1):
                specs = self._spec(directory, dir_fd if depth == last else None)
                if specs:
                    chain.append((depth, specs))
                if depth < len(directories):
                    directory = directory / directories[depth]
            self._chains[directories] = chain
        return chain

    def has_rules(self, directory: Path, dir_fd: int | None = None) -> bool:
        """False when no rule can apply to an entry of `directory` (no `.gitignore` from the
        root down to it has a pattern, or it lies outside the root): a walk then asks
        `ignored` about none of them. True when some rule may apply.

        `dir_fd`, the directory a walk has open as `directory`: its `.gitignore` is read
        relative to it, so the rules are those of the directory listed even when its path
        was swapped for a symlink meanwhile."""
        text = os.fspath(directory)
        if os.sep != "/" or ".." in text.split("/"):
            return True
        inside = absolute(text).rstrip("/") + "/"
        if not inside.startswith(self._root_text):
            return False
        return bool(self._chain(tuple(inside[len(self._root_text) :].split("/")[:-1]), dir_fd))

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        """True when git would ignore `path` (absolute, or relative to the current
        directory), judged on its own: the caller prunes ignored directories."""
        text = os.fspath(path)
        if os.sep != "/" or ".." in text.split("/"):
            return self._ignored(path, is_dir=is_dir)
        # As `_ignored`, on strings: a walk asks about every file it meets.
        full = absolute(text)
        root = self._root_text
        if not full.startswith(root):
            return False
        parts = full[len(root) :].split("/")
        if parts == [""]:
            return False
        decision: bool | None = None
        for depth, specs in self._chain(tuple(parts[:-1])):
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            for spec in specs:
                result = spec.check_file(sub)
                if result.include is not None:
                    decision = result.include
        return bool(decision)

    def _ignored(self, path: Path, *, is_dir: bool) -> bool:
        path = path.absolute()
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return False
        parts = rel.parts
        if not parts:
            return False
        decision: bool | None = None
        directory = self.root
        for depth in range(len(parts)):
            specs = self._spec(directory)
            if specs:
                sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
                for spec in specs:
                    result = spec.check_file(sub)
                    if result.include is not None:
                        decision = result.include
            directory = directory / parts[depth]
        return bool(decision)


def rule_lines(raw: bytes) -> list[str]:
    """The lines of a `.gitignore` or `info/exclude` as git reads them (`dir.c`,
    `add_patterns_from_buffer`): a leading UTF-8 byte order mark dropped, lines ended by
    `\\n` only, and one `\\r` before it dropped (CRLF); any other character, a lone `\\r` or a
    form feed say, is part of its pattern. Bytes that are not UTF-8 are kept as the file
    names they match are (`surrogateescape`)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines = raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return [(line[:-1] if line.endswith(b"\r") else line).decode("utf-8", "surrogateescape") for line in lines]


def _git_dir(root: Path) -> Path:
    """The folder holding the repository's `info/exclude`: `root/.git`, or, where `.git`
    is a file (a linked worktree or a submodule: `gitdir: <path>`), the folder it names,
    or that folder's common one (its `commondir` file), as git reads it."""
    dot_git = root / ".git"
    try:
        with open(dot_git, "rb") as stream:  # a folder raises IsADirectoryError
            head = stream.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        return dot_git
    if not head.startswith("gitdir:"):
        return dot_git
    git_dir = root / head[len("gitdir:") :].strip()
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    return git_dir / common if common else git_dir
