"""Regular expressions compiled on first use.

Compiling a pattern costs from tens to hundreds of microseconds; a run that never
needs one (most runs never print an unsafe character or read YAML) should not pay
for it at start-up.
"""

from __future__ import annotations

import re
from typing import Any


class LazyRegex:
    """A `re.Pattern` compiled the first time one of its methods is used; `pattern` is the
    source text, readable without compiling."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return getattr(compiled, name)
