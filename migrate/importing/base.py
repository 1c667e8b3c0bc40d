"""Import adapters: what one is, and the rules every importer shares.

An import adapter (`kind = "external"`) turns files written for another eval tool
into the cases of one canonical v1 file. It never claims a file during
`fixture-migrate migrate` (the files belong to the other tool and must stay as
they are); `fixture-migrate import` picks it by `--from` or by detection.

An adapter has `name` (registry key and module name), `format` (the `--from`
name), `tag` (the coverage tag every imported case gets, at file level),
`namespace` (its key under `extensions`), `summary`, `id_rule` (one line
recorded in the file), and two methods:

- `sniff(source) -> Sniff | None`: whether the content of a `fixture_migrate.importing.readers.Source`
  is this format (`Sniff("cases")` holds records, `Sniff("aux")` is read alongside,
  such as an OpenAI Evals registry YAML), a look-alike to refuse
  (`Sniff(refusal=...)`), or not this format (None, or `Sniff(miss=...)` with a reason).
- `build(sources, job) -> list[Draft]`: one `Draft` per case, in file order. The
  adapter reads other files only through `job` (`Job.read`), sets file-level
  `job.description`, `job.skill` (the format's own skill name) and
  `job.extensions` (file-level leftovers), and raises `SourceError` for bad input.

An adapter that also writes its format (`fixture-migrate export --to FORMAT`, see
`fixture_migrate.exporting`) lists the syntaxes it writes in `export_syntaxes` and
implements `record_of(case, context)` (a case it imported, back to its source
record), `map_case(case, context)` (any other case, what the format cannot hold
reported through `context.loss`) and, where a file is more than a list of records,
`export_document(records, context)`; the module passes them to its adapter's
constructor (`ADAPTER = MyAdapter(record_of=record_of, map_case=map_case)`), and
`ImportAdapter`'s methods call what they were given. The import records a record's member order
(`extensions.import.keys`) where `record_of` would give another.

`ImportAdapter` gives the defaults; third-party adapters subclass it and are
registered under the entry-point group `fixture_migrate.adapters`.

## The shared rules (DESIGN.md "Ongoing normalization"; FORMATS.md section 0)

- **Input**: the contract reads a non-blank string. Chat messages
  (`render_messages`): one message gives its text; otherwise the last `user`
  message's text; with no user message, the texts of all messages in order,
  joined by a blank line. A message's content given as parts joins the `text`
  parts with a newline. A variable map (`render_vars`): its value when it holds a
  single string; else the first non-blank string of the keys `input`,
  `question`, `query`, `prompt`, `task`, `message`, `text`; else `key: value`
  lines in the map's order (non-strings as compact JSON). The original messages or
  map always stay under `extensions.<namespace>`.
- **Ids**: the format's own id where it has one (a number is written as its
  decimal text: `0` is an id); else the slug of a label; else
  `<prefix>-<10 hex digits of SHA-256>` over the record's identifying content as
  canonical JSON (sorted keys, no spaces, UTF-8). A repeated id takes `-2`, `-3`,
  ... in file order. The original id, the record index and locator stay in
  `extensions`.
- **Tags**: the format tag at file level; `expected` only on a case with a
  non-empty outcome; other tags are slugs (`slug_tag`), dropped when empty.
- **Extensions**: `extensions.import = {format, source_file, locator, index}` on
  every case (plus `id`, the id as proposed, where a repeated id was renamed);
  `extensions.<namespace>` every source member not mapped to a core field, verbatim, and under `extensions.<namespace>.original` the source value of
  every member that was transformed on the way (parsed from JSON text, split,
  stringified), so the conservation check holds by construction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError, MappingError
from fixture_migrate.importing.readers import PointerPath, Source, SourceError, SourceRecord, read_source, syntax_for

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT", "__bool__": lambda self: False})()
"""Marks a core field the case does not have (distinct from a null value)."""

OBVIOUS_INPUT_KEYS = ("input", "question", "query", "prompt", "task", "message", "text")
"""Keys of a variable map whose string value is taken as the input (in this order)."""


@dataclass(frozen=True)
class Sniff:
    """What `ImportAdapter.sniff` found: `role` "cases" or "aux" with a `detail`; or a
    `refusal` (a look-alike that must not be imported); or a `miss` reason (not this format)."""

    role: str | None = None
    detail: str = ""
    refusal: str | None = None
    miss: str | None = None

    @property
    def matched(self) -> bool:
        return self.role is not None


def sniff_records(source: Source, is_record: Callable[[Any], bool], found: str, lacks: str) -> Sniff | None:
    """The `Sniff` of a JSON or JSON Lines list whose every record must pass `is_record`:
    None when the first does not (another format), a miss naming the first record that
    `lacks` what the format needs, else a match of role "cases" described as `found`."""
    if source.syntax not in ("json", "jsonl") or not isinstance(source.data, list) or not source.data:
        return None
    records = source.records()
    if not is_record(records[0].data):
        return None
    for record in records:
        if not is_record(record.data):
            return Sniff(miss=f"record {record.locator} {lacks}")
    return Sniff("cases", found)


@dataclass
class Draft:
    """One imported case before the run assembles it.

    `record` is its source record (cited as `source_refs`); `id` the proposed id (made
    unique by the run); `input` the rendered string; `expected` the outcome or `ABSENT`;
    `tags` the case's own coverage tags; `forbidden` its forbidden signals;
    `boundary_note` a note or ""; `extensions` the adapter's namespace object;
    `shared` other top-level `extensions` keys (DeepEval's `context`).
    """

    record: SourceRecord
    id: str
    input: str
    expected: Any = ABSENT
    tags: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    boundary_note: str = ""
    extensions: dict[str, Any] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)


class Job:
    """What an adapter may ask of the import run while it builds cases.

    `read(base, spec, at, tree)` reads a file named relative to a source, refusing
    anything outside `tree`; `note` adds a line to the report. The adapter sets
    `description`, `skill` (the format's own skill name) and `extensions` (file-level
    members of its namespace).
    """

    def __init__(self, *, on_note: Callable[[str], None] | None = None, root: Path | None = None) -> None:
        self.root = root
        self.description: str | None = None
        self.skill: str | None = None
        self.extensions: dict[str, Any] = {}
        self.read_sources: list[Source] = []
        self._cache: dict[str, Source] = {}
        self._on_note = on_note

    def note(self, message: str) -> None:
        if self._on_note is not None:
            self._on_note(message)

    def read(
        self, base: Source, spec: str, *, at: PointerPath, tree: Path, syntax: str | None = None, what: str = "file"
    ) -> Source:
        """The file `spec` (a path relative to `tree`, the folder of the file that loads it),
        read once per run and cited relative to `base`.

        Raises `SourceError` placed at `at` in `base`: `ref_outside` when the path (or a
        symlink in it) leaves `tree`, which is then never read; `missing_ref` when it
        does not exist; and the read errors of `fixture_migrate.importing.readers.read_source`,
        which reads it under the repo root's rule (`symlink_outside_repo`) at the moment of
        the read.
        """
        path = resolve_within(base, spec, at=at, tree=tree, what=what)
        key = f"{syntax}:{path.resolve()}"
        if key not in self._cache:
            source = read_source(path, base.ref_for(path), syntax=syntax, root=self.root)
            self._cache[key] = source
            self.read_sources.append(source)
        return self._cache[key]


def resolve_within(base: Source, spec: str, *, at: PointerPath, tree: Path, what: str = "file") -> Path:
    """The path `spec` names relative to `tree`, checked to stay inside `tree` and exist.

    Raises `SourceError` (`ref_outside`, `missing_ref`) placed at `at` in `base`.
    """
    candidate = tree / spec
    real_tree = Path(tree).resolve()
    real = candidate.resolve()
    if real != real_tree and real_tree not in real.parents:
        raise base.error(
            f"{what} {spec!r} leaves {_shown(tree)}, the folder references are resolved in; refused, nothing is read outside it",
            "ref_outside",
            at,
        )
    if not real.is_file():
        raise base.error(f"{what} {spec!r} does not exist (resolved relative to {_shown(tree)})", "missing_ref", at)
    return candidate


def _shown(folder: Path) -> str:
    return f"{folder.as_posix().rstrip('/')}/" if str(folder) not in ("", ".") else "./"


class ImportAdapter:
    """An import adapter (see the module docstring), with its defaults: never claims a file in
    `migrate`, no name hints, import only. Built-in and third-party import adapters subclass it;
    a plugin that does not is still taken when it has every member `is_import_adapter` asks."""

    kind = "external"
    name = ""
    format = ""
    tag = ""
    namespace = ""
    summary = ""
    id_rule = ""

    def claims(self, unit: Any) -> bool:
        """Always False: files of other tools are imported (`fixture-migrate import`), never
        rewritten in place by `migrate`."""
        return False

    def to_canonical(self, unit: Any, context: Any) -> Any:
        raise MappingError(f"{self.name} is an import adapter: use `fixture-migrate import --from {self.format}`")

    def name_hint(self, path: Path) -> bool:
        """True when the file name suggests this format; used only to break a tie between
        formats whose content rules both match."""
        return False

    def sniff(self, source: Source) -> Sniff | None:
        return None

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        raise NotImplementedError

    export_syntaxes: tuple[str, ...] = ()
    """The syntaxes `fixture-migrate export --to FORMAT` writes (empty: import only)."""

    def __init__(
        self,
        *,
        record_of: Callable[[dict[str, Any], ExportContext], dict[str, Any]] | None = None,
        map_case: Callable[[dict[str, Any], ExportContext], dict[str, Any]] | None = None,
        export_document: Callable[[list[dict[str, Any]], ExportContext], Any] | None = None,
    ) -> None:
        """The export steps, passed explicitly (none: import only); never looked up by name."""
        self._record_of = record_of
        self._map_case = map_case
        self._export_document = export_document

    def record_of(self, case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
        """The source record of a case this adapter imported, rebuilt from its `extensions`
        (`NotImplementedError` when given no `record_of`)."""
        if self._record_of is None:
            raise NotImplementedError
        return self._record_of(case, context)

    def map_case(self, case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
        """A record of this format for any other case; what it cannot hold goes to `context.loss`."""
        if self._map_case is None:
            raise NotImplementedError
        return self._map_case(case, context)

    def export_document(self, records: list[dict[str, Any]], context: ExportContext) -> Any:
        """The document DEST holds: by default the list of records."""
        return records if self._export_document is None else self._export_document(records, context)


# --- identifying content -------------------------------------------------------------


def canonical_json(value: Any) -> bytes:
    """Canonical JSON of a value: sorted keys, no spaces, UTF-8 (the input of content ids)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def content_id(prefix: str, value: Any) -> str:
    """`<prefix>-<first 10 hex digits of SHA-256 of canonical_json(value)>`."""
    import hashlib  # OpenSSL's start-up is paid by imports only, not by every `migrate` run

    return f"{prefix}-{hashlib.sha256(canonical_json(value)).hexdigest()[:10]}"


def own_id(value: Any) -> str | None:
    """A format's own id as a string: a non-blank string as is, a number as its decimal
    text (so `0` is an id); None for anything else (a missing, blank or structured id)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return c.js_string(value)
    if c.is_non_empty_string(value):
        return value
    return None


def slug_tag(value: Any) -> str | None:
    """A coverage tag from a scalar: its slug (lower case, runs of other characters as
    `-`), or None when nothing is left or the value is not a scalar."""
    if isinstance(value, (dict, list)) or value is None:
        return None
    slug = c.slugify(c.js_string(value))
    return slug or None


def unique_ids(proposed: list[str]) -> list[str]:
    """`proposed` with repeats made unique by `-2`, `-3`, ... in order: the first of each id
    keeps it, and a repeat takes the first suffix that is neither given already nor any
    record's own proposed id (`a`, `a`, `a-2` give `a`, `a-3`, `a-2`)."""
    own = set(proposed)
    taken: set[str] = set()
    result = []
    for base in proposed:
        candidate, n = base, 1
        while candidate in taken or (n > 1 and candidate in own):
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        result.append(candidate)
    return result


# --- input rendering -------------------------------------------------------------------


def is_message_list(value: Any) -> bool:
    """True for a non-empty list of objects that each have a `role`."""
    return isinstance(value, list) and bool(value) and all(isinstance(m, dict) and "role" in m for m in value)


def message_text(message: Mapping[str, Any]) -> str:
    """The text of one chat message: a string content, or its `text` parts joined by newlines."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str)
        ]
        texts += [part for part in content if isinstance(part, str)]
        return "\n".join(texts)
    return ""


def render_messages(messages: list[Mapping[str, Any]]) -> str:
    """The input string of a chat (see "Input" in the module docstring)."""
    if len(messages) == 1:
        return message_text(messages[0])
    users = [m for m in messages if m.get("role") == "user"]
    if users:
        return message_text(users[-1])
    return "\n\n".join(text for text in (message_text(m) for m in messages) if text)


def render_vars(variables: Mapping[str, Any]) -> str:
    """The input string of a variable map (see "Input" in the module docstring)."""
    if len(variables) == 1:
        (value,) = variables.values()
        if isinstance(value, str):
            return value
    for key in OBVIOUS_INPUT_KEYS:
        if c.is_non_empty_string(variables.get(key)):
            return variables[key]
    if "messages" in variables and is_message_list(variables["messages"]):
        return render_messages(variables["messages"])
    lines = []
    for key, value in variables.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        lines.append(f"{key}: {text}")
    return "\n".join(lines)


def render_input(value: Any) -> str | None:
    """The input string of a string, a chat message list or a variable map; None otherwise."""
    if isinstance(value, str):
        return value
    if is_message_list(value):
        return render_messages(value)
    if isinstance(value, dict):
        return render_vars(value)
    return None


def record_error(
    record: SourceRecord, message: str, code: str = "record_shape", key: str | int | None = None
) -> SourceError:
    """A `SourceError` about a record, worded with its locator."""
    return record.error(f"record {record.locator}: {message}", code, key)


def require_object(record: SourceRecord) -> dict[str, Any]:
    """The record's data, which must be an object; raises `SourceError` (`record_not_object`)."""
    if not isinstance(record.data, dict):
        kind = "an array" if isinstance(record.data, list) else "a scalar"
        raise record_error(record, f"is {kind}, not an object", "record_not_object")
    return record.data


def outcome_value(value: Any, original: dict[str, Any], key: str) -> Any:
    """An expected outcome from a source value: a string, array, object or null stays as is;
    a number or boolean becomes its text, the value kept in `original[key]` (the contract
    allows only string, array or object outcomes, and a boolean is never an outcome)."""
    if value is None or isinstance(value, (str, list, dict)):
        return value
    original[key] = value
    return c.js_string(value)


ExternalAdapter = ImportAdapter
"""The name `ImportAdapter` had before; plugins written against it keep working."""

_MEMBERS = ("name", "kind", "summary", "format", "tag", "namespace", "id_rule", "sniff", "build")


def is_import_adapter(adapter: object) -> bool:
    """True when `adapter` has every member an import adapter needs (`_MEMBERS`), whether or
    not it subclasses `ImportAdapter`: the check `import` applies to each registered adapter."""
    return all(hasattr(adapter, member) for member in _MEMBERS)


__all__ = [
    "ABSENT",
    "Draft",
    "ExternalAdapter",
    "FixtureError",
    "ImportAdapter",
    "Job",
    "Sniff",
    "Source",
    "SourceError",
    "SourceRecord",
    "canonical_json",
    "content_id",
    "is_import_adapter",
    "own_id",
    "render_input",
    "render_messages",
    "render_vars",
    "slug_tag",
    "unique_ids",
]


# --- export ----------------------------------------------------------------------------
# An adapter that can also write its format (`fixture-migrate export --to FORMAT`) lists the
# syntaxes it writes in `export_syntaxes` and implements `record_of` (an imported case back
# to its source record), `map_case` (any other case mapped onto the format's fields) and,
# where the file is more than a list of records, `export_document`.

DROPPED = "dropped"
"""Loss kind: the value is not written at all."""
METADATA = "metadata"
"""Loss kind: the value is written under the target's metadata, which the tool does not act on."""
TEXT = "text"
"""Loss kind: the value is written as JSON text where the target takes a string."""

META_KEY = "fixture_migrate"
"""The key under the target's metadata that holds the canonical members the target has no
field for (`id`, `coverage_tags`, `source_refs`, `extensions`, ...)."""


class ExportContext:
    """What an adapter's export functions get besides the case: `file` the canonical file
    (its members other than `cases`), `shown` its name in messages, `syntax` of DEST
    (`json`, `jsonl`, `csv`, `yaml`), `cases` (for `export_document`: the cases of every
    record, in order), and `loss(...)` to list a value the target cannot hold
    (`migrate.exporting.losses`)."""

    def __init__(self, file: dict[str, Any], shown: str, syntax: str, losses: Any) -> None:
        self.file = file
        self.shown = shown
        self.syntax = syntax
        self.losses = losses
        self.cases: list[dict[str, Any]] = []
        """Every case exported, in order (set for `export_document`)."""
        self.dest_name = ""
        """The file name of DEST (set for `export_document`)."""
        self.dest: Path | None = None
        """DEST's path (set for `export_document`)."""
        self.verbatim: list[bool] = []
        """Per case of `cases`: True when its record is given back as imported (set for
        `export_document`; an imported case edited since is mapped, False)."""

    def loss(self, case: dict[str, Any] | None, field_name: str, kind: str, where: str | None, reason: str) -> None:
        self.losses.add(self.shown, None if case is None else str(case.get("id")), field_name, kind, where, reason)


def extension(case: dict[str, Any], namespace: str) -> dict[str, Any]:
    """`case.extensions[namespace]` when it is an object, else an empty one."""
    extensions = case.get("extensions")
    value = extensions.get(namespace) if isinstance(extensions, dict) else None
    return value if isinstance(value, dict) else {}


def imported_from(case: dict[str, Any]) -> str | None:
    """The format a case was imported from (`extensions.import.format`), or None."""
    info = extension(case, "import")
    return info.get("format") if isinstance(info.get("format"), str) else None


def proposed_id(case: dict[str, Any]) -> str:
    """The id the import proposed for a case (before a repeat was renamed `-2`, ...)."""
    info = extension(case, "import")
    return info["id"] if isinstance(info.get("id"), str) else str(case.get("id"))


def origin_syntax(case: dict[str, Any]) -> str | None:
    """The syntax of the file an imported case came from, by its suffix."""
    source = extension(case, "import").get("source_file")
    if not isinstance(source, str):
        return None
    return syntax_for(Path(source))


def original_of(extensions: dict[str, Any], key: str, value: Any, *, same_syntax: bool = True) -> Any:
    """The source form of a member the import transformed (kept under `original`), else `value`."""
    original = extensions.get("original")
    if same_syntax and isinstance(original, dict) and key in original:
        return original[key]
    return value


def fixture_metadata(case: dict[str, Any], *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The canonical members of a case that a target without a field for them keeps under
    its metadata (`META_KEY`): `id`, `coverage_tags`, `boundary_note`, `forbidden_signals`,
    `source_refs`, `extensions`, then any other member (`source_ref_authority`, a local
    field), each when present and not in `skip`."""
    keys = ("id", "coverage_tags", "boundary_note", "forbidden_signals", "source_refs", "extensions")
    meta = {key: case[key] for key in keys if key in case and key not in skip and case[key] not in ("", [], {}, None)}
    meta.update(
        (key, value)
        for key, value in case.items()
        if key not in keys and key not in skip and key not in ("input", "expected_outcome")
    )
    return meta


def in_key_order(record: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """`record` with its members in the order the source record had them
    (`extensions.import.keys`, recorded by the import only where it differs)."""
    keys = extension(case, "import").get("keys")
    if not isinstance(keys, list):
        return record
    ordered = {key: record[key] for key in keys if isinstance(key, str) and key in record}
    ordered.update((key, value) for key, value in record.items() if key not in ordered)
    return ordered


def outcome_text(value: Any) -> str:
    """An expected outcome as one string: a string as is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
