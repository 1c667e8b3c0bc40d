"""Local families declared in pyproject.toml, migrated in place.

A `[tool.fixture-migrate.adapters.NAME]` table (`fixture_migrate.adapting.declared`)
with `files` declares a family `migrate` claims in place: a file matching one of the
globs (relative to the pyproject.toml's directory, as `include`/`exclude` are) and of
the declared shape is migrated as the `generic` adapter migrates a local family, with
the table's fields first:

```toml
[tool.fixture-migrate.adapters.trigger-cases]
summary = "skill trigger cases"            # optional
files = ["skills/*/evals/trigger-cases.json"]
records = "evals"                # the key of the case list, or `outer.inner` one object down
                                 # (default: cases, else examples, else a bare list)
input = "prompt"                 # fills `input` where the reference leaves it empty
expected_outcome = "expected_behavior"
forbidden_signals = "must_not"
boundary_note = "why_not"
polarity = "should_fire"         # a boolean field: should the skill trigger?
should_trigger = ["positive"]    # trigger lists: lists of queries (strings or objects)
should_not_trigger = ["negative", "near_miss"]
```

The declared fields come before the vocabulary's names
(`fixture_migrate.adapting.vocabulary`), which still fill what the table does not map;
every rule of a migration holds (the reference's own fields first, everything else
under `extensions`, conservation, compatibility, idempotence). In place, `id` and
`coverage_tags` keep the reference's rules (`id`, else the slug of `name`, else
`case-<n>`; a trigger list's entries `<list>-<n>`); `tag` and `defaults` are for
`import` only. `fixture-migrate suggest PATH...` drafts such a table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.adapting.case_mapper import FILLABLE, CaseMapper
from fixture_migrate.adapting.local import bare_list_file, file_skill, trigger_cases
from fixture_migrate.adapting.protocol import Context
from fixture_migrate.files.paths import relative_source
from fixture_migrate.formats import Unit
from fixture_migrate.formats.target import Node, Obj, Src


class DeclaredFamily:
    """A family declared by a pyproject table with `files`; claims by path and shape."""

    kind = "family"

    def __init__(self, name: str, table: dict[str, Any], base: Path, globs: tuple[Any, ...]) -> None:
        self.name = name
        self.table = table
        self.base = base
        self.summary = table.get("summary") or f"a local family declared in pyproject.toml ({name})"
        self.globs = globs  # the `files` globs, compiled by the configuration (`config.Glob`)
        self.records_key: str | None = table.get("records")
        fills = {key: (table[key],) + v.FILLS.get(key, ()) for key in FILLABLE if key in table}
        for key, names in v.FILLS.items():
            fills.setdefault(key, names)
        polarity = (table["polarity"],) if "polarity" in table else ()
        self.mapper = CaseMapper(fills=fills, polarity_fields=polarity + v.POLARITY)
        self.polarities = {key: True for key in table.get("should_trigger", ())}
        self.polarities.update({key: False for key in table.get("should_not_trigger", ())})

    @property
    def notes(self) -> list[str]:
        """What of the table `migrate` does not use in place, each said in one line."""
        where = f"[tool.fixture-migrate.adapters.{self.name}]"
        found = []
        if "id" in self.table:
            found.append(
                f"{where}: `id = {self.table['id']!r}` is not used in place: a migrated case keeps the id "
                "the reference gives it (`id`, else the slug of `name`, else `case-<n>`), so validate and "
                f"other readers see the same cases; rename the field to `id` (or `name`) to keep it, or "
                f"`fixture-migrate import` the files (there `id` applies). `{self.table['id']}` goes under extensions"
            )
        for key in ("tag", "defaults"):
            if key in self.table:
                found.append(f"{where}: `{key}` applies to `fixture-migrate import` only, not in place")
        return found

    def matches(self, path: Path | None) -> bool:
        """True when `path` matches one of the table's `files` globs."""
        if path is None:
            return False
        rel = relative_source(path, self.base)
        return not rel.startswith("../") and any(glob.matches(rel) for glob in self.globs)

    def _lists(self, data: Any) -> tuple[str, ...]:
        if not isinstance(data, dict):
            return ()
        return tuple(k for k in data if k in self.polarities and isinstance(data[k], list) and data[k])

    def _records(self, data: Any) -> tuple[str | None, list[Any]] | None:
        if isinstance(data, list):
            return None, data
        if not isinstance(data, dict):
            return None
        if self.records_key and "." in self.records_key:
            outer, inner = self.records_key.split(".", 1)
            holder = data.get(outer)
            if isinstance(holder, dict) and isinstance(holder.get(inner), list):
                return self.records_key, holder[inner]
            return None
        keys = (self.records_key,) if self.records_key else ("cases", "examples")
        for key in keys:
            if isinstance(data.get(key), list):
                return key, data[key]
        return None

    def claims_at(self, unit: Unit, path: Path | None) -> bool:
        """True when `unit` of the file `path` is of this family: the path matches `files` and
        the payload has the declared case list or trigger lists."""
        if unit.binding is not None or not self.matches(path):
            return False
        if self.polarities and self._lists(unit.data):
            return True
        found = self._records(unit.data)
        return found is not None and bool(found[1]) and all(isinstance(r, dict) for r in found[1])

    def claims(self, unit: Unit) -> bool:
        return False  # a declared family claims by path too: see `claims_at`

    def explain(self, unit: Unit) -> str:
        globs = ", ".join(glob.text for glob in self.globs)
        return f"declared in pyproject.toml as [tool.fixture-migrate.adapters.{self.name}] (files {globs})"

    def to_canonical(self, unit: Unit, context: Context) -> Node:
        data = unit.data
        lists = self._lists(data)
        if isinstance(data, list):
            return bare_list_file(self.mapper, data, context.skill_for(None))
        skill = file_skill(data, context)
        if lists:
            cases = trigger_cases(self.mapper, data, lists, self.polarities)
            return self.mapper.map_file(data, skill=skill, cases=cases, replaces=lists)
        found = self._records(data)
        key = found[0] if found else None
        if key is not None and "." in key:
            # A list one object down (`records = "suite.cases"`): the cases take the outer
            # member's place; what else the outer object holds goes under `extensions`.
            outer, inner = key.split(".", 1)
            cases = self.mapper.map_cases(data[outer][inner], (outer, inner))
            rest = [(k, Src((outer, k))) for k in data[outer] if k != inner]
            moved = ((outer, Obj(rest)),) if rest else ()
            return self.mapper.map_file(data, skill=skill, cases=cases, replaces=(outer,), moved=moved)
        if key is not None and key not in ("cases", "examples"):
            cases = self.mapper.map_cases(data[key], (key,))
            return self.mapper.map_file(data, skill=skill, cases=cases, replaces=(key,))
        return self.mapper.map_file(data, skill=skill)


def declared_families(families: Any, base: Path, config_path: Path | None) -> list[DeclaredFamily]:
    """The in-place families of `(name, table, globs)` triples (the `[tool.fixture-migrate.
    adapters.*]` tables with `files`, their globs compiled); raises
    `fixture_migrate.adapting.declared.MappedAdapterError` for a bad table."""
    if not families:
        return []
    from fixture_migrate.adapting.declared import _check_table

    where = config_path or base / "pyproject.toml"
    return [DeclaredFamily(name, _check_table(where, name, table), base, globs) for name, table, globs in families]
