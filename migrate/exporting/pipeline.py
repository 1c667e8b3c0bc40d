"""`fixture-migrate export`: canonical v1 files become one native file of another eval tool.

```
PATHS... ─► canonical v1 JSON (read, never written; validated: exporting.checks)
         ─► per case: imported from the target format, and unchanged (rederive)?
                 yes ─► adapter.record_of (its record back)
                 edited ─► adapter.map_case onto the record (+ loss report)
                 else ─► adapter.map_case (+ loss report)
         ─► adapter.export_document ─► exporting.native (jsonl · json · csv · yaml)
         ─► DEST unchanged when its data is the same ─► diff / check / atomic write
```

- **Records come back.** A case whose `extensions.import.format` is the target's, and
  which is still what importing its record gives (`exporting.rederive`; else it is
  mapped onto the record: the canonical file wins), is rebuilt from what the import kept (`extensions.<format>`, `extensions.import`), with
  the members renamed back by the file's `--field` mapping and in the source's order.
  An export onto the file the cases came from leaves it untouched when the data is
  the same (its bytes, layout and comments stay); a new file is written in the layout
  of `exporting.native`.
- **Other cases are mapped** by the adapter (README "Importing and exporting" has the
  table per format); whatever the target cannot hold is a `Loss`: printed on stderr,
  listed in `--output-format json`, an error with `--strict` (exit 2, nothing written).
- **Safety.** The canonical files are only read. DEST is written with the same atomic
  write as `migrate` and `import`; it is refused when it is one of PATHS, holds a
  canonical v1 file, or is not export's own earlier output (`exporting.checks`; `--force`
  replaces it, its records listed as losses). `--diff` prints the unified diff and `--check` exits 1 when DEST
  would change; neither writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.errors import FixtureError
from fixture_migrate.exporting.checks import (
    csv_losses,
    file_losses,
    read_records,
    refuse_canonical_dest,
    refuse_different_files,
    refuse_foreign_dest,
    refuse_invalid,
)
from fixture_migrate.exporting.losses import LossReport
from fixture_migrate.exporting.native import render
from fixture_migrate.exporting.rederive import derive, unchanged
from fixture_migrate.files.reads import read_fixture
from fixture_migrate.files.root import check_inside, resolve_target
from fixture_migrate.importing.base import (
    ABSENT,
    DROPPED,
    ExportContext,
    ImportAdapter,
    extension,
    imported_from,
    in_key_order,
    origin_syntax,
)
from fixture_migrate.importing.pipeline import ImportFailed, find_adapter, import_adapters, same_data
from fixture_migrate.importing.readers import syntax_for


@dataclass(frozen=True)
class ExportRequest:
    """One `fixture-migrate export` run: canonical `paths`, the `target` format, the native
    file `dest`; `check`/`diff` as for `migrate` (either writes nothing); `strict` makes
    any loss an error; `force` replaces a DEST export cannot show it wrote."""

    paths: Sequence[Path]
    target: str
    dest: Path
    repo_root: Path
    check: bool = False
    diff: bool = False
    strict: bool = False
    config_path: Path | None = None
    force: bool = False
    """Replace a DEST that is not this export's own earlier output, listing its replaced
    records as losses (`exporting.checks.refuse_foreign_dest`)."""
    root_given: bool = False  # the root was named (see `files.root.check_inside`)


@dataclass
class ExportPlan:
    """What an export would write: `new_bytes` for DEST (`old_bytes` its bytes or None)."""

    adapter: ImportAdapter
    new_bytes: bytes
    old_bytes: bytes | None
    cases: int
    restored: int
    losses: LossReport
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Validation errors of PATHS that did not stop the export, one line each."""

    @property
    def changed(self) -> bool:
        return self.new_bytes != self.old_bytes


def _fail(path: Path | str, message: str, code: str) -> ImportFailed:
    return ImportFailed([(path, FixtureError(message, code=code))])


