"""Unified diffs of a migration, safe to print on a terminal.

A fixture can hold any character; printed raw, an ANSI escape sequence in a
string would rewrite the reviewer's terminal. Every line of a diff and every
path in it goes through `escape_text`, which shows control characters (and the
bidirectional overrides that can reorder what a reader sees) as escapes.
"""

from __future__ import annotations

import difflib
import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# A message is one line: a newline in a file name or a value must not start a forged one.
_UNSAFE_IN_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """One line of `text` to print: control characters (the newline too), line separators and
    bidi overrides shown as `\\xNN`/`\\uNNNN`. Only the tab is left as it is."""
    return _UNSAFE_IN_LINE.sub(_escape_char, text)


def escape_json(text: str) -> str:
    """JSON text with the terminal-unsafe characters JSON allows raw written as `\\uXXXX`
    escapes: the value it stands for is unchanged."""
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _split(text: str) -> list[str]:
    # Only "\n" ends a line: str.splitlines would also split on U+2028 and friends,
    # which JSON and YAML strings may hold raw.
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _show(prefix: str, line: str) -> str:
    body = line.rstrip("\n")
    body = body[:-1] if body.endswith("\r") else body
    shown = prefix + escape_text(body) + "\n"
    if not line.endswith("\n"):
        shown += "\\ No newline at end of file\n"
    return shown


def render_diff(old: str, new: str, old_name: str, new_name: str, context: int = 3) -> str:
    """A unified diff from `old` to `new` text, `""` when they are equal.

    `old_name`/`new_name` label the sides (`a/...`, `b/...` are added). Line endings
    are compared but not printed, so a CRLF file diffs like an LF file; a missing
    final newline is marked as git marks it.
    """
    if old == new:
        return ""
    a, b = _split(old), _split(new)
    out = [f"--- a/{escape_text(old_name)}\n", f"+++ b/{escape_text(new_name)}\n"]
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_show(" ", line) for line in a[i1:i2])
                continue
            out.extend(_show("-", line) for line in a[i1:i2])
            out.extend(_show("+", line) for line in b[j1:j2])
    return "".join(out)


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def changed_lines(diff: str) -> int:
    """How many `-` and `+` lines a unified diff from `render_diff` holds."""
    return sum(1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("--- ", "+++ ")))
