"""The mapping of a payload onto the canonical shape, shared by every adapter.

`CaseMapper.map_case` turns one case into its canonical form and
`CaseMapper.map_file` a whole `{..., "cases": [...]}` payload, both as target
trees (`fixture_migrate.formats.target`). The rules make the migrated file normalize, by the
reference's own rules, to what the reference makes of the legacy file
(DESIGN.md, "Compatibility"), while every source value stays in the file
(DESIGN.md, "Conservation"):

- a member the reference reads under another name is renamed to its canonical
  name (`user_intent` -> `input`, `expected` -> `expected_outcome`,
  `negative_signal` -> `forbidden_signals`, `examples` -> `cases`);
- the `expected_decision` / `expected_failure` / `expected_output` /
  `expected_next_action` members become one `expected_outcome` object;
- an `id` the reference derives (from `name`, or `case-<n>`) and a `skill` it
  infers are written explicitly;
- members the reference copies into `extensions` (`name`, `intent`, ...) and
  every member with no canonical home move under the case's `extensions`
  (file-level ones under the file's `extensions`); the legacy schema_version
  is kept as `extensions.migrated_from`;
- an adapter's `fills` name members that may fill a canonical member the
  reference leaves empty (`prompt` -> `input`, say); a canonical member they
  displace is kept under `extensions`.

A key that is already taken in `extensions` is never overwritten: the value the
reference's view needs keeps the key and the other one takes `<key>__legacy`
(`__legacy_2`, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fixture_migrate.adapting.vocabulary import polarity_words, tags_of
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import normalize_case_id
from fixture_migrate.errors import MappingError
from fixture_migrate.formats.target import Arr, Node, Obj, Path, Src, Val
from fixture_migrate.slots import Record

FILLABLE = ("input", "expected_outcome", "boundary_note", "forbidden_signals")
"""Canonical case members an adapter may fill where the reference leaves them empty."""

_CASE_KEYS = frozenset(c.CASE_KEYS)
_HOMES = {c.CASE_KEYS: _CASE_KEYS, c.FILE_KEYS: frozenset(c.FILE_KEYS)}
"""The member names of a case and of a file, as sets (`_Edit.finish` tests every member)."""
_OUTCOME_TRIGGERS = frozenset(c.OUTCOME_OBJECT_TRIGGERS)
_NO_EXTENSIONS: dict[str, Any] = {}
_NO_CASES: list[Any] = []
_FILE_KEYS = _HOMES[c.FILE_KEYS]


def free_key(key: str, taken: Iterable[str]) -> str:
    """`key`, or the first `<key>__legacy`, `<key>__legacy_2`, ... not in `taken`."""
    taken = set(taken)
    if key not in taken:
        return key
    candidate, n = f"{key}__legacy", 1
    while candidate in taken:
        n += 1
        candidate = f"{key}__legacy_{n}"
    return candidate


class _Moves:
    """Members bound for an `extensions` object, in order; `demanded` keys must keep their name."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[tuple[str, Node, bool]] = []

    def add(self, key: str, node: Node, *, demanded: bool = False) -> None:
        self.entries.append((key, node, demanded))


def _extensions_node(source: Mapping[str, Any], path: Path, moves: _Moves, where: str) -> Node | None:
    """The `extensions` object at `path` (a member of `source`) after `moves` land in it;
    None when there is none. A null `extensions` cannot take members: when some must
    land, the new object keeps the null under its own name, `extensions`."""
    present = "extensions" in source
    existing = source.get("extensions")
    if existing is not None and not isinstance(existing, dict):
        raise MappingError(
            f"{where}: `extensions` must be an object, found {type(existing).__name__}; "
            "rename or wrap it by hand so no value is lost",
            code="extensions_not_object",
            path=path,
        )
    if not moves.entries:
        return Src(path) if present else None
    entries = moves.entries
    if present and existing is None:
        entries = [("extensions", Src(path), False), *entries]
    current: dict[str, Node] = {k: Src(path + (k,)) for k in (existing or {})}
    order = list(current)
    for key, node, demanded in entries:
        if key in current and demanded:
            # The reference's view gives this key the moved value: the occupant steps aside.
            occupant = current.pop(key)
            new_key = free_key(key, list(current) + [key])
            order[order.index(key)] = new_key
            current[new_key] = occupant
            current[key] = node
            order.append(key)
        else:
            new_key = free_key(key, current)
            current[new_key] = node
            order.append(new_key)
    return Obj([(k, current[k]) for k in order], origin=path if isinstance(existing, dict) else None)


