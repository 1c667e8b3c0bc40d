"""`fixture-migrate import`: files written for other eval tools become one canonical v1 file.

(Some 700 lines, over the ~500 the project aims for: detection, the assembly of the
canonical payload, its checks and the in-place re-import are the steps of one pipeline.
The command's shell, which prints and decides the exit code, is
`fixture_migrate.cli.exchange.run_import`.)

Data flows one way, as for `migrate` (DESIGN.md, "Architecture"):

```
SRC... ─► fixture_migrate.importing.readers (read: json · jsonl · yaml · csv; never written)
       ─► detection (--from auto: content first, file name second) ─► adapters/<format>.py
       ─► drafts ─► canonical payload ─► conservation + validation checks
       ─► render (new file, or the existing DEST edited in place) ─► diff / check / atomic write
```

- **Detection** (`detect_format`): a canonical v1 file or a Git LFS pointer is
  refused; every import adapter sniffs the content; exactly one match wins; two
  or more are broken by file-name hints, else refused as ambiguous; a look-alike
  an adapter refuses (a few-shot file, a keyword trigger list, an `evals` list
  without prompts) is refused with its reason. Nothing is guessed.
- **Checks** before anything is written: every leaf value of every file read is in
  the canonical file (`fixture_migrate.contract.conservation`), and the file validates with the
  reference's rules without the `source_refs` existence check (`validate
  --no-ref-check`); a failure is reported and nothing is written.
- **Re-import**: when DEST exists, holds canonical v1 and the same data, its bytes
  stay. When the data changed, DEST is edited in place with the JSON span writer
  (`fixture_migrate.formats.json_text`): unchanged members keep their text, cases are
  matched by id. `--diff` and `--check` behave as for `migrate`. DEST is owned by
  the import: hand edits to it are replaced (and shown by `--diff`); a file the
  import did not write (no `extensions.import`, or another format's) is never
  overwritten.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.conservation import missing_leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import RefChecker, validate_cases
from fixture_migrate.errors import FixtureError
from fixture_migrate.files.paths import relative_source
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.files.root import check_inside, is_inside, resolve_target
from fixture_migrate.formats.target import Arr, Node, Obj, Src, Val
from fixture_migrate.importing.base import (
    ABSENT,
    Draft,
    ExportContext,
    ImportAdapter,
    Job,
    Sniff,
    canonical_json,
    is_import_adapter,
    unique_ids,
)
from fixture_migrate.importing.readers import Source, SourceError, is_lfs_pointer, read_source, syntax_for

AUTO = "auto"


@dataclass(frozen=True)
class ImportRequest:
    """One `fixture-migrate import` run.

    `sources` are the SRC paths; `dest` the canonical file to write; `fmt` "auto" or an
    adapter's format/name; `skill` the caller's skill; `source_refs` one repo-relative
    path per source to cite it by (empty: its path under `repo_root`); `authority` the
    file's `source_ref_authority`; `fields` renames record members (`{"question": "input"}`);
    `diff`/`check` as for `migrate` (either one writes nothing); `config_path` the
    configuration file holding `[tool.fixture-migrate.adapters.*]` (None: the
    repo root's pyproject.toml).
    """

    sources: Sequence[Path]
    dest: Path
    repo_root: Path
    fmt: str = AUTO
    skill: str | None = None
    source_refs: Sequence[str] = ()
    authority: str = c.DEFAULT_SOURCE_REF_AUTHORITY
    fields: dict[str, str] = field(default_factory=dict)
    diff: bool = False
    check: bool = False
    config_path: Path | None = None
    root_given: bool = False  # the root was named (see `files.root.check_inside`)


@dataclass
class ImportPlan:
    """What an import would write: `new_bytes` for DEST (`old_bytes` its current bytes or None),
    the adapter used, the number of cases, and `notes` for the report."""

    adapter: ImportAdapter
    payload: dict[str, Any]
    new_bytes: bytes
    old_bytes: bytes | None
    cases: int
    notes: list[str]

    @property
    def changed(self) -> bool:
        return self.new_bytes != self.old_bytes


class ImportFailed(Exception):
    """The import cannot go on; `errors` are `(path, FixtureError)` pairs to report."""

    def __init__(self, errors: list[tuple[Path | str, FixtureError]]) -> None:
        super().__init__(errors[0][1].message if errors else "import failed")
        self.errors = errors


def _fail(path: Path | str, message: str, code: str, **where: Any) -> ImportFailed:
    return ImportFailed([(path, FixtureError(message, code=code, **where))])


# --- adapters ----------------------------------------------------------------------------


def import_adapters(repo_root: Path, config_path: Path | None = None) -> list[ImportAdapter]:
    """Every import adapter: the built-in ones and plugins (`fixture_migrate.claiming.registry`), then the
    field mappings of `[tool.fixture-migrate.adapters.NAME]` in `config_path` (by default
    `repo_root/pyproject.toml`).

    Raises `ImportFailed` for a bad pyproject table or a name that is taken.
    """
    from fixture_migrate.adapting.declared import MappedAdapterError, mapped_adapters
    from fixture_migrate.claiming.registry import default_registry

    found = [a for a in default_registry() if getattr(a, "kind", None) == "external" and is_import_adapter(a)]
    seen: dict[str, str] = {}
    for adapter in found:
        for key in {_key(adapter.format), _key(adapter.name)}:
            if key in seen:
                raise _fail("--from", f"import adapters {seen[key]!r} and {adapter.name!r} answer to one name", "usage")
            seen[key] = adapter.name
    taken = {_key(a.name) for a in default_registry()} | set(seen)
    try:
        mapped = mapped_adapters(config_path or repo_root / "pyproject.toml")
    except MappedAdapterError as error:
        raise ImportFailed([(error.path, error)]) from None
    for adapter in mapped:
        if _key(adapter.name) in taken:
            raise _fail(
                config_path or repo_root / "pyproject.toml",
                f"[tool.fixture-migrate.adapters.{adapter.name}] is named like an existing adapter; rename the table",
                "adapter_name_taken",
            )
        taken.add(_key(adapter.name))
    return found + mapped


def _key(name: str) -> str:
    return name.replace("_", "-").lower()


def find_adapter(adapters: Sequence[ImportAdapter], name: str) -> ImportAdapter:
    """The adapter whose `format` or `name` is `name` (`-` and `_` are the same); raises `ImportFailed`."""
    wanted = _key(name)
    for adapter in adapters:
        if wanted in (_key(adapter.format), _key(adapter.name)):
            return adapter
    known = ", ".join(sorted(a.format for a in adapters))
    raise _fail("--from", f"unknown format {name!r}; known: auto, {known}", "usage")


def detect_format(source: Source, adapters: Sequence[ImportAdapter]) -> tuple[ImportAdapter, Sniff]:
    """The adapter whose content rules fit `source`, with what it found (see the module docstring).

    Raises `SourceError`: `canonical`, `refused` (a look-alike), `ambiguous`, `unknown_format`.
    """
    _refuse_canonical(source)
    if source.data in ([], {}):
        raise source.error("no records: nothing to import", "empty")
    matches: list[tuple[ImportAdapter, Sniff]] = []
    refusals: list[tuple[ImportAdapter, Sniff]] = []
    misses: list[tuple[ImportAdapter, Sniff]] = []
    for adapter in adapters:
        found = adapter.sniff(source)
        if found is None:
            continue
        if found.matched:
            matches.append((adapter, found))
        elif found.refusal:
            refusals.append((adapter, found))
        elif found.miss:
            misses.append((adapter, found))
    if refusals:
        adapter, found = refusals[0]
        raise source.error(f"refused: {found.refusal} ({adapter.format})", "refused")
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        hinted = [m for m in matches if _hinted(m[0], source.path)]
        if len(hinted) == 1:
            return hinted[0]
        names = ", ".join(adapter.format for adapter, _ in matches)
        raise source.error(f"ambiguous: the content fits {names}; say which with --from", "ambiguous")
    reasons = "; ".join(f"{adapter.format}: {found.miss}" for adapter, found in misses[:3])
    hint = f" ({reasons})" if reasons else ""
    raise source.error(
        f"no import format recognizes this content{hint}; say which with --from "
        "(and --field NAME=COLUMN for records with other field names)",
        "unknown_format",
    )


def _hinted(adapter: ImportAdapter, path: Path) -> bool:
    hint: Callable[[Path], bool] | None = getattr(adapter, "name_hint", None)
    return bool(hint and hint(path))


def _refuse_canonical(source: Source) -> None:
    if isinstance(source.data, dict) and source.data.get("schema_version") == c.CANONICAL_SCHEMA_VERSION:
        raise source.error(
            "already a canonical v1 file: nothing to import (`fixture-migrate validate` reads it as it is)",
            "canonical",
        )


# --- planning ----------------------------------------------------------------------------


def _source_ref(path: Path, root: Path, mapped: str | None) -> str:
    if mapped is not None:
        ref = mapped.strip()
        if ref.startswith("/") and not is_inside(os.path.normpath(ref), os.path.abspath(root)):
            # The root rule first, as for every other spelling: absolute and outside the root.
            raise _fail(
                path,
                f"--source-ref {mapped!r} must be a repo-relative POSIX path; this one lies outside the repo root",
                "path_outside_repo",
            )
        if not ref or ref.startswith(("/", "http://", "https://")) or "\\" in ref or "#" in ref:
            raise _fail(path, f"--source-ref {mapped!r} must be a repo-relative POSIX path without '#'", "usage")
        ref = os.path.normpath(ref).replace(os.sep, "/")
        if ref == ".." or ref.startswith("../"):
            raise _fail(path, f"--source-ref {mapped!r} leaves the repo root (with `..` collapsed)", "path_outside_repo")
        escapes, _ = RefChecker(root).lookup(ref)
        if escapes:
            # A symlinked folder on the way leads outside: never looked up there, whatever the authority.
            raise _fail(
                path,
                f"--source-ref {mapped!r} leads outside the repo root through a symlink; not followed",
                "symlink_outside_repo",
            )
        return ref
    ref = relative_source(path, root)
    if ref == ".." or ref.startswith("../"):
        raise _fail(
            path,
            f"outside the repository root {root}: pass --source-ref PATH to say how cases cite it",
            "source_outside_repo",
        )
    if "#" in ref:
        raise _fail(path, "the path holds '#', which a source ref cannot: pass --source-ref PATH", "usage")
    return ref


def read_sources(request: ImportRequest) -> list[Source]:
    """The SRC files read (each once), with their refs; raises `ImportFailed` listing every bad one."""
    if request.source_refs and len(request.source_refs) != len(request.sources):
        raise _fail(
            "--source-ref",
            f"give one --source-ref per SRC ({len(request.sources)}), or none; got {len(request.source_refs)}",
            "usage",
        )
    renames = {column: name for name, column in request.fields.items()}
    sources: list[Source] = []
    seen: set[Path] = set()
    errors: list[tuple[Path | str, FixtureError]] = []
    for index, path in enumerate(request.sources):
        try:
            # The root rule first: a symlink loop, or a link leading outside, is this SRC's error.
            real = resolve_target(path, request.repo_root)
        except FixtureError as error:
            errors.append((path, error))
            continue
        if real in seen:
            continue
        seen.add(real)
        try:
            if not path.is_file():
                raise _fail(path, "no such file" if not path.exists() else "not a file", "io")
            mapped = request.source_refs[index] if request.source_refs else None
            source = read_source(path, _source_ref(path, request.repo_root, mapped), root=request.repo_root)
        except ImportFailed as failure:
            errors.extend(failure.errors)
            continue
        except SourceError as error:
            errors.append((error.path, error))
            continue
        source.fields = renames
        sources.append(source)
    if errors:
        raise ImportFailed(errors)
    return sources


def _check_fields_used(request: ImportRequest, sources: list[Source]) -> None:
    """Raise `ImportFailed` for a `--field NAME=COLUMN` whose COLUMN no record has as a
    top-level member (a mistyped column, or a format whose records nest it), naming the
    members the records do have."""
    renamed = set().union(*(source.renamed for source in sources))
    members: dict[str, None] = {}
    for source in sources:
        members.update(dict.fromkeys(_record_members(source.data)))
    for name, column in request.fields.items():
        if column not in renamed and column not in members:
            have = ", ".join(f"`{m}`" for m in list(members)[:12]) or "none"
            raise _fail(
                "--field",
                f"--field {name}={column}: no record read has a top-level `{column}` member "
                f"(the records' members: {have})",
                "usage",
            )


def _record_members(data: Any) -> list[str]:
    """The top-level members of the records in a source: the objects of a list, or of the
    lists an object holds (an `evals`, `queries` or `goldens` list)."""
    lists = (
        [data]
        if isinstance(data, list)
        else [v for v in data.values() if isinstance(v, list)]
        if isinstance(data, dict)
        else []
    )
    found: dict[str, None] = {}
    for items in lists:
        for item in items:
            if isinstance(item, dict):
                found.update(dict.fromkeys(k for k in item if isinstance(k, str)))
    return list(found)


def plan_import(request: ImportRequest, *, on_note: Callable[[str], None] | None = None) -> ImportPlan:
    """Work out the canonical file an import gives, checked, without writing anything.

    Raises `ImportFailed` naming every problem (bad usage, bad input, a refused or
    ambiguous source, validation errors, a conservation failure).
    """
    notes: list[str] = []

    def note(message: str) -> None:
        notes.append(message)
        if on_note is not None:
            on_note(message)

    dest = request.dest
    if dest.suffix.lower() != ".json":
        raise _fail(dest, "--out must name a .json file: the canonical file is JSON", "usage")
    try:
        # As `migrate` writes: never through a symlink (or a symlinked directory) leading
        # outside the repo root, a dangling one included, nor through a symlink loop.
        check_inside(dest, request.repo_root, root_given=request.root_given)
        resolve_target(dest, request.repo_root)
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    if dest.is_dir():
        raise _fail(dest, "--out names a directory; give a .json file path", "usage")
    if dest.exists() and not dest.is_file():
        raise _fail(dest, "--out names a pipe, socket or device; give a regular .json file path", "not_regular")
    adapters = import_adapters(request.repo_root, request.config_path)
    chosen = None if request.fmt == AUTO else find_adapter(adapters, request.fmt)
    sources = read_sources(request)

    adapter = _assign_roles(sources, adapters, chosen)
    for source in sources:
        note(f"{source.path}: {adapter.format} ({source.role})")
    job = Job(on_note=note, root=request.repo_root)
    try:
        drafts = adapter.build(sources, job)
    except SourceError as error:
        _check_fields_used(request, sources)  # a mistyped COLUMN explains a missing field best
        renamed = sorted(set().union(*(source.renamed for source in sources)))
        if renamed:
            given = "; ".join(
                f"--field {name}={column} renamed `{column}` to `{name}`"
                for name, column in request.fields.items()
                if column in renamed
            )
            error = SourceError(
                error.path,
                FixtureError(
                    f"{error.message} ({given}: {adapter.format} reads `{renamed[0]}` under its own name)",
                    code=error.code,
                    line=error.line,
                    column=error.column,
                ),
            )
        raise ImportFailed([(error.path, error)]) from None
    _check_fields_used(request, sources)
    if not drafts:
        raise _fail(sources[0].path, "no cases found: nothing to import", "no_cases")

    real = os.path.realpath  # never raises on a link loop (Path.resolve may): those were refused above
    given = {real(source.path) for source in sources}
    read = sources + [s for s in job.read_sources if real(s.path) not in given]
    dest_real = real(dest)
    for source in read:
        if real(source.path) == dest_real:
            raise _fail(dest, f"--out is a source of this import ({source.path}); sources are never written", "usage")

    dest_ref = relative_source(dest, request.repo_root)
    skill = request.skill or job.skill or c.infer_skill(dest_ref) or c.infer_skill(sources[0].ref)
    if not skill:
        raise _fail(dest, "cannot tell the skill of the imported cases: pass --skill NAME", "missing_skill")
    payload = assemble_payload(adapter, drafts, job, read, skill=skill, request=request)

    missing = missing_leaves([source.data for source in read], [payload])
    if missing:
        sample = ", ".join(repr(leaf if isinstance(leaf, str) else leaf[1]) for leaf in list(missing)[:3])
        raise _fail(
            dest,
            f"internal error: the import would lose {sum(missing.values())} value(s): {sample}; nothing written",
            "conservation",
        )
    _check_valid(payload, dest, dest_ref, request.repo_root, drafts)
    _warn_missing_refs(payload, request, note)

    try:
        old_bytes = read_fixture(dest, root=request.repo_root) if dest.exists() else None
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    new_bytes = render_onto(payload, dest, old_bytes, note)
    return ImportPlan(adapter, payload, new_bytes, old_bytes, len(drafts), notes)


def _assign_roles(
    sources: list[Source], adapters: Sequence[ImportAdapter], chosen: ImportAdapter | None
) -> ImportAdapter:
    """Set each source's role and return the one adapter of the import (see `detect_format`)."""
    errors: list[tuple[Path | str, FixtureError]] = []
    picked: list[tuple[Source, ImportAdapter]] = []
    for source in sources:
        try:
            if chosen is None:
                adapter, found = detect_format(source, adapters)
            else:
                _refuse_canonical(source)
                adapter, found = chosen, chosen.sniff(source) or Sniff("cases")
                if found.refusal:
                    raise source.error(f"refused: {found.refusal}", "refused")
                if not found.matched:
                    found = Sniff("cases")
        except SourceError as error:
            errors.append((error.path, error))
            continue
        source.role = found.role or "cases"
        picked.append((source, adapter))
    if errors:
        raise ImportFailed(errors)
    formats = {adapter.format for _, adapter in picked}
    if len(formats) > 1:
        listing = ", ".join(f"{source.path} is {adapter.format}" for source, adapter in picked)
        raise _fail("SRC", f"the sources are of different formats ({listing}); import them separately", "mixed_formats")
    return picked[0][1]


def assemble_payload(
    adapter: ImportAdapter,
    drafts: list[Draft],
    job: Job,
    read: list[Source],
    *,
    skill: str,
    request: ImportRequest,
) -> dict[str, Any]:
    """The canonical v1 payload of an import (member order: the contract's file keys, then
    each case as `id`, `input`, `coverage_tags`, `expected_outcome`, `boundary_note`,
    `forbidden_signals`, `source_refs`, `extensions`). A repeated id is made unique
    (`-2`, `-3`, ...) and the id as proposed is kept as `extensions.import.id`."""
    ids = unique_ids([draft.id for draft in drafts])
    cases = []
    for draft, case_id in zip(drafts, ids, strict=True):
        case = case_members(draft, case_id)
        case["source_refs"] = [draft.record.ref]
        record = draft.record
        extensions: dict[str, Any] = {
            "import": {
                "format": adapter.format,
                "source_file": record.source.ref,
                "locator": record.locator,
                "index": record.index,
            }
        }
        if case_id != draft.id:  # a repeat renamed `-2`, `-3`, ...: the id as the record gave it
            extensions["import"]["id"] = draft.id
        extensions.update(case_extensions(draft, adapter.namespace))
        case["extensions"] = extensions
        cases.append(case)
    payload: dict[str, Any] = {"schema_version": c.CANONICAL_SCHEMA_VERSION, "skill": skill}
    if job.description:
        payload["description"] = job.description
    payload["source_refs"] = c.unique([source.ref for source in read])
    payload["source_ref_authority"] = request.authority
    payload["coverage_tags"] = [adapter.tag]
    info: dict[str, Any] = {"format": adapter.format, "id_rule": adapter.id_rule}
    if request.fields:
        info["fields"] = dict(request.fields)
    file_extensions: dict[str, Any] = {"import": info}
    if job.extensions:
        file_extensions[adapter.namespace] = job.extensions
    payload["extensions"] = file_extensions
    payload["cases"] = cases
    _record_key_order(adapter, payload, drafts)
    return payload


def case_members(draft: Draft, case_id: str) -> dict[str, Any]:
    """`id`, `input`, then those of the draft's other core members it has, in contract order."""
    case: dict[str, Any] = {"id": case_id, "input": draft.input}
    if draft.tags:
        case["coverage_tags"] = c.unique(draft.tags)
    if draft.expected is not ABSENT:
        case["expected_outcome"] = draft.expected
    if draft.boundary_note:
        case["boundary_note"] = draft.boundary_note
    if draft.forbidden:
        case["forbidden_signals"] = c.unique(draft.forbidden)
    return case


def case_extensions(draft: Draft, namespace: str) -> dict[str, Any]:
    """The case's `extensions` as the adapter gave them: `shared`, then its namespace."""
    extensions = dict(draft.shared)
    if draft.extensions:
        extensions[namespace] = draft.extensions
    return extensions


def _record_key_order(adapter: ImportAdapter, payload: dict[str, Any], drafts: list[Draft]) -> None:
    """Add `extensions.import.keys` (the record's member order) to each case whose record an
    export would rebuild with its members in another order; nothing where it is the same."""
    if not getattr(adapter, "export_syntaxes", ()):
        return
    file = {key: value for key, value in payload.items() if key != "cases"}
    for case, draft in zip(payload["cases"], drafts, strict=True):
        source = draft.record.data
        if not isinstance(source, dict):
            continue
        context = ExportContext(file, draft.record.source.ref, draft.record.source.syntax, None)
        try:
            rebuilt = adapter.record_of(case, context)
        except Exception:  # noqa: BLE001 - a plugin's export may fail; the import does not depend on it
            continue
        if list(rebuilt) != list(source) and set(rebuilt) == set(source):
            case["extensions"]["import"]["keys"] = list(source)


def _check_valid(payload: dict[str, Any], dest: Path, dest_ref: str, root: Path, drafts: list[Draft]) -> None:
    """Refuse a payload whose cases fail validation (`validate --no-ref-check`)."""
    cases = normalize_payload(payload, source_file=dest_ref)
    errors = validate_cases(cases, RefChecker(root, check_exists=False))
    if not errors:
        return
    where = {case["id"]: draft.record for case, draft in zip(payload["cases"], drafts, strict=True)}
    found: list[tuple[Path | str, FixtureError]] = []
    for error in errors:
        record = where.get(error.get("id"))
        place: Path | str = record.source.path if record is not None else dest
        line = record.line if record is not None else None
        message = f"the imported case {error.get('id')!s} would not validate: {error['message']}"
        found.append((place, FixtureError(message, code=error["reason_code"], line=line)))
    raise ImportFailed(found)


def _warn_missing_refs(payload: dict[str, Any], request: ImportRequest, note: Callable[[str], None]) -> None:
    if request.authority != "source":
        return
    checker = RefChecker(request.repo_root)
    for ref in payload["source_refs"]:
        escapes, exists = checker.lookup(ref)
        if not exists:
            note(
                f"warning: source ref {ref} is not a file under {request.repo_root}; `validate` will report "
                "source_ref_missing (use --source-ref-authority historical or advisory for a source that will not stay)"
            )


# --- rendering ---------------------------------------------------------------------------


def render_new(payload: dict[str, Any]) -> bytes:
    """A new canonical file: two-space indented JSON, non-ASCII written as is, final newline."""
    import json

    return (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def same_data(a: Any, b: Any) -> bool:
    """True when two parsed JSON values are equal with their types (`1`, `1.0` and `true` differ);
    member order is not compared."""
    # Python's `==` (in C) settles most comparisons; only values it finds equal are
    # serialized, because it also finds `1`, `1.0` and `True` equal.
    return a == b and canonical_json(a) == canonical_json(b)


def render_onto(payload: dict[str, Any], dest: Path, old_bytes: bytes | None, note: Callable[[str], None]) -> bytes:
    """The bytes DEST should hold: `old_bytes` when they hold the payload already; the existing
    text edited in place when they differ; a new file when there is none.

    Raises `ImportFailed` when DEST exists but is not a canonical v1 JSON file (it is never
    overwritten then: it may hold someone's data).
    """
    if old_bytes is None:
        return render_new(payload)
    from fixture_migrate.formats.json_format import JsonDocument, parse_json

    try:
        document = JsonDocument(dest, old_bytes)
    except FixtureError as error:
        raise ImportFailed(
            [
                (
                    dest,
                    FixtureError(
                        f"--out exists and is not a fixture file: {error.message}; not overwritten",
                        code=error.code,
                        line=error.line,
                        column=error.column,
                    ),
                )
            ]
        ) from None
    if not document.units:
        raise _fail(
            dest,
            "--out exists and is not a fixture file (it holds no JSON object); not overwritten",
            "dest_not_fixture",
        )
    old = document.units[0].data
    if old.get("schema_version") != c.CANONICAL_SCHEMA_VERSION:
        raise _fail(dest, "--out exists and is not a canonical v1 file; not overwritten", "dest_not_canonical")
    # Only a file an import wrote is replaced: a hand-written fixture at DEST would lose its cases.
    extensions = old.get("extensions")
    info = extensions.get("import") if isinstance(extensions, dict) else None
    fmt = payload["extensions"]["import"]["format"]
    if not isinstance(info, dict) or "format" not in info:
        raise _fail(
            dest,
            "--out exists and was not written by `fixture-migrate import`; not overwritten (choose another --out)",
            "dest_not_imported",
        )
    if info["format"] != fmt:
        raise _fail(
            dest, f"--out holds an import from {info['format']!s}, not {fmt}; not overwritten", "dest_other_format"
        )
    if same_data(old, payload):
        return old_bytes
    if old_bytes == render_new(old):
        # DEST is in the layout an import writes: the edit in place gives exactly a fresh
        # render (tests/importing/test_pipeline.py pins this), without the span parse of the old text.
        return render_new(payload)
    new_bytes = document.render([merge_target(payload, old)])
    try:
        kept = same_data(parse_json(new_bytes.removeprefix(b"\xef\xbb\xbf")), payload)
    except FixtureError:
        kept = False
    if not kept:
        note(f"{dest}: its layout could not be kept; written in the default layout")
        return render_new(payload)
    return new_bytes


def merge_target(new: Any, old: Any, path: tuple[str | int, ...] = ()) -> Node:
    """A target tree that turns the `old` data (parsed DEST) into `new`, reusing every
    old value that stays (`Src`), so the writer keeps its text. Objects are edited member
    by member; arrays of cases are matched by `id`, other arrays by content."""
    if same_data(new, old):
        return Src(path)
    if isinstance(new, dict) and isinstance(old, dict):
        return Obj(
            [
                (key, merge_target(value, old[key], path + (key,)) if key in old else Val(value))
                for key, value in new.items()
            ],
            origin=path,
        )
    if isinstance(new, list) and isinstance(old, list):
        return Arr(_align(new, old, path), origin=path)
    return Val(new)


def _align(new: list[Any], old: list[Any], path: tuple[str | int, ...]) -> list[Node]:
    def ids(items: list[Any]) -> list[Any]:
        return [item.get("id") if isinstance(item, dict) else None for item in items]

    old_ids = ids(old)
    if old and all(isinstance(i, str) for i in old_ids) and len(set(old_ids)) == len(old_ids):
        position = {case_id: index for index, case_id in enumerate(old_ids)}
        items: list[Node] = []
        for item in new:
            index = position.get(item.get("id")) if isinstance(item, dict) else None
            items.append(Val(item) if index is None else merge_target(item, old[index], path + (index,)))
        return items
    matcher = difflib.SequenceMatcher(
        None, [canonical_json(x) for x in old], [canonical_json(x) for x in new], autojunk=False
    )
    items = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(j2 - j1):
            if tag == "equal":
                items.append(Src(path + (i1 + k,)))
            elif tag == "replace" and i1 + k < i2:
                items.append(merge_target(new[j1 + k], old[i1 + k], path + (i1 + k,)))
            else:
                items.append(Val(new[j1 + k]))
    return items


__all__ = [
    "ImportFailed",
    "ImportPlan",
    "ImportRequest",
    "detect_format",
    "find_adapter",
    "import_adapters",
    "merge_target",
    "plan_import",
    "read_sources",
    "render_new",
    "syntax_for",
    "is_lfs_pointer",
]
