"""Regular expressions compiled on first use.

Compiling a pattern costs from tens to hundreds of microseconds; a run that never
needs one (most runs never print an unsafe character or read YAML) should not pay
for it at start-up.
"""

from __future__ import annotations

import re
from typing import Any

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")


class LazyRegex:
    """A `re.Pattern` compiled the first time one of its methods is used; `pattern` is the
    source text, readable without compiling.

    Once compiled, the pattern's methods are the instance's own attributes (the compiled
    pattern's bound methods): a call costs what a call of a compiled pattern costs, with no
    lookup through `__getattr__` (which costs five times the match of a short pattern)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            self.__dict__.update({method: getattr(compiled, method) for method in _METHODS}, _compiled=compiled)
        return getattr(compiled, name)
