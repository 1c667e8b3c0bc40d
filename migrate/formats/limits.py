"""The size limits of reads: the largest file read, in bytes, by syntax.

Every read of a fixture file is bounded (`fixture_migrate.files.reads.read_fixture`); a
file over its syntax's limit is refused before any of it is read (`too_large`), with a
message that names the limit and how to raise it (`limit_for`). A limit is set per syntax
by `FIXTURE_MIGRATE_MAX_<SYNTAX>_BYTES` (`size_variable`); a set variable that is not a
size is an error (`size_limit_problem`, code `bad_size_limit`), never ignored.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from fixture_migrate.errors import FixtureError
from fixture_migrate.formats import SYNTAX_BY_SUFFIX, SYNTAX_NAMES

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest file read by default, in bytes (16 MiB, over 200 times the largest real
fixture); each fixture syntax has its own, lower, limit (`limit_for`)."""

SIZE_LIMITS = {"yaml": 16 << 20, "python": 16 << 20}
"""The largest YAML and Python file read, in bytes (JSON and JSON Lines files have the 16
MiB limit of every read, `MAX_FILE_BYTES`); a larger one is refused before it is read (`too_large`). Planning holds several copies of a file's
data (parsed values, span tree, rendered text, the re-read of the checks), so memory
grows with the file at a rate per syntax (`MEMORY_PER_MIB`): at these limits a run
peaks at about 1.1 GB for a 16 MiB JSON or Python file of tiny cases and 1.2 GB for a
YAML one (about 800 MB for ordinary cases). A Python module over 64 KiB is read on its
tokens (`python_tokens`), never into libcst's syntax tree, which would take about 800
MiB per MiB. `FIXTURE_MIGRATE_MAX_<SYNTAX>_BYTES` (`..._YAML_BYTES=4194304`, or `4MiB`)
sets the limit of one syntax, JSON's included."""

MEMORY_PER_MIB = {"json": 70, "jsonl": 70, "yaml": 75, "python": 70}
"""Peak memory, in MiB, per MiB of a fixture of each syntax, at worst: `bench/memory.py
--tiny` (cases of a few bytes a value; ordinary cases take 55, 55, 55 and 50)."""

_SIZE_VALUE = re.compile(r"([0-9]+)[ \t]*(KiB|MiB|GiB)?", re.ASCII)


def max_bytes(syntax: str, default: int) -> int:
    """The size limit of `syntax`: the one its environment variable sets (ASCII digits, as
    bytes or followed by `KiB`, `MiB` or `GiB`), else `SIZE_LIMITS`, else `default`. A set
    variable holding anything else is an error (`FixtureError`, `bad_size_limit`), never
    ignored: see `size_limit_problem`."""
    value = os.environ.get(size_variable(syntax), "").strip()
    if not value:
        return SIZE_LIMITS.get(syntax, default)
    match = _SIZE_VALUE.fullmatch(value)
    if not match:
        raise FixtureError(size_limit_problem(syntax) or "", code="bad_size_limit")
    return int(match.group(1)) << {None: 0, "KiB": 10, "MiB": 20, "GiB": 30}[match.group(2)]


def size_limit_problem(syntax: str) -> str | None:
    """What is wrong with the size-limit variable of `syntax`, or None when it is unset or valid."""
    variable = size_variable(syntax)
    value = os.environ.get(variable, "").strip()
    if not value or _SIZE_VALUE.fullmatch(value):
        return None
    return (
        f"{variable}={value!r} is not a size: give a whole number of bytes in ASCII digits, "
        "optionally followed by KiB, MiB or GiB (for example 4MiB)"
    )


def size_limit_problems() -> list[str]:
    """`size_limit_problem` of every fixture syntax that has one."""
    return [problem for syntax in SYNTAX_NAMES if (problem := size_limit_problem(syntax))]


def size_variable(syntax: str) -> str:
    """The environment variable that sets the size limit of `syntax`."""
    return f"FIXTURE_MIGRATE_MAX_{syntax.upper()}_BYTES"


class SizeLimit:
    """The size limit of a read: `bytes`, and `how` to raise it (for the message)."""

    __slots__ = ("bytes", "how")

    def __init__(self, bytes: int, how: str | None = None) -> None:  # noqa: A002
        self.bytes = bytes
        self.how = how

    def refusal(self, size: int, grew: bool = False) -> FixtureError:
        limit = self.bytes
        shown = f"{limit / (1024 * 1024):g} MiB" if limit >= 1024 * 1024 else f"{limit / 1024:g} KiB"
        message = f"file is {size:,} bytes, over the {limit:,}-byte limit ({shown}): not read"
        if grew:
            message += " (it grew while it was read)"
        if self.how:
            message += f"; {self.how}"
        return FixtureError(message, code="too_large")


def limit_for(path: Path | str) -> SizeLimit:
    """The size limit of a fixture file, by its syntax (`fixture_migrate.SIZE_LIMITS`;
    `MAX_FILE_BYTES` for JSON, JSON Lines and a file of no fixture syntax), with the
    message that names it and how to raise it."""
    # The suffix as `Path.suffix` gives it, without a Path per file (asked for every read).
    name = os.fspath(path).rstrip(os.sep).rpartition(os.sep)[2]
    dot = name.rfind(".")
    syntax = SYNTAX_BY_SUFFIX.get(name[dot:].lower() if 0 < dot < len(name) - 1 else "")
    if syntax is None:
        return SizeLimit(MAX_FILE_BYTES)
    setting = os.environ.get(_size_variable(syntax))
    return _limit(syntax, setting, MAX_FILE_BYTES, SIZE_LIMITS.get(syntax))


@functools.lru_cache(maxsize=16)
def _size_variable(syntax: str) -> str:
    return size_variable(syntax)


@functools.lru_cache(maxsize=32)
def _limit(syntax: str, setting: str | None, default: int, built_in: int | None) -> SizeLimit:
    """`limit_for` a syntax, once per value of its environment variable (`setting`), of the
    default limit and of its built-in limit (`built_in`: the key only, `max_bytes` reads it)."""
    how = (
        f"the limit of {SYNTAX_NAMES[syntax]} fixtures, which take about {MEMORY_PER_MIB[syntax]:,} MiB of "
        f"memory per MiB to migrate; split the file, or raise the limit with {size_variable(syntax)}=BYTES"
    )
    return SizeLimit(max_bytes(syntax, default), how)
