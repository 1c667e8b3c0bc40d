"""`Record`: value semantics for plain classes with `__slots__`.

The classes every run builds at start-up (options, results, contexts, adapters) are
plain slotted classes rather than dataclasses: defining a dataclass executes
generated source for each of its methods, about half a millisecond per class, and
with a dozen of them that was close to half of fixture-migrate's own import time,
which a pre-commit hook pays on every commit. A subclass lists its fields in
`__slots__` and writes its `__init__`; `Record` gives it `__eq__`, `__repr__` and,
when it sets `__hash__ = Record.value_hash`, hashing, over those fields.
"""

from __future__ import annotations

from typing import Any


class Record:
    """Equal when of one type with equal fields; shown as `Name(field=value, ...)`.

    Fields are the `__slots__` of the class and its bases, base first. Records are
    unhashable (like a mutable dataclass) unless a class sets
    `__hash__ = Record.value_hash`, which it does only when it is never changed after
    construction (the frozen dataclasses it replaces).
    """

    __slots__ = ()

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of the fields, base class first."""
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            names.extend(klass.__dict__.get("__slots__", ()))
        return tuple(names)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.field_names())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def value_hash(self) -> int:
        """A hash over the fields, for records that are never changed after construction."""
        return hash((type(self).__name__, *self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.field_names())
        return f"{type(self).__name__}({inner})"