class CaseMapper(Record):
    """Maps cases and files onto the canonical shape (see the module docstring for the rules).

    `fills` maps a fillable canonical member (`FILLABLE`) to the legacy members, in
    order of preference, that fill it when the reference's value is empty.
    `explicit_ids` writes the reference's derived `case-<n>` ids into the file (legacy
    files); without it an id is written only where moving `name` would change it, so
    a canonical file with every member at home is never touched. `polarity_fields` are
    boolean members saying whether the skill should trigger; `tag_fields` members whose
    contract-tag values (`vocabulary.tags_of`) are added to the case's coverage tags
    where they add no validation error (`trigger`/`expected` need a non-empty outcome,
    `boundary` boundary evidence), and whose polarity words give a polarity.
    """

    __slots__ = ("fills", "explicit_ids", "polarity_fields", "tag_fields")

    def __init__(
        self,
        fills: Mapping[str, tuple[str, ...]] | None = None,
        explicit_ids: bool = True,
        polarity_fields: tuple[str, ...] = (),
        tag_fields: tuple[str, ...] = (),
    ) -> None:
        self.fills: Mapping[str, tuple[str, ...]] = {} if fills is None else fills
        self.explicit_ids = explicit_ids
        self.polarity_fields = polarity_fields
        self.tag_fields = tag_fields
        unknown = set(self.fills) - set(FILLABLE)
        if unknown:
            raise ValueError(f"fills for non-fillable members: {sorted(unknown)}")

    def _fill_source(self, canonical: str, entry: Mapping[str, Any]) -> str | None:
        for key in self.fills.get(canonical, ()):
            if key not in entry or key in c.CASE_KEYS:
                continue
            value = entry[key]
            if canonical == "input" or canonical == "boundary_note":
                if c.is_non_empty_string(value):
                    return key
            elif canonical == "forbidden_signals":
                if c.string_array(value):
                    return key
            elif c.is_non_empty_expected(value):
                return key
        return None

    def map_case(
        self, entry: Any, path: Path, index: int, *, polarity: bool | None = None, default_id: str | None = None
    ) -> Node:
        """The canonical form of the case `entry` found at `path`, `index` its 0-based position.

        `polarity` says whether the skill should trigger on the case (a trigger list's
        entry), else one of `polarity_fields` may say it; a known polarity adds the
        coverage tags it implies and, when nothing else gives one, the outcome
        (`vocabulary.polarity_words`). `default_id` is the id written when the entry has
        neither `id` nor `name` (instead of `case-<n>`).

        Returns `Src(path)` when the case is canonical already. Raises `MappingError`
        for a case that is not an object or whose `extensions` is not an object.
        """
        if not isinstance(entry, dict):
            raise MappingError(f"case {index + 1} is {_kind(entry)}, not an object", code=c.CASE_NOT_OBJECT, path=path)
        if self._at_home(entry):
            return Src(path)
        edit = _Edit(path)

        # id: written wherever the reference's id would not survive the migration as is.
        if not c.is_non_empty_string(entry.get("id")):
            if self.explicit_ids or c.is_non_empty_string(entry.get("name")):
                edit.displace(entry, "id")
                fallback = default_id if default_id and not c.is_non_empty_string(entry.get("name")) else None
                edit.head.append(("id", Val(fallback or normalize_case_id(entry, index) or f"case-{index + 1}")))

        # input: the reference's first non-blank source, else the adapter's fill.
        source = None
        for key in c.INPUT_SOURCES:
            if key in entry and c.is_non_empty_string(entry[key]):
                source = key
                break
        else:
            source = self._fill_source("input", entry)
        if source is not None and source != "input":
            edit.displace(entry, "input")
            if source in c.EXTENSION_COPY_KEYS:
                # The reference also copies this member into extensions: keep it there too.
                edit.place(source, "input", Src(path + (source,)))
            else:
                edit.renames[source] = "input"

        # expected_outcome: first present source; else the decision object; else the fill.
        source = None
        for key in c.OUTCOME_SOURCES:
            if key in entry:
                source = key
                break
        if source is None and not _OUTCOME_TRIGGERS.isdisjoint(entry):
            parts = [k for k in entry if k in c.OUTCOME_OBJECT_KEYS]
            edit.place(parts[0], "expected_outcome", Obj([(k, Src(path + (k,))) for k in parts]))
            edit.consumed.update(parts)
            has_outcome = True
            filled_outcome = c.is_non_empty_expected({k: entry[k] for k in parts})
        else:
            if source is None:
                source = self._fill_source("expected_outcome", entry)
            if source is not None and source != "expected_outcome":
                edit.renames[source] = "expected_outcome"
            has_outcome = source is not None
            filled_outcome = has_outcome and c.is_non_empty_expected(entry[source])

        field_tags: list[str] = []
        word_polarity = None
        for key in self.tag_fields:
            if key in entry:
                tags, found = tags_of(entry[key])
                field_tags.extend(tag for tag in tags if tag not in field_tags)
                word_polarity = found if word_polarity is None else word_polarity
        if polarity is None and self.polarity_fields:
            polarity = next((entry[k] for k in self.polarity_fields if isinstance(entry.get(k), bool)), None)
        if polarity is None:
            polarity = word_polarity
        new_tags: list[str] = []
        polarity_outcome = None
        if polarity is not None:
            outcome, tags = polarity_words(polarity)
            new_tags.extend(tags)
            if not has_outcome:
                polarity_outcome = outcome
                filled_outcome = True

        # boundary_note: kept when it says something, else the fill.
        has_note = c.is_non_empty_string(entry.get("boundary_note"))
        if not has_note:
            source = self._fill_source("boundary_note", entry)
            if source is not None:
                edit.displace(entry, "boundary_note")
                edit.renames[source] = "boundary_note"
                has_note = True

        # forbidden_signals: the union with negative_signal, else the fill.
        has_forbidden = bool(c.string_array(entry.get("forbidden_signals")))
        negative = c.string_array(entry.get("negative_signal"))
        if negative and not has_forbidden:
            edit.displace(entry, "forbidden_signals")
            edit.rename_as_list(entry, "negative_signal", "forbidden_signals")
        elif negative:
            have = set(c.string_array(entry["forbidden_signals"]))
            extra = [s for s in c.unique(negative) if s not in have]
            if extra:
                edit.place("forbidden_signals", "forbidden_signals", _union(entry, path, extra))
                edit.consumed.add("forbidden_signals")
        elif not has_forbidden and "negative_signal" not in entry:
            source = self._fill_source("forbidden_signals", entry)
            if source is not None:
                edit.displace(entry, "forbidden_signals")
                edit.rename_as_list(entry, source, "forbidden_signals")
                has_forbidden = True
        has_forbidden = has_forbidden or bool(negative)

        for tag in field_tags:
            if tag in ("trigger", "expected") and not filled_outcome:
                continue  # the tag would add `missing_expected_outcome`
            if tag == "boundary" and not (filled_outcome or has_note or has_forbidden):
                continue  # the tag would add `missing_boundary_evidence`
            if tag not in new_tags:
                new_tags.append(tag)
        if new_tags or polarity_outcome is not None:
            self._add_tags(edit, entry, path, new_tags, polarity_outcome)

        return edit.finish(entry, f"case {index + 1}", c.CASE_KEYS)

    @staticmethod
    def _add_tags(
        edit: _Edit, entry: dict[str, Any], path: Path, tags: list[str], outcome: str | None
    ) -> None:
        """Add `tags` to those the case has and, when given, the polarity's `outcome`; both
        after the case's last member."""
        last = next(reversed(entry))
        if not tags:
            pass
        elif "coverage_tags" not in entry:
            edit.place(last, "coverage_tags", Val(list(tags)))
        else:
            existing = entry["coverage_tags"]
            have = set(c.string_array(existing))
            missing = [tag for tag in tags if tag not in have]
            base = path + ("coverage_tags",)
            if missing and isinstance(existing, list):
                items: list[Node] = [Src(base + (i,)) for i in range(len(existing))]
                edit.place("coverage_tags", "coverage_tags", Arr(items + [Val(t) for t in missing], origin=base))
                edit.consumed.add("coverage_tags")
            elif missing and isinstance(existing, str):
                edit.place("coverage_tags", "coverage_tags", Arr([Src(base)] + [Val(t) for t in missing]))
                edit.consumed.add("coverage_tags")
        if outcome is not None:
            edit.place(last, "expected_outcome", Val(outcome))

    def map_cases(self, cases: list[Any], path: Path) -> Node:
        """The canonical form of the case array at `path`; `Src(path)` when every case is canonical."""
        first = _first_not_at_home(cases, self.explicit_ids)
        if first < 0:
            return Src(path)
        items: list[Node] = [Src(path + (i,)) for i in range(first)]
        items += [self.map_case(entry, path + (i,), i) for i, entry in enumerate(cases[first:], first)]
        if all(isinstance(item, Src) and item.path == path + (i,) for i, item in enumerate(items)):
            return Src(path)  # cases the quick test could not clear (a null extensions, say) may still stay
        return Arr(items, origin=path)

    def file_at_home(self, payload: Any) -> bool:
        """True when the key sets alone prove that `map_file(payload, skill=None)` is `Src(())`
        (the canonical pass-through leaves the file as it is): a canonical `schema_version`,
        every file member in `FILE_KEYS`, an `extensions` absent or an object, and `cases`
        absent or a list of cases each at home (`_at_home`). False says nothing: the mapper
        decides then. `map_file` itself is not run, nor any of its target nodes made."""
        return (
            type(payload) is dict
            and payload.get("schema_version") == c.CANONICAL_SCHEMA_VERSION
            and _FILE_KEYS.issuperset(payload)
            and type(payload.get("extensions", _NO_EXTENSIONS)) is dict
            and type(payload.get("cases", _NO_CASES)) is list
            and _first_not_at_home(payload.get("cases", _NO_CASES), self.explicit_ids) < 0
        )

    def _at_home(self, entry: Any) -> bool:
        """True when `map_case` would leave `entry` as it is: every member at home (fills and
        the reference's other names are never canonical members), and no id owed."""
        return (
            type(entry) is dict
            and _CASE_KEYS.issuperset(entry)
            and type(entry.get("extensions", _NO_EXTENSIONS)) is dict
            and (not self.explicit_ids or c.is_non_empty_string(entry.get("id")))
        )

    def map_file(
        self,
        payload: dict[str, Any],
        *,
        skill: str | None,
        cases: Node | None = None,
        replaces: tuple[str, ...] = (),
        moved: tuple[tuple[str, Node], ...] = (),
    ) -> Node:
        """The canonical form of a whole payload (a dict); `Src(())` when it is canonical already.

        `skill` is the skill to write when the payload has none (None leaves it out).
        By default the case list is `cases`, else `examples`, mapped with `map_cases`;
        an adapter that builds its cases otherwise passes them as `cases`, with
        `replaces` the source members they stand in for (written where the first of
        them was); `moved` are members bound for the file's `extensions` besides those
        (what is left of an object a nested case list was taken out of). Raises
        `MappingError` as `map_case` does.
        """
        edit = _Edit(())
        for key, node in moved:
            edit.moves.add(key, node)
        if payload.get("schema_version") != c.CANONICAL_SCHEMA_VERSION:
            if "schema_version" in payload:
                edit.place("schema_version", "schema_version", Val(c.CANONICAL_SCHEMA_VERSION))
                edit.consumed.add("schema_version")
                edit.moves.add("migrated_from", Src(("schema_version",)))
            else:
                edit.head.append(("schema_version", Val(c.CANONICAL_SCHEMA_VERSION)))

        if not c.js_truthy(payload.get("skill")) and skill:
            if "skill" in payload:
                edit.displace(payload, "skill")
                edit.place("skill", "skill", Val(skill))
            elif "schema_version" in payload:
                edit.place("schema_version", "skill", Val(skill))
            else:
                edit.head.append(("skill", Val(skill)))

        if cases is None:
            list_key = next((k for k in ("cases", "examples") if isinstance(payload.get(k), list)), None)
            if list_key is not None:
                cases, replaces = self.map_cases(payload[list_key], (list_key,)), (list_key,)
        if cases is not None:
            if replaces[0] != "cases":
                edit.displace(payload, "cases")
            if replaces == ("cases",) and isinstance(cases, Src):
                pass
            elif len(replaces) == 1 and isinstance(cases, Src):
                edit.renames[replaces[0]] = "cases"
            else:
                edit.place(replaces[0], "cases", cases)
                edit.consumed.update(replaces)
            edit.extensions_before = replaces[0]
        return edit.finish(payload, "file", c.FILE_KEYS)