def export_adapter(name: str, repo_root: Path, config_path: Path | None = None) -> ImportAdapter:
    """The adapter that writes format `name`; raises `ImportFailed` (usage) otherwise."""
    adapters = [a for a in import_adapters(repo_root, config_path) if getattr(a, "export_syntaxes", ())]
    try:
        return find_adapter(adapters, name)
    except ImportFailed:
        known = ", ".join(sorted(a.format for a in adapters))
        raise _fail("--to", f"cannot export to {name!r}; formats: {known}", "usage") from None


def read_canonical(path: Path, root: Path | None = None) -> dict[str, Any]:
    """A canonical v1 file (JSON), read under the root rule with `root`; raises `ImportFailed`
    for anything else."""
    from fixture_migrate.formats.json_format import parse_json

    try:
        data = parse_json(read_fixture(path, root=root).removeprefix(b"\xef\xbb\xbf"))
    except FixtureError as error:
        raise ImportFailed([(path, error)]) from None
    if not isinstance(data, dict) or data.get("schema_version") != c.CANONICAL_SCHEMA_VERSION:
        raise _fail(
            path, "not a canonical v1 file: export reads canonical fixtures (import or migrate first)", "not_canonical"
        )
    if not isinstance(data.get("cases"), list):
        raise _fail(path, "the canonical file has no `cases` list", "not_canonical")
    return data


def plan_export(request: ExportRequest) -> ExportPlan:
    """Work out DEST's bytes and the loss report, writing nothing; raises `ImportFailed`."""
    adapter = export_adapter(request.target, request.repo_root, request.config_path)
    dest = request.dest
    syntax = syntax_for(dest)
    if syntax not in adapter.export_syntaxes:
        suffixes = ", ".join(f".{s}" if s != "yaml" else ".yaml/.yml" for s in adapter.export_syntaxes)
        raise _fail(dest, f"--out for {adapter.format} must end in {suffixes}", "usage")
    if dest.exists() and not dest.is_file():
        raise _fail(dest, "--out names a directory; give a file path", "usage")
    try:
        # As `migrate` and `import` write: never through a symlink leading outside the repo root.
        check_inside(dest, request.repo_root, root_given=request.root_given)
        resolve_target(dest, request.repo_root)
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    refused = []
    for path in request.paths:
        try:
            # PATHS are read under the same rule as every other path named: inside the root.
            check_inside(path, request.repo_root, root_given=request.root_given)
        except FixtureError as error:
            refused.append((path, error))
    if refused:
        raise ImportFailed(refused)
    real_dest = dest.resolve()
    for path in request.paths:
        if path.resolve() == real_dest:
            raise _fail(dest, "--out is one of the canonical files read; it is never written", "usage")
    # Not canonical v1: said as such first, before validation.
    documents = [read_canonical(path, request.repo_root) for path in request.paths]
    warnings = refuse_invalid(request.paths, request.repo_root, strict=request.strict)
    losses = LossReport(adapter.format)
    records: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    contexts: list[ExportContext] = []
    restored = 0
    verbatim: list[bool] = []
    edited: list[str] = []
    files: list[dict[str, Any]] = []
    imported: list[tuple[dict[str, Any], ExportContext]] = []
    for path, data in zip(request.paths, documents, strict=True):
        file = {key: value for key, value in data.items() if key != "cases"}
        files.append(file)
        context = ExportContext(file, path.as_posix(), syntax, losses)
        contexts.append(context)
        file_losses(adapter, file, context)
        for index, case in enumerate(data["cases"]):
            if not isinstance(case, dict):
                raise _fail(path, f"case {index} is not an object", "case_not_object")
            if not isinstance(case.get("id"), str) or not case["id"].strip():
                # validation reads such a case under a generated id; the export would write the
                # raw value (null, a number) as the record's id: give the case its id first.
                raise _fail(
                    path, f"case {index} has no `id` string ({json.dumps(case.get('id'))}): give it one", "missing_id"
                )
            cases.append(case)
            if imported_from(case) == adapter.format:
                imported.append((case, context))
                derived = derive(adapter, case, file, request.repo_root, path.as_posix(), dest)
                if unchanged(adapter, case, derived):
                    records.append(_restored(adapter, case, context))
                    restored += 1
                    verbatim.append(True)
                    continue
                edited.append(str(case.get("id")))
                records.append(_mapped_onto(adapter, case, context, derived))
            else:
                records.append(adapter.map_case(case, context))
            verbatim.append(False)
    if not records:
        raise _fail(request.paths[0] if request.paths else dest, "no cases to export", "no_cases")
    refuse_different_files(adapter, request.paths, files)
    contexts[0].cases = cases
    contexts[0].verbatim = verbatim
    contexts[0].dest_name = dest.name
    contexts[0].dest = dest
    try:
        document = adapter.export_document(records, contexts[0])
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    if syntax == "csv" and isinstance(document, list):
        contexts[0].empty_cell_is_absent = adapter.format == "deepeval"  # its loader reads "" as None
        csv_losses(document, cases, contexts[0])
    new_bytes = render(syntax, document)
    # A case left out of DEST by `export_document` is a `dropped` loss of the field `case`.
    left_out = sum(1 for loss in losses.losses if loss.field == "case" and loss.kind == DROPPED)
    notes = [
        f"{len(records)} case(s) to {dest.as_posix()} ({adapter.format}): {restored} as imported, "
        f"{len(records) - restored} mapped"
    ]
    if edited:
        shown = ", ".join(edited[:5]) + (", ..." if len(edited) > 5 else "")
        notes.append(
            f"{len(edited)} imported case(s) differ from what their kept record gives (edited since the import): "
            f"mapped from their current fields onto the record: {shown}"
        )
    try:
        old_bytes = read_fixture(dest, root=request.repo_root) if dest.exists() else None
    except FixtureError as error:
        raise ImportFailed([(dest, error)]) from None
    if old_bytes is not None:
        refuse_canonical_dest(dest, old_bytes)
        if _same_native(dest, old_bytes, new_bytes, syntax):
            new_bytes = old_bytes
        else:
            known = read_records(adapter, dest, new_bytes, syntax, request.repo_root)
            known += _imported_records(adapter, imported)
            refuse_foreign_dest(
                adapter, dest, old_bytes, syntax, known, request.repo_root, force=request.force, losses=losses
            )
    return ExportPlan(adapter, new_bytes, old_bytes, len(records) - left_out, restored, losses, notes, warnings)


