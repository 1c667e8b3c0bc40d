"""Draft a `[tool.fixture-migrate.adapters.NAME]` table for a local family (`fixture-migrate suggest`).

Given files of one family (or several), it reads their case records, recognizes the
fields that hold the input, the expected outcome, forbidden signals, a boundary note
and a trigger polarity (the roles `fixture_migrate.adapting.vocabulary.family_roles`
gives the family's members, as `migrate` does: the reference's names, exact names,
name patterns, value shapes), and the trigger lists, and prints a table that declares the family
in place (`fixture_migrate.adapting.families`): paste it into pyproject.toml and the
next `fixture-migrate migrate` migrates those files. A field it could not place is
listed in a comment (it goes under each case's `extensions`); a canonical field it
found no source for is written commented out, for the user to fill in.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.adapting.evidence import case_list
from fixture_migrate.contract import rules as c
from fixture_migrate.files.diff import INVISIBLE, REORDERING, escape_text
from fixture_migrate.files.paths import relative_source


class Shape:
    """What one payload of a local family looks like: its record list `key` (None for a
    bare list), its trigger `lists`, and its `records` (objects)."""

    def __init__(self, key: str | None, lists: tuple[str, ...], records: list[dict[str, Any]]) -> None:
        self.key = key
        self.lists = lists
        self.records = records

    @property
    def signature(self) -> tuple[Any, ...]:
        return (self.key, self.lists)


NEGATIVE_WORDS = ("not", "non", "negative", "negatives", "near", "neg", "miss", "misses")
"""Words of a list key saying its queries should not trigger the skill (`should_not_fire`)."""


def list_polarity(key: str) -> bool:
    """Whether the queries of the trigger list `key` should trigger the skill: the
    vocabulary's polarity for its names, else by the words of the key."""
    if key in v.TRIGGER_LISTS:
        return v.TRIGGER_LISTS[key]
    words = re.split(r"[^a-z]+", key.lower())
    return not any(word in NEGATIVE_WORDS for word in words)


def _query_lists(data: dict[str, Any]) -> tuple[str, ...]:
    """The top-level lists of queries: the vocabulary's trigger lists, and lists of strings
    under a key that names queries (`should_fire`, `trigger_queries`, ...)."""
    from fixture_migrate.adapting.vocabulary import QUERY_KEY_HINTS

    found = []
    for key, value in data.items():
        if not isinstance(value, list) or not value:
            continue
        if key in v.TRIGGER_LISTS or (
            all(isinstance(item, str) for item in value) and any(hint in key.lower() for hint in QUERY_KEY_HINTS)
        ):
            found.append(key)
    return tuple(found)


def _lists_of_objects(data: dict[str, Any], prefix: str = "") -> list[tuple[int, str, list[Any]]]:
    found = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            found.append((len(value), prefix + key, value))
    return found


def shape_of(data: Any) -> Shape | None:
    """The `Shape` of a payload, or None when it holds no records nor trigger lists.

    Records are looked for in `cases`/`examples`, else the longest list of objects at the
    top, else one object down (`suite.cases`, declared as `records = "suite.cases"`)."""
    if isinstance(data, dict):
        lists = _query_lists(data)
        if lists and case_list(data) is None:
            records = [item for k in lists for item in data[k] if isinstance(item, dict)]
            return Shape(None, lists, records)
    found = case_list(data)
    if found is None and isinstance(data, dict):
        lists_of_objects = _lists_of_objects(data)
        if not lists_of_objects:
            for key, value in data.items():
                if isinstance(value, dict):
                    lists_of_objects.extend(_lists_of_objects(value, f"{key}."))
        if lists_of_objects:
            _, key, records = max(lists_of_objects, key=lambda item: item[0])
            found = (key, records)
    if found is None:
        return None
    key, records = found
    objects = [r for r in records if isinstance(r, dict)]
    if not objects:
        return None
    return Shape(key, (), objects)


def _first(records: list[dict[str, Any]], names: tuple[str, ...], test: Any) -> str | None:
    """The first of `names` that passes `test` in at least half of the records holding it
    (and is held by some record)."""
    for name in names:
        holding = [r[name] for r in records if name in r]
        if holding and sum(1 for value in holding if test(value)) * 2 >= len(holding):
            return name
    return None


def _globs(paths: list[Path], base: Path) -> list[str]:
    """Globs covering `paths` (relative to `base`): files of equal depth give one glob with
    `*` in the segments where they differ; otherwise each path as it is (precision first:
    a glob wider than the files given could take in another family's files)."""
    rels = [relative_source(p, base) for p in paths]
    parts = [rel.split("/") for rel in rels]
    if len(parts) > 1 and len({len(p) for p in parts}) == 1:
        merged = ["*" if len({p[i] for p in parts}) > 1 else escape_glob(parts[0][i]) for i in range(len(parts[0]))]
        return ["/".join(merged)]
    return list(dict.fromkeys(escape_glob(rel) for rel in rels))