class _Edit:
    """The decisions taken for one object (a case or a file) and the assembly of its members."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.head: list[tuple[str, Node]] = []  # new members written first
        self.renames: dict[str, str] = {}  # source key -> canonical key, written in place
        self.placed: dict[str, list[tuple[str, Node]]] = {}  # members written after a source key
        self.consumed: set[str] = set()  # source keys that leave this level
        self.moves = _Moves()
        self.extensions_before: str | None = None  # a new extensions goes before this key, else last

    def place(self, after: str, key: str, node: Node) -> None:
        self.placed.setdefault(after, []).append((key, node))

    def rename_as_list(self, source: dict[str, Any], key: str, canonical: str) -> None:
        """Rename `key` to the array member `canonical`, wrapping a lone string in an array
        (the contract reads a lone string as a one-element array; the canonical type is one)."""
        if isinstance(source[key], str):
            self.place(key, canonical, Arr([Src(self.path + (key,))]))
            self.consumed.add(key)
        else:
            self.renames[key] = canonical

    def displace(self, source: dict[str, Any], key: str) -> None:
        """Send the member `key`, if present, to extensions under its own name."""
        if key in source:
            self.consumed.add(key)
            self.moves.add(key, Src(self.path + (key,)))

    def finish(self, source: dict[str, Any], where: str, home: tuple[str, ...]) -> Node:
        """Move every member without a home in `home` to extensions, then assemble the object."""
        home = _HOMES.get(home, home)  # type: ignore[call-overload]
        for key in source:
            if key not in self.renames and key not in self.consumed and key not in home:
                self.consumed.add(key)
                self.moves.add(key, Src(self.path + (key,)), demanded=key in c.EXTENSION_COPY_KEYS)
        extensions = _extensions_node(source, self.path + ("extensions",), self.moves, where)
        new_extensions = extensions is not None and "extensions" not in source

        members: list[tuple[str, Node]] = list(self.head)
        changed = bool(self.head)
        for key in source:
            if new_extensions and key == self.extensions_before:
                members.append(("extensions", extensions))
                new_extensions = False
            if key == "extensions":
                if extensions is not None:
                    members.append((key, extensions))
                    changed = changed or not isinstance(extensions, Src)
            elif key in self.renames:
                members.append((self.renames[key], Src(self.path + (key,))))
                changed = True
            elif key in self.consumed:
                changed = True
            else:
                members.append((key, Src(self.path + (key,))))
            if key in self.placed:
                members.extend(self.placed[key])
                changed = True
        if new_extensions:
            members.append(("extensions", extensions))
        return Obj(members, origin=self.path) if changed else Src(self.path)


def _first_not_at_home(cases: list[Any], explicit_ids: bool) -> int:
    """The index of the first case of `cases` that `CaseMapper._at_home` does not clear, or -1."""
    # `_at_home` of each case, inlined: this runs over every case of every file.
    home, text = _CASE_KEYS.issuperset, c.is_non_empty_string
    for first, entry in enumerate(cases):
        if not (
            type(entry) is dict
            and home(entry)
            and type(entry.get("extensions", _NO_EXTENSIONS)) is dict
            and (not explicit_ids or text(entry.get("id")))
        ):
            return first
    return -1


def _union(entry: Mapping[str, Any], path: Path, extra: list[str]) -> Node:
    """`forbidden_signals` extended with the `negative_signal` strings it lacks."""
    forbidden = entry["forbidden_signals"]
    negative = entry["negative_signal"]
    if isinstance(negative, list):
        sources = {
            value: Src(path + ("negative_signal", i))
            for i, value in reversed(list(enumerate(negative)))
            if isinstance(value, str)
        }
    else:
        sources = {negative: Src(path + ("negative_signal",))}
    tail = [sources[value] for value in extra]
    base = path + ("forbidden_signals",)
    if isinstance(forbidden, list):
        return Arr([Src(base + (i,)) for i in range(len(forbidden))] + tail, origin=base)
    return Arr([Src(base)] + tail)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"