def _imported_records(adapter: ImportAdapter, imported: list[tuple[dict[str, Any], ExportContext]]) -> list[Any]:
    """The records the imported cases were imported from (what the import kept), as DEST's
    syntax holds them and as the source's syntax held them (a CSV row of a tests file a
    promptfoo config names)."""
    records = []
    for case, context in imported:
        origin = origin_syntax(case)
        contexts = [context]
        if origin is not None and origin != context.syntax:
            contexts.append(ExportContext(context.file, context.shown, origin, None))
        for each in contexts:
            try:
                records.append(_restored(adapter, case, each))
            except Exception:  # noqa: BLE001 - no usable kept record: nothing known of it
                continue
    return records


def _restored(adapter: ImportAdapter, case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    # The member order was recorded under the names the import read (after --field renames).
    record = in_key_order(adapter.record_of(case, context), case)
    fields = context.file.get("extensions", {}).get("import", {}).get("fields")
    if isinstance(fields, dict) and fields:
        columns = {name: column for name, column in fields.items() if isinstance(column, str)}
        record = {columns.get(key, key): value for key, value in record.items()}
    return record


def _mapped_onto(
    adapter: ImportAdapter, case: dict[str, Any], context: ExportContext, derived: dict[str, Any] | None
) -> dict[str, Any]:
    """An imported case edited since the import: its current fields mapped by the adapter,
    onto the kept record (the record's other members stay; metadata objects are merged;
    the members that carry a field the edit left as the record gives it stay as written,
    so an edited outcome does not rewrite the input's vars).
    The import's own bookkeeping (`extensions.import`, the record under
    `extensions.<format>`, the source ref of the record) is not written again."""
    info = extension(case, "import")
    bare = {key: value for key, value in case.items() if key != "extensions"}
    extensions = {
        key: value for key, value in (case.get("extensions") or {}).items() if key not in ("import", adapter.namespace)
    }
    if extensions:
        bare["extensions"] = extensions
    ref = f"{info.get('source_file')}#{info.get('locator')}"
    if isinstance(bare.get("source_refs"), list):
        refs = [r for r in bare["source_refs"] if r != ref]
        if refs:
            bare["source_refs"] = refs
        else:
            bare.pop("source_refs")
    mapped = adapter.map_case(bare, context)
    try:
        record = _restored(adapter, case, context) if extension(case, adapter.namespace) else {}
    except Exception:  # noqa: BLE001 - no usable record: the mapped case alone
        record = {}
    if not isinstance(record, dict) or context.syntax == "csv":
        return mapped
    kept: set[str] = set()
    for fields, members in CARRIERS.get(adapter.format, ()):
        if derived is not None and all(case.get(f, ABSENT) == derived.get(f, ABSENT) for f in fields):
            kept.update(member for member in members if member in record)
    defaults = extension(case, adapter.namespace).get("default_asserts")
    expected = case.get("expected_outcome")
    if adapter.format == "promptfoo" and isinstance(defaults, int) and isinstance(mapped.get("assert"), list):
        # promptfoo applies defaultTest's assertions again: they are not written twice.
        if isinstance(expected, list) and mapped["assert"][:defaults] == expected[:defaults]:
            mapped["assert"] = mapped["assert"][defaults:]
            if not mapped["assert"]:
                del mapped["assert"]
        elif defaults:  # the outcome no longer holds them: they must not apply
            mapped["options"] = {**(record.get("options") or {}), "disableDefaultAsserts": True}
            kept.discard("options")
    merged = dict(record)
    for key, value in mapped.items():
        if key in kept:
            continue
        old = merged.get(key)
        if key in META_MEMBERS and isinstance(old, dict) and isinstance(value, dict):
            merged[key] = {**old, **value}
        else:
            merged[key] = value
    return merged


CARRIERS: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "promptfoo": ((("input",), ("vars",)), (("expected_outcome", "forbidden_signals"), ("assert",))),
    "inspect": ((("input",), ("input",)), (("expected_outcome",), ("target",))),
    "openai-evals": ((("input",), ("input",)), (("expected_outcome",), ("ideal",))),
    "langsmith": ((("input",), ("inputs",)), (("expected_outcome",), ("outputs",))),
    "deepeval": ((("input",), ("input",)), (("expected_outcome",), ("expected_output",))),
    "skill-creator": ((("input",), ("prompt",)), (("expected_outcome", "forbidden_signals"), ("expectations",))),
}
"""Per format: (canonical fields, the record members that carry them). When a case's
fields are what its record gives, those members are kept as written, not re-mapped."""

META_MEMBERS = ("metadata", "additional_metadata", "additionalMetadata")
"""Record members that are metadata objects: the kept one and the mapped one are merged."""


def _same_native(dest: Path, old_bytes: bytes, new_bytes: bytes, syntax: str) -> bool:
    """True when DEST already holds the data of `new_bytes` (read as an import reads it)."""
    if old_bytes == new_bytes:
        return True
    from fixture_migrate.importing.readers import SourceError, read_source

    try:
        old = read_source(dest, dest.name, old_bytes, syntax=syntax)
        new = read_source(dest, dest.name, new_bytes, syntax=syntax)
    except SourceError:
        return False
    return same_data(old.data, new.data) and old.header == new.header


__all__ = ["ExportPlan", "ExportRequest", "export_adapter", "plan_export", "read_canonical"]
