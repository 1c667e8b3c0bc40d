"""Unified diffs of a migration, safe to print on a terminal.

Lines are matched with patience diff: lines that occur once in both texts
anchor the alignment (their longest common subsequence), and only the short
stretches between anchors are compared line by line. A migration moves many
members, and a plain longest-match diff is quadratic on such files; patience
stays near linear and pairs each case with itself, which is also what a
reviewer wants to read.

A fixture can hold any character; printed raw, an ANSI escape sequence in a
string would rewrite the reviewer's terminal. Every line of a diff and every
path in it goes through `escape_text`, which shows control characters, line separators
and the format characters that can reorder what a reader sees (`REORDERING`) as escapes.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence

from fixture_migrate.patterns import LazyRegex

REORDERING = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u206a-\u206f\ufff9-\ufffb"
"""Format characters that can make text read in another order than it is stored, as a
character class: Unicode's whole `Bidi_Control` set (U+061C ARABIC LETTER MARK, U+200E/F
LEFT-TO-RIGHT/RIGHT-TO-LEFT MARK, U+202A-202E embeddings and overrides, U+2066-2069
isolates), the deprecated format controls U+206A-206F (symmetric swapping, shaping and
digit-shape switches) and the interlinear annotation controls U+FFF9-FFFB (which can hide
text). Joiners (U+200C/D) are not among them: scripts and emoji need them."""

INVISIBLE = "\u180e\u200b\u2060-\u2064\ufeff\U000e0000-\U000e007f"
"""Format characters that show nothing and so can hide a difference or smuggle text past a
reader, as a character class: U+180E MONGOLIAN VOWEL SEPARATOR, U+200B ZERO WIDTH SPACE,
U+2060 WORD JOINER and the invisible operators U+2061-2064, U+FEFF ZERO WIDTH NO-BREAK
SPACE (a byte order mark inside text) and the tag characters U+E0000-E007F (which can
carry a hidden ASCII message). Escaped like `REORDERING`; the joiners U+200C/D stay raw."""

_UNSAFE = LazyRegex("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029" + REORDERING + INVISIBLE + "]")
# A message is one line: a newline in a file name or a value must not start a forged one.
_UNSAFE_IN_LINE = LazyRegex("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029" + REORDERING + INVISIBLE + "]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_text(text: str) -> str:
    """One line of `text` to print: control characters (the newline too), line separators and
    the reordering format characters of `REORDERING` shown as `\\xNN`/`\\uNNNN`. Only the
    tab is left as it is."""
    return _UNSAFE_IN_LINE.sub(_escape_char, text)


def escape_lines(texts: Sequence[str]) -> str:
    """`escape_text` of each of `texts`, each ending in a newline, joined: checked in one
    search of them all, and escaped one by one only when some character needs it."""
    joined = "\n".join(texts)
    if joined.count("\n") == len(texts) - 1 and _UNSAFE.search(joined) is None:
        return joined + "\n"
    return "".join([escape_text(text) + "\n" for text in texts])


def escape_json(text: str) -> str:
    """JSON text with the terminal-unsafe characters JSON allows raw written as `\\uXXXX`
    escapes: the value it stands for is unchanged."""
    return _UNSAFE.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character beyond the BMP as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _split(text: str) -> list[str]:
    # Only "\n" ends a line: str.splitlines would also split on U+2028 and friends,
    # which JSON and YAML strings may hold raw.
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _show(prefix: str, line: str, first: bool = False) -> str:
    body = line.rstrip("\n")
    ending = "\n"
    if line.endswith("\r\n"):  # printed as it is, so the diff applies to a CRLF file
        body, ending = body[:-1], "\r\n"
    bom = ""
    if first and body.startswith("\ufeff"):  # the file's byte order mark: kept, so the diff applies
        bom, body = "\ufeff", body[1:]
    shown = prefix + bom + escape_text(body) + ending
    if not line.endswith("\n"):
        shown += "\\ No newline at end of file\n"
    return shown


_C_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r"}
_C_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\"})


def _label(prefix: str, name: str) -> str:
    """A diff header's file name as git writes it: as it is when plain (with a tab after it
    when it holds a space, so `patch` reads it whole); else C-quoted, with every byte of a
    control character, a quote, a backslash or a non-ASCII character that could mislead a
    terminal (or that is not UTF-8) escaped, which both `git apply` and `patch` unquote."""
    label = prefix + name
    if not (_UNSAFE_IN_LINE.search(label) or '"' in label or "\\" in label or "\t" in label or _has_surrogate(label)):
        return label + "\t" if " " in label else label
    out = []
    for byte in label.encode("utf-8", "surrogateescape"):
        if byte in _C_ESCAPES:
            out.append(_C_ESCAPES[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


def _has_surrogate(text: str) -> bool:
    return any("\udc80" <= char <= "\udcff" for char in text)


def render_diff(old: str, new: str, old_name: str | None, new_name: str | None, context: int = 3) -> str:
    """A unified diff from `old` to `new` text, `""` when they are equal.

    `old_name`/`new_name` label the sides (`a/...`, `b/...` are added; None is
    `/dev/null`, for a file created or removed); a name with a space ends with a tab,
    as git and GNU diff write it, so `patch` reads the whole name. Each line keeps its
    ending (`\r\n` included) and a BOM stays at the start of the first line, so the diff
    applies with `git apply` or `patch -p1`; a missing final newline is marked as git
    marks it. A line holding a character `escape_text` escapes is printed escaped, for
    the reader's terminal, and such a hunk does not apply as a patch.
    """
    if old == new:
        return ""
    a, b = _split(old), _split(new)
    old_label = "/dev/null" if old_name is None else _label("a/", old_name)
    new_label = "/dev/null" if new_name is None else _label("b/", new_name)
    out = [f"--- {old_label}\n", f"+++ {new_label}\n"]
    for group in _grouped_opcodes(_opcodes(a, b), context):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_show(" ", line, i == 0) for i, line in enumerate(a[i1:i2], start=i1))
                continue
            out.extend(_show("-", line, i == 0) for i, line in enumerate(a[i1:i2], start=i1))
            out.extend(_show("+", line, j == 0) for j, line in enumerate(b[j1:j2], start=j1))
    return "".join(out)


_GAP_LIMIT = 4000
"""Stretches without unique anchors longer than this (lines on either side) are shown as
one replacement rather than aligned line by line, which is quadratic."""


def _matching_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """`(i, j, n)` blocks with `a[i:i+n] == b[j:j+n]`, increasing in both, by patience diff."""
    blocks: list[tuple[int, int, int]] = []
    # A stack of regions still to align (in reverse order) and anchors found between them.
    stack: list[tuple[int, int, int, int] | tuple[int, int]] = [(0, len(a), 0, len(b))]
    while stack:
        task = stack.pop()
        if len(task) == 2:
            blocks.append((task[0], task[1], 1))
            continue
        alo, ahi, blo, bhi = task
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            blocks.append((alo, blo, 1))
            alo, blo = alo + 1, blo + 1
        suffix = 0
        while alo < ahi - suffix and blo < bhi - suffix and a[ahi - suffix - 1] == b[bhi - suffix - 1]:
            suffix += 1
        tail = [(ahi - k, bhi - k) for k in range(suffix, 0, -1)]
        ahi, bhi = ahi - suffix, bhi - suffix
        anchors = _unique_common(a, b, alo, ahi, blo, bhi) if alo < ahi and blo < bhi else []
        if not anchors:
            if alo < ahi and blo < bhi and (ahi - alo) * (bhi - blo) <= _GAP_LIMIT * _GAP_LIMIT // 16:
                import difflib  # only for stretches with no unique line, which are rare

                matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
                blocks.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
            blocks.extend((i, j, 1) for i, j in tail)
            continue
        # Push in reverse: the tail, then each anchor with the region before it.
        pending: list[tuple[int, int, int, int] | tuple[int, int]] = list(reversed(tail))
        pi, pj = alo, blo
        steps: list[tuple[int, int, int, int] | tuple[int, int]] = []
        for i, j in anchors:
            steps.append((pi, i, pj, j))
            steps.append((i, j))
            pi, pj = i + 1, j + 1
        steps.append((pi, ahi, pj, bhi))
        stack.extend(pending)
        stack.extend(reversed(steps))
    blocks.sort()
    merged: list[tuple[int, int, int]] = []
    for i, j, n in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
        else:
            merged.append((i, j, n))
    return merged


def _unique_common(a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """The longest chain, increasing in both texts, of lines that occur once in each region."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
    # Longest increasing subsequence of the j's (patience sorting), keeping predecessors.
    tops: list[int] = []
    top_index: list[int] = []
    previous: list[int] = []
    for k, (_, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        previous.append(top_index[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[pile] = j
            top_index[pile] = k
    chain: list[tuple[int, int]] = []
    k = top_index[-1] if top_index else -1
    while k >= 0:
        chain.append(pairs[k])
        k = previous[k]
    return chain[::-1]


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib-style opcodes (`equal`, `replace`, `delete`, `insert`) from the matching blocks."""
    codes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, size in [*_matching_blocks(a, b), (len(a), len(b), 0)]:
        if i < ai and j < bj:
            codes.append(("replace", i, ai, j, bj))
        elif i < ai:
            codes.append(("delete", i, ai, j, bj))
        elif j < bj:
            codes.append(("insert", i, ai, j, bj))
        if size:
            codes.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return codes


def _grouped_opcodes(
    codes: list[tuple[str, int, int, int, int]], n: int
) -> Iterator[list[tuple[str, int, int, int, int]]]:
    """Hunks of opcodes with `n` lines of context (as `SequenceMatcher.get_grouped_opcodes`)."""
    if not codes:
        return
    codes = list(codes)
    if codes[0][0] == "equal":
        _, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if codes[-1][0] == "equal":
        _, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    group: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def render_move(old: str, new: str, old_name: str, new_name: str) -> str:
    """The diff of a file that a migration replaces by another (`x.jsonl` by `x.json`): the
    removal of the old and the creation of the new, as `patch -p1` and `git apply` apply them."""
    return render_diff(old, "", old_name, None) + render_diff("", new, None, new_name)


def render_file_diff(
    old: bytes | None, new: bytes, name: str, new_name: str | None = None, encoding: str = "utf-8"
) -> str:
    """The diff of a planned change of the file `name` (bytes before and after in `encoding`,
    UTF-8 unless a Python module's coding cookie names another; `old` None for a file to
    create): an edit in place, or with `new_name` a move (`render_move`). A BOM is shown as
    U+FEFF at the start of the first line, so the diff applies to the bytes on disk; a
    module in another encoding is shown as the text it holds."""
    new_text = new.decode(encoding)
    if old is None:
        return render_diff("", new_text, None, new_name or name)
    old_text = old.decode(encoding)
    if new_name is None or new_name == name:
        return render_diff(old_text, new_text, name, name)
    return render_move(old_text, new_text, name, new_name)


def changed_lines(diff: str) -> int:
    """How many `-` and `+` lines a unified diff from `render_diff` holds."""
    return sum(1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("--- ", "+++ ")))
