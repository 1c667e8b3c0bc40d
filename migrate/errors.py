"""The errors fixture-migrate reports for a file, with the place they point at."""

from __future__ import annotations


class FixtureError(Exception):
    """A problem with one input file: bad syntax, bad shape, or an I/O failure.

    `message` is one line; `line` and `column` (1-based) point into the file where
    known; `code` is a short machine name (`invalid_json`, `duplicate_key`,
    `case_not_object`, `conservation`, `io`, ...). The engine turns it into a
    report line and exit code 2; nothing is written for the file.
    """

    def __init__(self, message: str, *, code: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.line = line
        self.column = column

    def __reduce__(self):  # keyword arguments survive pickling (parallel runs)
        return (_rebuild, (type(self), self.message, self.__dict__.copy()))


def _rebuild(cls: type, message: str, state: dict) -> FixtureError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error


class MappingError(FixtureError):
    """The payload cannot be mapped to the canonical shape without losing or inventing data."""

    def __init__(self, message: str, *, code: str = "unmappable", path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message, code=code)
        self.path = path


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based `(line, column)` of a character offset in `text`; the column counts characters."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