def escape_glob(text: str) -> str:
    """`text` as a glob matching itself: `*`, `?` and `[` in a file name become classes
    (`cases[1].json` -> `cases[[]1].json`). A lone surrogate (an undecodable byte of a file
    name, which no TOML string can hold) becomes `?`, the glob of one character."""
    return _SURROGATE.sub("?", re.sub(r"[*?\[]", lambda m: f"[{m.group(0)}]", text))


class UnwritableName(ValueError):
    """A field name or key holding a lone surrogate: no TOML string can hold it, so the
    family cannot be declared by a drafted table."""


_SURROGATE = re.compile("[\ud800-\udfff]")
# Written as escapes inside a TOML string: what TOML forbids raw (controls, DEL) and what a
# terminal or an editor could show in another order or not at all (the value is the same).
_TOML_ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + REORDERING + INVISIBLE + "]")
_TOML_SHORT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_char(match: re.Match[str]) -> str:
    char = match.group()
    if char in _TOML_SHORT:
        return _TOML_SHORT[char]
    code = ord(char)
    return f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (`"..."`) on one line: `\\` and `"` escaped, control
    characters, DEL, line separators and the format characters of
    `fixture_migrate.files.diff` written as escapes. Raises `UnwritableName` for a lone
    surrogate."""
    if _SURROGATE.search(text):
        raise UnwritableName(f"{comment_text(text)} holds a lone surrogate, which TOML cannot hold")
    return '"' + _TOML_ESCAPED.sub(_toml_char, text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def comment_text(text: str) -> str:
    """`text` fit for one line of a TOML comment: control characters (line breaks too), line
    separators, format characters and lone surrogates shown as `\\xNN`/`\\uNNNN` escapes, so
    user data in a comment can never end it."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", escape_text(text))


def _toml(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return toml_string(value)


def draft_table(name: str, paths: list[Path], shapes: list[Shape], base: Path) -> str:
    """The TOML table for the family of `paths` (relative to `base`, the configuration's
    directory), whose payloads have `shapes`."""
    records = [r for shape in shapes for r in shape.records]
    key = shapes[0].key
    lists = tuple(dict.fromkeys(k for shape in shapes for k in shape.lists))
    lines = [
        f"# Drafted by `fixture-migrate suggest` from {len(paths)} file(s): {comment_text(', '.join(relative_source(p, base) for p in paths[:3]))}"
        + (", ..." if len(paths) > 3 else ""),
        "# Paste into pyproject.toml (globs are relative to its folder); the next `fixture-migrate migrate` migrates these files.",
        f"[tool.fixture-migrate.adapters.{name}]",
        f"summary = {_toml('local family of ' + ', '.join(_globs(paths, base)))}",
        f"files = {_toml(_globs(paths, base))}",
    ]
    if key is not None and key not in ("cases", "examples"):
        lines.append(f"records = {_toml(key)}")
    if lists:
        positive = [k for k in lists if list_polarity(k)]
        negative = [k for k in lists if not list_polarity(k)]
        if positive:
            lines.append(f"should_trigger = {_toml(positive)}")
        if negative:
            lines.append(f"should_not_trigger = {_toml(negative)}")
    used: set[str] = {"id", "name", "extensions", "coverage_tags", "source_refs", "source_ref_authority"}
    # The same roles `migrate` gives the family's members (exact names, patterns, value shapes).
    roles = v.family_roles(records)
    fields = [
        ("input", (*v.INPUT_NAMES, *roles.fills["input"]), c.is_non_empty_string),
        ("expected_outcome", (*v.OUTCOME_NAMES, *roles.fills["expected_outcome"]), lambda value: value is not None),
        (
            "forbidden_signals",
            (*v.FORBIDDEN_NAMES, *roles.fills["forbidden_signals"]),
            lambda value: bool(c.string_array(value)),
        ),
        ("boundary_note", ("boundary_note", *v.BOUNDARY_NOTE), c.is_non_empty_string),
        ("polarity", v.POLARITY, lambda value: isinstance(value, bool)),
    ]
    found: dict[str, str | None] = {}
    for canonical, names, test in fields:
        field = _first(records, names, test)
        found[canonical] = field
        if field is not None:
            lines.append(f"{canonical} = {_toml(field)}")
            used.add(field)
    counts = Counter(k for r in records for k in r)
    rest = [k for k in counts if k not in used]
    if found["input"] is None and records:
        strings = [k for k in rest if any(c.is_non_empty_string(r.get(k)) for r in records)]
        hint = f"; candidates: {comment_text(', '.join(strings))}" if strings else ""
        lines.append(f'# input = "FIELD"   # no field recognized as the input{hint}')
    if found["expected_outcome"] is None and found["polarity"] is None and not lists:
        hint = f"; candidates: {comment_text(', '.join(rest))}" if rest else ""
        lines.append(f'# expected_outcome = "FIELD"   # no field recognized as the expected outcome{hint}')
    if rest:
        lines.append(f"# under each case's extensions: {comment_text(', '.join(rest))}")
    return "\n".join(lines) + "\n"


def family_name(paths: list[Path], taken: set[str]) -> str:
    """A table name for the family of `paths`: the slug of their common file stem."""
    stems = {p.stem for p in paths}
    stem = stems.pop() if len(stems) == 1 else "local-cases"
    name = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "local-cases"
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate
